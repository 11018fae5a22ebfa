"""LaTeX and beamer placement: endnotes keyed by ledger id.

A reader of a printed report expects a small raised mark and the notes collected at the end.
Each source gets one endnote: its first citation prints the mark, later citations print the
same mark, and the Sources section at the end holds one entry per source (``Title. URL
(accessed DATE)``). Marks link to their entry and each entry's label links back to the first
citation (hyperref, which pandoc's template loads). With ``citeledger.notes=list`` the marks are
bracketed ``[12]`` instead of raised.

The macros (``\\citeledgernote``, ``\\citeledgerentry``, ...) come from
``templates/citeledger-header.tex``, appended to the document's ``header-includes`` so no one
edits a template. Titles and URLs are written as raw LaTeX through :func:`latex_escape` and
:func:`latex_url`, the only two places that escape for LaTeX.

Scripts outside Latin (CJK, Arabic, Hebrew, ...) in a title are wrapped in
``\\citeledgercjk{}`` or ``\\citeledgerscript{}``: xelatex and lualatex set them in an installed
font that has the glyphs (Noto CJK, DejaVu Sans); pdflatex, which has no such fonts and would
stop, prints ``[...]`` in their place and keeps the URL.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path
from urllib.parse import quote

from ..ledger import Source
from ..tree import Json, raw_block, raw_inline
from . import base

HEADER_FILE = Path(__file__).resolve().parent.parent / "templates" / "citeledger-header.tex"

_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    '"': r"\textquotedbl{}",
    "`": r"\textasciigrave{}",
    "[": "{[}",
    "]": "{]}",
    "'": r"\textquotesingle{}",
}
# Beyond Latin-1 and Latin Extended-A, the characters pdflatex's utf8 input knows.
_LATIN_EXTRA = frozenset(
    "\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2020\u2021\u2022\u2026\u20ac\u2122"
)


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (
        0x2E80 <= o <= 0x9FFF  # radicals, kana, CJK symbols, unified ideographs
        or 0xAC00 <= o <= 0xD7AF  # Hangul syllables
        or 0xF900 <= o <= 0xFAFF
        or 0xFF00 <= o <= 0xFFEF  # full-width forms
        or 0x20000 <= o <= 0x3FFFF
    )


def _script(ch: str) -> str:
    """ "latin" (pdflatex sets it), "cjk", "rtl", "other" (another script), "space", "drop"."""
    o = ord(ch)
    if o < 0x20 or 0x7F <= o <= 0x9F:
        return "space"
    if o < 0x180 or ch in _LATIN_EXTRA:
        return "latin"
    if unicodedata.category(ch) in ("Cf", "Cc", "Cs", "Co", "Cn"):
        return "drop"  # bidi marks, zero-width spaces: invisible, and fatal to pdflatex
    if _is_cjk(ch):
        return "cjk"
    if 0x0590 <= o <= 0x08FF or 0xFB1D <= o <= 0xFDFF or 0xFE70 <= o <= 0xFEFF:
        return "rtl"  # Hebrew, Arabic, Syriac, Thaana, their presentation forms
    return "other"


def latex_escape(text: str) -> str:
    """Text as LaTeX that typesets exactly that text: specials escaped, ligatures (``--``,
    ``''``, ``,,``) broken, control characters as spaces, runs of other scripts wrapped for the
    engine to handle (see the module docstring)."""
    runs: list[tuple[str, str]] = []  # (kind, text); a space between two runs of one script
    for ch in text:  # joins them, so ``中文 标题`` is one run
        kind = _script(ch)
        if kind == "drop":
            continue
        if kind == "space":
            ch, kind = " ", "latin"
        if runs and runs[-1][0] == kind:
            runs[-1] = (kind, runs[-1][1] + ch)
        elif (
            kind != "latin"
            and len(runs) >= 2
            and runs[-1] == ("latin", " ")
            and runs[-2][0] == kind
        ):
            runs.pop()
            runs[-1] = (kind, runs[-1][1] + " " + ch)
        else:
            runs.append((kind, ch))
    out: list[str] = []
    for kind, chunk in runs:
        if kind == "latin":
            out.append(_escape_latin(chunk))
        else:
            out.append(_RUN_MACROS[kind] + "{" + chunk + "}")
    return "".join(out)


_RUN_MACROS = {"cjk": r"\citeledgercjk", "rtl": r"\citeledgerrtl", "other": r"\citeledgerscript"}
_LIGATURE_PAIRS = frozenset({"--", "''", "``", ",,", "<<", ">>", "!`", "?`"})


def _escape_latin(text: str) -> str:
    out: list[str] = []
    for i, ch in enumerate(text):
        out.append(_SPECIALS.get(ch, ch))
        if text[i : i + 2] in _LIGATURE_PAIRS:
            out.append(r"\kern0pt{}")
    return "".join(out)


# Characters a URL may carry into \url/\href unchanged; the rest are percent-encoded (the same
# address to any server), which leaves only % and # to escape for LaTeX.
_URL_SAFE = "/:?=&;,+!*'()@$-._~%#"


def latex_url(url: str) -> str:
    """A URL for ``\\url{}``/``\\href{}`` inside a macro argument: backslash, braces, caret,
    spaces, quotes and non-ASCII percent-encoded; ``%`` and ``#`` escaped."""
    encoded = quote(url, safe=_URL_SAFE)
    return encoded.replace("%", r"\%").replace("#", r"\#")


@cache
def header_snippet() -> str:
    return HEADER_FILE.read_text(encoding="utf-8")


class Placement(base.Placement):
    def __init__(self, state: base.State) -> None:
        super().__init__(state)
        self.bracketed = state.options.notes == "list"
        self.macro = r"\citeledgerbracket" if self.bracketed else r"\citeledgernote"

    def cite(self, source: Source, number: int, occurrence: int) -> list[Json]:
        return [raw_inline("latex", f"{self.macro}{{{source.id}}}{{{number}}}{{{occurrence}}}")]

    def separator(self) -> list[Json]:
        return [] if self.bracketed else [raw_inline("latex", r"\citeledgersep{}")]

    def entry_text(self, source: Source) -> str:
        parts: list[str] = []
        if source.title_sentence:
            parts.append(latex_escape(source.title_sentence))
        parts.append(r"\citeledgerurl{" + latex_url(source.url) + "}")
        if source.accessed:
            parts.append(f"(accessed {latex_escape(source.accessed)})")
        return " ".join(parts)

    def label(self, number: int) -> str:
        return f"[{number}]" if self.bracketed else f"{number}."

    def sources_blocks(self) -> list[Json]:
        sources = self.state.list_order()
        if not sources:
            return []
        numbers = [self.state.number(s.id) for s in sources]
        widest = max((self.label(n) for n in numbers), key=len)
        lines = [r"\begin{citeledgersources}{" + latex_escape(widest) + "}"]
        for src, number in zip(sources, numbers, strict=True):
            label = latex_escape(self.label(number))
            lines.append(f"\\citeledgerentry{{{src.id}}}{{{label}}}{{{self.entry_text(src)}}}")
        lines.append(r"\end{citeledgersources}")
        heading = self.sources_header()
        if base.base_format(self.state.format) == "beamer":
            heading["c"][1][1].append("allowframebreaks")
        return [heading, raw_block("latex", "\n".join(lines))]

    def finish(self) -> None:
        base.add_header_include(self.state.doc, "latex", header_snippet())
        super().finish()
