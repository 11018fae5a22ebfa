"""The headings the filter touches: the Sources heading's level and title, and heading
identifiers as if the heading held no marker.

The Sources heading stands at the level of the document's own top sections
(:func:`top_section_level`), and its title, unless ``sources-title`` is set or the draft's own
block names one, is the document's ``lang`` looked up in :data:`LANG_TITLES` ("Quellen" for
``lang: de``); a language not in it keeps "Sources". Each title there is one the Sources-block
reader knows (``document/sources_titles.COMMON_TITLES``), so a built file reads back.

Identifiers.

Pandoc names a heading from its text when it reads the draft: ``# Introduction[1]`` becomes
``introduction1``, a name no author meant and no link written as ``#introduction`` reaches. The
filter gives such a heading the identifier pandoc would have given it without its markers, by
pandoc's own rules (``auto_identifiers``, or ``gfm_auto_identifiers`` when that is what made the
identifier), unique among the document's identifiers as pandoc makes them (``-1``, ``-2``, ...),
and points the document's links to the old identifier (pandoc's implicit header references) at
the new one. An identifier the author wrote (``{#intro}``) is theirs and stays.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..document.markers import Hit
from ..tree import Json, elements, stringify

_ATTR_AT = {
    "Header": 1,
    "Div": 0,
    "Span": 0,
    "CodeBlock": 0,
    "Code": 0,
    "Figure": 0,
    "Table": 0,
    "Link": 0,
    "Image": 0,
}


# BCP 47 tag (lower case; the primary language, or language-region where they differ) to the
# title a reader of that language expects over a list of sources.
LANG_TITLES = {
    "en": "Sources",
    "de": "Quellen",
    "fr": "Sources",
    "es": "Fuentes",
    "it": "Fonti",
    "pt": "Fontes",
    "nl": "Bronnen",
    "pl": "Źródła",
    "ru": "Источники",
    "uk": "Джерела",
    "tr": "Kaynaklar",
    "ar": "المصادر",
    "fa": "منابع",
    "he": "מקורות",
    "hi": "संदर्भ",
    "ja": "出典",
    "ko": "출처",
    "zh": "参考资料",
    "zh-tw": "參考資料",
    "zh-hk": "參考資料",
    "zh-hant": "參考資料",
}


def title_for_lang(lang: str) -> str | None:
    """The Sources title for a ``lang`` tag (``de``, ``de-AT``, ``zh-Hant-TW``), or None."""
    tag = lang.strip().replace("_", "-").lower()
    if not tag:
        return None
    parts = tag.split("-")
    for key in (tag, "-".join(parts[:2]), f"{parts[0]}-{parts[-1]}", parts[0]):
        if key in LANG_TITLES:
            return LANG_TITLES[key]
    return None


def top_section_level(blocks: list[Json]) -> int:
    """The level of the document's own top sections: its highest heading level, or the next
    one down when a single heading of that level opens the document as its title (a draft
    written ``# Title`` then ``## Sections``). 1 when it has no headings."""
    levels: list[int] = [b["c"][0] for b in blocks if b.get("t") == "Header"]
    if not levels:
        return 1
    top = min(levels)
    first = next(b for b in blocks if b.get("t") == "Header")
    lower = [level for level in levels if level > top]
    if levels.count(top) == 1 and first["c"][0] == top and lower:
        return min(lower)
    return top


def pandoc_identifier(text: str) -> str:
    """pandoc's ``auto_identifiers``: lower case, punctuation but ``_-.`` dropped, words
    joined by ``-``, everything before the first letter dropped."""
    kept = "".join(c for c in text.lower() if c.isspace() or c.isalnum() or c in "_-.")
    ident = "-".join(kept.split())
    while ident and not ident[0].isalpha():
        ident = ident[1:]
    return ident


def gfm_identifier(text: str) -> str:
    """pandoc's ``gfm_auto_identifiers`` (GitHub's anchors): lower case, punctuation but
    ``-_`` dropped, each space a ``-``."""
    kept = "".join(c for c in text.lower() if c.isspace() or c.isalnum() or c in "_-")
    return re.sub(r"\s", "-", kept)


STYLES: tuple[Callable[[str], str], ...] = (pandoc_identifier, gfm_identifier)


def unique(base: str, used: set[str]) -> str:
    base = base or "section"
    if base not in used:
        return base
    n = 1
    while f"{base}-{n}" in used:
        n += 1
    return f"{base}-{n}"


def keep_heading_ids(blocks: list[Json], hits: list[Hit]) -> None:
    """In place: each heading whose text holds a marker gets the identifier pandoc would give
    it without the marker (see the module docstring)."""
    in_heading: dict[int, list[Hit]] = {}
    for hit in hits:
        in_heading.setdefault(id(hit.container), []).append(hit)
    headers = _headers_with_hits(blocks, hits, in_heading)
    if not headers:
        return
    used = {el["c"][at][0] for el in elements(blocks) if (at := _ATTR_AT.get(el["t"])) is not None}
    renamed: dict[str, str] = {}
    for header in headers:
        old = header["c"][1][0]
        inlines = header["c"][2]
        with_markers = stringify(inlines)
        without = stringify(_unmarked(inlines, in_heading[id(inlines)]))
        for style in STYLES:
            base = style(with_markers) or "section"
            if old != base and not re.fullmatch(re.escape(base) + r"-\d+", old):
                continue
            used.discard(old)
            new = unique(style(without), used)
            used.add(new)
            if new != old:
                header["c"][1][0] = new
                renamed[old] = new
            break
    if renamed:
        for el in elements(blocks):
            if el["t"] == "Link":
                target = el["c"][2][0]
                if target.startswith("#") and target[1:] in renamed:
                    el["c"][2][0] = "#" + renamed[target[1:]]


def _headers_with_hits(
    blocks: list[Json], hits: list[Hit], in_heading: dict[int, list[Hit]]
) -> list[Json]:
    """The headings whose text holds one of ``hits``, found from each hit's top-level block
    (a heading is one, or sits in a Div or block quote): the filter's hot path never walks
    the whole tree for the few headings that cite."""
    found: dict[int, Json] = {}
    searched: set[int] = set()
    for hit in hits:
        top = blocks[hit.block]
        t = top.get("t")
        if t == "Header":
            if top["c"][2] is hit.container:
                found[id(top)] = top
        elif t in ("Div", "BlockQuote") and hit.block not in searched:
            searched.add(hit.block)
            for el in elements(top):
                if el["t"] == "Header" and id(el["c"][2]) in in_heading:
                    found[id(el)] = el
    return list(found.values())


def _unmarked(inlines: list[Json], hits: list[Hit]) -> list[Json]:
    """A copy of ``inlines`` with the markers of ``hits`` left out."""
    copy = list(inlines)
    for hit in sorted(hits, key=lambda h: h.start, reverse=True):
        text = "".join(p for p in hit.pieces if isinstance(p, str))
        copy[hit.start : hit.end + 1] = [{"t": "Str", "c": text}] if text else []
    return copy
