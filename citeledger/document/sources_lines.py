"""The Sources block read from a markdown draft's raw lines, and replaced there.

A markdown draft may also end with reference definitions ``[n]: url`` (the README habit, and a
form the grounded-citations block parser accepts). Pandoc consumes them, so the tree never shows
them: read from the raw text (:func:`definitions`), they are the draft's Sources entries.

The same rules read the tree (the verifier, the filters, the renderers) and the raw lines of a
markdown draft (``render --replace-in``, the locator that turns findings into ``LINE:COL``), so
the two can never disagree about where the block is; ``render --replace-in`` checks that they
agree on the draft at hand, through pandoc, and refuses to guess when they do not.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Sequence

from ..errors import AmbiguousBlock
from ..ledger.light import pattern, record
from ..tree import Block, Blocks, Inline, Inlines, PandocDoc
from .grammar import link_marker_id
from .sources_block import find_sources_block
from .sources_titles import (
    ANY_HEADING,
    DEFAULT_TITLES,
    is_sources_title,
    may_be_empty,
    title_core,
)

_ATX = pattern(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$", needs=("#",))
_SETEXT = pattern(r"^ {0,3}(=+|-+)[ \t]*$", opens="=-")
_BOLD_LINE = pattern(r"^ {0,3}(\*\*|__)(.+?)\1[ \t]*(:?)[ \t]*$", needs=("**", "__"))


def line_title(lines: Sequence[str], number: int, titles: Sequence[str]) -> int | None:
    """The level of the Sources title on ``lines[number]`` (:data:`ANY_HEADING` for a
    paragraph title), or None when that line opens no Sources block. Like pandoc's markdown
    reader, a heading or a paragraph starts after a blank line (or at the top)."""
    found = _title_line(lines, number)
    if found is None or not is_sources_title(found[0], titles):
        return None
    return found[1]


def line_title_text(lines: Sequence[str], number: int) -> str | None:
    """The text of the title ``lines[number]`` would open, as pandoc reads it (no ``#``, no
    bold markers, no heading attributes), or None when the line opens no heading or paragraph."""
    found = _title_line(lines, number)
    return found[0] if found is not None else None


# ``## References {#refs .unnumbered}``, ``# Sources {-}``: pandoc's heading attributes.
_HEADING_ATTRIBUTES = pattern(r"[ \t]*\{[^{}]*\}[ \t]*$", needs=("{",))


# ``::: {.cell}`` or ``:::``: a fenced Div opens or closes (a Quarto callout, a notebook cell
# written as markdown); a block starts after one as after a blank line, and ends at one.
_DIV_FENCE = pattern(r"^ {0,3}:{3,}", needs=(":::",))


def _title_line(lines: Sequence[str], number: int) -> tuple[str, int] | None:
    line = lines[number]
    if number > 0 and lines[number - 1].strip() and not _DIV_FENCE.match(lines[number - 1]):
        return None
    if _DIV_FENCE.match(line):
        return None
    m = _ATX.match(line)
    if m:
        return _HEADING_ATTRIBUTES.sub("", m.group(2) or ""), len(m.group(1))
    nxt = lines[number + 1] if number + 1 < len(lines) else ""
    if line.strip() and (u := _SETEXT.match(nxt)):
        return _HEADING_ATTRIBUTES.sub("", line), 1 if u.group(1)[0] == "=" else 2
    m = _BOLD_LINE.match(line)
    if m:
        return m.group(2), ANY_HEADING
    if not line.startswith(("    ", "\t")):
        return line, ANY_HEADING
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


_FENCE = pattern(r"^\s*(`{3,}|~{3,})", needs=("```", "~~~"))


def fenced_lines(lines: Sequence[str]) -> list[bool]:
    """For each line, whether it is out of the prose's reach: in a fenced code block (fence
    lines included; a fence closes only on a bare fence of its own character at least as long,
    so a four-backtick fence holds three-backtick ones) or in the YAML front matter."""
    out: list[bool] = []
    fence: str | None = None
    front = _front_matter_end(lines)
    for number, line in enumerate(lines):
        if number < front:
            out.append(True)
            continue
        m = _FENCE.match(line)
        if fence is not None:
            out.append(True)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                rest = line[m.end() :].strip()
                if not rest:
                    fence = None
            continue
        if m and not (m.group(1)[0] == "`" and "`" in line[m.end() :]):
            fence = m.group(1)
            out.append(True)
            continue
        out.append(False)
    return out


def _front_matter_end(lines: Sequence[str]) -> int:
    if lines and lines[0].rstrip() == "---":
        for number in range(1, len(lines)):
            if lines[number].rstrip() in ("---", "..."):
                return number + 1
    return 0


@record(frozen=True)
class LineBlock:
    """Lines ``[start, end)`` of a markdown draft hold its Sources block (title line first,
    unless ``titled`` is false: a run of ``[n]: url`` definitions that ends the draft)."""

    start: int
    end: int
    level: int
    titled: bool = True


def find_sources_lines(
    lines: Sequence[str],
    titles: Sequence[str] = DEFAULT_TITLES,
    fenced: Sequence[bool] | None = None,
) -> LineBlock | None:
    """The last Sources block of a markdown draft's lines, outside fenced code, with the same
    extent and citation-list rules as :func:`find_sources_block`; the closing run of ``[n]:``
    definitions when it comes after every titled list. ``fenced``: :func:`fenced_lines` of
    ``lines``, when the caller has it."""
    found = find_sources_line_blocks(lines, titles, fenced)
    return found[-1] if found else None


def find_sources_line_blocks(
    lines: Sequence[str],
    titles: Sequence[str] = DEFAULT_TITLES,
    fenced: Sequence[bool] | None = None,
) -> list[LineBlock]:
    """Every citation list of a markdown draft's lines, in order (:func:`find_sources_lines`
    is the last; a document holds one, and the verifier reports the others)."""
    fenced = fenced if fenced is not None else fenced_lines(lines)
    found: list[LineBlock] = []
    limit = len(lines)
    # Last first, as the tree's reader looks: a list's section ends where a later list begins.
    for number in reversed(title_lines(lines, titles, fenced)):
        level = line_title(lines, number, titles)
        if level is None or number >= limit:
            continue
        first_body = number + (2 if _is_setext(lines, number) else 1)
        end = _section_end(lines, first_body, level, fenced, limit)
        title = line_title_text(lines, number) or ""
        if _lists_entries(lines, first_body, end, fenced, may_be_empty(title, titles)):
            found.append(LineBlock(number, _entries_end(lines, number, end, fenced), level))
            limit = number
    found.reverse()
    run = _definition_run(lines, fenced)
    if run is not None and (not found or run.start >= found[-1].end):
        found.append(run)
    return found


def _section_end(
    lines: Sequence[str], first_body: int, level: int, fenced: Sequence[bool], limit: int
) -> int:
    """Where a title's section ends: at the next heading of its level or a higher one (after a
    blank line, as pandoc reads one), a Div's fence, or ``limit``."""
    for k in range(first_body, limit):
        if fenced[k]:
            continue
        h = heading_level(lines, k)
        if h is not None and h <= level and not (k > 0 and lines[k - 1].strip()):
            return k
        if _DIV_FENCE.match(lines[k]):
            return k
    return limit


def title_lines(
    lines: Sequence[str], titles: Sequence[str], fenced: Sequence[bool] | None = None
) -> list[int]:
    """Every line outside fenced code that opens a Sources title, list or not, in order."""
    fenced = fenced if fenced is not None else fenced_lines(lines)
    return [
        number
        for number, line in enumerate(lines)
        if not fenced[number]
        and _mentions_title(line, titles)
        and line_title(lines, number, titles) is not None
    ]


# The start of a list line, as render writes it or a person edits it: a bullet or a number.
ENTRY_PREFIX = r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?"
# A list line that names an id: ``[n]`` first, or after a bullet.
_ENTRY_LINE = pattern(ENTRY_PREFIX + r"\[[0-9]{1,6}\](?![(])")
# ``[n]: url "title"``: a reference definition with a numeric label.
_DEFINITION = pattern(
    r"^ {0,3}\[([0-9]{1,6})\]:[ \t]*(<[^<>\n]*>|\S+)"
    r"(?:[ \t]+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t]*$",
    needs=("]:",),
)


def _lists_entries(
    lines: Sequence[str], start: int, end: int, fenced: Sequence[bool], may_be_empty: bool
) -> bool:
    """The raw side of :func:`is_citation_list`: an entry line, a ``[n]:`` definition, or
    nothing but blank lines (under a title that may stand alone)."""
    body = [lines[k] for k in range(start, end) if not fenced[k]]
    if may_be_empty and not any(line.strip() for line in body) and not any(fenced[start:end]):
        return True
    return any(_ENTRY_LINE.match(line) or _DEFINITION.match(line) for line in body)


def _definition_run(lines: Sequence[str], fenced: Sequence[bool]) -> LineBlock | None:
    """The ``[n]: url`` definitions (and blank lines) that end the draft, if any."""
    k = len(lines)
    while k > 0 and not lines[k - 1].strip():
        k -= 1
    end = k
    start = None
    while k > 0 and not fenced[k - 1]:
        line = lines[k - 1]
        if _DEFINITION.match(line):
            start = k - 1
        elif line.strip():
            break
        k -= 1
    if start is None:
        return None
    return LineBlock(start, end, ANY_HEADING, titled=False)


def _mentions_title(line: str, titles: Iterable[str]) -> bool:
    folded = line.casefold()
    return any(word in folded for word in _first_words(tuple(titles)))


@functools.lru_cache(maxsize=16)
def _first_words(titles: tuple[str, ...]) -> tuple[str, ...]:
    """Each title's first word, folded, once per set of titles: asked for every line of a
    draft, and there are some fifty common titles."""
    return tuple(dict.fromkeys(t.casefold().split()[0] for t in titles if t.split()))


def _is_setext(lines: Sequence[str], number: int) -> bool:
    return (
        not _ATX.match(lines[number])
        and number + 1 < len(lines)
        and bool(_SETEXT.match(lines[number + 1]))
    )


@record(frozen=True)
class Definition:
    """``[id]: url`` on line ``line`` (1-based), column ``col``."""

    id: int
    url: str
    line: int
    col: int


_ESCAPED = pattern(r"\\([!-/:-@\[-`{-~])")


def definitions(text: str, titles: Sequence[str] = DEFAULT_TITLES) -> list[Definition]:
    """The ``[n]: url`` definitions that end a markdown draft (:func:`find_sources_lines`'s
    untitled block, or the ones inside its titled list), URLs as pandoc reads them: angle
    brackets dropped, backslash escapes undone."""
    lines = [ln.rstrip("\r") for ln in text.split("\n")]
    fenced = fenced_lines(lines)
    return block_definitions(lines, find_sources_lines(lines, titles, fenced), fenced)


def block_definitions(
    lines: Sequence[str], block: LineBlock | None, fenced: Sequence[bool]
) -> list[Definition]:
    """:func:`definitions` from lines already split and searched."""
    if block is None:
        return []
    out: list[Definition] = []
    for number in range(block.start, block.end):
        line = lines[number].rstrip("\r")
        m = _DEFINITION.match(line)
        if m is None or fenced[number]:
            continue
        url = m.group(2)
        url = url[1:-1] if url.startswith("<") else _ESCAPED.sub(r"\1", url)
        out.append(Definition(int(m.group(1)), url, number + 1, line.index("[") + 1))
    return out


# Replacing the block ------------------------------------------------------------------------


def replace_in_text(
    draft: str,
    block: str,
    titles: Sequence[str] = DEFAULT_TITLES,
    *,
    read: Callable[[str], PandocDoc] | None = None,
    tree: PandocDoc | None = None,
    keep_title: bool = True,
) -> str:
    """``draft`` with its Sources block (see :func:`find_sources_lines`) replaced by ``block``,
    or ``block`` appended after a blank line when there is none. Everything outside the block
    stays byte-identical (footnote and other reference definitions inside the old block move
    after the new one), a heading keeps its level (and, with ``keep_title``, its own title),
    and a second run gives the same text.

    ``read`` parses markdown into pandoc's tree (``tree``: the draft's, when the caller has
    it). With it, the replacement is checked against pandoc's own reading: the block the lines
    name must be the tree's block, and the new draft must read as the old one with only that
    block changed. Otherwise :class:`AmbiguousBlock` is raised and nothing is written."""
    newline = "\r\n" if "\r\n" in draft else "\n"
    lines = draft.splitlines(keepends=True)
    bare = [ln.rstrip("\r\n") for ln in lines]
    found = find_sources_lines(bare, titles)
    if found is not None:
        block = _relevel(block, found)
        if keep_title:
            block = _retitle(block, bare, found)
    new_block = newline.join(block.split("\n")) + newline
    if found is not None:
        # The block ends after its last entry (:func:`find_sources_lines`): a "### Notes on
        # method" and its prose after the list are the draft's own text and stay.
        kept = _kept_definitions(bare, found)
        while kept and not bare[kept[0]].strip():
            kept.pop(0)
        while kept and not bare[kept[-1]].strip():
            kept.pop()
        before = "".join(lines[: found.start])
        moved = "".join(lines[k] for k in kept)
        if moved and not moved.endswith(("\n", "\r")):
            moved += newline
        rest = found.end
        while rest < len(bare) and not bare[rest].strip():
            rest += 1
        after = "".join(lines[rest:])
        if moved:
            new_block += newline + moved
        if after:
            new_block += newline
        updated = before + new_block + after
    elif not draft:
        updated = new_block
    else:
        text = draft
        if not text.endswith(("\n", "\r")):
            text += newline
        if not text.endswith(("\n\n", "\r\n\r\n", "\r\r")):
            text += newline
        updated = text + new_block
    if read is not None:
        _check_replacement(tree if tree is not None else read(draft), read(updated), titles)
    return updated


def _entries_end(lines: Sequence[str], start: int, end: int, fenced: Sequence[bool]) -> int:
    """Where a titled block whose section is lines ``[start, end)`` ends: after its last entry
    (a list line naming an id, or a ``[n]:`` definition) and the lines that continue it up to
    a blank line, a heading or a Div's fence; after its title when it has no entry. What
    follows is the draft's text (the tree's reader ends the block alike)."""
    last = None
    for k in range(start + 1, end):
        if not fenced[k] and (_ENTRY_LINE.match(lines[k]) or _DEFINITION.match(lines[k])):
            last = k
    if last is None:
        return start + (2 if _is_setext(lines, start) else 1)
    k = last + 1
    while (
        k < end
        and lines[k].strip()
        and heading_level(lines, k) is None
        and not _DIV_FENCE.match(lines[k])
    ):
        k += 1
    return k


def _relevel(block: str, found: LineBlock) -> str:
    """A rendered ``## Sources`` block at the level of the heading it replaces, so it ends
    where the old block ended."""
    if not found.titled or found.level == ANY_HEADING:
        return block
    first, sep, rest = block.partition("\n")
    m = _ATX.match(first)
    if m is None:
        return block
    return "#" * found.level + first[len(m.group(1)) :].lstrip("#") + sep + rest


def _retitle(block: str, lines: Sequence[str], found: LineBlock) -> str:
    """The rendered block under the draft's own title, when the draft's block has another
    ("## References" stays "## References"); the same title, in any case or with a colon,
    takes the rendered spelling."""
    drafted = line_title_text(lines, found.start) if found.titled else None
    if not drafted:
        return block
    first, sep, rest = block.partition("\n")
    m = _ATX.match(first)
    rendered = (m.group(2) or "") if m else first
    if is_sources_title(drafted, (title_core(rendered),)):
        return block
    heading = lines[found.start]
    if m and _ATX.match(heading):
        # The draft's heading line as it is: its level, its {#id .class} attributes.
        return heading.rstrip() + sep + rest
    core = title_core(drafted)
    return (f"{m.group(1)} {core}" if m else f"{core}:") + sep + rest


# ``[^note]:`` opens a footnote definition; ``[label]: url`` with a label that is not an id is
# the rest of the draft's business.
FOOTNOTE_DEF = pattern(r"^ {0,3}\[\^[^\]\s]+\]:", needs=("[^",))
_OTHER_DEF = pattern(r"^ {0,3}\[(?!\^)(?![0-9]{1,6}\])[^\]\n]+\]:\s", needs=("]:",))


def _kept_definitions(lines: Sequence[str], found: LineBlock) -> list[int]:
    """Lines of the old block that belong to the rest of the draft: footnote definitions (with
    their indented continuation) and reference definitions with non-numeric labels."""
    kept: list[int] = []
    in_note = False
    for k in range(found.start, found.end):
        line = lines[k]
        if FOOTNOTE_DEF.match(line):
            in_note = True
        elif in_note and line.strip() and not line[:1].isspace():
            in_note = False
        if in_note or _OTHER_DEF.match(line):
            kept.append(k)
    while kept and not lines[kept[-1]].strip():
        kept.pop()
    return kept


def _check_replacement(old: PandocDoc, new: PandocDoc, titles: Sequence[str]) -> None:
    old_blocks = old["blocks"]
    new_blocks = new["blocks"]
    was = find_sources_block(old_blocks, titles)
    start, end = (was.start, was.end) if was else (len(old_blocks), len(old_blocks))
    now = find_sources_block(new_blocks, titles)
    if now is None:
        raise AmbiguousBlock("pandoc does not read the rewritten block as a Sources list")
    if now.start != start or _plain(old_blocks[:start]) != _plain(new_blocks[: now.start]):
        raise AmbiguousBlock(
            "its lines and pandoc's reading disagree about where the Sources block starts"
        )
    if _plain(old_blocks[end:]) != _plain(new_blocks[now.end :]):
        raise AmbiguousBlock(
            "its lines and pandoc's reading disagree about where the Sources block ends"
        )


def _plain(blocks: Blocks) -> Blocks:
    """``blocks`` with every link whose text is a marker as that marker in plain text: how a
    citation reads once the ``[n]: url`` definitions it linked to are replaced by a list."""
    data: Blocks = json.loads(json.dumps(blocks))
    stack: list[Blocks | Block | Inline] = [data]
    while stack:
        cur = stack.pop()
        if isinstance(cur, list):
            if cur and all(isinstance(x, dict) and "t" in x for x in cur):
                _unlink(cur)
            stack.extend(cur)
        elif isinstance(cur, dict) and isinstance(cur.get("c"), list):
            stack.append(cur["c"])
    return data


def _unlink(inlines: Inlines) -> None:
    out: Inlines = []
    changed = False
    for el in inlines:
        if el.get("t") == "Link" and (n := link_marker_id(el)) is not None:
            el = {"t": "Str", "c": f"[{n}]"}
            changed = True
        if el.get("t") == "Str" and out and out[-1].get("t") == "Str":
            out[-1] = {"t": "Str", "c": out[-1]["c"] + el["c"]}
            changed = True
        else:
            out.append(el)
    if changed:
        inlines[:] = out
