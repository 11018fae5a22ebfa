"""The shapes search and fetch tools answer in: which objects are sources, in which order.

Any JSON is read (every object's ``url``, ``link`` or ``source_url``, with its ``title`` or
``name``), but the shapes agents receive are read as their makers rank them, and what a shape
carries beside its results stays out:

- Brave: the page's ranked order is ``mixed.main`` (then ``top``, ``side``), each row naming a
  section (``web``, ``news``, ``videos``, ...) and an index in it, or all of it; a site's
  ``profile`` and a result's ``deep_results`` are not results.
- SerpAPI: ``organic_results`` first; ads, related searches, inline images, pagination and the
  search's own metadata are not sources (nor any ``sitelinks``).
- Tavily: ``results``, never ``images``; a result's ``raw_content`` is the page's text.
- Exa: ``results``; a result's ``text`` is the page's text.
- Perplexity: ``citations`` is a list of URL strings (the answer's [1], [2] order); the titles
  come from ``search_results``.
- Anthropic: ``web_search_result`` and ``web_search_result_location`` carry ``url``;
  ``search_result`` and ``search_result_location`` carry the URL as ``source``; a
  ``web_fetch_result`` has its title one level down (``content.title``) and the page's text in
  ``content.source.data``.
- Gemini: ``groundingChunks[].web.uri`` (a redirect that expires, see ``noise.py``), and the
  URL context tool's ``retrieved_url``.
- MCP: a tool result's text content that is JSON is read as JSON, and one that lists results
  as text (``Title: ...`` / ``URL: ...`` blocks, as most search servers write for a model) is
  read by its ``URL:`` lines; a ``resource_link`` carries ``uri``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import CiteledgerError
from .noise import noise_kind, redirect_destination
from .urls import normalize_url, url_key

# Keys whose values hold no source in any shape read here (images, icons, ads, pagination, a
# site's home page beside a result, the search's own request).
SKIPPED_KEYS = frozenset(
    {
        *("images", "image", "favicon", "thumbnail", "thumbnails", "inline_images"),
        *("images_results", "ads", "related_searches", "search_metadata", "search_parameters"),
        *("serpapi_pagination", "pagination", "sitelinks", "profile", "meta_url"),
        *("deep_results", "mixed", "searchEntryPoint", "search_entry_point"),
    }
)
_URL_KEYS = ("url", "link", "source_url", "retrieved_url", "uri")
_SOURCE_TYPES = frozenset({"search_result", "search_result_location"})
# Where a result carries the page's own text: the key, and how a message names it.
_PAGE_KEYS = (("raw_content", "raw_content"), ("text", "text"))
# Search results written as text: a record a block, its address on a URL: line.
_BLOCKS = re.compile(r"\n\s*(?:-{3,}\s*)?\n|\n-{3,}\n")
_URL_LINE = re.compile(r"(?i)^(?:url|link|source)\s*:\s*(https?://\S+)$")
_TITLE_LINE = re.compile(r"(?i)^title\s*:\s*(.+)$")
_HEAD = re.compile(r"^(?:#+\s*|\[\d+\]\s*|\d+[.)]\s*)")
# An MCP text content item longer than this is not parsed as JSON (a page, not a result).
_MAX_EMBEDDED = 20 * 1024 * 1024


@dataclass
class Found:
    """One source in tool output: its canonical URL, title, the page's text when the result
    carried it (and which field it came from), and its noise kind (``noise.py``) if any."""

    url: str
    title: str
    page: str | None = None
    page_field: str = ""
    kind: str | None = None


def read_results(payload: Any, warn: Callable[[str], None]) -> list[Found]:
    """Every source of ``payload`` in ranked order (see the module docstring), one per URL
    identity: a later sighting fills an empty title or page text. Values that are not URLs
    the ledger accepts are named to ``warn``."""
    found: dict[str, Found] = {}
    for node in _walk(payload):
        hit = _read_node(node, warn)
        if hit is None:
            continue
        key = url_key(hit.url)
        known = found.get(key)
        if known is None:
            found[key] = hit
            continue
        known.title = known.title or hit.title
        if known.page is None and hit.page is not None:
            known.page, known.page_field = hit.page, hit.page_field
    return list(found.values())


def _walk(payload: Any) -> Iterator[Any]:
    """Every object and URL string of ``payload`` in ranked order; iterative, so deeply nested
    tool output cannot hit the recursion limit."""
    stack: list[Any] = [payload]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(reversed(_children(node)))
        elif isinstance(node, list):
            stack.extend(reversed(node))
        elif isinstance(node, _Citation):
            yield node


class _Citation(str):
    """A URL given as a bare string in a list the shape says holds URLs (Perplexity's
    ``citations``)."""


def _children(node: dict[str, Any]) -> list[Any]:
    """What to visit below ``node``, ranked: Brave's ``mixed`` order, SerpAPI's organic results
    first, Perplexity's citations as URLs, JSON inside an MCP text content item."""
    first: list[Any] = []
    mixed = node.get("mixed")
    if isinstance(mixed, dict):
        first.extend(_brave_ranked(node, mixed))
    organic = node.get("organic_results")
    if isinstance(organic, list):
        first.append(organic)
    rest: list[Any] = []
    for key, value in node.items():
        if key in SKIPPED_KEYS or value is organic:
            continue
        if key == "citations" and isinstance(value, list):
            rest.append([_Citation(v) for v in value if isinstance(v, str)])
            rest.append([v for v in value if not isinstance(v, str)])
        elif key == "text" and node.get("type") == "text" and isinstance(value, str):
            rest.append(_embedded_json(value))
        else:
            rest.append(value)
    return first + rest


def _brave_ranked(node: dict[str, Any], mixed: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for place in ("main", "top", "side"):
        rows = mixed.get(place)
        for row in rows if isinstance(rows, list) else []:
            if not isinstance(row, dict) or not isinstance(row.get("type"), str):
                continue
            section = node.get(row["type"])
            results = section.get("results") if isinstance(section, dict) else None
            if not isinstance(results, list):
                continue
            index = row.get("index")
            if row.get("all") or not isinstance(index, int):
                out.append(results)
            elif 0 <= index < len(results):
                out.append(results[index])
    return out


def _embedded_json(text: str) -> Any:
    """The JSON an MCP tool put in a text content item; for text, the results it lists as
    ``URL:`` lines (see :func:`_listed_results`); None for prose."""
    body = text.strip()
    if len(body) > _MAX_EMBEDDED:
        return None
    if not body.startswith(("{", "[")):
        return _listed_results(body)
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _listed_results(text: str) -> list[dict[str, str]] | None:
    """The results a search tool wrote as text for a model, as most MCP search servers do: a
    record a block (blocks apart by a blank line or ``---``), its address on a ``URL:`` (or
    ``Link:``) line, its title on a ``Title:`` line or the block's first line (``## T``,
    ``[1] T``). Only such lines are read: an address inside prose is no result."""
    out: list[dict[str, str]] = []
    for block in _BLOCKS.split(text):
        lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
        urls = [m.group(1) for line in lines if (m := _URL_LINE.match(line))]
        if not urls:
            continue
        titled = [m.group(1) for line in lines if (m := _TITLE_LINE.match(line))]
        first = lines[0]
        title = titled[0] if titled else ("" if _URL_LINE.match(first) else _HEAD.sub("", first))
        out.extend({"url": url, "title": title.strip()} for url in urls[:1])
    return out or None


def _read_node(node: Any, warn: Callable[[str], None]) -> Found | None:
    found: tuple[str | None, str, str | None, str] = (
        (str(node), "", None, "") if isinstance(node, _Citation) else _source_of(node)
    )
    raw, title, page, field = found
    for _ in range(5):  # a redirect that names its page: that page, if it is no noise itself
        if raw is None:
            return None
        try:
            url = normalize_url(raw)
        except CiteledgerError as exc:
            warn(f"skipped {exc.message}")
            return None
        kind = noise_kind(url)
        raw = redirect_destination(url) if kind == "redirect" else None
        if raw is None:
            break
    return Found(url, title, page, field, kind)


def _source_of(node: dict[str, Any]) -> tuple[str | None, str, str | None, str]:
    """The URL, title, page text and the text's field of one object (all empty for none)."""
    kind = node.get("type")
    if kind in _SOURCE_TYPES:
        raw = _text(node.get("source"))
    elif kind == "web_fetch_result":
        return _web_fetch(node)
    else:
        raw = next((v for k in _URL_KEYS if (v := _text(node.get(k)))), None)
    if raw is None:
        return None, "", None, ""
    title = _text(node.get("title")) or _text(node.get("name")) or ""
    for key, field in _PAGE_KEYS:
        page = _text(node.get(key))
        if page is not None:
            return raw, title, page, field
    return raw, title, None, ""


def _web_fetch(node: dict[str, Any]) -> tuple[str | None, str, str | None, str]:
    """Anthropic's ``web_fetch_result``: the URL at the top, the title and a text document
    one level down."""
    raw = _text(node.get("url"))
    doc = node.get("content")
    if raw is None or not isinstance(doc, dict):
        return raw, "", None, ""
    title = _text(doc.get("title")) or ""
    source = doc.get("source")
    if isinstance(source, dict) and source.get("type") == "text":
        page = _text(source.get("data"))
        if page is not None:
            return raw, title, page, "web_fetch_result content"
    return raw, title, None, ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
