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

HTML a browser shows (html, html5, revealjs, chunkedhtml, the wiki's pages) gets more: each
citation link a ``title`` and an evidence card (``filters/cards.py``), back-links lettered as
Wikipedia's are (``^`` for one citation, ``^ a b c`` for more), and the stylesheet and script
after the list. ``marker-style: superscript`` raises the marks (``<sup>``) in any format.

The wiki build's gfm pages write each citation link as raw ``<a href>`` around its text
(:func:`gfm_cite_link`), defined here beside the link it rewrites.
"""

from __future__ import annotations

import html
import re

from .. import formats
from ..ledger import Source
from ..options import Options
from ..tree import Block, Inline, Inlines, attr, link, para, raw_block, raw_inline, span, str_
from . import base, cards, html_page
from .base import CITE_CLASS, cite_anchor, entry_inlines, source_anchor
from .html_page import NOWRAP
from .slides_html import sources_slides

BACK = "\u21a9"  # ↩
CARET = "^"  # Wikipedia's back-link mark, before letters


def letters(k: int) -> str:
    """The k-th back-link's letters: a ... z, aa, ab, ... (Wikipedia's series)."""
    out = ""
    while k > 0:
        k, rest = divmod(k - 1, 26)
        out = chr(ord("a") + rest) + out
    return out


class HtmlEntries(base.BaseEntries):
    """An entry as pandoc elements, opening with the raw ``<a id>`` anchor where the format
    cannot carry a Span or Div id. The back-links are the placement's: they point at one
    document's citations."""

    def __init__(self, fmt: str, options: Options) -> None:
        super().__init__(fmt, options)
        self.raw_anchors = formats.raw_html_anchors(self.fmt)
        # A web page breaks a URL after its slashes and dots (<wbr>); a text format keeps
        # the URL as written, since its reader copies it.
        found = formats.find(self.fmt)
        self.url_breaks: base.UrlBreaks = "wbr" if found and found.kind == "html" else "none"

    def entry(self, source: Source, number: int) -> Inlines:
        inlines: Inlines = []
        if self.raw_anchors:
            anchor = source_anchor(source.id)
            inlines.append(raw_inline("html", f'<a id="{anchor}"></a>'))
        inlines += [str_(f"[{number}]"), {"t": "Space"}]
        inlines += entry_inlines(source, breaks=self.url_breaks)
        if not self.raw_anchors:  # a date breaks nowhere ("2025-02-" / "10)")
            inlines = [span([el], classes=[NOWRAP]) if _is_date(el) else el for el in inlines]
        return inlines


_DATE = re.compile(r"\(?\d{4}-\d{2}-\d{2}\S*")


def _is_date(el: Inline) -> bool:
    return el.get("t") == "Str" and _DATE.fullmatch(el["c"]) is not None


class HtmlPlacement(base.BasePlacement):
    entries: HtmlEntries
    entries_type = HtmlEntries

    card_prefix = ""

    def __init__(self, state: base.State) -> None:
        super().__init__(state)
        self.raw_anchors = self.entries.raw_anchors
        # Without internal links a link to #src-12 would be noise or a dead reference.
        self.links = formats.has_links(self.entries.fmt)
        self.cards = self.links and cards.has_cards(state.format)
        self.superscript = state.options.marker_style == "superscript"
        self.described: dict[int, str] = {}  # each source's link title, made once
        self.named: dict[tuple[int, int], str] = {}  # each mark's accessible name, made once
        # HTML a person reads (a browser's or an e-reader's): marks named for assistive
        # technology, bound to the word before them, and the page's accessibility passes.
        row = formats.find(self.entries.fmt)
        self.page = self.links and (self.cards or (row is not None and row.kind == "ebook"))
        self.marks: set[int] = set()  # id() of every mark placed (the link or its <sup> span)

    def cite(self, source: Source, number: int, at: base.CiteContext) -> Inlines:
        label = [str_(f"[{number}]")]
        if not self.links:
            return self.raised(label)
        described = ""
        if self.cards:
            described = self.described.get(source.id) or self.described.setdefault(
                source.id, cards.description(source)
            )
        mark = link(
            label,
            "#" + source_anchor(source.id),
            cite_anchor(source.id, at.occurrence),
            [CITE_CLASS],
        )
        if self.cards:
            mark["c"][2][1] = described
            card = cards.card_id(source.id, self.card_prefix)
            mark["c"][0][2].append(["aria-describedby", card])
        if self.page:
            name = self.named.get((source.id, number))
            if name is None:
                name = self.named[source.id, number] = cards.accessible_name(source, number)
            mark["c"][0][2].append(["aria-label", name])
        out = self.raised([mark])
        self.marks.add(id(out[0]))
        return out

    def raised(self, inlines: Inlines) -> Inlines:
        if not self.superscript:
            return inlines
        return [span([{"t": "Superscript", "c": inlines}], classes=["citeledger-mark"])]

    def back_link(self, text: str, anchor: str) -> Inline:
        out = link([str_(text)], "#" + anchor, classes=["citeledger-back"])
        if self.cards:  # a screen reader would say only "caret" or "a"
            label = "back to the citation" if text == CARET else f"back to citation {text}"
            out["c"][0][2].append(["aria-label", label])
        return out

    def back_marks(self, anchors: list[str]) -> Inlines:
        """Links back to ``anchors``: ``↩`` for one citation, ``↩ 1 2 3`` for more; in HTML a
        browser shows, ``^`` and ``^ a b c`` as Wikipedia writes them, in one quiet span whose
        caret never stands alone on a line (each letter a 24 px target: the stylesheet)."""
        if not anchors:
            return []
        mark = CARET if self.cards else BACK
        if len(anchors) == 1:
            out: Inlines = [self.back_link(mark, anchors[0])]
        else:
            out = [str_(mark + ("\u00a0" if self.cards else ""))]
            for k, anchor in enumerate(anchors, 1):
                text = letters(k) if self.cards else str(k)
                if k > 1 or not self.cards:
                    out.append({"t": "Space"})
                out.append(self.back_link(text, anchor))
        if not self.cards:
            return out
        return [span(out, classes=["citeledger-backs"])]

    def back_links(self, source: Source) -> Inlines:
        count = self.state.seen.get(source.id, 0)
        if not self.links:
            return []
        return self.back_marks([cite_anchor(source.id, k) for k in range(1, count + 1)])

    def entry(self, source: Source, number: int) -> Inlines:
        inlines = self.entries.entry(source, number)
        back = self.back_links(source)
        if back:
            inlines += [{"t": "Space"}, *back]
        return inlines

    def list_blocks(self, sources: list[Source]) -> list[Block]:
        if formats.is_slides(self.entries.fmt):
            paragraphs = {
                src.id: para(self.entry(src, self.state.number(src.id))) for src in sources
            }
            return [*sources_slides(self.state, paragraphs), *self.card_blocks(sources)]
        entries: list[Block] = []
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
        return [self.sources_header(), listing, *self.card_blocks(sources)]

    def finalize(self) -> None:
        if self.page and self.state.seen:
            self.page_passes()
        if self.cards and self.state.seen:
            # pandoc's own page style would outweigh citeledger's (whose rules weigh nothing,
            # so a --css of the author's wins); the author may still ask for pandoc's.
            self.state.doc.setdefault("meta", {}).setdefault(
                "document-css", {"t": "MetaBool", "c": False}
            )
        super().finalize()
        if self.page and self.state.seen:
            html_page.main_landmark(self.state.doc, self.entries.fmt)

    def page_passes(self) -> None:
        """What every reader needs of the page (``filters/html_page.py``), once the marks are
        placed: marks bound to the word before them, figures' alt text without markers,
        tables in their own scrolling box, the page's language and its main landmark."""
        doc = self.state.doc
        # A mark stands where its marker was found: in the inline list that held it, which the
        # walk of every inline list meets unless a footnote holds it (marks in footnotes are
        # left as they are). Each list once, in the order found.
        holders = {id(h.container): h.container for h in self.state.scan.hits if not h.in_note}
        html_page.bind_marks(doc["blocks"], self.marks, holders.values())
        kinds = self.state.scan.kinds
        if kinds is not None and not kinds & {"Image", "Link", "Table"}:
            # Only the marks' links, each named by its mark: nothing for the walk to find.
            images, links, tables = 0, 0, False
        else:
            images, links, tables = html_page.figure_alts(doc["blocks"], set(self.state.seen))
        if images or links:
            counts = [cards.plural(images, "image"), cards.plural(links, "link")]
            missing = " and ".join(m for m in counts if not m.startswith("0 "))
            self.state.say(
                f"warn: {self.state.caller.source_name}: {missing} without text: a screen reader"
                " skips such an image and reads such a link's address; write what each image"
                " shows in ![...] and each link's text"
            )
        if formats.is_slides(self.entries.fmt):
            html_page.page_lang(doc, self.state.say, self.state.caller.source_name)
            return
        if tables:
            html_page.table_boxes(doc["blocks"])
        html_page.page_lang(doc, self.state.say, self.state.caller.source_name)

    def card_blocks(self, sources: list[Source]) -> list[Block]:
        """The cards of ``sources``, the stylesheet and the script (HTML a browser shows)."""
        if not self.cards:
            return []
        return [
            raw_block("html", cards.cards_html(sources, self.card_prefix)),
            raw_block("html", cards.assets_html()),
        ]


_HTML_SPECIAL = re.compile("[&<>\"']")


def gfm_cite_link(cite: Inline) -> Inlines:
    """A citation link as a gfm page of the wiki build writes it: ``<a href="#src-12"
    id="cite-12-1">`` and ``</a>`` raw around the link's text. gfm cannot carry the link's
    class, and ``citeledger verify`` reads ``[12]`` inside a markdown link as link text, not as
    a citation: only this form keeps the page verifiable against the ledger."""
    ident = cite["c"][0][0]
    href = _escaped(cite["c"][2][0])
    idattr = f' id="{_escaped(ident)}"' if ident else ""
    opening = raw_inline("html", f'<a href="{href}"{idattr}>')
    return [opening, *cite["c"][1], raw_inline("html", "</a>")]


def _escaped(text: str) -> str:
    """``html.escape(text)``, without its five replacements when there is nothing to escape
    (``#src-12``, ``cite-12-1``: every citation's)."""
    return html.escape(text) if _HTML_SPECIAL.search(text) else text
