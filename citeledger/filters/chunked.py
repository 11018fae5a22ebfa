"""chunkedhtml: every chunk gets its own Sources list, holding only the ids it cites.

``pandoc -t chunkedhtml`` splits the document into one HTML file per section at
``--split-level`` (default 1). The filter runs before the split and sees no flag, so it assumes
the default: each heading of level 1 opens a chunk, and so does the content before the first
one. Each chunk's list goes at its end under a level-2 "Sources" heading (a level-1 heading
would open a chunk of its own), in ledger order, with the html placement's links and
back-links (``filters/html.py``). Anchors carry the chunk number (``c2-src-12``) because the
chunks share one id space: pandoc rewrites every ``#id`` link to the file that holds the id, so
two entries named ``src-12`` would send both chunks' ``[12]`` to the first one.
"""

from __future__ import annotations

from ..ledger import Source
from ..tree import Block, Inline, Inlines, attr, elements, header, inline_lists, para
from . import base, cards, html

SPLIT_LEVEL = 1


def chunk_bounds(blocks: list[Block], split_level: int) -> list[tuple[int, int]]:
    """Top-level ``blocks[start:end]`` of each chunk pandoc will write."""
    bounds: list[tuple[int, int]] = []
    start = 0
    for i, b in enumerate(blocks):
        if b.get("t") == "Header" and b["c"][0] <= split_level and i > start:
            bounds.append((start, i))
            start = i
    if start < len(blocks):
        bounds.append((start, len(blocks)))
    return bounds


class ChunkedPlacement(html.HtmlPlacement):
    def __init__(self, state: base.State) -> None:
        super().__init__(state)
        self.split_level = SPLIT_LEVEL
        self.chunk = 0
        self.occurrences: dict[int, list[str]] = {}
        # The citation links this placement made, by identity, with their source ids: a link
        # of the draft's own that carries the class ``citeledger-cite`` is the author's.
        self.made: dict[int, tuple[Inline, int]] = {}

    def cite(self, source: Source, number: int, at: base.CiteContext) -> Inlines:
        out = super().cite(source, number, at)
        for el in elements(out):
            if el.get("t") == "Link":
                self.made[id(el)] = (el, source.id)
        return out

    def cite_links(self, blocks: list[Block]) -> list[tuple[Inline, int]]:
        """The citation links among ``blocks``, in reading order, with their source ids."""
        return [
            self.made[id(el)]
            for inlines in inline_lists(blocks)
            for el in inlines
            if id(el) in self.made
        ]

    def chunk_anchor(self, source_id: int) -> str:
        return f"c{self.chunk}-{base.source_anchor(source_id)}"

    def back_links(self, source: Source) -> Inlines:
        """Back-links to this chunk's citations of ``source`` only."""
        return self.back_marks(self.occurrences.get(source.id, []))

    def chunk_list(self, ids: list[int]) -> list[Block]:
        sources = [s for s in self.state.list_order() if s.id in ids]
        entries = [
            {
                "t": "Div",
                "c": [
                    attr(self.chunk_anchor(s.id), ["citeledger-source"]),
                    [para(self.entry(s, self.state.number(s.id)))],
                ],
            }
            for s in sources
        ]
        level = min(self.split_level + 1, 6)
        title = self.state.options.sources_title
        heading = header(level, title, f"c{self.chunk}-sources", ["unnumbered"])
        listing = {"t": "Div", "c": [attr("", ["citeledger-sources"]), entries]}
        return [heading, listing, *self.card_blocks(sources)]

    def finalize(self) -> None:
        blocks = self.state.doc["blocks"]
        for number, (start, end) in reversed(list(enumerate(chunk_bounds(blocks, 1)))):
            self.chunk = number
            self.card_prefix = f"c{number}-"
            self.occurrences = {}
            for el, source_id in self.cite_links(blocks[start:end]):
                el["c"][2][0] = "#" + self.chunk_anchor(source_id)
                for pair in el["c"][0][2]:
                    if pair[0] == "aria-describedby":
                        pair[1] = cards.card_id(source_id, self.card_prefix)
                self.occurrences.setdefault(source_id, []).append(el["c"][0][0])
            if self.occurrences:
                blocks[end:end] = self.chunk_list(list(self.occurrences))
        if self.page and self.state.seen:
            self.page_passes()
