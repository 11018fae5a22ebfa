"""URL identity: the one canonical form a source is stored and looked up under.

Two spellings of the same page must get the same ledger id, or a draft ends up citing one page
twice under two numbers. The rules, in order:

- ``doi:10.x/y`` and DOI URLs (``doi.org``, ``dx.doi.org``, any scheme) become
  ``https://doi.org/10.x/y``; ``arXiv:2401.01234`` becomes ``https://arxiv.org/abs/2401.01234``.
- Anything else must be an absolute http(s) URL with a host. ``javascript:``, ``data:``,
  ``file:``, ``mailto:``, bare words and an empty host are refused (``BadURL``): a ledger entry
  is a promise that a reader can open the page.
- The fragment is dropped (it selects a place in the page, not another page), trailing slashes
  of the path are dropped, scheme and host are lower-cased, a default port is dropped.
- The query is kept (it usually selects different content) and the path keeps its case
  (servers are case-sensitive).

``normalize_url`` is idempotent: a stored URL normalises to itself.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit, urlunsplit

from ..errors import BadURL

_DEFAULT_PORTS = {"http": "80", "https": "443"}
_DOI_PREFIX = re.compile(r"^doi:\s*", re.IGNORECASE)
_DOI_HOSTS = {"doi.org", "dx.doi.org", "www.doi.org"}
_ARXIV_PREFIX = re.compile(r"^arxiv:\s*", re.IGNORECASE)
# New-style ids (2401.01234, optional version) and old-style ones (hep-th/9901001, math.GT/0309136).
_ARXIV_ID = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_BAD_CHARS = re.compile(r"[\s\x00-\x1f\x7f]")
# Characters a DOI may carry that still have to be percent-encoded inside a URL path.
_DOI_SAFE = "/:;()[]._-~!$&'*+,=@<>"

_FIX = "give a full http(s) URL, a doi:10.x/y or an arXiv:NNNN.NNNNN id"
# URLs already in canonical form (lower-case ASCII host, no port, user, fragment or trailing
# slash, printable ASCII): returned as they are. Every stored URL takes this path when a ledger
# is indexed, which keeps loading a 10,000-source ledger cheap. DOI hosts always take the full
# path (http://doi.org becomes https).
_CANONICAL = re.compile(
    r"https?://(?!(?:dx\.|www\.)?doi\.org(?:[/?]|$))[a-z0-9-]+(?:\.[a-z0-9-]+)*"
    r"(?:/[\x21\x24-\x3e\x40-\x7e]*[\x21\x24-\x2e\x30-\x3e\x40-\x7e])?"
    r"(?:\?[\x21\x24-\x7e]+)?"
)


def normalize_url(raw: str) -> str:
    """Return the canonical ledger form of ``raw`` or raise ``BadURL`` saying why not."""
    text = (raw or "").strip()
    if _CANONICAL.fullmatch(text):
        return text
    return _normalize(text)


def _normalize(text: str) -> str:
    if not text:
        raise BadURL("empty URL", hint=_FIX)
    shown = text if len(text) <= 80 else text[:77] + "..."
    if _DOI_PREFIX.match(text):
        return _doi_url(_DOI_PREFIX.sub("", text), shown)
    if _ARXIV_PREFIX.match(text):
        ident = _ARXIV_PREFIX.sub("", text)
        if not _ARXIV_ID.match(ident):
            raise BadURL(f"{shown!r} is not an arXiv id", hint="write it like arXiv:2401.01234")
        return f"https://arxiv.org/abs/{ident}"
    if _BAD_CHARS.search(text):
        raise BadURL(
            f"URL {shown!r} contains whitespace or control characters",
            hint="percent-encode them (a space is %20)",
        )
    scheme_match = _SCHEME.match(text)
    if scheme_match is None:
        looks_like_host = re.match(r"^[\w-]+(\.[\w-]+)+(/|$)", text)
        hint = f"did you mean https://{text}?" if looks_like_host else _FIX
        raise BadURL(f"{shown!r} is not a URL (no scheme)", hint=hint)
    scheme = scheme_match.group(1).lower()
    if scheme not in _DEFAULT_PORTS:
        raise BadURL(f"refusing {scheme}: URL {shown!r}: only http(s) sources", hint=_FIX)
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise BadURL(f"URL {shown!r} is malformed ({exc})", hint=_FIX) from None
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise BadURL(f"URL {shown!r} has no host", hint=_FIX)
    if ":" in host:
        host = f"[{host}]"
    netloc = host
    if port is not None and str(port) != _DEFAULT_PORTS[scheme]:
        netloc = f"{host}:{port}"
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at:
        netloc = f"{userinfo}@{netloc}"
    path = parts.path.rstrip("/")
    if host in _DOI_HOSTS and path.startswith("/10."):
        return urlunsplit(("https", "doi.org", path, parts.query, ""))
    return urlunsplit((scheme, netloc, path, parts.query, ""))


def _doi_url(doi: str, shown: str) -> str:
    if not doi.startswith("10.") or "/" not in doi or _BAD_CHARS.search(doi):
        raise BadURL(f"{shown!r} is not a DOI", hint="write it like doi:10.1000/xyz123")
    return "https://doi.org/" + quote(doi.rstrip("/"), safe=_DOI_SAFE)


def url_key(url: str) -> str:
    """The lookup key of a stored URL: its canonical form. A ledger carried over from
    sources.py may hold text that is not a URL (``example.com/page``); it must still be found,
    under sources.py's own identity for it: stripped, fragment and trailing slashes dropped."""
    try:
        return normalize_url(url)
    except BadURL:
        text = (url or "").strip().split("#", 1)[0]
        return text.rstrip("/") or text
