"""The one marker finder: where a document tree cites what.

Works on pandoc's JSON tree as plain dicts and lists, the form pandoc hands a filter. Building
panflute's object tree for a whole report costs more than the rest of a filter run together,
and only the few inline lists that hold a marker need touching.

A marker lives in the text of ``Str`` elements. Pandoc keeps ``water.[1][2]`` in one Str and puts
``[1]`` in a Str of its own after a Space; ``[1, 2]`` spans ``[1,`` Space ``2]``. Never markers:
anything inside Code, CodeBlock, Math, RawInline, RawBlock, a Link (text or target), an Image, a
Cite, a footnote label or reference-link definition (pandoc consumes those), and the Sources block.

Marker grammar (the grounded-citations convention):

- ``[n]``: 1-4 digits, not followed by ``(`` or ``:`` (that would be a link or a definition);
- ``[unverified]``, ``[policy]``, ``[tool:<name>]`` with name ``[A-Za-z0-9][A-Za-z0-9_.-]*``;
- ``[1, 2]``, ``[1-3]``, ``[1,2]``: several ids in one bracket, a *group*; it cites each id and
  the verifier warns about its style.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Json = Any

_ID = r"\d{1,4}"
MARKER_RE = re.compile(
    r"\[(?:"
    rf"(?P<id>{_ID})"
    rf"|(?P<group>{_ID}(?:\s*[,\u2013-]\s*{_ID})+)"
    r"|(?P<unverified>unverified)"
    r"|tool:(?P<tool>[A-Za-z0-9][A-Za-z0-9_.-]*)"
    r"|(?P<policy>policy)"
    r")\](?![(:])"
)
# A group that pandoc split at its spaces: ``[1,`` then ``2,`` then ``3]``.
_GROUP_OPEN_RE = re.compile(rf"\[{_ID}(?:\s*,\s*{_ID})*,$")
_GROUP_PART_RE = re.compile(rf"^{_ID},?")

_MAX_GROUP_RANGE = 50
_SOURCES_TITLE_RE = re.compile(r"^\s*sources\s*:?\s*$", re.IGNORECASE)

SKIP_INLINES = frozenset({"Code", "Math", "RawInline", "Link", "Image", "Cite"})
SKIP_BLOCKS = frozenset({"CodeBlock", "RawBlock", "HorizontalRule", "Null"})
_CONTAINER_INLINES = frozenset(
    {"Emph", "Underline", "Strong", "Strikeout", "Superscript", "Subscript", "SmallCaps"}
)


@dataclass(frozen=True, slots=True)
class Marker:
    """One marker as written. ``ids`` holds the ledger ids it cites (empty for provenance)."""

    kind: str  # "id" | "group" | "unverified" | "tool" | "policy"
    text: str
    ids: tuple[int, ...] = ()
    name: str | None = None

    @property
    def is_citation(self) -> bool:
        return bool(self.ids)


Piece = str | Marker


def parse_marker(match: re.Match[str]) -> Marker:
    text = match.group(0)
    if match.group("id") is not None:
        return Marker("id", text, (int(match.group("id")),))
    if match.group("group") is not None:
        return Marker("group", text, _group_ids(match.group("group")))
    if match.group("tool") is not None:
        return Marker("tool", text, name=match.group("tool"))
    if match.group("policy") is not None:
        return Marker("policy", text)
    return Marker("unverified", text)


def _group_ids(body: str) -> tuple[int, ...]:
    ids: list[int] = []
    for part in re.split(r"\s*,\s*", body.strip()):
        bounds = re.split(r"\s*[\u2013-]\s*", part)
        if len(bounds) == 2:
            lo, hi = int(bounds[0]), int(bounds[1])
            if lo <= hi and hi - lo <= _MAX_GROUP_RANGE:
                ids.extend(range(lo, hi + 1))
            else:
                ids.extend((lo, hi))
        else:
            ids.extend(int(b) for b in bounds)
    return tuple(dict.fromkeys(ids))


def split_markers(text: str) -> list[Piece]:
    """Split ``text`` into plain strings and Markers, in order. The single marker parser:
    every other part of citeledger that needs markers in text calls this."""
    if "[" not in text:
        return [text]
    pieces: list[Piece] = []
    pos = 0
    for match in MARKER_RE.finditer(text):
        if match.start() > pos:
            pieces.append(text[pos : match.start()])
        pieces.append(parse_marker(match))
        pos = match.end()
    if pos < len(text):
        pieces.append(text[pos:])
    return pieces


def has_marker(pieces: list[Piece]) -> bool:
    return any(isinstance(p, Marker) for p in pieces)


@dataclass(slots=True)
class Hit:
    """Elements ``container[start:end+1]`` (Str, or Str Space Str for a spaced group) whose text
    holds markers; ``pieces`` is that text split. ``block`` is the index of the top-level block,
    ``heading`` the text of the nearest heading before it, ``in_note`` true inside a footnote."""

    container: list[Json]
    start: int
    end: int
    pieces: list[Piece]
    block: int
    heading: str
    in_note: bool = False

    @property
    def markers(self) -> list[Marker]:
        return [p for p in self.pieces if isinstance(p, Marker)]


@dataclass(slots=True)
class SourcesBlock:
    """Top-level blocks ``blocks[start:end]`` form the draft's own Sources block."""

    start: int
    end: int
    title: str


@dataclass(slots=True)
class Scan:
    hits: list[Hit] = field(default_factory=list)
    sources: SourcesBlock | None = None

    def markers(self) -> Iterator[tuple[Hit, Marker]]:
        for hit in self.hits:
            for marker in hit.markers:
                yield hit, marker

    def cited_ids(self) -> list[int]:
        """Distinct ids in order of first citation."""
        seen: dict[int, None] = {}
        for _hit, marker in self.markers():
            for i in marker.ids:
                seen.setdefault(i, None)
        return list(seen)


def stringify(elements: list[Json]) -> str:
    """Plain text of an inline list (or block list), for headings, titles and messages."""
    out: list[str] = []
    _stringify_into(elements, out)
    return "".join(out)


def _stringify_into(node: Json, out: list[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _stringify_into(item, out)
        return
    if not isinstance(node, dict):
        return
    t = node.get("t")
    c: Any = node.get("c")
    if t == "Str":
        out.append(c)
    elif t in ("Space", "SoftBreak"):
        out.append(" ")
    elif t == "LineBreak":
        out.append("\n")
    elif t in ("Code", "Math"):
        out.append(c[-1] if isinstance(c[-1], str) else "")
    elif t == "RawInline":
        pass
    elif t in ("Link", "Image", "Span"):
        _stringify_into(c[1] if t == "Span" else c[1], out)
    elif t == "Quoted":
        q = "\u201c" if c[0]["t"] == "DoubleQuote" else "\u2018"
        out.append(q)
        _stringify_into(c[1], out)
        out.append("\u201d" if q == "\u201c" else "\u2019")
    elif t == "Cite":
        _stringify_into(c[1], out)
    elif t == "Note":
        pass
    elif t == "Header":
        _stringify_into(c[2], out)
    elif t in ("Para", "Plain") or t in _CONTAINER_INLINES:
        _stringify_into(c, out)
    elif t == "Div":
        _stringify_into(c[1], out)
    elif isinstance(c, list):
        _stringify_into(c, out)


def sources_title(block: Json) -> str | None:
    """The title if ``block`` opens a Sources block: a heading "Sources" (any level, any case,
    optional colon) or a paragraph that starts with "Sources:"."""
    t = block.get("t")
    if t == "Header":
        text = stringify(block["c"][2])
        return text.strip() if _SOURCES_TITLE_RE.match(text) else None
    if t in ("Para", "Plain"):
        inlines = block["c"]
        if inlines and inlines[0].get("t") == "Str":
            first = inlines[0]["c"]
            rest = inlines[1:2]
            if first.lower() == "sources:" and (
                not rest or rest[0].get("t") in ("SoftBreak", "LineBreak")
            ):
                return first
    return None


def find_sources_block(blocks: list[Json]) -> SourcesBlock | None:
    """The last block that opens a Sources block, up to the next heading of the same or a
    higher level (a paragraph "Sources:" runs to the next heading)."""
    for i in range(len(blocks) - 1, -1, -1):
        title = sources_title(blocks[i])
        if title is None:
            continue
        level = blocks[i]["c"][0] if blocks[i]["t"] == "Header" else 99
        end = len(blocks)
        for j in range(i + 1, len(blocks)):
            b = blocks[j]
            if b.get("t") == "Header" and b["c"][0] <= level:
                end = j
                break
        return SourcesBlock(i, end, title)
    return None


def scan(doc: Json) -> Scan:
    """Find every marker in a pandoc JSON document (a dict with "blocks"), skipping the places
    where a bracket is never a citation, and locate the Sources block."""
    blocks = doc["blocks"]
    result = Scan(sources=find_sources_block(blocks))
    skip = range(result.sources.start, result.sources.end) if result.sources else range(0)
    heading = ""
    for index, block in enumerate(blocks):
        if block.get("t") == "Header":
            heading = stringify(block["c"][2])
        if index in skip:
            continue
        _Walker(result.hits, index, heading).blocks([block])
    return result


class _Walker:
    __slots__ = ("hits", "block", "heading", "in_note")

    def __init__(self, hits: list[Hit], block: int, heading: str) -> None:
        self.hits = hits
        self.block = block
        self.heading = heading
        self.in_note = False

    def blocks(self, blocks: list[Json]) -> None:
        for b in blocks:
            t = b.get("t")
            if t in SKIP_BLOCKS:
                continue
            c = b.get("c")
            if t in ("Para", "Plain"):
                self.inlines(c)
            elif t == "Header":
                self.inlines(c[2])
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
                    self.inlines(term)
                    for d in defs:
                        self.blocks(d)
            elif t == "LineBlock":
                for line in c:
                    self.inlines(line)
            elif t == "Div":
                self.blocks(c[1])
            elif t == "Figure":
                self.blocks(c[1][1])
                self.blocks(c[2])
            elif t == "Table":
                self.table(c)

    def table(self, c: list[Json]) -> None:
        _attr, caption, _specs, head, bodies, foot = c
        self.blocks(caption[1])
        for row in head[1]:
            self.row(row)
        for body in bodies:
            for row in body[2]:
                self.row(row)
            for row in body[3]:
                self.row(row)
        for row in foot[1]:
            self.row(row)

    def row(self, row: list[Json]) -> None:
        for cell in row[1]:
            self.blocks(cell[4])

    def inlines(self, inlines: list[Json]) -> None:
        i = 0
        n = len(inlines)
        while i < n:
            el = inlines[i]
            t = el.get("t")
            if t == "Str":
                text = el["c"]
                if "[" in text:
                    i = self.str_hit(inlines, i, text)
            elif t in SKIP_INLINES:
                pass
            elif t in _CONTAINER_INLINES:
                self.inlines(el["c"])
            elif t == "Span" or t == "Quoted":
                self.inlines(el["c"][1])
            elif t == "Note":
                outer = self.in_note
                self.in_note = True
                self.blocks(el["c"])
                self.in_note = outer
            i += 1

    def str_hit(self, inlines: list[Json], i: int, text: str) -> int:
        """Record the markers of the Str at ``i``; return the index of the last element used."""
        end = i
        if _GROUP_OPEN_RE.search(text):
            end, text = _join_spaced_group(inlines, i, text)
        pieces = split_markers(text)
        if has_marker(pieces):
            self.hits.append(Hit(inlines, i, end, pieces, self.block, self.heading, self.in_note))
            return end
        return i


def _join_spaced_group(inlines: list[Json], i: int, text: str) -> tuple[int, str]:
    """``[1,`` Space ``2]``: join the Str/Space run that closes the group, if it does."""
    j = i
    joined = text
    n = len(inlines)
    while j + 2 < n and inlines[j + 1].get("t") == "Space" and inlines[j + 2].get("t") == "Str":
        nxt = inlines[j + 2]["c"]
        if not _GROUP_PART_RE.match(nxt):
            break
        joined += " " + nxt
        j += 2
        if "]" in nxt:
            return j, joined
        if not nxt.endswith(","):
            break
    return i, text


def text_to_inlines(text: str) -> list[Json]:
    """Plain text back to Str and Space elements."""
    out: list[Json] = []
    for k, word in enumerate(text.split(" ")):
        if k:
            out.append({"t": "Space"})
        if word:
            out.append({"t": "Str", "c": word})
    return out


def cited_ids_in_file(path: Path, *, from_format: str | None = None) -> list[int]:
    """Ids a draft cites, distinct, in order of first citation (the draft's own Sources block
    does not count). Runs pandoc to read the file."""
    from ..pandoc import format_for, read_json, read_text_draft

    fmt = from_format or format_for(path)
    read_text_draft(path, fmt)
    return scan(read_json(path, from_format=fmt)).cited_ids()
