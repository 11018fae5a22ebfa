"""The one marker finder: where a document tree cites what.

Works on pandoc's JSON tree as plain dicts and lists, the form pandoc hands a filter. Building
panflute's object tree for a whole report costs more than the rest of a filter run together,
and only the few inline lists that hold a marker need touching.

A marker lives in the text of ``Str`` elements. Pandoc keeps ``water.[1][2]`` in one Str and puts
``[1]`` in a Str of its own after a Space; ``[1, 2]`` spans ``[1,`` Space ``2]``. Never markers:
anything inside Code, CodeBlock, Math, RawInline, RawBlock, a Link (text or target), an Image, a
Cite, a footnote label or reference-link definition (pandoc consumes those), and the Sources block.
One image is read: under pandoc-types 1.22 (pandoc before 3.0) a figure is a paragraph holding an
Image titled ``fig:...``, and its alt text is the caption every writer prints.

Marker grammar (the grounded-citations convention):

- ``[n]``: 1-6 ASCII digits, not followed by ``(`` or ``:`` (that would be a link or a
  definition); the seed read 1-4, and ids past 9999 must stay citable;
- ``[unverified]``, ``[policy]``, ``[tool:<name>]`` with name ``[A-Za-z0-9][A-Za-z0-9_.-]*``;
- ``[1, 2]``, ``[1-3]``, ``[1,2]``: several ids in one bracket, a *group*; it cites each id and
  the verifier warns about its style.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..tree import INLINES_AT_C, Json, Walk, is_old_figure_image
from .sources_block import DEFAULT_TITLES, SourcesBlock, find_sources_block

# Ledger ids run to six digits (``MAX_ID``); ASCII digits only, so ``[²]`` or ``[٣]`` is text.
_ID = r"[0-9]{1,6}"
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

SKIP_INLINES = frozenset({"Code", "Math", "RawInline", "Link", "Image", "Cite"})


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


def scan(doc: Json, titles: Sequence[str] = DEFAULT_TITLES) -> Scan:
    """Find every marker in a pandoc JSON document (a dict with "blocks"), skipping the places
    where a bracket is never a citation, and locate the Sources block (titled "Sources" or one
    of ``titles``)."""
    blocks = doc["blocks"]
    result = Scan(sources=find_sources_block(blocks, titles))
    skip = range(result.sources.start, result.sources.end) if result.sources else range(0)
    _Walker(result.hits).top(blocks, skip)
    return result


class _Walker(Walk):
    def __init__(self, hits: list[Hit]) -> None:
        super().__init__()
        self.hits = hits
        self.in_note = False

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
            elif t == "Image" and is_old_figure_image(el):
                self.inlines(el["c"][1])
            elif t in SKIP_INLINES:
                pass
            elif t in INLINES_AT_C:
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
            self.hits.append(Hit(inlines, i, end, pieces, self.index, self.heading, self.in_note))
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


def cited_ids_in_file(path: Path, *, from_format: str | None = None) -> list[int]:
    """Ids a draft cites, distinct, in order of first citation (the draft's own Sources block
    does not count). Runs pandoc to read the file."""
    from ..pandoc import format_for, read_json, read_text_draft

    fmt = from_format or format_for(path)
    read_text_draft(path, fmt)
    return scan(read_json(path, from_format=fmt)).cited_ids()
