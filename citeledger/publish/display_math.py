"""A draft's display math written as raw TeX, shown by the outputs that drop raw TeX.

R Markdown, bookdown and notebooks write display math as a LaTeX environment
(``\\begin{equation} ... \\end{equation}``, ``\\begin{align}``): pandoc's markdown reader keeps it
as raw TeX, which its LaTeX writers copy and every other writer (HTML, Word, PowerPoint, ODT,
EPUB, typst, gfm) drops without a word. The reader of those outputs loses the equation. So
``convert`` hands such a writer the math element pandoc's own LaTeX reader makes of the
environment (``equation`` its body, ``align`` an ``aligned`` block, and so on), as if the draft
had been LaTeX: the equation is then written as each writer writes math (MathML, an Office
equation, typst math). All of a draft's environments are read by one pandoc run, under
``--sandbox``; only environments of mathematics whose body names no command that reaches a
file, a program or a link (:func:`~citeledger.options.tex_math.is_math_block`) are handed
over, and an environment pandoc does not read as one math element stays as it was.
"""

from __future__ import annotations

import json

from .. import formats
from ..errors import CiteledgerError
from ..options.tex_math import TEX_WRITERS, is_math_block
from ..pandoc import run_pandoc
from ..pandoc_start import SANDBOX_ARG
from ..tree import Json, PandocDoc, elements_of

_TEX = ("tex", "latex")
# The writers that keep a raw TeX block as it is (the LaTeX family, and source formats whose
# readers' own tools read TeX math): everything else drops it.
_KEEPS = ("markdown", "commonmark_x", "rst", "org")


def drops_raw_tex(fmt: str) -> bool:
    """Whether pandoc's writer ``fmt`` (extensions allowed) leaves raw TeX out."""
    base = formats.family(fmt)
    return base not in TEX_WRITERS and not base.startswith(_KEEPS)


def show_display_math(doc: PandocDoc) -> int:
    """Each raw TeX display-math environment of ``doc``'s body (a raw block, or a paragraph
    holding only a raw inline) made the element pandoc's LaTeX reader makes of it; returns how
    many were."""
    found: list[tuple[Json, str]] = []
    for el in elements_of(doc.get("blocks", []), ("RawBlock", "Para", "Plain")):
        raw = _raw_tex(el)
        if raw is not None and is_math_block(raw):
            found.append((el, raw))
    if not found:
        return 0
    text = "\n\n".join(raw.strip() for _el, raw in found)
    try:
        read = json.loads(run_pandoc(["-f", "latex", "-t", "json", SANDBOX_ARG], stdin=text))
    except (CiteledgerError, ValueError):
        return 0  # left as the draft has it, as pandoc writes it
    blocks = read.get("blocks", [])
    if len(blocks) != len(found):
        return 0
    shown = 0
    for (el, _raw), block in zip(found, blocks, strict=True):
        inlines = block.get("c") if block.get("t") == "Para" else None
        if not inlines or any(i.get("t") != "Math" for i in inlines):
            continue
        el["t"], el["c"] = "Para", inlines
        shown += 1
    return shown


def _raw_tex(el: Json) -> str | None:
    """The TeX of a raw TeX block, or of a paragraph holding one raw TeX inline and nothing
    else (pandoc's markdown reader makes one of an environment it finds in a paragraph)."""
    c = el.get("c")
    if el.get("t") == "RawBlock":
        return str(c[1]) if isinstance(c, list) and c[0] in _TEX else None
    if isinstance(c, list) and len(c) == 1 and c[0].get("t") == "RawInline":
        raw = c[0].get("c")
        return str(raw[1]) if isinstance(raw, list) and raw[0] in _TEX else None
    return None
