"""typst placement (PDF without TeX): bracketed ids linked to a labelled Sources section.

Each citation is ``#link(<src-12>)[\\[12\\]]<cite-12-1>``: the bracketed mark links to the entry
and carries a label of its own, so the entry's mark can link back to the first citation. The
Sources section is a two-column grid (mark, ``Title. URL (accessed DATE)``) under a heading;
the ``typst`` wheel compiles it, so a PDF needs nothing but pip.

Titles and URLs are written as raw typst through :func:`typst_escape` (markup) and
:func:`typst_string` (string literals), the only two places that escape for typst.
"""

from __future__ import annotations

from ..ledger import Source
from ..tree import Json, raw_block, raw_inline
from . import base

# Every character with a meaning in typst markup (a backslash escapes any of them); quotes stay
# as written so typst's smart quotes apply.
_MARKUP = frozenset("\\#*_`$<>@[]=-+/~.:")


def typst_escape(text: str) -> str:
    """Text as typst markup that shows exactly that text."""
    out: list[str] = []
    for ch in text:
        if ch in _MARKUP:
            out.append("\\" + ch)
        elif ch < " " or ch == "\x7f":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def typst_string(text: str) -> str:
    """A typst string literal holding ``text``."""
    body = text.replace("\\", "\\\\").replace('"', '\\"')
    body = "".join(" " if ch < " " or ch == "\x7f" else ch for ch in body)
    return f'"{body}"'


class Placement(base.Placement):
    def cite(self, source: Source, number: int, occurrence: int) -> list[Json]:
        mark = typst_escape(f"[{number}]")
        target = base.source_anchor(source.id)
        here = base.cite_anchor(source.id, occurrence)
        return [raw_inline("typst", f"#link(<{target}>)[{mark}]<{here}>")]

    def entry_text(self, source: Source) -> str:
        parts: list[str] = []
        if source.title_sentence:
            parts.append(typst_escape(source.title_sentence))
        parts.append(f"#link({typst_string(source.url)})")
        if source.accessed:
            parts.append(typst_escape(f"(accessed {source.accessed})"))
        return " ".join(parts)

    def sources_blocks(self) -> list[Json]:
        sources = self.state.list_order()
        if not sources:
            return []
        cells: list[str] = []
        for src in sources:
            mark = typst_escape(f"[{self.state.number(src.id)}]")
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
