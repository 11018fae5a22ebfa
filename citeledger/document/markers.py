"""The one marker finder: where a document tree cites what (what a marker is: :mod:`.grammar`).

Works on pandoc's JSON tree as plain dicts and lists, the form pandoc hands a filter. Building
panflute's object tree for a whole report costs more than the rest of a filter run together,
and only the few inline lists that hold a marker need touching.

A marker lives in the text of ``Str`` elements. Pandoc keeps ``water.[1][2]`` in one Str and puts
``[1]`` in a Str of its own after a Space; ``[1, 2]`` spans ``[1,`` Space ``2]``. Never markers:
anything inside Code, CodeBlock, Math, RawInline, RawBlock, an Image, a Cite, a footnote label,
a Quarto code cell pandoc read as text (:func:`citeledger.tree.code_cell_inlines`), and the
Sources block.

A link is a marker when its text is one and it is written as a citation: ``[7]`` with a
``[7]: https://...`` definition, or a written ``[7](https://...)``, is how a README cites, and
pandoc turns both into a Link whose text is ``7``. Such a Link (text ``n`` or ``[n]``, an http(s)
target) cites id n when it is attached to the text it supports (``water.[7]``), when its text
keeps the brackets (``[[7]](url)``), or, set apart from the text (``See issue
[1328](https://github.com/...)``, ``Shipped in [2023](...)``), when the id is listed in the
draft's Sources block or the caller's ``known`` says so: the verifier and the builds name the
ledger (an id it holds, or a URL it holds) and the draft's ``[n]: url`` definitions. Any other
numeric link is an ordinary link (``Scan.ordinary``). A citing Link's target is kept on the hit
(``Hit.url``) so the verifier can hold it to the ledger's URL, and the filter replaces the whole
Link by the placed citation. Any other link's text is link text, never a marker.

A citation citeledger placed itself, read back from its HTML output, is a Link to ``#src-N``
(the entry's anchor, keyed by ledger id) whose text is ``[n]``; from gfm or commonmark, ``[n]``
in a raw ``<a href="#src-N" ...>``. It cites id n, the mark a reader sees, and ``Hit.url``
keeps ``#src-N`` so the verifier can tell a mark edited after the build (``[9]`` linking to the
entry of 1) from one that agrees with its link.

Note-style citeproc run before the finder moves its note after the punctuation that follows a
citation, and the opening bracket of a marker counts as punctuation: ``[@k].[10]`` becomes
``.[`` Note ``10]``. The finder puts the bracket back after the note (``.`` Note ``[10]``),
leaving the note where citeproc put it, whenever the bracket and the text after the note read as
a marker (:func:`_rejoin_split`).

One image is read: under pandoc-types 1.22 (pandoc before 3.0) a figure is a paragraph holding an
Image titled ``fig:...``, and its alt text is the caption every writer prints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from ..ledger.light import field, record
from ..options.replaceable import replaceable
from ..tree import (
    BREAKS,
    INLINES_AT_C,
    Blocks,
    Inline,
    Inlines,
    Json,
    Walk,
    code_cell_inlines,
    is_old_figure_image,
)
from .grammar import (
    GROUP_OPEN_RE,
    GROUP_PART_RE,
    MARKER_RE,
    RAW_OWN_LINK,
    Marker,
    Piece,
    has_marker,
    link_marker_id,
    opens_definition,
    own_cite_id,
    split_markers,
)
from .sources_block import SourcesBlock, UrlIds, entries, find_sources_blocks
from .sources_titles import DEFAULT_TITLES

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..ledger.model import Ledger

# Whether a numeric link set apart from the text cites: its id and its target in, yes or no.
LinkKnown = Callable[[int, str], bool]
# A link right after one of these opens a parenthesis or a quote: it is set apart, not attached.
_OPENERS = tuple("([{\"'\u201c\u2018\u00ab")

SKIP_INLINES = frozenset({"Code", "Math", "RawInline", "Image", "Cite"})
# What citeproc may put between the bracket it moved and the rest of the marker (a Cite, read
# back from HTML, is a Span of class "citation").
_CITEPROC_NOTES = frozenset({"Cite", "Note"})


@record
class Hit:
    """Elements ``container[start:end+1]`` (Str, or Str Space Str for a spaced group) whose text
    holds markers; ``pieces`` is that text split. ``block`` is the index of the top-level block,
    ``heading`` the text of the nearest heading before it, ``in_note`` true inside a footnote.
    ``url`` is set when the hit is a Link whose text is a marker: its target."""

    container: Inlines
    start: int
    end: int
    pieces: list[Piece]
    block: int
    heading: str
    in_note: bool = False
    url: str | None = None

    @property
    def markers(self) -> list[Marker]:
        return [p for p in self.pieces if isinstance(p, Marker)]


# The wiki build copies one with dataclasses.replace (publish/wiki/build.py).
replaceable(Hit)


@record
class Scan:
    """What a document cites. ``listing`` is the draft's citation list (a Sources block whose
    entries name ids), wherever it is; ``sources`` is the same block only when the rest of the
    document cites an id: the block a build replaces by the list it renders. A document that
    cites nothing keeps every block it has. ``code`` holds ``id()`` of the inline lists of
    code cells pandoc read as text. ``ordinary`` holds the numeric links that are no citation
    (see the module docstring), ``known`` the rule that decided it, for a scan made again.
    ``others``: the citation lists before ``listing`` (a document holds one; the verifier
    reports these), whose entries read as citations; ``resolve`` the ledger's ids of URLs the
    lists were read with. ``kinds``: every element type the scanned tree may hold (a
    superset), when the caller knows them without a walk (a build's reading of the draft):
    the walks a placement makes for types the tree lacks are saved."""

    hits: list[Hit] = field(default_factory=list)
    sources: SourcesBlock | None = None
    listing: SourcesBlock | None = None
    code: set[int] = field(default_factory=set)
    ordinary: list[Hit] = field(default_factory=list)
    known: LinkKnown | None = None
    others: list[SourcesBlock] = field(default_factory=list)
    resolve: UrlIds | None = None
    kinds: frozenset[str] | None = None

    def markers(self) -> Iterator[tuple[Hit, Marker]]:
        for hit in self.hits:
            for marker in hit.markers:
                yield hit, marker

    def cited_ids(self) -> list[int]:
        """Distinct ids in order of first citation."""
        seen: dict[int, None] = {}
        for _hit, marker in self.markers():
            for i in marker.ids:
                seen.setdefault(i, None)
        return list(seen)


def scan(
    doc: Json,
    titles: Sequence[str] = DEFAULT_TITLES,
    known: LinkKnown | None = None,
    resolve: UrlIds | None = None,
) -> Scan:
    """Find every marker in a pandoc JSON document (a dict with "blocks"), skipping the places
    where a bracket is never a citation, and locate the Sources block (titled "Sources" or one
    of ``titles``). ``known``: whether a numeric link set apart from the text cites (see the
    module docstring; :func:`ledger_links` makes one); without it, only ids the Sources block
    lists. ``resolve``: the ledger's ids of URLs (:func:`ledger_ids`), so that a list of works
    naming ledger URLs under a References title is the Sources block."""
    blocks = doc["blocks"]
    lists = find_sources_blocks(blocks, titles, resolve=resolve)
    listing = lists[-1] if lists else None
    result = Scan(listing=listing, code=code_cell_inlines(blocks), known=known, others=lists[:-1])
    result.resolve = resolve
    listed = {e.id for e in entries(blocks, listing)} if listing else set()
    walker = _Walker(result, listed)
    if listing is not None:
        walker.excluded = listing.nested_ids(blocks)
    walker.top(blocks, listing.top_range() if listing else range(0))
    if listing is not None and any(m.ids for _hit, m in result.markers()):
        result.sources = listing
    return result


def ledger_links(ledger: Ledger) -> LinkKnown:
    """A numeric link set apart from the text cites when the ledger holds its id or its URL:
    then it is a citation to be held to the ledger (the draft's own ``[n]: url`` definitions
    are :func:`admit_defined`'s)."""

    def known(n: int, url: str) -> bool:
        return ledger.get(n) is not None or ledger.find_url(url) is not None

    return known


def ledger_ids(ledger: Ledger) -> UrlIds:
    """The id under which the ledger holds a URL (as a list of works names it), or None."""

    def resolve(url: str) -> int | None:
        source = ledger.find_url(url)
        return source.id if source is not None else None

    return resolve


def admit_defined(doc: Json, found: Scan, titles: Sequence[str], defined: Iterable[int]) -> None:
    """Make the numeric links whose ids the draft defines (``[n]: url``, read from its raw
    text) citations in ``found``, updated in place as :func:`~.locate.drop_escaped` does."""
    ids = set(defined)
    if not any(m.ids[0] in ids for hit in found.ordinary for m in hit.markers):
        return
    earlier = found.known

    def known(n: int, url: str) -> bool:
        return n in ids or (earlier is not None and earlier(n, url))

    again = scan(doc, titles, known, found.resolve)
    found.hits[:] = again.hits
    found.ordinary[:] = again.ordinary
    found.sources, found.listing, found.known = again.sources, again.listing, known
    found.others[:] = again.others


class _Walker(Walk):
    def __init__(self, result: Scan, listed: set[int]) -> None:
        super().__init__()
        self.hits = result.hits
        self.code = result.code
        self.result = result
        self.listed = listed
        self.in_note = False
        # ``id()`` of the Sources block's blocks when a Div holds it.
        self.excluded: frozenset[int] = frozenset()

    def blocks(self, blocks: Blocks) -> None:
        if self.excluded:
            blocks = [b for b in blocks if id(b) not in self.excluded]
        super().blocks(blocks)

    def inlines(self, inlines: Inlines) -> None:
        if self.code and id(inlines) in self.code:
            return
        i = 0
        n = len(inlines)
        while i < n:
            el = inlines[i]
            t = el.get("t")
            if t == "Str":
                text = el["c"]
                if text.endswith("[") and _rejoin_split(inlines, i):
                    n = len(inlines)
                    continue
                if "[" in text:
                    i = self.str_hit(inlines, i, text)
            elif t == "Image" and is_old_figure_image(el):
                self.inlines(el["c"][1])
            elif t in SKIP_INLINES:
                pass
            elif t == "Link":
                self.link_hit(inlines, i, el)
            elif t in INLINES_AT_C:
                self.inlines(el["c"])
            elif t == "Span" or t == "Quoted":
                self.inlines(el["c"][1])
            elif t == "Note":
                outer = self.in_note
                self.in_note = True
                self.blocks(el["c"])
                self.in_note = outer
            i += 1

    def str_hit(self, inlines: Inlines, i: int, text: str) -> int:
        """Record the markers of the Str at ``i``; return the index of the last element used."""
        if opens_definition(inlines, i):
            return i
        end = i
        if text.endswith(",") and GROUP_OPEN_RE.search(text):
            end, text = _join_spaced_group(inlines, i, text)
        pieces = split_markers(text)
        if has_marker(pieces):
            hit = Hit(inlines, i, end, pieces, self.index, self.heading, self.in_note)
            hit.url = _raw_own_target(inlines, i, pieces)
            self.hits.append(hit)
            return end
        return i

    def link_hit(self, inlines: Inlines, i: int, link: Inline) -> None:
        own = own_cite_id(link)
        if own is not None:
            mark = Marker("id", f"[{own}]", (own,))
            hit = Hit(inlines, i, i, [mark], self.index, self.heading, self.in_note)
            hit.url = link["c"][2][0]
            self.hits.append(hit)
            return
        n = link_marker_id(link)
        if n is None:
            return
        marker = Marker("id", f"[{n}]", (n,))
        hit = Hit(inlines, i, i, [marker], self.index, self.heading, self.in_note)
        hit.url = url = link["c"][2][0]
        loose = not _attached(inlines, i) and link["c"][1][0]["c"][:1] != "["
        known = self.result.known
        if loose and n not in self.listed and not (known is not None and known(n, url)):
            self.result.ordinary.append(hit)
        else:
            self.hits.append(hit)


def _attached(inlines: Inlines, i: int) -> bool:
    """Whether the element at ``i`` follows text with nothing between (``water.[7]``)."""
    if i == 0:
        return False
    before = inlines[i - 1]
    t = before.get("t")
    if t == "Space" or t in BREAKS:
        return False
    return not (t == "Str" and before["c"].endswith(_OPENERS))


def _raw_own_target(inlines: Inlines, i: int, pieces: list[Piece]) -> str | None:
    """``#src-N`` when the Str at ``i`` is one mark alone inside a raw ``<a href="#src-N">``
    (a citation in the gfm or commonmark citeledger wrote, read back), else None."""
    if i == 0 or len(pieces) != 1 or not isinstance(pieces[0], Marker):
        return None
    before = inlines[i - 1]
    if before.get("t") != "RawInline" or before["c"][0] != "html":
        return None
    found = RAW_OWN_LINK.match(before["c"][1])
    return f"#src-{found.group(1)}" if found else None


def _rejoin_split(inlines: Inlines, i: int) -> bool:
    """``.[`` Note ``10]`` (a marker note-style citeproc split, see the module docstring):
    move the bracket after the notes, in place, and say whether it did."""
    j = i + 1
    while j < len(inlines) and _is_citeproc_note(inlines[j]):
        j += 1
    if j == i + 1 or j >= len(inlines):
        return False
    after = inlines[j]
    if after.get("t") == "Link" and own_cite_id(_with_bracket(after)) is not None:
        # citeproc run after the filter took the bracket out of a placed citation's link.
        inlines[j] = _with_bracket(after)
    elif after.get("t") == "Str":
        rest = "[" + after["c"]
        if not (MARKER_RE.match(rest) or GROUP_OPEN_RE.fullmatch(rest.split(" ")[0])):
            return False
        inlines[j] = {"t": "Str", "c": rest}
    else:
        return False
    before = inlines[i]["c"][:-1]
    if before:
        inlines[i] = {"t": "Str", "c": before}
    else:
        del inlines[i]
    return True


def _is_citeproc_note(el: Inline) -> bool:
    t = el.get("t")
    return t in _CITEPROC_NOTES or (t == "Span" and "citation" in el["c"][0][1])


def _with_bracket(link: Inline) -> Inline:
    """``link`` with ``[`` put back before its text's first Str."""
    attr, text, target = link["c"]
    if not text or text[0].get("t") != "Str":
        return link
    return {"t": "Link", "c": [attr, [{"t": "Str", "c": "[" + text[0]["c"]}, *text[1:]], target]}


def _join_spaced_group(inlines: Inlines, i: int, text: str) -> tuple[int, str]:
    """``[1,`` Space ``2]``: join the Str/Space run that closes the group, if it does."""
    j = i
    joined = text
    n = len(inlines)
    while j + 2 < n and inlines[j + 1].get("t") == "Space" and inlines[j + 2].get("t") == "Str":
        nxt = inlines[j + 2]["c"]
        if not GROUP_PART_RE.match(nxt):
            break
        joined += " " + nxt
        j += 2
        if "]" in nxt:
            return j, joined
        if not nxt.endswith(","):
            break
    return i, text
