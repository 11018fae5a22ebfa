"""URL identity: the one canonical form a source is stored and looked up under.

Two spellings of the same page must get the same ledger id, or a draft ends up citing one page
twice under two numbers; and a URL is web content an attacker can choose, published into HTML,
wiki pages, LaTeX and Word files, so what a browser or TeX would read differently from what the
ledger shows is refused or encoded here, once. The rules, in order:

- ``doi:10.x/y`` and DOI URLs (``doi.org``, ``dx.doi.org``, any scheme) become
  ``https://doi.org/10.x/y``; ``arXiv:2401.01234`` becomes ``https://arxiv.org/abs/2401.01234``.
- Anything else must be an absolute http(s) URL with a host. ``javascript:``, ``data:``,
  ``file:``, ``mailto:``, bare words and an empty host are refused (``BadURL``): a ledger entry
  is a promise that a reader can open the page.
- Refused because a browser would open another page than the one shown: a user name or password
  before the host (``https://good.example@evil.example``), a backslash (browsers read it as
  ``/``, so ``https://evil.example\\@good.example`` opens evil.example), port 0; refused because
  they hide what the text says: control characters (C0, C1), white space, bidirectional
  controls and zero-width characters; longer than :data:`MAX_URL_LENGTH` characters.
- The host is IDNA-folded and stored in its ASCII form: full-width letters fold to ASCII
  (``https://ｅｖｉｌ.com`` is ``https://evil.com``) and a non-ASCII host is stored as
  punycode (``xn--...``), so a look-alike host shows as what it is.
- ``" < > ` { } | ^ [ ]`` in the path or query are percent-encoded (the same page to any
  server; raw, they end links in markdown, wiki and TeX syntax), as is a ``%`` that starts no
  escape. Other non-ASCII text in the path stays as written (a reader sees the page's name).
- The fragment is dropped (it selects a place in the page, not another page), scheme and host
  are lower-cased, a default port is dropped. A trailing slash of the path is kept as written
  (``/docs/`` is another resource than ``/docs`` to many servers, and a reader opens the
  address registered) but for the root's (``https://host/`` is ``https://host``); identity
  (:func:`url_key`) folds it, so both spellings keep one id.
- The query is kept (it usually selects different content), but for its tracking parameters
  (``utm_*``, ``gclid``, ``fbclid``, ``mc_eid`` and the others of :data:`TRACKING`): they say who
  sent the reader, not which page, and a search API appends them (``?utm_source=openai``), so
  without this rule one page got a second id. A ledger entry stored with them is found by its
  clean form. The path keeps its case (servers are case-sensitive).

``normalize_url`` is idempotent: a stored URL normalises to itself. A ledger read from disk is
checked entry by entry (:func:`stored_url_problem`), not only what ``add`` lets in: a
hand-edited or merged ledger gets the same scrutiny.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from ..errors import BadURL
from .light import pattern  # compiled on first use: start-up time

MAX_URL_LENGTH = 4096
_DEFAULT_PORTS = {"http": "80", "https": "443"}
_DOI_PREFIX = pattern(r"^doi:\s*", re.IGNORECASE)
_DOI_HOSTS = {"doi.org", "dx.doi.org", "www.doi.org"}
_ARXIV_PREFIX = pattern(r"^arxiv:\s*", re.IGNORECASE)
# New-style ids (2401.01234, optional version) and old-style ones (hep-th/9901001, math.GT/0309136).
_ARXIV_ID = pattern(r"^(?:\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$")
_SCHEME = pattern(r"^([A-Za-z][A-Za-z0-9+.-]*):")
# Characters no URL may hold: white space, C0 and C1 controls, bidirectional controls, zero-width
# characters, surrogates (undecodable input) and the BOM.
_BAD_CHARS = pattern(
    "[\\s\\x00-\\x1f\\x7f-\\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"
    "\ud800-\udfff\ufff0-\uffff]"
)
# Labels as browsers take them (hyphens anywhere, underscores: DNS names in the wild have both).
_HOST = pattern(r"^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$")
# Characters a DOI may carry that still have to be percent-encoded inside a URL path.
_DOI_SAFE = "/:;()._-~!$&'*+,=@"
_ESCAPE = pattern(r"%[0-9a-f][0-9A-Fa-f]|%[0-9A-F][a-f]")
_LONE_PERCENT = pattern(r"%(?![0-9A-Fa-f]{2})")
_UNSAFE_ASCII = pattern(r"[\"<>`{}|^\[\]\\]")

_FIX = "give a full http(s) URL, a doi:10.x/y or an arXiv:NNNN.NNNNN id"
# URLs already in canonical form (lower-case ASCII host, no port, user, fragment or trailing
# slash, only characters that need no encoding, every % starting an upper-case escape): returned
# as they are. Every stored URL is checked against it when a ledger is read, so it is written
# as runs of one character class each (sre's fastest loop) and the escapes checked apart. DOI
# hosts always take the full path (http://doi.org becomes https).
_URL_CHARS = r"A-Za-z0-9\-._~!$&'()*+,;=:@%"
_CANONICAL_ONE = (
    r"https?://(?!(?:dx\.|www\.)?doi\.org(?:[/?\n]|$))[a-z0-9-]+(?:\.[a-z0-9-]+)*"
    rf"(?:/[{_URL_CHARS}/]*[{_URL_CHARS}])?(?:\?[{_URL_CHARS}/?]+)?"
)
_CANONICAL = pattern(_CANONICAL_ONE)
# A whole ledger's URLs, one a line: one pass of compiled code instead of one call per source.
_CANONICAL_LINES = pattern(rf"(?:{_CANONICAL_ONE}\n)*{_CANONICAL_ONE}")
_BAD_ESCAPE = pattern(r"%(?![0-9A-F]{2})")
# What sources.py stored when someone added a bare domain (``example.com/page``): such entries
# load, and ``add`` finds them, but they are not URLs a reader can open (verify says so when
# one is cited). Nothing here could be read as a scheme by a browser.
_LEGACY = pattern(r"[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)+(?:/[!#-~]*)?")


# Query parameters that record who sent the reader, not which page: names compared in lower case;
# ``utm_`` is a prefix (utm_source, utm_medium, utm_campaign, utm_term, utm_content, ...).
TRACKING = frozenset(
    {
        *("gclid", "gclsrc", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "yclid"),
        *("mc_eid", "mc_cid", "_ga", "_gl", "igshid", "twclid", "ttclid", "li_fat_id"),
        *("mkt_tok", "_hsenc", "_hsmi", "srsltid", "oly_enc_id", "oly_anon_id", "vero_id"),
        *("ref_src", "_openstat"),
    }
)
_TRACKING_HINT = pattern(
    r"(?:^|[?&])(?:utm_|gclid|gclsrc|dclid|gbraid|wbraid|fbclid|msclkid|yclid|mc_eid|mc_cid|_ga"
    r"|_gl|igshid|twclid|ttclid|li_fat_id|mkt_tok|_hs|srsltid|oly_|vero_id|ref_src|_openstat)",
    re.IGNORECASE,
)


def normalize_url(raw: str) -> str:
    """Return the canonical ledger form of ``raw`` or raise ``BadURL`` saying why not."""
    text = (raw or "").strip()
    if is_canonical(text):
        if "?" in text and _TRACKING_HINT.search(text):
            base, _q, query = text.partition("?")
            query = drop_tracking(query)
            return f"{base}?{query}" if query else base
        return text
    base, mark, query = text.partition("?")
    if base.endswith("/"):
        # Canonical but for the path's trailing slash, which stays (the root's aside): as fast
        # as a canonical URL, since a ledger of such URLs is checked one by one when it loads.
        trimmed = base.rstrip("/")
        if trimmed.find("/", 8) > 0 and is_canonical(trimmed + mark + query):
            kept = drop_tracking(query) if query else query
            return f"{base}?{kept}" if kept else base
    return _normalize(text)


def is_canonical(text: str) -> bool:
    """Whether ``text`` is a URL in the canonical form :func:`normalize_url` returns as it is
    (but for tracking parameters, which it still drops)."""
    return (
        len(text) <= MAX_URL_LENGTH
        and _CANONICAL.fullmatch(text) is not None
        and ("%" not in text or _BAD_ESCAPE.search(text) is None)
    )


def all_canonical(urls: list[str]) -> bool:
    """Whether every one of ``urls`` passes :func:`is_canonical`, checked in one pass over
    them joined a line each (no canonical URL holds a line break, and a URL that does fails
    the count); False sends the caller to the check of each."""
    if not urls:
        return True
    joined = "\n".join(urls)
    return (
        joined.count("\n") == len(urls) - 1
        and max(map(len, urls)) <= MAX_URL_LENGTH
        and _CANONICAL_LINES.fullmatch(joined) is not None
        and ("%" not in joined or _BAD_ESCAPE.search(joined) is None)
    )


def any_tracking(urls: list[str]) -> bool:
    """Whether any of ``urls`` may carry a tracking parameter (:data:`TRACKING`): when none
    does, each canonical one is its own lookup key (:func:`url_key`)."""
    joined = "\n".join(urls)
    return "?" in joined and _TRACKING_HINT.search(joined) is not None


def drop_tracking(query: str) -> str:
    """``query`` without its tracking parameters (:data:`TRACKING`), the others as written."""
    if not _TRACKING_HINT.search(query):
        return query
    kept = []
    for param in query.split("&"):
        name = unquote(param.partition("=")[0]).strip().lower()
        if not param or name.startswith("utm_") or name in TRACKING:
            continue
        kept.append(param)
    return "&".join(kept)


def shown(text: str) -> str:
    """``text`` as a message shows it: at most 80 characters, controls escaped."""
    short = text if len(text) <= 80 else text[:77] + "..."
    return repr(short)


def _normalize(text: str) -> str:
    if not text:
        raise BadURL("empty URL", hint=_FIX)
    if len(text) > MAX_URL_LENGTH:
        raise BadURL(
            f"URL {shown(text)} is {len(text)} characters long",
            hint=f"a ledger keeps URLs of up to {MAX_URL_LENGTH} characters; cite a shorter one",
        )
    if _DOI_PREFIX.match(text):
        return _doi_url(_DOI_PREFIX.sub("", text), text)
    if _ARXIV_PREFIX.match(text):
        ident = _ARXIV_PREFIX.sub("", text)
        if not _ARXIV_ID.match(ident):
            raise BadURL(f"{shown(text)} is not an arXiv id", hint="write it like arXiv:2401.01234")
        return f"https://arxiv.org/abs/{ident}"
    if _BAD_CHARS.search(text):
        raise BadURL(
            f"URL {shown(text)} contains white space, control, bidirectional or zero-width "
            "characters",
            hint="percent-encode them (a space is %20), or copy the URL from the address bar",
        )
    scheme_match = _SCHEME.match(text)
    if scheme_match is None:
        looks_like_host = re.match(r"^[\w-]+(\.[\w-]+)+(/|$)", text)
        hint = f"did you mean https://{text}?" if looks_like_host else _FIX
        raise BadURL(f"{shown(text)} is not a URL (no scheme)", hint=hint)
    scheme = scheme_match.group(1).lower()
    if scheme not in _DEFAULT_PORTS:
        raise BadURL(f"refusing {scheme}: URL {shown(text)}: only http(s) sources", hint=_FIX)
    if "\\" in text:
        raise BadURL(
            f"URL {shown(text)} contains a backslash, which browsers read as /",
            hint="write / or %5C for what the page really uses",
        )
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise BadURL(f"URL {shown(text)} is malformed ({exc})", hint=_FIX) from None
    if "@" in parts.netloc:
        raise BadURL(
            f"URL {shown(text)} carries a user name before the host",
            hint="drop the part before @: browsers open the host after it",
        )
    if port == 0:
        raise BadURL(f"URL {shown(text)} names port 0", hint="drop the port or give the real one")
    host = _fold_host(parts.hostname or "", text)
    netloc = host
    if port is not None and str(port) != _DEFAULT_PORTS[scheme]:
        netloc = f"{host}:{port}"
    path = _encode(parts.path)
    if not path.strip("/"):  # the root: ``https://host/`` and ``https://host`` are one address
        path = ""
    query = drop_tracking(_encode(parts.query))
    if host in _DOI_HOSTS and path.startswith("/10."):  # a DOI, as doi:10.x/y writes it
        return str(urlunsplit(("https", "doi.org", path.rstrip("/"), query, "")))
    return str(urlunsplit((scheme, netloc, path, query, "")))


def _fold_host(raw: str, text: str) -> str:
    """The host in its ASCII form (see the module docstring); IPv6 literals bracketed."""
    host = raw.rstrip(".")
    if not host:
        raise BadURL(f"URL {shown(text)} has no host", hint=_FIX)
    if ":" in host:  # an IPv6 literal; urlsplit checked its brackets
        return f"[{host}]"
    if not host.isascii():
        try:
            host = unicodedata.normalize("NFKC", host).encode("idna").decode("ascii")
        except UnicodeError:
            raise BadURL(
                f"URL {shown(text)} has a host name that is not a valid domain", hint=_FIX
            ) from None
    host = host.lower()
    if not _HOST.match(host):
        raise BadURL(f"URL {shown(text)} has a host name that is not a valid domain", hint=_FIX)
    return host


def _encode(part: str) -> str:
    """Percent-encode what must not stay raw in a path or query (escapes in upper case, as
    ``quote`` writes them); keep non-ASCII letters."""
    if _UNSAFE_ASCII.search(part):
        part = _UNSAFE_ASCII.sub(lambda m: quote(m.group(0), safe=""), part)
    if "%" in part:
        part = _LONE_PERCENT.sub("%25", part)
        part = _ESCAPE.sub(lambda m: m.group(0).upper(), part)
    return part


def published_url(url: str) -> str:
    """A stored URL as outputs link it: the characters browsers percent-encode before sending
    (``" < > { } | \\ ^ ` [ ]``) and lone ``%`` encoded, fragment kept: the same address, which no
    markup reads as its own syntax (a raw ``<`` ends an rst link, a ``"`` an attribute). URLs
    ``add`` stored need nothing (they are encoded already); a hand-edited ledger may not be."""
    if not _UNSAFE_ASCII.search(url) and "%" not in url:
        return url
    literal = _IPV6_AUTHORITY.match(url)
    if literal is not None:
        # An IPv6 host keeps its brackets: ``https://%5B2001:db8::1%5D/`` opens nowhere.
        return literal.group(1) + _encode(url[literal.end(1) :])
    return _encode(url)


# ``scheme://[v6 address]`` (after an optional ``user@``), up to the closing bracket.
_IPV6_AUTHORITY = pattern(r"^([A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@\[\]]*@)?\[[0-9A-Fa-f:.]+\])")


def _doi_url(doi: str, text: str) -> str:
    if not doi.startswith("10.") or "/" not in doi or _BAD_CHARS.search(doi):
        raise BadURL(f"{shown(text)} is not a DOI", hint="write it like doi:10.1000/xyz123")
    return "https://doi.org/" + quote(doi.rstrip("/"), safe=_DOI_SAFE)


def url_key(url: str) -> str:
    """The lookup key of a stored URL: its canonical form, the path's trailing slash folded.
    A ledger carried over from sources.py may hold text that is not a URL
    (``example.com/page``); it must still be found, under sources.py's own identity for it:
    stripped, fragment and trailing slashes dropped."""
    try:
        canonical = normalize_url(url)
    except BadURL:
        text = (url or "").strip().split("#", 1)[0]
        return text.rstrip("/") or text
    # The path's trailing slash is folded here, not in the stored URL: ``/docs/`` and ``/docs``
    # are one page to most servers (and older ledgers stored the second), another to some.
    if canonical.endswith("/") or "/?" in canonical:
        base, mark, query = canonical.partition("?")
        return base.rstrip("/") + mark + query
    return canonical


def is_legacy(url: str) -> bool:
    """Whether a stored URL is a sources.py entry without a scheme (``example.com/page``)."""
    if url.startswith(("https://", "http://")):  # a scheme (what _SCHEME tells, uncompiled)
        return False
    return not _SCHEME.match(url) and bool(_LEGACY.fullmatch(url.strip()))


def stored_url_problem(url: str) -> str | None:
    """Why a URL read from a ledger file must not be used (a one-line reason), or None. A
    sources.py entry without a scheme passes (see :func:`is_legacy`)."""
    text = url.strip()
    if is_canonical(text):
        return None
    try:
        normalize_url(text)
    except BadURL as exc:
        if is_legacy(text) and not _BAD_CHARS.search(text) and len(text) <= MAX_URL_LENGTH:
            return None
        return exc.message
    return None


# What pandoc's writers percent-encode in a link target that the ledger may hold raw.
_PANDOC_ESCAPED = pattern(r"%(?:20|22|3C|3E|5B|5C|5D|5E|60|7B|7C|7D)", re.IGNORECASE)


def same_url(written: str, stored: str) -> bool:
    """Whether a URL read from the document is the ledger's: the same identity
    (:func:`url_key`), also once pandoc's percent-encoding of brackets and the like is undone
    on both sides."""
    if written == stored or url_key(written) == url_key(stored):
        return True
    a = _PANDOC_ESCAPED.sub(lambda m: unquote(m.group(0)), written)
    b = _PANDOC_ESCAPED.sub(lambda m: unquote(m.group(0)), stored)
    return url_key(a) == url_key(b)
