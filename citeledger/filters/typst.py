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

import re

from ..document.grammar import Marker
from ..escape import typst_markup, typst_string
from ..ledger import Source
from ..tree import (
    Block,
    Inline,
    Inlines,
    PandocDoc,
    elements,
    raw_block,
    raw_inline,
    replace_elements,
)
from . import base

# U+2060 WORD JOINER: no line break on either side (Unicode line breaking, rule LB11), which
# typst's breaker follows. Before each mark it keeps the mark on the line of the word or
# punctuation before it, and a cluster ``[50][3][9]`` on one line.
WORD_JOINER = "#sym.wj"


def url_link(url: str) -> str:
    """A link showing ``url``, which breaks only after its slashes, dots, hyphens and the like
    (``base.url_pieces``): each piece is a box, and typst breaks between boxes, never inside
    one (typst's own rule for a link's URL breaks it after any letter when it runs long)."""
    pieces = "".join(f"#box({typst_string(p)})" for p in base.url_pieces(url))
    return f"#link({typst_string(url)})[{pieces}]"


class TypstPlacement(base.BasePlacement):
    joins_marks = True

    def cite(self, source: Source, number: int, at: base.CiteContext) -> Inlines:
        mark = typst_markup(f"[{number}]")
        target = base.source_anchor(source.id)
        here = base.cite_anchor(source.id, at.occurrence)
        return [raw_inline("typst", f"{WORD_JOINER}#link(<{target}>)[{mark}]<{here}>")]

    def provenance(self, marker: Marker) -> Inlines:
        """A small grey label on a light ground, kept on the line of the word before it."""
        if self.state.options.provenance == "drop":
            return []
        _kind, text = base.label_text(marker)
        box = (
            "#box(fill: luma(238), inset: (x: 0.3em), outset: (y: 0.2em), radius: 2pt)"
            f"[#text(size: 0.72em, fill: luma(70))[{typst_markup(text)}]]"
        )
        return [raw_inline("typst", f"{WORD_JOINER}{box}")]

    def entry_text(self, source: Source) -> str:
        parts: list[str] = []
        if source.lead_sentence:
            parts.append(typst_markup(source.lead_sentence))
        parts.append(url_link(source.url))
        if source.display_accessed:
            # A date breaks nowhere: "(accessed 2025-02-" / "10)" reads as two dates.
            parts.append("#box[" + typst_markup(f"(accessed {source.display_accessed})") + "]")
        if source.archived:
            parts.append("(archived " + url_link(source.archived) + ")")
        return " ".join(parts)

    def list_blocks(self, sources: list[Source]) -> list[Block]:
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

    def finalize(self) -> None:
        super().finalize()
        unresolved = make_compilable(self.state.doc, quarto=self.state.caller.under_quarto)
        if unresolved:
            self.state.say(unresolved_warning("the document", unresolved))


# What pandoc's typst writer emits and typst refuses ----------------------------------------

# The elements pandoc's typst writer gives a label (``<id>``); a link to any other id fails.
_LABELLED = {"Header": 1, "Span": 0, "Div": 0, "Figure": 0, "Table": 0}
_RAW_LABEL = re.compile(r"<([A-Za-z0-9_:.\-]+)>")
_BARE_LABEL = re.compile(r"[A-Za-z0-9_:.\-]+")
_RAW_REF = re.compile(r"#ref\(<[A-Za-z0-9_:.\-]+>\)")
# texmath writes vmatrix as mat(delim: "||"), a delimiter typst refuses ("expected exactly one
# character") and the wrong one besides; \left| ... \right| around a matrix becomes
# mat(delim: "|").
_VMATRIX = (
    ("\\begin{vmatrix}", "\\left|\\begin{matrix}"),
    ("\\end{vmatrix}", "\\end{matrix}\\right|"),
)


# Quarto's cross-reference prefixes: ``@fig-x`` names a figure, never a work.
_QUARTO_XREF = re.compile(
    r"^(fig|tbl|sec|eq|lst|thm|lem|cor|prp|cnj|def|exm|exr|sol|rem|alg)-", re.IGNORECASE
)


def make_compilable(doc: PandocDoc, *, quarto: bool = False) -> list[str]:
    """Change what typst cannot compile into what it can, in place; return the anchors that
    links pointed at and the document does not define (those links became their text).

    A pandoc citation (``@name``, ``[@key]``) with no bibliography in the metadata becomes its
    own text: pandoc's writer emits ``#cite(<name>)``, which typst refuses without one. Not so
    a cross-reference: under Quarto (``quarto``) a citation of Quarto's prefixed ids
    (``@fig-x``, ``@tbl-y``) stays, for Quarto's own filters to resolve after this one; one
    whose ids are all labels of the document becomes typst references (``#ref(<fig-x>)``). An id
    given twice (a heading's ``{#type-chunk}`` and a span's) labels its first element only:
    typst refuses a label that occurs twice, and a link goes to the first, as in a browser. A
    LaTeX cross-reference to a heading (``Section~\ref{intro}``, a link pandoc's writer turns into
    ``@intro``) becomes a plain link to it when the headings are not numbered: typst refuses a
    reference to a heading without a number ("cannot reference heading without numbering").
    """
    meta = doc.get("meta", {})
    keep_cites = "bibliography" in meta or "references" in meta
    numbered = "numbersections" in meta or "section-numbering" in meta
    headings: set[str] = set()
    defined = _defined_anchors(doc["blocks"], headings)
    unresolved: dict[str, None] = {}

    def change(el: Inline) -> Inlines | None:
        kind = el.get("t")
        if kind == "Cite" and not keep_cites:
            ids = [c.get("citationId", "") for c in el["c"][0]]
            if quarto and ids and all(_QUARTO_XREF.match(i) for i in ids):
                return None
            if ids and all(i in defined for i in ids):
                return [raw_inline("typst", " ".join(f"#ref(<{i}>)" for i in ids))]
            return list(el["c"][1])
        if kind == "Link":
            url = el["c"][2][0]
            if isinstance(url, str) and url.startswith("#") and url[1:] not in defined:
                unresolved[url[1:]] = None
                return list(el["c"][1])
            if not numbered and isinstance(url, str) and url[1:] in headings:
                attrs = el["c"][0][2]
                el["c"][0][2] = [kv for kv in attrs if kv[0] not in _REFERENCE_ATTRS]
        if kind == "Span" and not el["c"][1] and _BARE_LABEL.fullmatch(el["c"][0][0]):
            # An empty anchor (AsciiDoc's [[name]], an HTML <a id>): pandoc writes a bare label
            # with nothing before it to name, and a link to it then fails to compile.
            return [raw_inline("typst", f"#metadata(none)<{el['c'][0][0]}>")]
        if kind == "Math":
            text = el["c"][1]
            for old, new in _VMATRIX:
                text = text.replace(old, new)
            el["c"][1] = text
        return None

    replace_elements(doc["blocks"], change)
    return list(unresolved)


# The attributes pandoc's LaTeX reader gives a \ref link, which its typst writer writes as @label.
_REFERENCE_ATTRS = frozenset({"reference-type", "reference"})


def _defined_anchors(blocks: list[Block], headings: set[str]) -> set[str]:
    """The ids the document labels (those of its headings also added to ``headings``); a
    repeated id is removed from all but its first element."""
    defined: set[str] = set()
    for el in elements(blocks):
        kind = el.get("t")
        if kind in _LABELLED:
            attr = el["c"][_LABELLED[kind]]
            if attr[0] in defined:
                attr[0] = ""
            elif attr[0]:
                defined.add(attr[0])
                if kind == "Header":
                    headings.add(attr[0])
        elif kind in ("RawInline", "RawBlock") and el["c"][0] == "typst":
            # A reference this pass wrote before (``#ref(<fig-x>)``) names a label, defines none:
            # read as one, the figure it points at would lose its label as a repeat.
            defined.update(_RAW_LABEL.findall(_RAW_REF.sub("", el["c"][1])))
    return defined


def unresolved_warning(where: str, anchors: list[str]) -> str:
    names = ", ".join(f"#{a}" for a in anchors[:8])
    more = f" and {len(anchors) - 8} more" if len(anchors) > 8 else ""
    return (
        f"warn: {where}: {len(anchors)} link(s) to anchors the document does not define "
        f"written as text: {names}{more}"
    )
