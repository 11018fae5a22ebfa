"""Where in the draft a finding is: ``draft.md:LINE:COL``, else ``draft.md § Heading``; and which
of the tree's markers the author escaped.

Pandoc's markdown reader keeps no source positions. ``commonmark_x+sourcepos`` does, but it is a
different reader (no pandoc-markdown extensions) that wraps every element in a Span, and a second
parse would double the cost of a run. So markers found in the tree are mapped back onto the raw
text instead: a light pass over the source lists the bracket runs that look like markers, in
order, leaving out the places the tree finder leaves out (fenced and indented code, code spans,
math, HTML comments and tags, inline links other than ``[n](url)``, front matter), and keeping
three streams apart: the body, footnote definitions (whose text the tree shows at the reference)
and the Sources block. Tree markers then take the next raw candidate of the same stream that
says the same thing, looking a bounded distance ahead. A marker that finds no partner falls back
to its heading, so a wrong guess can cost precision, never a finding.

Escaped brackets: pandoc reads ``\\[1\\]`` as the text ``[1]``, so the tree cannot tell it from a
citation. The raw pass records such runs as escaped candidates; a tree marker whose partner is
escaped is literal text (:func:`drop_escaped`). Wherever the source text is at hand (verify,
convert, wiki, render) an escaped bracket is therefore never a citation. One exception: an
escaped marker that is the whole text of a raw HTML ``<a>`` link is how pandoc's markdown
writers print a placed citation (citeledger's gfm wiki pages), and stays one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ..ledger.light import field, pattern, record
from ..tree import Json, text_to_inlines
from .grammar import MARKER_RE, Marker, parse_marker
from .markers import Hit, Scan, scan
from .sources_lines import (
    ENTRY_PREFIX,
    FOOTNOTE_DEF,
    Definition,
    block_definitions,
    fenced_lines,
    find_sources_line_blocks,
)
from .sources_titles import DEFAULT_TITLES

_REF_DEF = pattern(r"^ {0,3}\[([^\]^][^\]]*)\]:\s", needs=("]:",))
_LIST_ITEM = pattern(r"^ {0,3}(?:[-*+]|\d+[.)])\s")
_ENTRY_START = pattern(ENTRY_PREFIX + r"(?=\[)")
_COMMENT = pattern(r"<!--.*?-->")
_LOOKAHEAD = 64


class LocatedAhead:
    """A markdown draft's text read and its markers located in a thread of their own, started
    while pandoc reads the draft: a wait that leaves a core idle, and on a 1.6 MB draft the
    light pass takes a fifth of a second. :meth:`result` waits for it."""

    def __init__(
        self, path: Path, name: str, titles: Sequence[str], text: str | None = None
    ) -> None:
        self.text: str | None = text
        self.located: Locator | None = None
        import threading  # a build's: no cost of a verify

        self._thread = threading.Thread(
            target=self._run, args=(path, name, tuple(titles)), name="citeledger-locate"
        )
        self._thread.daemon = True
        self._thread.start()

    def _run(self, path: Path, name: str, titles: tuple[str, ...]) -> None:
        if self.text is None:  # the caller already read it (and refused what is not text)
            try:
                self.text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return  # the findings fall back to headings, as without the text
        self.located = Locator.from_text(name, self.text, titles)

    def result(self) -> tuple[str | None, Locator | None]:
        """The draft's text (None when it could not be read) and its Locator."""
        self._thread.join()
        return self.text, self.located


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


@record
class _Raw:
    key: tuple[str, tuple[int, ...], str | None]
    line: int
    col: int
    escaped: bool = False


@record
class Locator:
    """Marker positions of one markdown source (see the module docstring)."""

    name: str
    body: list[_Raw] = field(default_factory=list)
    notes: list[_Raw] = field(default_factory=list)
    entries: dict[int, tuple[int, int]] = field(default_factory=dict)
    definitions: list[Definition] = field(default_factory=list)
    titles: tuple[str, ...] = ()  # the Sources titles the text was read with
    lists: list[int] = field(default_factory=list)  # the first line of each citation list

    @classmethod
    def from_text(cls, name: str, text: str, titles: Sequence[str] = DEFAULT_TITLES) -> Locator:
        loc = cls(name, titles=tuple(titles))
        loc._read(text, titles)
        return loc

    def _read(self, text: str, titles: Sequence[str]) -> None:
        lines = text.split("\n")
        labels = {m.group(1).strip().lower() for ln in lines if (m := _REF_DEF.match(ln))}
        fenced = fenced_lines(lines)
        lists = find_sources_line_blocks(lines, titles, fenced)
        self.lists = [b.start + 1 for b in lists]
        block = lists[-1] if lists else None
        sources = range(block.start, block.end) if block else range(0)
        self.definitions = block_definitions(lines, block, fenced)
        for d in self.definitions:
            self.entries.setdefault(d.id, (d.line, d.col))
        in_comment = False
        in_note = False
        after_blank = True
        in_sources = False
        in_list = False
        in_code = False
        for number, line in enumerate(lines):
            if fenced[number]:
                continue
            if block is not None and block.titled and number == block.start:
                continue
            in_sources = number in sources
            if in_comment:
                end = line.find("-->")
                if end < 0:
                    continue
                line = " " * (end + 3) + line[end + 3 :]
                in_comment = False
            if "<!--" in line:
                line = _COMMENT.sub(_blank, line)
                if "<!--" in line:
                    cut = line.index("<!--")
                    line = line[:cut]
                    in_comment = True
            stripped = line.strip()
            indented = line.startswith(("    ", "\t"))
            if FOOTNOTE_DEF.match(line):
                in_note = True
            elif in_note and stripped and after_blank and not line[:1].isspace():
                in_note = False
            if _LIST_ITEM.match(line):
                in_list = True
            elif in_list and stripped and after_blank and not line[:1].isspace():
                in_list = False
            # An indented block after a blank line is code, unless it continues a list item
            # or a footnote; it runs until a line that is not indented.
            if stripped:
                in_code = indented and (in_code or after_blank) and not (in_list or in_note)
            after_blank = not stripped
            if in_code:
                continue
            if "[" not in line or _REF_DEF.match(line):
                continue
            line, links = _mask_inline(line, number + 1)
            if in_sources:
                m = _ENTRY_START.match(line)
                if m:
                    em = MARKER_RE.match(line, m.end())
                    if em and em.group("id"):
                        self.entries.setdefault(int(em.group("id")), (number + 1, m.end() + 1))
                continue
            stream = self.notes if in_note else self.body
            found = [*links, *_candidates(line, number + 1, labels)]
            found.sort(key=lambda pair: pair[0])
            stream.extend(raw for _col, raw in found)

    def place(self, found: Scan) -> list[list[str | None]]:
        """For each hit of ``found``, the ``LINE:COL`` of each of its markers (None: unknown).
        Escaped runs are not markers: no tree marker takes one."""
        out: list[list[str | None]] = []
        for row in self._match(found, escaped=False):
            out.append([f"{raw.line}:{raw.col}" if raw else None for raw in row])
        return out

    def escaped(self, found: Scan) -> set[tuple[int, int]]:
        """``(hit index, marker ordinal)`` of the tree markers the author wrote escaped."""
        if not any(raw.escaped for raw in self.body) and not any(raw.escaped for raw in self.notes):
            return set()
        return {
            (k, ordinal)
            for k, row in enumerate(self._match(found, escaped=True))
            for ordinal, raw in enumerate(row)
            if raw is not None and raw.escaped
        }

    def _match(self, found: Scan, *, escaped: bool) -> list[list[_Raw | None]]:
        cursors = {"body": 0, "notes": 0}
        out: list[list[_Raw | None]] = []
        for hit in found.hits:
            row: list[_Raw | None] = []
            for marker in hit.markers:
                raw = None
                if hit.in_note:
                    raw = self._take(self.notes, "notes", cursors, marker, escaped)
                if raw is None:
                    raw = self._take(self.body, "body", cursors, marker, escaped)
                row.append(raw)
            out.append(row)
        return out

    @staticmethod
    def _take(
        stream: list[_Raw], which: str, cursors: dict[str, int], marker: Marker, escaped: bool
    ) -> _Raw | None:
        key = _key(marker)
        start = cursors[which]
        for k in range(start, min(start + _LOOKAHEAD, len(stream))):
            raw = stream[k]
            if raw.key == key and (escaped or not raw.escaped):
                cursors[which] = k + 1
                return raw
        return None

    def entry(self, source_id: int) -> str | None:
        pos = self.entries.get(source_id)
        return f"{pos[0]}:{pos[1]}" if pos else None


def _candidates(line: str, number: int, labels: set[str]) -> list[tuple[int, _Raw]]:
    """The marker-like bracket runs of one prepared line: plain ones, and escaped ones
    (``\\[1\\]``, ``\\[1]``, ``[1\\]``) marked as such. A ``[n]`` that is a reference to a
    defined label is a link, which cites when its label is a number."""
    out: list[tuple[int, _Raw]] = []
    cols: list[int] | None = None
    if "\\" in line:
        line, cols = _unescape(line)
    for mm in MARKER_RE.finditer(line):
        marker = parse_marker(mm)
        if mm.start() > 0 and line[mm.start() - 1] == "]" and marker.text[1:-1].lower() in labels:
            continue  # the label of a reference link ``[text][7]`` (``[1][2]`` cites twice)
        if marker.kind != "id" and marker.text[1:-1].lower() in labels:
            continue
        col = mm.start()
        escaped = False
        if cols is not None:
            first, last = cols[mm.start()], cols[mm.end() - 1]
            escaped = first < 0 or last < 0
            col = -first - 1 if first < 0 else first
        out.append((col, _Raw(_key(marker), number, col + 1, escaped)))
    return out


# What the tree finder leaves out of a line, blanked in this order. Code spans and math are one
# pattern so that whichever opens first wins, as in pandoc's reader.
_CODE_OR_MATH = pattern(r"(`+)(?:(?!\1).)+?\1|\$\$.+?\$\$|\$(?=\S)[^$\n]*?(?<=\S)\$(?!\d)")
# Pandoc's markdown writers escape every bracket: a citation written as a raw HTML link around
# its marker (citeledger's gfm wiki pages) reads ``<a href="#src-1">\\[1\\]</a>``. There the
# backslashes are the writer's, not an author's: that marker is the link's text, a citation.
_ANCHORED = pattern(r"(<a\s[^<>]*>)\\\[([^\[\]\\<>]*)\\\](</a>)")
_HTML_TAG = pattern(r"</?[A-Za-z][^<>]*>")
# ``[7](https://...)`` and ``[[7]](https://...)``: a link whose text is a marker cites.
_MARKER_LINK = pattern(r"\[\[?([0-9]{1,6})\]?\]\(\s*<?https?://")
_INLINE_LINK = pattern(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\([^()\s]*(?:\([^()]*\))?[^()]*\)")


def _mask_inline(line: str, number: int) -> tuple[str, list[tuple[int, _Raw]]]:
    """``line`` with code, math, HTML tags and inline links blanked (columns kept), and the
    links on line ``number`` whose text is a marker, as candidates of their own."""
    if "`" in line or "$" in line:
        line = _CODE_OR_MATH.sub(_blank, line)
    if "<" in line:
        if "\\[" in line:
            line = _ANCHORED.sub(lambda m: f"{m[1]}[{m[2]}]  {m[3]}", line)
        line = _HTML_TAG.sub(_blank, line)
    links: list[tuple[int, _Raw]] = []
    if "](" in line:
        for lm in _MARKER_LINK.finditer(line):
            links.append(
                (lm.start(), _Raw(("id", (int(lm.group(1)),), None), number, lm.start() + 1))
            )
        line = _INLINE_LINK.sub(_blank, line)
    return line, links


_ESCAPE = pattern(r"\\+(?=[\[\]])")


def _unescape(line: str) -> tuple[str, list[int]]:
    """``line`` with the backslashes before brackets removed, and for each character its column
    in ``line``; an escaped bracket's column is stored as ``-(col + 1)``."""
    text: list[str] = []
    cols: list[int] = []
    pos = 0
    for m in _ESCAPE.finditer(line):
        for k in range(pos, m.start()):
            text.append(line[k])
            cols.append(k)
        run = m.end() - m.start()
        for k in range(m.start(), m.start() + run - run % 2):
            text.append(line[k])
            cols.append(k)
        pos = m.end()
        if run % 2:
            text.append(line[pos])
            cols.append(-(pos + 1))
            pos += 1
    for k in range(pos, len(line)):
        text.append(line[k])
        cols.append(k)
    return "".join(text), cols


def drop_escaped(doc: Json, found: Scan, locator: Locator, titles: Sequence[str]) -> bool:
    """Make the markers the author escaped plain text, in the tree and in ``found`` (updated in
    place, so every caller holding it sees the same scan); True when there were any.

    The text stays as the reader sees it; the bracket is split from the rest into a Str of its
    own (``[`` then ``1]``), which every writer prints as before and no marker finder, here or
    in a later build step, can take for a citation."""
    escaped = locator.escaped(found)
    if not escaped:
        return False
    planned: list[tuple[list[Json], int, int, list[Json]]] = []
    for k, hit in enumerate(found.hits):
        if hit.url is not None:
            continue
        segments = [""]
        ordinal = 0
        for piece in hit.pieces:
            if isinstance(piece, Marker):
                if (k, ordinal) in escaped:
                    segments[-1] += piece.text[0]
                    segments.append(piece.text[1:])
                else:
                    segments[-1] += piece.text
                ordinal += 1
            else:
                segments[-1] += piece
        if len(segments) > 1:
            elements = [el for segment in segments for el in text_to_inlines(segment)]
            planned.append((hit.container, hit.start, hit.end, elements))
    for container, start, end, elements in reversed(planned):
        container[start : end + 1] = elements
    again = scan(doc, titles, found.known, found.resolve)
    found.hits[:] = again.hits
    found.ordinary[:] = again.ordinary
    found.sources, found.listing, found.code = again.sources, again.listing, again.code
    found.others[:] = again.others
    return True


def _key(marker: Marker) -> tuple[str, tuple[int, ...], str | None]:
    return (marker.kind, marker.ids, marker.name)


def hit_location(name: str, hit: Hit, pos: str | None) -> str:
    if pos is not None:
        return f"{name}:{pos}"
    return heading_location(name, hit.heading)


def heading_location(name: str, heading: str) -> str:
    return f"{name} \u00a7 {heading}" if heading else name
