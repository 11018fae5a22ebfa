"""The entries of a draft's own Sources block, read from the tree.

``render`` writes ``[n] url — title`` lines (under ``## Sources`` or ``Sources:``), people
turn them into list items, and pandoc joins consecutive lines into one paragraph. An entry is a
line (a paragraph split at its line breaks, or a list item) that starts with ``[n]``; its URL is
the first http(s) URL in it, where a link counts by its target. The seed's reading of a line is
kept: ``[n]``, an optional ``-``, ``–`` or ``:``, then the URL (or, failing one, the next word,
which then fails the URL comparison instead of passing silently).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .markers import SourcesBlock, stringify

Json = Any

_ENTRY = re.compile(r"^\s*\[(\d{1,4})\]\s*[-\u2013:]?\s*(\S+)")
_URL = re.compile(r"https?://[^\s\"'<>)\]}]+")


@dataclass(frozen=True, slots=True)
class Entry:
    id: int
    url: str
    text: str
    block: int


def entries(blocks: list[Json], block: SourcesBlock) -> list[Entry]:
    """The entries of ``block`` in order (an id listed twice keeps its last line, as before)."""
    out: list[Entry] = []
    for index in range(block.start, block.end):
        b = blocks[index]
        inlines: list[Json] | None = None
        if index == block.start:
            if b.get("t") == "Header":
                continue
            # A "Sources:" paragraph: its first line is the title.
            inlines = _after_first_line(b["c"])
        for line in _lines([b] if inlines is None else [{"t": "Para", "c": inlines}]):
            m = _ENTRY.match(line)
            if m:
                url = _URL.search(line)
                out.append(Entry(int(m.group(1)), url.group(0) if url else m.group(2), line, index))
    return out


def _after_first_line(inlines: list[Json]) -> list[Json]:
    for k, el in enumerate(inlines):
        if el.get("t") in ("SoftBreak", "LineBreak"):
            return inlines[k + 1 :]
    return []


def _lines(blocks: list[Json]) -> list[str]:
    out: list[str] = []
    for b in blocks:
        t = b.get("t")
        c = b.get("c")
        if t in ("Para", "Plain"):
            current: list[str] = []
            for el in c:
                if el.get("t") in ("SoftBreak", "LineBreak"):
                    out.append("".join(current))
                    current = []
                else:
                    current.append(_text(el))
            out.append("".join(current))
        elif t == "LineBlock":
            out.extend("".join(_text(el) for el in line) for line in c)
        elif t == "BulletList":
            for item in c:
                out.extend(_lines(item))
        elif t == "OrderedList":
            for item in c[1]:
                out.extend(_lines(item))
        elif t in ("Div", "BlockQuote"):
            out.extend(_lines(c[1] if t == "Div" else c))
    return out


def _text(el: Json) -> str:
    t = el.get("t")
    if t == "Str":
        return str(el["c"])
    if t == "Space":
        return " "
    if t == "Link":
        target = el["c"][2][0]
        # An internal link (a Word file's "[1]" pointing back at the footnote) is its text.
        if target.startswith("#"):
            return stringify(el["c"][1])
        return f"{target} {stringify(el['c'][1])}"
    if t in ("Emph", "Strong", "Span", "Underline", "Strikeout", "SmallCaps"):
        inner = el["c"][1] if t == "Span" else el["c"]
        return "".join(_text(x) for x in inner)
    return stringify([el])
