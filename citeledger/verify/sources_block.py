"""The one recognizer of a draft's own Sources block, and the entries it lists.

A Sources block opens with its title, in any of the forms people and tools write it:

- a heading at any level, ATX (``## Sources``, ``## Sources ##``) or setext (underlined);
- a paragraph whose first line is ``**Sources:**``, ``**Sources**``, ``Sources:`` or
  ``Sources`` alone;
- on slides read back from PowerPoint, a paginated title: ``Sources (1/2)``.

The title is "Sources" or the document's ``citeledger.sources-title`` (any case, an optional
colon). A heading's block runs to the next heading of the same or a higher level; a paragraph's
to the next heading of any level. When a draft holds several, the last one is the block.

The same rules read the tree (the verifier, the filters, the renderers) and the raw lines of a
markdown draft (``render --replace-in``, the locator that turns findings into ``LINE:COL``), so
the two can never disagree about where the block is.

``render`` writes ``[n] url — title`` lines, people turn them into list items, and pandoc joins
consecutive lines into one paragraph. An entry is a line (a paragraph split at its line breaks,
or a list item) that starts with ``[n]``; its URL is the first http(s) URL in it, where a link
counts by its target. The seed's reading of a line is kept: ``[n]``, an optional ``-``, ``–`` or
``:``, then the URL (or, failing one, the next word, which then fails the URL comparison instead
of passing silently).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..tree import BREAKS, Json, Walk, stringify

DEFAULT_TITLE = "Sources"
DEFAULT_TITLES = (DEFAULT_TITLE,)
ANY_HEADING = 99  # the "level" of a paragraph title: any heading ends its block

_PAGINATION = re.compile(r"\s*\(\s*\d+\s*/\s*\d+\s*\)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BOLD_LINE = re.compile(r"^ {0,3}(\*\*|__)(.+?)\1[ \t]*(:?)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def titles_for(title: str | None) -> tuple[str, ...]:
    """The titles a draft's block may carry: "Sources" and the configured one."""
    if title and title.strip() and title.strip().casefold() != DEFAULT_TITLE.casefold():
        return (DEFAULT_TITLE, " ".join(title.split()))
    return DEFAULT_TITLES


def is_sources_title(text: str, titles: Sequence[str] = DEFAULT_TITLES) -> bool:
    """Whether ``text`` (a heading's or a slide's title, a paragraph's first line without its
    markup) names a Sources block: a title, any case, an optional colon, an optional page."""
    core = " ".join(text.split()).rstrip(":").rstrip()
    core = _PAGINATION.sub("", core).rstrip(":").rstrip()
    if not core:
        return False
    folded = core.casefold()
    return any(folded == " ".join(t.split()).casefold() for t in titles)


# The tree ---------------------------------------------------------------------------------


@dataclass(slots=True)
class SourcesBlock:
    """Top-level blocks ``blocks[start:end]`` form the draft's own Sources block; ``level`` is
    its heading level (:data:`ANY_HEADING` for a paragraph title)."""

    start: int
    end: int
    title: str
    level: int = ANY_HEADING


def block_title(block: Json, titles: Sequence[str] = DEFAULT_TITLES) -> tuple[str, int] | None:
    """``(title, level)`` when ``block`` opens a Sources block, else None."""
    t = block.get("t")
    if t == "Header":
        text = stringify(block["c"][2]).strip()
        return (text, block["c"][0]) if is_sources_title(text, titles) else None
    if t not in ("Para", "Plain"):
        return None
    inlines = block["c"]
    first: list[Json] = []
    for el in inlines:
        if el.get("t") in BREAKS:
            break
        first.append(el)
    if not first:
        return None
    if first[0].get("t") == "Strong" and all(
        el.get("t") == "Str" and el["c"] == ":" for el in first[1:]
    ):
        text = stringify(first[0]["c"]).strip()
        return (text, ANY_HEADING) if is_sources_title(text, titles) else None
    if all(el.get("t") in ("Str", "Space") for el in first):
        text = stringify(first).strip()
        if is_sources_title(text, titles):
            return text, ANY_HEADING
    return None


def find_sources_block(
    blocks: list[Json], titles: Sequence[str] = DEFAULT_TITLES
) -> SourcesBlock | None:
    """The last top-level block that opens a Sources block, with its extent."""
    for i in range(len(blocks) - 1, -1, -1):
        found = block_title(blocks[i], titles)
        if found is None:
            continue
        title, level = found
        end = len(blocks)
        for j in range(i + 1, len(blocks)):
            b = blocks[j]
            if b.get("t") == "Header" and b["c"][0] <= level:
                end = j
                break
        return SourcesBlock(i, end, title, level)
    return None


# Raw markdown lines -----------------------------------------------------------------------


def line_title(lines: Sequence[str], number: int, titles: Sequence[str]) -> int | None:
    """The level of the Sources title on ``lines[number]`` (:data:`ANY_HEADING` for a
    paragraph title), or None when that line opens no Sources block."""
    line = lines[number]
    m = _ATX.match(line)
    if m:
        return len(m.group(1)) if is_sources_title(m.group(2) or "", titles) else None
    nxt = lines[number + 1] if number + 1 < len(lines) else ""
    if line.strip() and (u := _SETEXT.match(nxt)) and is_sources_title(line, titles):
        return 1 if u.group(1)[0] == "=" else 2
    m = _BOLD_LINE.match(line)
    if m:
        return ANY_HEADING if is_sources_title(m.group(2), titles) else None
    if not line.startswith(("    ", "\t")) and is_sources_title(line, titles):
        return ANY_HEADING
    return None


def heading_level(lines: Sequence[str], number: int) -> int | None:
    """The level of the heading on ``lines[number]``, or None (ATX and setext)."""
    line = lines[number]
    m = _ATX.match(line)
    if m:
        return len(m.group(1))
    nxt = lines[number + 1] if number + 1 < len(lines) else ""
    if line.strip() and not line.startswith(("    ", "\t")) and (u := _SETEXT.match(nxt)):
        return 1 if u.group(1)[0] == "=" else 2
    return None


def fenced_lines(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it belongs to a fenced code block (fence lines included); a fence
    closes only on a fence of its own character at least as long."""
    out: list[bool] = []
    fence: str | None = None
    for line in lines:
        m = _FENCE.match(line)
        if fence is not None:
            out.append(True)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                rest = line[m.end() :].strip()
                if not rest:
                    fence = None
            continue
        if m:
            fence = m.group(1)
            out.append(True)
            continue
        out.append(False)
    return out


@dataclass(frozen=True, slots=True)
class LineBlock:
    """Lines ``[start, end)`` of a markdown draft hold its Sources block (title line first)."""

    start: int
    end: int
    level: int


def find_sources_lines(
    lines: Sequence[str], titles: Sequence[str] = DEFAULT_TITLES
) -> LineBlock | None:
    """The last Sources block of a markdown draft's lines, outside fenced code, with the same
    extent rule as :func:`find_sources_block`."""
    fenced = fenced_lines(lines)
    found: LineBlock | None = None
    number = 0
    while number < len(lines):
        if fenced[number] or not _mentions_title(lines[number], titles):
            number += 1
            continue
        level = line_title(lines, number, titles)
        if level is None:
            number += 1
            continue
        end = len(lines)
        first_body = number + (2 if _is_setext(lines, number) else 1)
        for k in range(first_body, len(lines)):
            if fenced[k]:
                continue
            h = heading_level(lines, k)
            if h is not None and h <= level:
                end = k
                break
        found = LineBlock(number, end, level)
        number += 1
    return found


def _mentions_title(line: str, titles: Iterable[str]) -> bool:
    folded = line.casefold()
    return any(t.casefold().split()[0] in folded for t in titles if t.split())


def _is_setext(lines: Sequence[str], number: int) -> bool:
    return (
        not _ATX.match(lines[number])
        and number + 1 < len(lines)
        and bool(_SETEXT.match(lines[number + 1]))
    )


def replace_in_text(draft: str, block: str, titles: Sequence[str] = DEFAULT_TITLES) -> str:
    """``draft`` with its Sources block (see :func:`find_sources_lines`) replaced by ``block``,
    or ``block`` appended after a blank line when there is none. Everything outside the block
    stays byte-identical, and a second run gives the same text."""
    newline = "\r\n" if "\r\n" in draft else "\n"
    lines = draft.splitlines(keepends=True)
    found = find_sources_lines([ln.rstrip("\r\n") for ln in lines], titles)
    new_block = newline.join(block.split("\n")) + newline
    if found is not None:
        before = "".join(lines[: found.start])
        after = "".join(lines[found.end :])
        if after:
            new_block += newline
        return before + new_block + after
    if not draft:
        return new_block
    if not draft.endswith(("\n", "\r")):
        draft += newline
    if not draft.endswith(("\n\n", "\r\n\r\n", "\r\r")):
        draft += newline
    return draft + new_block


# Entries ----------------------------------------------------------------------------------

_ENTRY = re.compile(r"^\s*\[([0-9]{1,6})\]\s*[-\u2013:]?\s*(\S+)")
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
        if index == block.start:
            if b.get("t") == "Header":
                continue
            # A paragraph title: its first line is the title.
            b = {"t": "Para", "c": _after_first_line(b["c"])}
        lines = _Lines()
        lines.blocks([b])
        for line in lines.out:
            m = _ENTRY.match(line)
            if m:
                url = _URL.search(line)
                out.append(Entry(int(m.group(1)), url.group(0) if url else m.group(2), line, index))
    return out


def _after_first_line(inlines: list[Json]) -> list[Json]:
    for k, el in enumerate(inlines):
        if el.get("t") in BREAKS:
            return inlines[k + 1 :]
    return []


class _Lines(Walk):
    """The text lines of a block: each paragraph split at its line breaks, each list item, each
    line of a line block; a link shows its target before its text."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[str] = []

    def inlines(self, inlines: list[Json]) -> None:
        current: list[str] = []
        for el in inlines:
            if el.get("t") in BREAKS:
                self.out.append("".join(current))
                current = []
            else:
                current.append(_text(el))
        self.out.append("".join(current))


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
