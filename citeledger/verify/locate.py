"""Where in the draft a finding is: ``draft.md:LINE:COL``, else ``draft.md § Heading``.

Pandoc's markdown reader keeps no source positions. ``commonmark_x+sourcepos`` does, but it is a
different reader (no pandoc-markdown extensions) that wraps every element in a Span, and a second
parse would double the cost of a run. So markers found in the tree are mapped back onto the raw
text instead: a light pass over the source lists the bracket runs that look like markers, in
order, leaving out the places the tree finder leaves out (fenced and indented code, code spans,
math, HTML comments and tags, inline links, reference links to a defined label, front matter),
and keeping three streams apart: the body, footnote definitions (whose text the tree shows at
the reference) and the Sources block. Tree markers then take the next raw candidate of the same
stream that says the same thing, looking a bounded distance ahead. A marker that finds no
partner falls back to its heading, so a wrong guess can cost precision, never a finding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from .markers import MARKER_RE, Hit, Marker, Scan, parse_marker
from .sources_block import DEFAULT_TITLES, find_sources_lines

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_FOOTNOTE_DEF = re.compile(r"^ {0,3}\[\^[^\]\s]+\]:")
_REF_DEF = re.compile(r"^ {0,3}\[([^\]^][^\]]*)\]:\s")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d+[.)])\s")
_ENTRY_START = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?=\[)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_MATH = re.compile(r"\$\$.+?\$\$|\$(?=\S)[^$\n]*?(?<=\S)\$(?!\d)")
_COMMENT = re.compile(r"<!--.*?-->")
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\([^()\s]*(?:\([^()]*\))?[^()]*\)")
_LOOKAHEAD = 64


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


@dataclass(slots=True)
class _Raw:
    key: tuple[str, tuple[int, ...], str | None]
    line: int
    col: int


@dataclass(slots=True)
class Locator:
    """Marker positions of one markdown source (see the module docstring)."""

    name: str
    body: list[_Raw] = field(default_factory=list)
    notes: list[_Raw] = field(default_factory=list)
    entries: dict[int, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def from_text(cls, name: str, text: str, titles: Sequence[str] = DEFAULT_TITLES) -> Locator:
        loc = cls(name)
        loc._read(text, titles)
        return loc

    def _read(self, text: str, titles: Sequence[str]) -> None:
        lines = text.split("\n")
        labels = {m.group(1).strip().lower() for ln in lines if (m := _REF_DEF.match(ln))}
        block = find_sources_lines(lines, titles)
        sources = range(block.start, block.end) if block else range(0)
        start = _front_matter_end(lines)
        fence: str | None = None
        in_comment = False
        in_note = False
        after_blank = True
        in_sources = False
        in_list = False
        in_code = False
        for number in range(start, len(lines)):
            line = lines[number]
            if fence is not None:
                m = _FENCE.match(line)
                if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                    fence = None
                continue
            m = _FENCE.match(line)
            if m:
                fence = m.group(1)
                continue
            if block is not None and number == block.start:
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
            if _FOOTNOTE_DEF.match(line):
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
            if "`" in line:
                line = _CODE_SPAN.sub(_blank, line)
            if "$" in line:
                line = _MATH.sub(_blank, line)
            if "<" in line:
                line = _HTML_TAG.sub(_blank, line)
            if "](" in line:
                line = _INLINE_LINK.sub(_blank, line)
            if in_sources:
                m = _ENTRY_START.match(line)
                if m:
                    em = MARKER_RE.match(line, m.end())
                    if em and em.group("id"):
                        self.entries.setdefault(int(em.group("id")), (number + 1, m.end() + 1))
                continue
            stream = self.notes if in_note else self.body
            for mm in MARKER_RE.finditer(line):
                marker = parse_marker(mm)
                if marker.kind == "id" and str(marker.ids[0]) in labels:
                    continue
                stream.append(_Raw(_key(marker), number + 1, mm.start() + 1))

    def place(self, found: Scan) -> list[list[str | None]]:
        """For each hit of ``found``, the ``LINE:COL`` of each of its markers (None: unknown)."""
        cursors = {"body": 0, "notes": 0}
        out: list[list[str | None]] = []
        for hit in found.hits:
            row: list[str | None] = []
            for marker in hit.markers:
                pos = None
                if hit.in_note:
                    pos = self._take(self.notes, "notes", cursors, marker)
                if pos is None:
                    pos = self._take(self.body, "body", cursors, marker)
                row.append(pos)
            out.append(row)
        return out

    @staticmethod
    def _take(
        stream: list[_Raw], which: str, cursors: dict[str, int], marker: Marker
    ) -> str | None:
        key = _key(marker)
        start = cursors[which]
        for k in range(start, min(start + _LOOKAHEAD, len(stream))):
            raw = stream[k]
            if raw.key == key:
                cursors[which] = k + 1
                return f"{raw.line}:{raw.col}"
        return None

    def entry(self, source_id: int) -> str | None:
        pos = self.entries.get(source_id)
        return f"{pos[0]}:{pos[1]}" if pos else None


def _key(marker: Marker) -> tuple[str, tuple[int, ...], str | None]:
    return (marker.kind, marker.ids, marker.name)


def _front_matter_end(lines: list[str]) -> int:
    if lines and lines[0].rstrip() == "---":
        for number in range(1, len(lines)):
            if lines[number].rstrip() in ("---", "..."):
                return number + 1
    return 0


def hit_location(name: str, hit: Hit, pos: str | None) -> str:
    if pos is not None:
        return f"{name}:{pos}"
    return heading_location(name, hit.heading)


def heading_location(name: str, heading: str) -> str:
    return f"{name} \u00a7 {heading}" if heading else name
