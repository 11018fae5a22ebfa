"""Links between the pages of a build, and the gfm form of a citation link.

An internal link (``#heading`` or ``other-draft.md#heading``) whose target now lives on another
page is pointed at that page, in the anchor form of the target wiki: pandoc ids for html and
mediawiki (whose writer keeps them as ``<span id>``), GitHub's heading slugs for gfm, heading
text for obsidian, DokuWiki section ids.

gfm pages write each citation as ``<a href="#src-12">[12]</a>`` (raw HTML around the text)
rather than a markdown link: ``citeledger verify`` reads ``[12]`` inside a link as link text,
not as a citation, so only this form keeps the page verifiable against the ledger.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote, unquote

from ...filters.base import CITE_CLASS
from ...filters.html import gfm_cite_link
from ...filters.wiki import dokuwiki_section_id
from ...tree import OPAQUE_BLOCKS, Blocks, Element, Inlines, Json, Walk, child_inlines, stringify
from .formats import WikiFormat
from .pages import Page

# Where each element that can carry an id keeps its attribute.
_ATTR_AT = {"Header": 1, "Div": 0, "Span": 0, "CodeBlock": 0, "Code": 0, "Figure": 0, "Table": 0}


@dataclass
class LinkTarget:
    slug: str
    anchor: str  # the id as pandoc assigned it
    heading: str | None  # heading text when the id is a heading's


def github_anchor(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens."""
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


def page_href(fmt: WikiFormat, slug: str, anchor: str = "") -> str:
    """How one page of the build links to another (``anchor`` already in the wiki's form)."""
    base = slug if fmt.name in ("mediawiki", "dokuwiki") else quote(slug) + fmt.ext
    return f"{base}#{anchor}" if anchor else base


def index_targets(pages: list[Page]) -> dict[str, LinkTarget]:
    """Every id of the build (the first wins) and the page that holds it. The walk visits
    every element of every page, so it also notes each page's links (for :func:`rewrite_links`)
    and marks the pages that hold footnotes (the writer needs to know) rather than walking all
    pages twice more."""
    targets: dict[str, LinkTarget] = {}
    for page in pages:
        for el in _elements(page.blocks):
            t = el["t"]
            if t == "Link":
                page.links.append(el)
                continue
            if t == "Note":
                page.has_notes = True
            at = _ATTR_AT.get(t)
            if at is None:
                continue
            ident = el["c"][at][0]
            if ident and ident not in targets:
                heading = stringify(el["c"][2]) if t == "Header" else None
                targets[ident] = LinkTarget(page.slug, ident, heading)
    return targets


# Elements that hold no link, note or id, nor any element that does: the bulk of every page,
# passed over without a look inside.
_INERT = frozenset(
    {"Str", "Space", "SoftBreak", "LineBreak", "RawInline", "RawBlock", "Math", "HorizontalRule"}
)


def _elements(blocks: Blocks) -> Iterator[Element]:
    """:func:`~citeledger.tree.elements` of ``blocks`` without the inert ones (above), in the
    same order, in a third of its time on the 500-page benchmark (pages of mostly text)."""
    stack = [iter(blocks)]
    while stack:
        for node in stack[-1]:
            if isinstance(node, dict):
                if node.get("t") in _INERT:
                    continue
                if "t" in node:
                    yield node
                c = node.get("c")
                if isinstance(c, list):
                    stack.append(iter(c))
                    break
            elif isinstance(node, list):
                stack.append(iter(node))
                break
        else:
            stack.pop()


def _anchor(fmt: WikiFormat, target: LinkTarget) -> str:
    if fmt.name == "gfm" and target.heading is not None:
        return github_anchor(target.heading)
    if fmt.name == "obsidian" and target.heading is not None:
        return quote(target.heading)
    if fmt.name == "dokuwiki" and target.heading is not None:
        return dokuwiki_section_id(target.heading)
    return target.anchor


def rewrite_links(
    page: Page, fmt: WikiFormat, targets: dict[str, LinkTarget], files: dict[str, str]
) -> None:
    """Point the page's internal links (as :func:`index_targets` found them) at the page that
    now holds their target; ``files`` maps a draft's file name to its page's slug (a build of
    several drafts)."""
    for el in page.links:
        url = el["c"][2][0]
        if url.startswith("#"):
            path, frag = "", unquote(url[1:])
        elif "://" not in url and not url.startswith("mailto:") and url.split("#")[0] in files:
            path, _, frag = url.partition("#")
            frag = unquote(frag)
        else:
            continue
        target = targets.get(frag) if frag else None
        if target is None:
            if path:  # a whole other draft: its page
                el["c"][2][0] = page_href(fmt, files[path])
            continue
        anchor = _anchor(fmt, target)
        if target.slug == page.slug:
            el["c"][2][0] = "#" + anchor
        else:
            el["c"][2][0] = page_href(fmt, target.slug, anchor)


# Inline elements that hold no inline list (the bulk of every paragraph: passed over first).
_LEAVES = frozenset({"Str", "Space", "SoftBreak", "LineBreak", "RawInline", "Code", "Math"})


class GfmLinks(Walk):
    """gfm: ``[12]`` links as raw ``<a href>`` around plain text (see the module docstring),
    and every other link without attributes, so the writer makes it a markdown link: gfm
    cannot carry a class, and a link with one is written as raw HTML (which a reader no longer
    sees as a link, and which costs pandoc an HTML writer call per link).

    Call :meth:`inlines` on the inline lists that hold citations (the page's hits, whose
    placed citations sit at their top level) or :meth:`blocks` on blocks to search whole (a
    Sources list). Inline lists nested in those are searched too, footnotes included; a list
    seen once is not searched again (a paragraph holds one hit per cited sentence)."""

    skip = OPAQUE_BLOCKS

    def __init__(self) -> None:
        super().__init__()
        # Keyed by id, holding the list: a list dropped by a rewrite cannot lend its id to
        # another while this walk runs.
        self.seen: dict[int, list[Json]] = {}

    def inlines(self, inlines: Inlines) -> None:
        if id(inlines) in self.seen:
            return
        self.seen[id(inlines)] = inlines
        cites: list[int] = []
        for at, el in enumerate(inlines):
            t = el["t"]
            if t in _LEAVES:
                continue
            if t == "Link":
                attr = el["c"][0]
                if CITE_CLASS in attr[1]:
                    cites.append(at)
                elif attr[0] or attr[1] or attr[2]:
                    el["c"][0] = ["", [], []]
                self.inlines(el["c"][1])
            elif t == "Note":
                self.blocks(el["c"])
            else:
                inner = child_inlines(el)
                if inner is not None:
                    self.inlines(inner)
        if cites:
            inlines[:] = _raw_cite_links(inlines, cites)


def _raw_cite_links(inlines: Inlines, cites: list[int]) -> Inlines:
    """``inlines`` with the citation links at ``cites`` (their indices, in order) in gfm's raw
    form (:func:`~citeledger.filters.html.gfm_cite_link`); the elements between them are
    copied a slice at a time."""
    out: list[Json] = []
    done = 0
    for at in cites:
        out += inlines[done:at]
        out += gfm_cite_link(inlines[at])
        done = at + 1
    out += inlines[done:]
    return out
