"""The one rule for where a draft's own Sources block begins and ends in a tree, and the
entries it lists.

A heading's section runs to the next heading of the same or a higher level; a paragraph
title's to the next heading of any level. A titled section is a Sources block only when it is
a citation list: it holds at least one entry naming an id, or nothing at all (a placeholder for
the list, under "Sources" or the configured title). The block ends after the block holding its
last entry: what follows the entries in the section (``Written by Jane Roe, 2022-02-08.``, an
exported page's footer) is the draft's text, kept by every build and read by verify as prose.
A section that merely carries the title (pandoc's own "### Sources" API section, a README's
"## Sources" about data sources) is prose, and nothing ever replaces or drops it.

The block is looked for in the blocks of every Div too (``path``): pandoc wraps each notebook
cell in a Div, djot each section, Quarto each callout and column. A document holds one block:
:func:`find_sources_blocks` gives every citation list, the last is the block, and the verifier
reports any other.

The same rules read the raw lines of a markdown draft (:mod:`.sources_lines`), so the two can
never disagree about where the block is.

``render`` writes ``[n] url — title`` lines, people turn them into list items, and pandoc joins
consecutive lines into one paragraph. An entry is a line (a paragraph split at its line breaks,
or a list item) that starts with ``[n]``; its URL is read the way pandoc read it: the target of
the line's first http(s) link (``<url>`` autolinks included), else the first word of the line
that is an http(s) URL as pandoc split the text into words (so ``…/Python_(programming_language)``
keeps its parenthesis), else the word after ``[n]`` (which then fails the URL comparison
instead of passing silently).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..ledger.light import pattern, record
from ..tree import BREAKS, Block, Blocks, Inline, Inlines, Walk, stringify
from .grammar import MARKER_RE, link_marker_id
from .sources_titles import (
    ANY_HEADING,
    DEFAULT_TITLES,
    PAGINATION,
    first_words,
    is_sources_title,
    may_be_empty,
)

# The ledger id of a URL as a list names it (``https://...``, ``doi:10.x/y``), or None: the
# caller's ledger, asked when a list names works without ``[n]``.
UrlIds = Callable[[str], "int | None"]


@record
class SourcesBlock:
    """Blocks ``start:end`` of :meth:`container` form the draft's own Sources block; ``level``
    is its heading level (:data:`ANY_HEADING` for a paragraph title); ``path`` the indices of
    the Divs, from the top level down, whose blocks hold it (empty at the top level)."""

    start: int
    end: int
    title: str
    level: int = ANY_HEADING
    path: tuple[int, ...] = ()
    resolve: UrlIds | None = None

    def container(self, blocks: Blocks) -> Blocks:
        """The list of blocks (the document's ``blocks``, or a Div's) that holds the block."""
        for k in self.path:
            blocks = blocks[k]["c"][1]
        return blocks

    def top_range(self) -> range:
        """The top-level blocks the block spans: none when a Div holds it (its Div holds the
        text around it too; see :meth:`nested_ids`)."""
        return range(0) if self.path else range(self.start, self.end)

    def nested_ids(self, blocks: Blocks) -> frozenset[int]:
        """``id()`` of the block's blocks when a Div holds them (a walk leaves them out), else
        none."""
        if not self.path:
            return frozenset()
        return frozenset(id(b) for b in self.container(blocks)[self.start : self.end])

    def left_out(self, blocks: Blocks) -> Blocks:
        """A copy of ``blocks`` (the document's) without the block, the top-level indices
        kept: only the Divs on its path are copied, everything else is shared."""
        if not self.path:
            return blocks[: self.start] + blocks[self.end :]
        out = list(blocks)
        holder = out
        for k in self.path:
            attr, inner = holder[k]["c"]
            copied = list(inner)
            holder[k] = {**holder[k], "c": [attr, copied]}
            holder = copied
        del holder[self.start : self.end]
        return out

    def remove(self, blocks: Blocks) -> Blocks:
        """Take the block out of ``blocks`` (the document's); returns its container, where a
        list put in its place belongs at ``start``."""
        container = self.container(blocks)
        del container[self.start : self.end]
        return container


def block_title(block: Block, titles: Sequence[str] = DEFAULT_TITLES) -> tuple[str, int] | None:
    """``(title, level)`` when ``block`` opens a Sources block, else None."""
    t = block.get("t")
    if t == "Header":
        text = stringify(block["c"][2]).strip()
        return (text, block["c"][0]) if is_sources_title(text, titles) else None
    if t not in ("Para", "Plain"):
        return None
    inlines = block["c"]
    first: Inlines = []
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
    blocks: Blocks, titles: Sequence[str] = DEFAULT_TITLES, resolve: UrlIds | None = None
) -> SourcesBlock | None:
    """The draft's Sources block: the last citation list of :func:`find_sources_blocks`."""
    found = find_sources_blocks(blocks, titles, resolve=resolve)
    return found[-1] if found else None


def find_sources_blocks(
    blocks: Blocks,
    titles: Sequence[str] = DEFAULT_TITLES,
    path: tuple[int, ...] = (),
    resolve: UrlIds | None = None,
) -> list[SourcesBlock]:
    """Every citation list (see the module docstring) in reading order, with its extent, in
    ``blocks`` and the blocks of their Divs; the pages of a paginated list (``Sources (1/2)``,
    ``Sources (2/2)``) are one list. ``resolve``: the ledger's ids of URLs, so that a list of
    works under the title (``1. Author. Title. URL``) whose every item names a ledger URL is a
    citation list too (:func:`_listed_works`)."""
    found: list[SourcesBlock] = []
    limit = len(blocks)
    words = first_words(tuple(titles))
    for i in range(len(blocks) - 1, -1, -1):
        if i >= limit:
            continue
        b = blocks[i]
        t = b.get("t")
        if t == "Div":
            found.extend(reversed(find_sources_blocks(b["c"][1], titles, (*path, i), resolve)))
            continue
        if (t == "Para" or t == "Plain") and not _may_open(b["c"], words):
            continue
        title_found = block_title(b, titles)
        if title_found is None:
            continue
        title, level = title_found
        end = _block_end(blocks, i, level, limit)
        block = SourcesBlock(i, end, title, level, path, resolve)
        listed = _entries_in(blocks, block)
        if not listed and not _placeholder(blocks, block, titles):
            continue
        while PAGINATION.search(block.title):
            earlier = _previous_page(blocks, block, titles)
            if earlier is None:
                break
            block.start, block.title = earlier
        block.end = max((e.block + 1 for e in listed), default=block.start + 1)
        found.append(block)
        limit = block.start
    found.reverse()
    return found


def _may_open(inlines: Inlines, words: frozenset[str]) -> bool:
    """Whether a paragraph's first word (in bold or not) is a title's first word."""
    head = inlines[0] if inlines else None
    if head is not None and head.get("t") == "Strong":
        head = head["c"][0] if head["c"] else None
    if head is None or head.get("t") != "Str":
        return False
    word = str(head["c"]).casefold().split()  # a no-break space splits too
    return bool(word) and word[0].rstrip(":") in words


def _block_end(blocks: Blocks, start: int, level: int, limit: int) -> int:
    """Where a title's section ends: at the next heading of its level or a higher one, or at
    ``limit`` (where a later list begins)."""
    for j in range(start + 1, limit):
        b = blocks[j]
        if b.get("t") == "Header" and b["c"][0] <= level:
            return j
    return limit


def _previous_page(
    blocks: Blocks, block: SourcesBlock, titles: Sequence[str]
) -> tuple[int, str] | None:
    """The title block of the page before ``block``'s first, when that is a page of the same
    paginated list at the same level with only entries between."""
    for j in range(block.start - 1, -1, -1):
        b = blocks[j]
        found = block_title(b, titles)
        if found is not None:
            title, level = found
            if level == block.level and PAGINATION.search(title):
                return j, title
            return None
        if b.get("t") == "Header" and b["c"][0] <= block.level:
            return None
    return None


def is_citation_list(
    blocks: Blocks, block: SourcesBlock, titles: Sequence[str] = DEFAULT_TITLES
) -> bool:
    """Whether ``block`` (``blocks``: its container) lists sources: an entry naming an id, or
    nothing after a title that may stand alone (see :func:`may_be_empty`)."""
    return _placeholder(blocks, block, titles) or bool(_entries_in(blocks, block))


def _placeholder(blocks: Blocks, block: SourcesBlock, titles: Sequence[str]) -> bool:
    if block.end == block.start + 1 and may_be_empty(block.title, titles):
        first = blocks[block.start]
        return first.get("t") == "Header" or not _after_first_line(first["c"])
    return False


# The en dash as a branch of its own: a class holding it costs a start ``ledger/light.py``
# names (``{1}`` keeps sre from folding it back into the class).
_ENTRY = pattern(r"^\s*\[([0-9]{1,6})\]\s*(?:[-:]|\u2013{1})?\s*(\S+)")
_URL_START = ("http://", "https://")
_TRAILING = ".,;:!?'\"\u2019\u201d"
_CLOSERS = {")": "(", "]": "[", ">": "<"}


@record(frozen=True)
class DraftEntry:
    """An entry of the draft's own Sources block: ``[id] url ...`` on a line of block ``block``."""

    id: int
    url: str
    text: str
    block: int


def entries(blocks: Blocks, block: SourcesBlock) -> list[DraftEntry]:
    """The entries of ``block`` in order (an id listed twice keeps its last line, as before);
    ``blocks`` is the document's."""
    return _entries_in(block.container(blocks), block)


def _entries_in(blocks: Blocks, block: SourcesBlock) -> list[DraftEntry]:
    """:func:`entries`, ``blocks`` being the block's container."""
    out: list[DraftEntry] = []
    for index in range(block.start, block.end):
        b = blocks[index]
        if index == block.start:
            if b.get("t") == "Header":
                continue
            # A paragraph title: its first line is the title.
            b = {"t": "Para", "c": _after_first_line(b["c"])}
        lines = _Lines()
        lines.blocks([b])
        for line, target, more in _wrapped_entries(lines.out):
            m = _ENTRY.match(line)
            if m:
                url = target or _url_word(line[m.end(1) + 1 :]) or _continued_url(more)
                out.append(DraftEntry(int(m.group(1)), url or m.group(2), line, index))
    if not out and block.resolve is not None:
        return _listed_works(blocks, block, block.resolve)
    return out


_LISTS = ("OrderedList", "BulletList")
_WORK_ID = pattern(r"^(?:doi|arxiv):\S+", re.IGNORECASE)


def _listed_works(blocks: Blocks, block: SourcesBlock, resolve: UrlIds) -> list[DraftEntry]:
    """A numbered or bulleted list of works under the title (``1. Author. Title. URL``,
    ``- Author. Title. doi:10.x/y``), read when every item names a URL the ledger holds: each
    item is the entry of that URL's id. Any item naming none, linking more than one page or
    citing with a marker is prose (a numbered list of points under a "Citations" section),
    and leaves the list the draft's text."""
    out: list[DraftEntry] = []
    for index in range(block.start + 1, block.end):
        b = blocks[index]
        if b.get("t") not in _LISTS:
            continue
        for item in b["c"][1] if b["t"] == "OrderedList" else b["c"]:
            lines = _Lines()
            lines.blocks(item)
            text = " ".join(line for line, _target in lines.out).strip()
            targets = list(dict.fromkeys(t for _line, t in lines.out if t))
            if len(targets) > 1 or MARKER_RE.search(text):
                return []
            target = targets[0] if targets else None
            url = target or _url_word(text) or _work_word(text)
            source_id = resolve(url) if url else None
            if url is None or source_id is None:
                return []
            out.append(DraftEntry(source_id, url, text, index))
    return out


def _work_word(text: str) -> str | None:
    """The first ``doi:10.x/y`` or ``arXiv:NNNN.NNNNN`` of ``text``, without the punctuation
    a sentence puts after it."""
    for word in text.split():
        if _WORK_ID.match(word):
            return word.rstrip(_TRAILING)
    return None


def _wrapped_entries(
    lines: list[tuple[str, str | None]],
) -> list[tuple[str, str | None, list[tuple[str, str | None]]]]:
    """Each line with the lines after it that open no entry: a writer that wraps its text
    (pandoc's HTML and markdown writers, at 72 columns) can put an entry's URL on a line of
    its own once the text before it (authors, title, site) is long."""
    out: list[tuple[str, str | None, list[tuple[str, str | None]]]] = []
    for line, target in lines:
        if out and not _ENTRY.match(line):
            out[-1][2].append((line, target))
        else:
            out.append((line, target, []))
    return out


def _continued_url(more: list[tuple[str, str | None]]) -> str | None:
    for line, target in more:
        url = target or _url_word(line)
        if url:
            return url
    return None


def _url_word(text: str) -> str | None:
    """The first word of ``text`` that is an http(s) URL, without the punctuation that a
    sentence puts after it (a closing bracket only when it closes nothing in the URL)."""
    for word in text.split():
        word = word.lstrip("<(")
        if not word.startswith(_URL_START):
            continue
        while word and word[-1] in _TRAILING:
            word = word[:-1]
        while (
            word and word[-1] in _CLOSERS and word.count(word[-1]) > word.count(_CLOSERS[word[-1]])
        ):
            word = word[:-1]
        return word
    return None


def _after_first_line(inlines: Inlines) -> Inlines:
    for k, el in enumerate(inlines):
        if el.get("t") in BREAKS:
            return inlines[k + 1 :]
    return []


class _Lines(Walk):
    """The text lines of a block: each paragraph split at its line breaks, each list item, each
    line of a line block; each line with the target of its first http(s) link (a link whose
    text is the entry's ``[n]`` shows as ``[n]`` and names no URL)."""

    def __init__(self) -> None:
        super().__init__()
        self.out: list[tuple[str, str | None]] = []

    def inlines(self, inlines: Inlines) -> None:
        current: list[str] = []
        targets: list[str] = []
        for el in inlines:
            if el.get("t") in BREAKS:
                self.out.append(("".join(current), targets[0] if targets else None))
                current = []
                targets = []
            else:
                current.append(_text(el, targets))
        self.out.append(("".join(current), targets[0] if targets else None))


def _text(el: Inline, targets: list[str]) -> str:
    t = el.get("t")
    if t == "Str":
        return str(el["c"])
    if t == "Space":
        return " "
    if t == "Link":
        n = link_marker_id(el)
        if n is not None:
            return f"[{n}]"
        target = el["c"][2][0]
        if target.startswith(_URL_START):
            targets.append(target)
        return stringify(el["c"][1])
    if t in ("Emph", "Strong", "Span", "Underline", "Strikeout", "SmallCaps"):
        inner = el["c"][1] if t == "Span" else el["c"]
        return "".join(_text(x, targets) for x in inner)
    return stringify([el])
