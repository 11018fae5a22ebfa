"""LaTeX and beamer placement: endnotes keyed by ledger id.

A reader of a printed report expects a small raised mark and the notes collected at the end.
Each source gets one endnote: its first citation prints the mark, later citations print the
same mark, and the Sources section at the end holds one entry per source (``Title. URL
(accessed DATE)``). Marks link to their entry and each entry's label links back to the first
citation (hyperref, which pandoc's template loads). With ``citeledger.notes=list`` the marks are
bracketed ``[12]`` instead of raised.

The macros (``\\citeledgernote``, ``\\citeledgerentry``, ...) come from
``templates/citeledger-header.tex``, appended to the document's ``header-includes`` so no one
edits a template. Titles and URLs are written as raw LaTeX through
:func:`citeledger.escape.latex_text` and :func:`citeledger.escape.latex_url`, the only two places
that escape for LaTeX.

Scripts outside Latin (CJK, Arabic, Hebrew, ...) in a title are wrapped in
``\\citeledgercjk{}`` or ``\\citeledgerscript{}``: xelatex and lualatex set them in an installed
font that has the glyphs (Noto CJK, DejaVu Sans); pdflatex, which has no such fonts and would
stop, prints ``[...]`` in their place and keeps the URL.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..document.grammar import Marker
from ..escape import latex_text, latex_url
from ..formats import family
from ..formats.slide_fit import (
    EMU_PER_PT,
    BodyBox,
    SlideEntry,
    paginate,
    slide_level,
    sources_page_title,
)
from ..ledger import Source
from ..tree import Block, Inlines, header, raw_block, raw_inline
from . import base

# A beamer frame (128 × 96 mm) at the class's 11 pt: the text width inside its 1 cm margins
# less the list's labels, the height below the frame title and above the navigation symbols,
# lines at 13.6 pt and the list's 0.35 line between entries. Latin Modern Sans averages 0.45 em,
# which is the estimate's 0.5 em of 10 pt.
BEAMER_FRAME = BodyBox(
    width=290 * EMU_PER_PT,
    height=220 * EMU_PER_PT,
    font_pt=10.0,
    line_spacing=1.36,
    space_before=0.35 * 1.36,
    inset_lr=0,
    inset_tb=0,
)
HEADER_FILE = Path(__file__).resolve().parent.parent / "templates" / "citeledger-header.tex"


@cache
def header_snippet() -> str:
    return HEADER_FILE.read_text(encoding="utf-8")


class LatexPlacement(base.BasePlacement):
    def __init__(self, state: base.State) -> None:
        super().__init__(state)
        self.bracketed = state.options.notes == "list"
        # A raised mark joins the word before it (TeX breaks lines only at glue).
        self.joins_marks = not self.bracketed
        self.macro = r"\citeledgerbracket" if self.bracketed else r"\citeledgernote"

    def cite(self, source: Source, number: int, at: base.CiteContext) -> Inlines:
        return [raw_inline("latex", f"{self.macro}{{{source.id}}}{{{number}}}{{{at.occurrence}}}")]

    def separator(self) -> Inlines:
        return [] if self.bracketed else [raw_inline("latex", r"\citeledgersep{}")]

    def provenance(self, marker: Marker) -> Inlines:
        """A small sans-serif label in a light frame (``\\citeledgerlabel``)."""
        if self.state.options.provenance == "drop":
            return []
        _kind, text = base.label_text(marker)
        return [raw_inline("latex", f"\\citeledgerlabel{{{latex_text(text)}}}")]

    def entry_text(self, source: Source) -> str:
        parts: list[str] = []
        if source.lead_sentence:
            parts.append(latex_text(source.lead_sentence))
        parts.append(r"\citeledgerurl{" + latex_url(source.url) + "}")
        if source.display_accessed:
            # A date breaks nowhere: "(accessed 2025-02-" / "10)" reads as two dates.
            parts.append(f"\\mbox{{(accessed {latex_text(source.display_accessed)})}}")
        if source.archived:
            parts.append(r"(archived \citeledgerurl{" + latex_url(source.archived) + "})")
        return " ".join(parts)

    def label(self, number: int) -> str:
        return f"[{number}]" if self.bracketed else f"{number}."

    def list_blocks(self, sources: list[Source]) -> list[Block]:
        numbers = {s.id: self.state.number(s.id) for s in sources}
        widest = latex_text(max((self.label(n) for n in numbers.values()), key=len))
        if family(self.state.format) == "beamer":
            return self._frames(sources, numbers, widest)
        return [self.sources_header(), self._listing(sources, numbers, widest)]

    def _listing(self, sources: list[Source], numbers: dict[int, int], widest: str) -> Block:
        lines = [r"\begin{citeledgersources}{" + widest + "}"]
        for src in sources:
            label = latex_text(self.label(numbers[src.id]))
            lines.append(f"\\citeledgerentry{{{src.id}}}{{{label}}}{{{self.entry_text(src)}}}")
        lines.append(r"\end{citeledgersources}")
        return raw_block("latex", "\n".join(lines))

    def _frames(self, sources: list[Source], numbers: dict[int, int], widest: str) -> list[Block]:
        """Beamer: one frame per page, "Sources (1/3)", ..., at the deck's slide level (a
        heading above it would make a section, and its list a frame nothing paginates). The
        pages are measured as the other slide formats' are; ``shrink`` is the net under the
        estimate (``allowframebreaks`` would add "I" to every title)."""
        level = slide_level(self.state.doc["blocks"])
        # \url breaks after a slash: measured as a space there.
        measured = [
            SlideEntry(
                f"{self.label(numbers[s.id])} {s.lead_sentence} {s.display_accessed} ",
                s.url.replace("/", "/ "),
                s.id,
            )
            for s in sources
        ]
        by_id = {s.id: s for s in sources}
        pages = paginate(measured, BEAMER_FRAME)
        title = self.state.options.sources_title
        blocks: list[Block] = []
        for k, page in enumerate(pages, 1):
            identifier = "sources" if k == 1 else f"sources-{k}"
            page_title = sources_page_title(title, k, len(pages))
            blocks.append(header(level, page_title, identifier, ["unnumbered", "t", "shrink"]))
            blocks.append(self._listing([by_id[e.source_id] for e in page], numbers, widest))
        return blocks

    def finalize(self) -> None:
        base.add_header_include(self.state.doc, "latex", header_snippet())
        super().finalize()
