"""pptx: ``[n]`` stays in the bullet, the list goes on "Sources" slides at the end.

A slide body never shows a URL: an audience cannot click it and it crowds the slide. Pandoc
would put every footnote on one "Notes" slide at the end of the deck, so footnotes move into
the speaker notes of the slide that holds them instead. The Sources slides the filter writes
are paginated by the same estimate the renderer uses, for pandoc's default layout and body size,
so a bare ``pandoc deck.md --filter pandoc-citeledger -o deck.pptx`` already ends with readable
Sources slides; ``citeledger.renderers.pptx.postprocess_pptx`` then repaginates them for the real
layout at a denser size.

Slides are found the way pandoc finds them: a heading at the slide level (or a horizontal rule)
starts a slide, a heading above it makes a section slide. The filter sees no ``--slide-level``
flag, so it uses pandoc's default: the highest heading level that is followed directly by
content. The Sources heading is written at that level so it cannot change it.

With ``citeledger.slide-notes: true`` each slide's speaker notes list the sources that slide
cites (``[n] Title — URL``) and their evidence quotes from the ledger.
"""

from __future__ import annotations

from ..formats.slide_fit import (
    PANDOC_DEFAULT_BODY,
    SlideEntry,
    entry_text,
    paginate,
    slide_level,
    sources_page_title,
)
from ..ledger import Source
from ..tree import (
    Block,
    Inlines,
    Json,
    attr,
    header,
    inline_lists,
    link,
    replace_elements,
    str_,
    text_to_inlines,
)
from .base import CITE_CLASS, BasePlacement, CiteContext


def slides(blocks: list[Block], level: int) -> list[tuple[int, int]]:
    """Top-level ``blocks[start:end]`` ranges, one per slide pandoc will make."""
    bounds: list[tuple[int, int]] = []
    start = 0
    for i, b in enumerate(blocks):
        t = b.get("t")
        if (t == "Header" and b["c"][0] <= level) or t == "HorizontalRule":
            if i > start:
                bounds.append((start, i))
            start = i
    if start < len(blocks):
        bounds.append((start, len(blocks)))
    return bounds


def _is_notes_div(block: Block) -> bool:
    return block.get("t") == "Div" and "notes" in block["c"][0][1]


class PptxPlacement(BasePlacement):
    records_options = True

    def cite(self, source: Source, number: int, at: CiteContext) -> Inlines:
        # The Span carries the id to finalize(), which finds each slide's sources by it; the pptx
        # writer renders only its text.
        return [
            {
                "t": "Span",
                "c": [attr("", [CITE_CLASS], [("source", str(source.id))]), [str_(f"[{number}]")]],
            }
        ]

    def entry_text(self, source: Source, number: int) -> str:
        return entry_text(number, source.display_lead)

    def sources_blocks(self, level: int | None = None) -> list[Block]:
        if level is None:
            level = slide_level(self.state.doc["blocks"])
        return self._sources(level)[0]

    def _sources(self, level: int) -> tuple[list[Block], dict[int, int]]:
        """The Sources slides' blocks, and on which of them (1, 2, ...) each source id is."""
        sources = self.state.list_order()
        if not sources:
            return [], {}
        entries = [
            SlideEntry(self.entry_text(s, self.state.number(s.id)), s.url, s.id, s.archived or "")
            for s in sources
        ]
        # A renderer repaginates for the deck's real layout: until then one slide holds the
        # list (pandoc's pptx writer would spend time on slides the renderer deletes).
        pages = [entries] if self.state.rendered else paginate(entries, PANDOC_DEFAULT_BODY)
        title = self.state.options.sources_title
        blocks: list[Block] = []
        where: dict[int, int] = {}
        for k, page in enumerate(pages, 1):
            name = sources_page_title(title, k, len(pages))
            blocks.append(header(level, name, identifier=page_id(k), classes=[]))
            blocks += [{"t": "Para", "c": [*text_to_inlines(e.text), *_links(e)]} for e in page]
            where.update({e.source_id: k for e in page})
        return blocks, where

    def finalize(self) -> None:
        blocks = self.state.doc["blocks"]
        level = slide_level(blocks)
        for start, end in reversed(slides(blocks, level)):
            self._speaker_notes(blocks, start, end, level)
        sources, pages = self._sources(level)
        if not self.state.rendered:
            _link_marks(blocks, pages)
        blocks.extend(sources)

    def _speaker_notes(self, blocks: list[Block], start: int, end: int, level: int) -> None:
        """Move the slide's footnotes into its speaker notes and, when asked, list its sources
        there. A section slide (a heading above the slide level) gets nothing: content after
        its heading would change pandoc's slide level."""
        first = blocks[start]
        if first.get("t") == "Header" and first["c"][0] < level:
            return
        body = [b for b in blocks[start:end] if not _is_notes_div(b)]
        footnotes: list[Block] = []
        cited: dict[int, None] = {}
        for inlines in inline_lists(body):
            if any(el.get("t") == "Note" for el in inlines):
                for el in inlines:
                    if el.get("t") == "Note":
                        footnotes.extend(el["c"])
                inlines[:] = [el for el in inlines if el.get("t") != "Note"]
            for el in inlines:
                if el.get("t") == "Span" and CITE_CLASS in el["c"][0][1]:
                    cited.setdefault(int(dict(el["c"][0][2])["source"]), None)
        notes: list[Block] = list(footnotes)
        if self.state.options.slide_notes and cited:
            notes += self._source_notes([i for i in self.state.ledger.ids() if i in cited])
        if notes:
            blocks.insert(end, {"t": "Div", "c": [attr("", ["notes"]), notes]})

    def _source_notes(self, ids: list[int]) -> list[Block]:
        out: list[Block] = []
        for source_id in ids:
            src = self.state.source(source_id)
            number = self.state.number(source_id)
            out.append(
                {
                    "t": "Para",
                    "c": [
                        *text_to_inlines(self.entry_text(src, number)),
                        link([str_(src.url)], src.url),
                    ],
                }
            )
            quotes = [q.display_text for q in src.quotes if q.display_text]
            if quotes:
                items = [[{"t": "Plain", "c": text_to_inlines(f"\u201c{q}\u201d")}] for q in quotes]
                out.append({"t": "BulletList", "c": items})
        return out


def _link_marks(blocks: list[Block], pages: dict[int, int]) -> None:
    """Each mark a link to the Sources slide that lists its entry (``pages``: source id → its
    slide), which pandoc writes as a jump to that slide. With a renderer to come the list is
    repaginated, and the renderer links the marks instead."""

    def wrap(el: Json) -> list[Json] | None:
        if el.get("t") != "Span" or CITE_CLASS not in el["c"][0][1]:
            return None
        page = pages.get(int(dict(el["c"][0][2]).get("source", "0")))
        return None if page is None else [link([el], f"#{page_id(page)}")]

    replace_elements(blocks, wrap)


def page_id(k: int) -> str:
    """The identifier of the k-th Sources slide's heading (a mark's link target)."""
    return f"citeledger-sources-{k}"


def _links(entry: SlideEntry) -> Inlines:
    out = [link([str_(entry.url)], entry.url)]
    if entry.archived:
        archived = link([str_(entry.archived)], entry.archived)
        out += [{"t": "Space"}, str_("(archived"), {"t": "Space"}, archived, str_(")")]
    return out
