"""The draft's raw HTML, made inert before an HTML output is written.

A draft may come from someone else, and its raw HTML lands in the page as it is: a ``<script>``,
an ``onerror=`` attribute or a ``javascript:`` link would run in the reader's browser. So before
an HTML output (convert's HTML, slide decks and EPUB, the wiki's HTML pages, the filter's HTML)
is written, every raw HTML element of the draft's tree (pandoc's ``RawInline`` and ``RawBlock``
of any html-family name: ``html``, ``revealjs``, ``s5``, ``slidy``, ``epub``...,
:data:`~citeledger.options.trust.HTML_RAW`) goes through nh3, a maintained sanitiser (ammonia's
rules): harmless markup stays (``<div dir="rtl">``, ``<br>``, ``<sub>``, tables, images by
address), scripts, styles, event handlers, frames and unsafe URL schemes go. Link targets and
image sources are checked against an allowlist of schemes as a browser reads them
(:func:`~citeledger.options.trust.is_live_url`). Only the draft's elements are touched, before
citeledger adds its own markup: what citeledger writes itself (its evidence cards, its
stylesheet) is never sanitised. The filter and the commands share this module.

pandoc splits inline raw HTML into one element per tag (``<sub>``, the text, ``</sub>``): a lone
opening tag is cleaned as a tag and written back unclosed, a lone closing tag stays when its
element is allowed. A trusted draft (``--trust-draft`` or ``--trusted-html``, or either in the
project file; never the draft's own front matter) keeps its raw HTML as written.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .. import formats
from ..options.survey import Survey
from ..options.trust import HTML_RAW, is_live_url
from ..tree import Element, Json, elements

# Attributes harmless on any element: the writing direction and language of right-to-left
# text, a tooltip, a class for the page's own stylesheet, and an ``alt`` text (READMEs put one
# on a badge's link too: the words stay in the page).
_GENERIC = {"dir", "lang", "title", "class", "alt"}
_LONE_OPEN = re.compile(r"^\s*<([A-Za-z][A-Za-z0-9-]*)\b[^<>]*>\s*$")
_LONE_CLOSE = re.compile(r"^\s*</([A-Za-z][A-Za-z0-9-]*)\s*>\s*$")


@lru_cache(maxsize=1)
def _rules() -> tuple[Any, set[str], dict[str, set[str]]]:
    import nh3

    attributes = {tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()}
    attributes.setdefault("*", set()).update(_GENERIC)
    return nh3, set(nh3.ALLOWED_TAGS), attributes


def clean(html: str) -> str:
    """``html`` (one raw element's text) with only harmless markup left."""
    nh3, tags, attributes = _rules()
    close = _LONE_CLOSE.match(html)
    if close is not None:
        return html.strip() if close.group(1).lower() in tags else ""
    cleaned: str = nh3.clean(html, attributes=attributes)
    opening = _LONE_OPEN.match(html)
    if opening is not None and not html.rstrip().endswith("/>"):
        name = opening.group(1).lower()
        # A lone opening tag comes back closed by the parser: write it back open.
        suffix = f"</{name}>"
        if cleaned.endswith(suffix):
            cleaned = cleaned[: -len(suffix)]
    return cleaned


# Attributes a draft may give any element (``[x]{onclick=...}``, ``![](a.png){onerror=...}``)
# that pandoc writes into HTML as they are: event handlers, inline style, frames' documents.
_LIVE_ATTRIBUTE = re.compile(r"^(?:on.*|style|srcdoc|formaction|xmlns.*)$", re.IGNORECASE)
_URL_ATTRIBUTES = {
    "href",
    "src",
    "action",
    "poster",
    "data",
    "xlink:href",
    "background",
    "cite",
    "formaction",
    "srcset",
    "longdesc",
    "manifest",
    "ping",
    "codebase",
    "archive",
    "lowsrc",
    "dynsrc",
}


def _is_attr(node: object) -> bool:
    return (
        isinstance(node, list)
        and len(node) == 3
        and isinstance(node[0], str)
        and isinstance(node[1], list)
        and isinstance(node[2], list)
        and all(isinstance(kv, list) and len(kv) == 2 for kv in node[2])
    )


def _is_live_pair(kv: list[Any]) -> bool:
    """Whether one key-value pair of an ``Attr`` is live (an event handler, a style, a live
    URL)."""
    key = str(kv[0])
    return _LIVE_ATTRIBUTE.match(key) is not None or (
        key.lower() in _URL_ATTRIBUTES and is_live_url(str(kv[1]))
    )


def _clean_attr(attr: list[Any]) -> int:
    """Drop the live key-value pairs of one pandoc ``Attr``; 1 when any was dropped."""
    kept = [kv for kv in attr[2] if not _is_live_pair(kv)]
    if len(kept) == len(attr[2]):
        return 0
    attr[2][:] = kept
    return 1


def _clean_attributes(node: object) -> int:
    """Drop live key-value attributes from every pandoc ``Attr`` under ``node``."""
    changed = 0
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            stack.extend(cur.values())
        elif isinstance(cur, list):
            if _is_attr(cur):
                changed += _clean_attr(cur)
            stack.extend(cur)
    return changed


def _is_html_raw(el: Element) -> bool:
    fmt = el["c"][0]
    return isinstance(fmt, str) and fmt.lower() in HTML_RAW


def _clean_raw(el: Element) -> int:
    """Clean one raw element when its format is HTML; 1 when its text changed."""
    if el.get("t") not in ("RawInline", "RawBlock"):
        return 0
    if not _is_html_raw(el):
        return 0
    text = el["c"][1]
    new = clean(text)
    if new == text:
        return 0
    el["c"][1] = new
    return 1


def _is_live_link(el: Element) -> bool:
    """A link, or an image, whose target is live: it becomes its text (an image its alt)."""
    kind = el.get("t")
    if kind not in ("Link", "Image"):
        return False
    return is_live_url(str(el["c"][2][0]), image=kind == "Image")


def _sanitize_blocks(node: list[Any]) -> int:
    """Everything :func:`sanitize_raw_html` does to the blocks, in one walk (three walks cost a
    1.6 MB draft 0.3 s): every ``Attr`` cleaned wherever it sits, and along the path the element
    walks take (lists, and each element's ``c``) every raw element cleaned and every live link
    replaced by its text, inner elements first. The counts are those of the three walks."""
    changed = _clean_attr(node) if _is_attr(node) else 0
    out: list[Any] | None = None
    for k, item in enumerate(node):
        if isinstance(item, list):
            changed += _sanitize_blocks(item)
        elif isinstance(item, dict):
            for key, value in item.items():
                if key == "c" and isinstance(value, list):
                    changed += _sanitize_blocks(value)
                elif not isinstance(value, str):
                    changed += _clean_attributes(value)  # a citation's prefix, a MetaMap
            if "t" in item:
                changed += _clean_raw(item)
                if _is_live_link(item):
                    changed += 1
                    if out is None:
                        out = node[:k]
                    out.extend(item["c"][1])
                    continue
        if out is not None:
            out.append(item)
    if out is not None:
        node[:] = out
    return changed


def sanitize_raw_html(doc: Json) -> int:
    """Clean every raw HTML element of ``doc`` (blocks and metadata) in place, drop the live
    attributes of its elements and make a ``javascript:`` link its text; returns how many
    changed."""
    changed = _sanitize_blocks(doc.get("blocks", []))
    meta = doc.get("meta", {})
    changed += _clean_attributes(meta)
    for el in elements(list(meta.values())):
        changed += _clean_raw(el)
    for value in meta.values():  # a title's or an abstract's links
        if isinstance(value, dict) and isinstance(value.get("c"), list):
            changed += _sanitize_blocks(value["c"])
    return changed


def sanitizes_nothing(found: Survey) -> bool:
    """Whether :func:`sanitize_raw_html` leaves a tree as it is, read from ``found``, a walk
    (:func:`~citeledger.options.survey.survey`) that met every raw element, link, image and
    attribute the tree holds (of this tree, or of one it was made from by taking elements
    away): no raw HTML, no live link or image, no live attribute. The whole tree's walk is
    then saved: the sanitiser's is an HTML output's longest after pandoc's own."""
    return (
        not any(_is_html_raw(el) for el in found.raws)
        and not any(_is_live_link(el) for el in found.links)
        and not any(_is_attr(a) and any(_is_live_pair(kv) for kv in a[2]) for a in found.attrs)
    )


def writes_html(fmt: str) -> bool:
    """Whether the writer ``fmt`` puts raw HTML into a page a browser or an e-reader runs:
    the HTML writers and EPUB, not markdown (whose raw HTML the site that renders it owns)."""
    if formats.family(fmt).startswith("epub"):
        return True
    return formats.raw_format(fmt) == "html" and not formats.is_markdown_source(fmt)
