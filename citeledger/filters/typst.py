"""typst placement (PDF without TeX): bracketed ids linked to a labelled Sources section.

Each citation is ``#link(<src-12>)[\\[12\\]]<cite-12-1>``: the bracketed mark links to the entry
and carries a label of its own, so the entry's mark can link back to the first citation. The
Sources section is a two-column grid (mark, ``Title. URL (accessed DATE)``) under a heading;
the ``typst`` wheel compiles it, so a PDF needs nothing but pip.

Titles and URLs are written as raw typst through :func:`citeledger.escape.typst_markup`
(markup) and :func:`citeledger.escape.typst_string` (string literals), the only two places that
escape for typst.
"""

from __future__ import annotations

from ..escape import typst_markup, typst_string
from ..ledger import Source
from ..tree import Json, raw_block, raw_inline
from . import base


class Placement(base.Placement):
    def cite(self, source: Source, number: int, at: base.CiteContext) -> list[Json]:
        mark = typst_markup(f"[{number}]")
        target = base.source_anchor(source.id)
        here = base.cite_anchor(source.id, at.occurrence)
        return [raw_inline("typst", f"#link(<{target}>)[{mark}]<{here}>")]

    def entry_text(self, source: Source) -> str:
        parts: list[str] = []
        if source.lead_sentence:
            parts.append(typst_markup(source.lead_sentence))
        parts.append(f"#link({typst_string(source.url)})")
        if source.display_accessed:
            parts.append(typst_markup(f"(accessed {source.display_accessed})"))
        return " ".join(parts)

    def list_blocks(self, sources: list[Source]) -> list[Json]:
        cells: list[str] = []
        for src in sources:
            mark = typst_markup(f"[{self.state.number(src.id)}]")
            back = base.cite_anchor(src.id, 1)
            anchor = base.source_anchor(src.id)
            cells.append(f"  [#link(<{back}>)[{mark}]<{anchor}>], [{self.entry_text(src)}],")
        grid = "\n".join(
            [
                "#block(above: 1em, width: 100%)[#set par(justify: false)",
                "#grid(columns: (auto, 1fr), column-gutter: 0.75em, row-gutter: 0.7em,",
                *cells,
                ")]",
            ]
        )
        return [self.sources_header(), raw_block("typst", grid)]
