"""Prose sentences of a document tree, with the markers each one carries.

Coverage is "sentences with declared provenance / prose sentences", so what counts as a prose
sentence decides the number. The rules follow the grounded-citations seed, moved from lines of
raw markdown onto the tree: headings, tables, code, raw blocks and the Sources block are not
prose; block quotes, list items, definition lists and footnote text are; a sentence counts when
it has 4 or more words (2 CJK characters count as one, as for quotes).

The text of a block is its inlines stringified with every marker replaced by one private-use
character. The splitter then sees a marker as part of the word it touches, so ``floats.[1][2]``
and ``floats. [1] [2]`` both end the sentence after the whole marker run, and nothing inside a
marker can look like a sentence end. It does not break after ``e.g.``, ``i.e.``, ``Dr.``,
``U.S.``, initials, in decimals (``3.5``) or at ellipses; CJK text ends at 。！？；.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..ledger.quotes import word_count
from .markers import SKIP_BLOCKS, Hit, Marker, Scan, stringify

Json = Any

# One private-use character per marker of a block (plane 15: nothing real ever uses it).
_PH_BASE = 0xF0000
_PH_MAX = 0xFFFD
_PH_CLASS = "\U000f0000-\U000ffffd"
_PH_RE = re.compile(f"[{_PH_CLASS}]")

_BOUNDARY = re.compile(
    r"(?P<punct>\.{2,}|[.!?\u2026]|[\u3002\uff01\uff1f\uff1b])"
    r"[\"'\u201d\u2019)\]\u00bb]*"
    rf"(?:\s*[{_PH_CLASS}])*"
    r"(?P<gap>\s+|$)?"
)
_CJK_END = frozenset("\u3002\uff01\uff1f\uff1b")
_INITIALISM = re.compile(r"^(?:[A-Za-z]\.)+$")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "cf", "vs", "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "mt", "no"}
    | {"nos", "fig", "figs", "eq", "eqs", "al", "approx", "ca", "vol", "vols", "pp", "ed"}
    | {"eds", "op", "ch", "sec", "resp", "viz"}
)
_CONTAINERS = frozenset(
    {"Emph", "Strong", "Underline", "Strikeout", "SmallCaps", "Superscript", "Subscript"}
)
_OPENERS = "([{\"'\u201c\u2018\u00ab"


@dataclass(frozen=True, slots=True)
class MarkerRef:
    """A marker in a sentence and where it came from: ``hit`` indexes ``Scan.hits`` and
    ``ordinal`` the marker within that hit; both are None for a footnote citation."""

    marker: Marker
    hit: int | None = None
    ordinal: int = 0


@dataclass(slots=True)
class Sentence:
    text: str
    plain: str
    refs: list[MarkerRef]
    block: int
    heading: str
    words: int

    @property
    def ids(self) -> list[int]:
        """Distinct cited ids, in order."""
        return list(dict.fromkeys(i for r in self.refs for i in r.marker.ids))

    def kinds(self) -> set[str]:
        return {r.marker.kind for r in self.refs}


@dataclass(slots=True)
class _Unit:
    """The text of one paragraph-like block, markers as placeholders."""

    block: int
    heading: str
    parts: list[str] = field(default_factory=list)
    refs: list[MarkerRef] = field(default_factory=list)

    def add_marker(self, ref: MarkerRef) -> None:
        if len(self.refs) > _PH_MAX:
            return
        self.parts.append(chr(_PH_BASE + len(self.refs)))
        self.refs.append(ref)


def split_text(text: str) -> list[str]:
    """Split plain text (markers as placeholders or as written) into sentences."""
    return [text[a:b].strip() for a, b in _spans(text) if text[a:b].strip()]


def _spans(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in _BOUNDARY.finditer(text):
        punct = m.group("punct")
        gap = m.group("gap")
        if punct in _CJK_END:
            cut = m.end()
        else:
            if gap is None or (not gap and m.end() != len(text)):
                continue
            if punct == "\u2026" or punct.startswith(".."):
                continue
            if punct == "." and _is_abbreviation(text, m.start()):
                continue
            cut = m.end()
        if cut > start:
            yield start, cut
            start = cut
    if start < len(text):
        yield start, len(text)


def _is_abbreviation(text: str, dot: int) -> bool:
    begin = dot
    while begin > 0 and not text[begin - 1].isspace():
        begin -= 1
    token = _PH_RE.sub("", text[begin:dot]).lstrip(_OPENERS)
    if not token:
        return False
    if _INITIALISM.match(token + "."):
        return True
    return token.lower() in _ABBREVIATIONS


def sentences(
    doc: Json,
    found: Scan,
    *,
    note_ids: dict[int, tuple[int, ...]] | None = None,
) -> list[Sentence]:
    """Every sentence of the document's prose, in order, each with its markers.

    ``note_ids`` maps ``id()`` of a Note element to the ledger ids it cites (footnotes of a Word
    file); such a note counts as a citation where it stands and is not prose itself."""
    walker = _Walker(found, note_ids or {})
    blocks = doc["blocks"]
    skip = range(found.sources.start, found.sources.end) if found.sources else range(0)
    heading = ""
    for index, block in enumerate(blocks):
        if block.get("t") == "Header":
            heading = stringify(block["c"][2])
        if index in skip:
            continue
        walker.top(block, index, heading)
    return walker.out


class _Walker:
    def __init__(self, found: Scan, note_ids: dict[int, tuple[int, ...]]) -> None:
        self.hit_at: dict[tuple[int, int], int] = {
            (id(h.container), h.start): k for k, h in enumerate(found.hits)
        }
        self.hits: list[Hit] = found.hits
        self.note_ids = note_ids
        self.out: list[Sentence] = []
        self.notes: list[list[Json]] = []
        self.block = 0
        self.heading = ""

    def top(self, block: Json, index: int, heading: str) -> None:
        self.block = index
        self.heading = heading
        self.blocks([block])
        while self.notes:
            pending, self.notes = self.notes, []
            for blocks in pending:
                self.blocks(blocks)

    def blocks(self, blocks: list[Json]) -> None:
        for b in blocks:
            t = b.get("t")
            if t in SKIP_BLOCKS or t in ("Header", "Table", "Figure"):
                continue
            c = b.get("c")
            if t in ("Para", "Plain"):
                self.prose(c)
            elif t == "BlockQuote":
                self.blocks(c)
            elif t == "BulletList":
                for item in c:
                    self.blocks(item)
            elif t == "OrderedList":
                for item in c[1]:
                    self.blocks(item)
            elif t == "DefinitionList":
                for term, defs in c:
                    self.prose(term)
                    for d in defs:
                        self.blocks(d)
            elif t == "LineBlock":
                joined: list[Json] = []
                for line in c:
                    joined.extend(line)
                    joined.append({"t": "Space"})
                self.prose(joined)
            elif t == "Div":
                self.blocks(c[1])

    def prose(self, inlines: list[Json]) -> None:
        unit = _Unit(self.block, self.heading)
        self.inlines(inlines, unit)
        self.emit(unit)

    def inlines(self, inlines: list[Json], unit: _Unit) -> None:
        parts = unit.parts
        i = 0
        n = len(inlines)
        key = id(inlines)
        while i < n:
            el = inlines[i]
            t = el.get("t")
            if t == "Str":
                k = self.hit_at.get((key, i))
                if k is None:
                    parts.append(el["c"])
                else:
                    hit = self.hits[k]
                    ordinal = 0
                    for piece in hit.pieces:
                        if isinstance(piece, str):
                            parts.append(piece)
                        else:
                            unit.add_marker(MarkerRef(piece, k, ordinal))
                            ordinal += 1
                    i = hit.end
            elif t in ("Space", "SoftBreak", "LineBreak"):
                parts.append(" ")
            elif t in _CONTAINERS:
                self.inlines(el["c"], unit)
            elif t == "Span":
                self.inlines(el["c"][1], unit)
            elif t == "Quoted":
                double = el["c"][0]["t"] == "DoubleQuote"
                parts.append("\u201c" if double else "\u2018")
                self.inlines(el["c"][1], unit)
                parts.append("\u201d" if double else "\u2019")
            elif t in ("Link", "Cite"):
                # No markers in there (the finder skips them), but the words are prose.
                parts.append(stringify(el["c"][1]))
            elif t in ("Code", "Math"):
                parts.append(el["c"][-1])
            elif t == "Note":
                ids = self.note_ids.get(id(el))
                if ids:
                    text = "".join(f"[{i}]" for i in ids)
                    unit.add_marker(MarkerRef(Marker("note", text, ids)))
                else:
                    self.notes.append(el["c"])
            i += 1

    def emit(self, unit: _Unit) -> None:
        text = "".join(unit.parts)
        if not text.strip():
            return
        refs = unit.refs
        for a, b in _spans(text):
            chunk = text[a:b]
            used = [refs[ord(ch) - _PH_BASE] for ch in _PH_RE.findall(chunk)]
            plain = _PH_RE.sub("", chunk)
            if not plain.strip() and not used:
                continue
            if used:
                shown = _PH_RE.sub(lambda m: refs[ord(m.group()) - _PH_BASE].marker.text, chunk)
            else:
                shown = chunk
            self.out.append(
                Sentence(
                    shown.strip(), plain.strip(), used, unit.block, unit.heading, word_count(plain)
                )
            )
