"""What tool output links to that is not a source: one table of hosts and paths.

Ids are permanent, so ``ingest`` must not hand one to an image, a favicon, a search engine's own
result page, a redirect or an ad: each would sit in the ledger (and in every list of unused
sources) for good, and a redirect or ad link names no page a reader could check. Search APIs
put such links beside their results (Tavily's ``images``, SerpAPI's related searches, inline
images and ``/aclk`` ad links, Brave's thumbnails), so every URL ingest finds is looked up here.

A row is ``(kind, host, path)``: ``host`` matches the URL's host and every subdomain of it
(``google.*`` any of Google's country domains), ``path`` is a prefix of the URL's path ("" for
any path). File names ending in an image or icon extension are images whatever their host.

A redirect that names its destination in its query (Google's ``/url?q=``, which a Google Docs
export wraps every link in) is no source, but its destination may be: ingest and import take
that page instead (:func:`redirect_destination`). One row kind is not refused: ``expiring``, a
redirect that is the only handle an answer gives (Gemini's grounding chunks): registered, with a
warning that it stops working.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from .light import pattern  # compiled on first use: start-up time

# (kind, host, path prefix). Kinds: image, search (a result page of a search engine), redirect,
# ad, expiring (registered with a warning).
NOISE: tuple[tuple[str, str, str], ...] = (
    ("ad", "google.*", "/aclk"),
    ("ad", "googleadservices.com", ""),
    ("ad", "doubleclick.net", ""),
    ("ad", "googlesyndication.com", ""),
    ("ad", "bing.com", "/aclk"),
    ("ad", "bing.com", "/aclick"),
    ("ad", "duckduckgo.com", "/y.js"),
    ("search", "google.*", "/search"),
    ("search", "google.*", "/imgres"),
    ("search", "google.*", "/webhp"),
    ("search", "bing.com", "/search"),
    ("search", "bing.com", "/images/search"),
    ("search", "bing.com", "/videos/search"),
    ("search", "search.brave.com", ""),
    ("search", "duckduckgo.com", "/?"),
    ("search", "html.duckduckgo.com", "/html"),
    ("search", "search.yahoo.com", ""),
    ("search", "yandex.com", "/search"),
    ("search", "yandex.ru", "/search"),
    ("search", "baidu.com", "/s?"),
    ("search", "serpapi.com", "/search"),
    ("search", "serpapi.com", "/searches"),
    ("redirect", "google.*", "/url"),
    ("redirect", "bing.com", "/ck/a"),
    ("redirect", "duckduckgo.com", "/l/"),
    ("redirect", "l.facebook.com", "/l.php"),
    ("redirect", "out.reddit.com", ""),
    ("image", "google.*", "/s2/favicons"),
    ("image", "gstatic.com", ""),
    ("image", "imgs.search.brave.com", ""),
    ("image", "icons.duckduckgo.com", ""),
    ("image", "external-content.duckduckgo.com", ""),
    ("image", "mm.bing.net", ""),
    ("image", "i.ytimg.com", ""),
    ("image", "", "/favicon"),
    ("expiring", "vertexaisearch.cloud.google.com", "/grounding-api-redirect"),
)

# What each kind is called in a message.
KIND_NAMES = {
    "image": "image or icon",
    "search": "search-engine result page",
    "redirect": "redirect link",
    "ad": "ad link",
}

_IMAGE_FILE = pattern(r"\.(?:jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|heic)$", re.IGNORECASE)
_GOOGLE = pattern(r"^(?:[a-z0-9-]+\.)*google\.(?:[a-z]{2,3})(?:\.[a-z]{2})?$")


def _host_matches(host: str, pattern: str) -> bool:
    if not pattern:
        return True
    if pattern == "google.*":
        return _GOOGLE.match(host) is not None
    return host == pattern or host.endswith("." + pattern)


# The hosts of the rows of kind "expiring": a URL naming none of them is no such redirect.
_EXPIRING_HOSTS = tuple(host for kind, host, _ in NOISE if kind == "expiring")


def expires(url: str) -> bool:
    """Whether ``url`` is a redirect that expires (``noise_kind(url) == "expiring"``), told
    at once for a URL that names none of their hosts: verify asks it of every cited source."""
    lowered = url.lower()  # noise_kind reads the host in lower case
    return any(host in lowered for host in _EXPIRING_HOSTS) and noise_kind(url) == "expiring"


# Redirects that name their destination in the query, by the parameter that holds it: Google
# Docs' and Google Search's ``/url?q=``, Facebook's ``l.php?u=``, DuckDuckGo's ``/l/?uddg=``,
# Reddit's ``out.reddit.com?url=``. (Bing's ``/ck/a`` encodes it: not taken.)
_DESTINATION = (
    ("google.*", "/url", ("q", "url")),
    ("l.facebook.com", "/l.php", ("u",)),
    ("duckduckgo.com", "/l/", ("uddg",)),
    ("out.reddit.com", "", ("url",)),
)


def redirect_destination(url: str) -> str | None:
    """The page a redirect link (``noise_kind(url) == "redirect"``) names in its query, as
    written there, or None: the link is no source, but the page it leads to may be."""
    from urllib.parse import parse_qs

    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    for host_pattern, prefix, keys in _DESTINATION:
        if _host_matches(host, host_pattern) and (parts.path or "/").startswith(prefix or "/"):
            query = parse_qs(parts.query)
            for key in keys:
                for value in query.get(key, []):
                    if value.lower().startswith(("http://", "https://")):
                        return value
    return None


def noise_kind(url: str) -> str | None:
    """The kind of noise ``url`` (a canonical URL) is, or None for a page that may be a source."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    path = parts.path or "/"
    target = path + ("?" + parts.query if parts.query else "")
    for kind, host_pattern, prefix in NOISE:
        if _host_matches(host, host_pattern) and target.startswith(prefix or "/"):
            return kind
    if _IMAGE_FILE.search(path):
        return "image"
    return None
