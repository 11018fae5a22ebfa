"""Heading identifiers as if the heading held no marker.

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
