"""Sources entries written once per build, not once per page that lists them.

Every page ends with a list of the sources it cites, one paragraph per source: the entry (the
format's :class:`~citeledger.filters.base.BaseEntries`) and its back-links to the page's
citations. Written page by page, a source cited on forty pages is serialised, parsed and
written by pandoc forty times: on the 500-page benchmark the lists were two thirds of the JSON
the page writer handed pandoc, and of pandoc's writing time. A source cited the same number of
times on two pages has the same paragraph on both (the back-links name ``cite-12-1`` ... on
every page), so each distinct paragraph is written once, as a page of its own in the writer's
batch of the first page that lists it (a pandoc run of its own would cost more than the
paragraphs: each run costs 60 ms or more of CPU besides its work), and a page's list holds one
placeholder block for its paragraphs, replaced by their written text once the pages are
written.

The sources page lists, under each entry, the pages that cite it: 10,954 links to 500 pages
on the benchmark, a third of the writer's work. Each distinct link is written once the same
way, and an entry's links are one placeholder, replaced by their written text joined by
``, `` (how the writer joins them: a comma and a space between links).

Nor is a paragraph made again once written: the pages' placement
(:class:`SharedEntriesPlacement`) knows that a gfm entry is its source, its number and how
many times the page cites the source (its back-links), and hands a page that lists an entry
already made a stand-in for its number (making each entry for every page that lists it was
most of the filter's time on a page).

For gfm only: a top-level paragraph's gfm text (written without wrapping, notes aside) depends
on the paragraph alone, and a link's on the link alone. The html writer wraps, and the wikis'
list items are one raw string each already, which pandoc copies without work.
"""

from __future__ import annotations

import pickle
import re
import secrets
from collections.abc import Callable

from ...filters.base import State
from ...filters.html import HtmlPlacement
from ...ledger import Source
from ...tree import Blocks, Inlines, Json, elements, para, raw_block, raw_inline
from .pages import Page
from .writer import PageWriter

# A Sources entry on a page: its source's id, its number, the page's citations of it.
EntryKey = tuple[int, int, int]


class WrittenEntries:
    """The distinct list paragraphs of one build and their written text. A paragraph taken
    from a page belongs to this object alone from then on (the page holds a placeholder), so
    the writer's threads change nothing a page still holds.

    ``prepare`` is what the build does to a page's blocks before writing them (gfm's link
    rewriting): applied to the blocks a page keeps and to each distinct paragraph once, not to
    every copy."""

    def __init__(self, writer: PageWriter, prepare: Callable[[Blocks], None]) -> None:
        self.writer = writer
        self.prepare = prepare
        self.mark = f"citeledger-entry-{secrets.token_hex(8)}-"
        self.numbers: dict[bytes, int] = {}  # a paragraph, pickled -> its number
        self.written: list[Page] = []  # each paragraph as a page of its own, by number
        self.entries: dict[EntryKey, int] = {}  # a page's Sources entry -> its number
        # ``id()`` of the inline lists the page being cited holds, until :meth:`swap` takes
        # them: a stand-in's number, an entry made for it the entry's key.
        self.stand_ins: dict[int, int] = {}
        self.made: dict[int, EntryKey] = {}

    def swap(self, blocks: Blocks, start: int) -> None:
        """Replace the paragraphs of a page's list (``blocks`` from ``start`` on) by
        placeholders, one per run of paragraphs; a paragraph seen on an earlier page is not
        written again. A paragraph with a footnote stays: its note is numbered and placed by the
        page."""
        out: list[Json] = []
        kept: list[Json] = []
        run: list[str] = []
        for block in blocks[start:]:
            number = self._number(block) if block["t"] == "Para" else None
            if number is not None:
                run.append(str(number))
                continue
            if run:
                out.append(self._placeholder(run))
                run = []
            out.append(block)
            kept.append(block)
        if run:
            out.append(self._placeholder(run))
        self.stand_ins.clear()
        self.made.clear()
        self.prepare(kept)
        blocks[start:] = out

    def stand_in(self, number: int) -> Inlines:
        """The inlines of an entry written already as paragraph ``number``: :meth:`swap`
        takes the paragraph holding them for that number without looking inside."""
        inlines: Inlines = [raw_inline(self.writer.fmt.raw, "")]
        self.stand_ins[id(inlines)] = number
        return inlines

    def links(self, links: list[Json]) -> Json:
        """One placeholder for ``links`` as the writer writes them in a line of text,
        ``[A](a.md), [B](b.md)``, each distinct link written once."""
        numbers = []
        for el in links:
            number = self._number(para([el]))
            if number is None:
                raise ValueError("a link with a footnote cannot be written apart")
            numbers.append(str(number))
        return raw_inline(self.writer.fmt.raw, f"<!--{self.mark}c{'.'.join(numbers)}-->")

    def _number(self, para: Json) -> int | None:
        stood = self.stand_ins.pop(id(para["c"]), None)
        if stood is not None:
            return stood
        entry = self.made.pop(id(para["c"]), None)
        number = self._pickled(para)
        if entry is not None and number is not None:
            self.entries[entry] = number
        return number

    def _pickled(self, para: Json) -> int | None:
        # pickle is the cheapest faithful serialisation (a fifth of json.dumps' time): equal
        # bytes mean equal paragraphs, which is all the key must promise.
        key = pickle.dumps(para, protocol=5)
        if b"Note" in key and any(el["t"] == "Note" for el in elements(para["c"])):
            return None
        number = self.numbers.get(key)
        if number is None:
            number = self.numbers[key] = len(self.numbers)
            self.prepare([para])
            page = Page("", "", [para], {}, "")
            self.written.append(page)
            self.writer.add(page)
        return number

    def _placeholder(self, numbers: list[str]) -> Json:
        return raw_block(self.writer.fmt.raw, f"<!--{self.mark}p{'.'.join(numbers)}-->")

    def fill(self, pages: list[Page]) -> None:
        """Put the written text where each placeholder was written (after the writer has
        written every page)."""
        texts = [page.text.strip("\n") for page in self.written]
        pattern = re.compile(f"<!--{re.escape(self.mark)}([pc])([\\d.]+)-->")
        # How the writer joins paragraphs (a blank line) and links in a line (a comma, a space).
        joiners = {"p": "\n\n", "c": ", "}

        def written(match: re.Match[str]) -> str:
            numbers = match.group(2).split(".")
            return joiners[match.group(1)].join(texts[int(n)] for n in numbers)

        for page in pages:
            if self.mark in page.text:
                page.text = pattern.sub(written, page.text)


class SharedEntriesPlacement(HtmlPlacement):
    """The placement of a wiki's gfm pages: the html family's, each Sources entry made once
    per build. An entry is its source, its number and its back-links to the page's citations
    of it (``cite-12-1`` ... ``cite-12-k``, the same on every page citing it k times): an
    entry written already is handed to the page as :meth:`WrittenEntries.stand_in`."""

    def __init__(self, state: State, once: WrittenEntries) -> None:
        super().__init__(state)
        self.once = once

    def entry(self, source: Source, number: int) -> Inlines:
        key = (source.id, number, self.state.seen.get(source.id, 0))
        written = self.once.entries.get(key)
        if written is not None:
            return self.once.stand_in(written)
        inlines = super().entry(source, number)
        self.once.made[id(inlines)] = key
        return inlines
