"""The draft's raw HTML, made inert before an HTML output is written.

A draft may come from someone else, and its raw HTML lands in the page as it is: a ``<script>``,
an ``onerror=`` attribute or a ``javascript:`` link would run in the reader's browser. So before
an HTML output (convert's HTML and EPUB, the wiki's HTML pages) is written, every raw HTML
element of the draft's tree (pandoc's ``RawInline`` and ``RawBlock`` of format html) goes
through nh3, a maintained sanitiser (ammonia's rules): harmless markup stays (``<div dir="rtl">``,
``<br>``, ``<sub>``, tables, images by address), scripts, styles, event handlers, frames and
unsafe URL schemes go. Only the draft's elements are touched, before citeledger adds its own
markup: what citeledger writes itself (its evidence cards, its stylesheet) is never sanitised.

pandoc splits inline raw HTML into one element per tag (``<sub>``, the text, ``</sub>``): a lone
opening tag is cleaned as a tag and written back unclosed, a lone closing tag stays when its
element is allowed. A trusted draft (``--trusted-html``, or ``citeledger.trusted-html`` in the
project file; never the draft's own front matter) keeps its raw HTML as written.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ..tree import Json, elements

_HTML_FORMATS = ("html", "html4", "html5")
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
_URL_ATTRIBUTES = {"href", "src", "action", "poster", "data", "xlink:href", "background"}
# A link target a browser runs or renders as a page of its own instead of opening.
_LIVE_SCHEME = re.compile(r"^\s*(?:javascript|vbscript|data)\s*:", re.IGNORECASE)


def _is_attr(node: object) -> bool:
    return (
        isinstance(node, list)
        and len(node) == 3
        and isinstance(node[0], str)
        and isinstance(node[1], list)
        and isinstance(node[2], list)
        and all(isinstance(kv, list) and len(kv) == 2 for kv in node[2])
    )


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
                kept = [
                    kv
                    for kv in cur[2]
                    if not _LIVE_ATTRIBUTE.match(str(kv[0]))
                    and not (kv[0].lower() in _URL_ATTRIBUTES and _LIVE_SCHEME.match(str(kv[1])))
                ]
                if len(kept) != len(cur[2]):
                    cur[2][:] = kept
                    changed += 1
            stack.extend(cur)
    return changed


def sanitize_raw_html(doc: Json) -> int:
    """Clean every raw HTML element of ``doc`` (blocks and metadata) in place, drop the live
    attributes of its elements and make a ``javascript:`` link its text; returns how many
    changed."""
    from ..filters.replace import replace_elements

    changed = _clean_attributes([doc.get("blocks", []), doc.get("meta", {})])

    def unlink(el: Json) -> list[Json] | None:
        nonlocal changed
        if el.get("t") == "Link" and _LIVE_SCHEME.match(str(el["c"][2][0])):
            changed += 1
            return list(el["c"][1])
        return None

    replace_elements(doc.get("blocks", []), unlink)
    for el in elements([doc.get("blocks", []), list(doc.get("meta", {}).values())]):
        if el.get("t") not in ("RawInline", "RawBlock"):
            continue
        fmt, text = el["c"][0], el["c"][1]
        if not isinstance(fmt, str) or fmt.lower() not in _HTML_FORMATS:
            continue
        new = clean(text)
        if new != text:
            el["c"][1] = new
            changed += 1
    return changed


def writes_html(fmt: str) -> bool:
    """Whether the writer ``fmt`` puts raw HTML into a page a browser or an e-reader runs:
    the HTML writers and EPUB, not markdown (whose raw HTML the site that renders it owns)."""
    from .. import formats

    if formats.family(fmt).startswith("epub"):
        return True
    return formats.raw_format(fmt) == "html" and not formats.is_markdown_source(fmt)
