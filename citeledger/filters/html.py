"""The default placement: html, html5, epub, markdown, gfm, commonmark, rst, org and any format
without a placement of its own.

A reader of a web page expects ``[12]`` to jump to its entry and the entry to jump back. Each
citation becomes a link to ``#src-12`` carrying the id ``cite-12-k`` (its k-th citation); the
Sources list gives every entry the anchor ``src-12`` and back-links (``↩``) to each place that
cites it. Everything is a pandoc element (Link, Div), so each writer escapes titles and URLs in
its own way, with two exceptions:

- gfm and commonmark cannot carry a Span or Div id, and GitHub drops unknown attributes; there
  the entry anchor is a raw ``<a id="src-12"></a>`` (the one raw string here: an integer id).
- Formats with no internal links at all (plain, man, ms, texinfo, haddock) keep ``[12]`` as
  text and the list without back-links.
"""

from __future__ import annotations

from .. import formats
from ..ledger import Source
from ..options import Options
from ..tree import Json, attr, link, para, raw_inline, str_
from . import base
from .base import cite_anchor, entry_inlines, source_anchor

BACK = "\u21a9"  # ↩


class Entries(base.Entries):
    """An entry as pandoc elements, opening with the raw ``<a id>`` anchor where the format
    cannot carry a Span or Div id. The back-links are the placement's: they point at one
    document's citations."""

    def __init__(self, fmt: str, options: Options) -> None:
        super().__init__(fmt, options)
        self.raw_anchors = formats.raw_html_anchors(self.fmt)

    def entry(self, source: Source, number: int) -> list[Json]:
        inlines: list[Json] = []
        if self.raw_anchors:
            anchor = source_anchor(source.id)
            inlines.append(raw_inline("html", f'<a id="{anchor}"></a>'))
        inlines += [str_(f"[{number}]"), {"t": "Space"}, *entry_inlines(source)]
        return inlines


class Placement(base.Placement):
    entries: Entries
    entries_type = Entries

    def __init__(self, state: base.State) -> None:
        super().__init__(state)
        self.raw_anchors = self.entries.raw_anchors
        # Without internal links a link to #src-12 would be noise or a dead reference.
        self.links = formats.has_links(self.entries.fmt)

    def cite(self, source: Source, number: int, at: base.CiteContext) -> list[Json]:
        label = [str_(f"[{number}]")]
        if not self.links:
            return label
        return [
            link(
                label,
                "#" + source_anchor(source.id),
                cite_anchor(source.id, at.occurrence),
                ["citeledger-cite"],
            )
        ]

    def back_links(self, source: Source) -> list[Json]:
        """``↩`` for a source cited once; ``↩ 1 2 3`` (each a link) for one cited more often."""
        count = self.state.seen.get(source.id, 0)
        if not self.links or count == 0:
            return []
        if count == 1:
            return [
                link([str_(BACK)], "#" + cite_anchor(source.id, 1), classes=["citeledger-back"])
            ]
        out: list[Json] = [str_(BACK)]
        for k in range(1, count + 1):
            out += [
                {"t": "Space"},
                link([str_(str(k))], "#" + cite_anchor(source.id, k), classes=["citeledger-back"]),
            ]
        return out

    def entry(self, source: Source, number: int) -> list[Json]:
        inlines = self.entries.entry(source, number)
        back = self.back_links(source)
        if back:
            inlines += [{"t": "Space"}, *back]
        return inlines

    def list_blocks(self, sources: list[Source]) -> list[Json]:
        if formats.is_slides(self.entries.fmt):
            from .slides_html import sources_slides

            return sources_slides(self, sources)
        entries: list[Json] = []
        for src in sources:
            entry = para(self.entry(src, self.state.number(src.id)))
            if self.raw_anchors or not self.links:
                entries.append(entry)
            else:
                entries.append(
                    {
                        "t": "Div",
                        "c": [attr(source_anchor(src.id), ["citeledger-source"]), [entry]],
                    }
                )
        if self.raw_anchors or not self.links:
            return [self.sources_header(), *entries]
        listing = {"t": "Div", "c": [attr("", ["citeledger-sources"]), entries]}
        return [self.sources_header(), listing]
