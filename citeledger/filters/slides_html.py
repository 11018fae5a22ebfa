"""The Sources list of an HTML slide show (reveal.js, slidy, s5, slideous, dzslides): one slide
per page, "Sources (1/3)", "Sources (2/3)", ... as the pptx deck has.

A slide shows what fits its box and cuts the rest: 31 entries on one reveal.js slide are 8,781 px of
a 700 px slide. The pages are measured by the estimate of :mod:`citeledger.formats.slide_fit`, for
reveal.js's slide (960 × 700 px, the themes' 40-42 px body text) with the list set at
:data:`FONT_SCALE` of the body size, left-aligned (a reference list is read, not shown from afar).
Each page's heading is at the deck's slide level, so each is a slide of its own, and the pages read
back as one Sources block (``Sources (1/2)`` and ``Sources (2/2)`` at one level with only entries
between: :func:`citeledger.document.sources_block.find_sources_block`).
"""

from __future__ import annotations

from ..formats.slide_fit import (
    EMU_PER_PT,
    BodyBox,
    SlideEntry,
    paginate,
    slide_level,
    sources_page_title,
)
from ..tree import Block, attr, header, stringify
from .base import State, source_anchor

EMU_PER_PX = 9525
BODY_PX = 42  # reveal.js's black theme, pandoc's default; the other themes set 40
FONT_SCALE = 0.55
# reveal.js's slide less its heading (at slide level 1 a 2.5 em h1: 1.2 lines and 20 px below).
SLIDE_BOX = BodyBox(
    width=960 * EMU_PER_PX,
    height=540 * EMU_PER_PX,
    font_pt=BODY_PX * FONT_SCALE * EMU_PER_PX / EMU_PER_PT,
    line_spacing=1.3,  # the themes' line height
    space_before=20 / (BODY_PX * FONT_SCALE),  # a paragraph's 20 px margin
    inset_lr=0,
    inset_tb=0,
)
STYLE = f"font-size: {FONT_SCALE}em; text-align: left"


def sources_slides(state: State, entries: dict[int, Block]) -> list[Block]:
    """The pages of a Sources list (never empty), each a heading at the slide level and its
    entries: ``entries`` maps each source id, in list order, to its entry's paragraph as the
    html placement writes it."""
    level = slide_level(state.doc["blocks"])
    measured = [SlideEntry(stringify(entry["c"]), "", sid) for sid, entry in entries.items()]
    pages = paginate(measured, SLIDE_BOX)
    title = state.options.sources_title
    blocks: list[Block] = []
    for k, page in enumerate(pages, 1):
        identifier = "sources" if k == 1 else f"sources-{k}"
        page_title = sources_page_title(title, k, len(pages))
        blocks.append(header(level, page_title, identifier, ["unnumbered"]))
        items = [
            {
                "t": "Div",
                "c": [
                    attr(source_anchor(e.source_id), ["citeledger-source"]),
                    [entries[e.source_id]],
                ],
            }
            for e in page
        ]
        listing = attr("", ["citeledger-sources"], [("style", STYLE)])
        blocks.append({"t": "Div", "c": [listing, items]})
    return blocks
