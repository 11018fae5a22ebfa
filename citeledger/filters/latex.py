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

from ..escape import latex_text, latex_url
from ..formats import family
from ..ledger import Source
from ..tree import Json, raw_block, raw_inline
from . import base

HEADER_FILE = Path(__file__).resolve().parent.parent / "templates" / "citeledger-header.tex"


@cache
def header_snippet() -> str:
    return HEADER_FILE.read_text(encoding="utf-8")


class Placement(base.Placement):
    def __init__(self, state: base.State) -> None:
        super().__init__(state)
        self.bracketed = state.options.notes == "list"
        self.macro = r"\citeledgerbracket" if self.bracketed else r"\citeledgernote"

    def cite(self, source: Source, number: int, at: base.CiteContext) -> list[Json]:
        return [raw_inline("latex", f"{self.macro}{{{source.id}}}{{{number}}}{{{at.occurrence}}}")]

    def separator(self) -> list[Json]:
        return [] if self.bracketed else [raw_inline("latex", r"\citeledgersep{}")]

    def entry_text(self, source: Source) -> str:
        parts: list[str] = []
        if source.lead_sentence:
            parts.append(latex_text(source.lead_sentence))
        parts.append(r"\citeledgerurl{" + latex_url(source.url) + "}")
        if source.display_accessed:
            parts.append(f"(accessed {latex_text(source.display_accessed)})")
        if source.archived:
            parts.append(r"(archived \citeledgerurl{" + latex_url(source.archived) + "})")
        return " ".join(parts)

    def label(self, number: int) -> str:
        return f"[{number}]" if self.bracketed else f"{number}."

    def list_blocks(self, sources: list[Source]) -> list[Json]:
        numbers = [self.state.number(s.id) for s in sources]
        widest = max((self.label(n) for n in numbers), key=len)
        lines = [r"\begin{citeledgersources}{" + latex_text(widest) + "}"]
        for src, number in zip(sources, numbers, strict=True):
            label = latex_text(self.label(number))
            lines.append(f"\\citeledgerentry{{{src.id}}}{{{label}}}{{{self.entry_text(src)}}}")
        lines.append(r"\end{citeledgersources}")
        heading = self.sources_header()
        if family(self.state.format) == "beamer":
            heading["c"][1][1].append("allowframebreaks")
        return [heading, raw_block("latex", "\n".join(lines))]

    def finalize(self) -> None:
        base.add_header_include(self.state.doc, "latex", header_snippet())
        super().finalize()
