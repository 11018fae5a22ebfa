"""Slides and paragraphs on the XML, where python-pptx has no API.

python-pptx has no API to delete or reorder slides or to give a paragraph a hanging indent
without a bullet; these helpers do it on the XML with python-pptx's own ``qn`` and
``parse_xml`` so the rest of the renderer stays on the public API (the reference deck's styling
is in ``_pptx_style``, the fitting and the marks' links in their own modules).
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import threading
from collections.abc import Iterator
from typing import Any

from lxml import etree
from pptx.opc.constants import RELATIONSHIP_TARGET_MODE as RTM
from pptx.opc.package import _Relationships
from pptx.oxml import parse_xml
from pptx.oxml.ns import _nsmap, nsdecls, qn
from pptx.oxml.shapes.shared import BaseShapeElement

Element = Any


# The placeholder lookup ---------------------------------------------------------------------

# python-pptx finds a shape's ``p:ph`` with an XPath expression that lxml compiles anew at
# every call (about 20 us), and it asks for it several times for every shape it hands out
# (is it a placeholder, of which type, which index): a fitted report's deck made 90,000 such
# calls, a fifth of the renderer's time. The same expression compiled once gives the same
# element.
_PH = etree.XPath("./*[1]/p:nvPr/p:ph", namespaces=_nsmap)
_ORIGINAL_PH = BaseShapeElement.__dict__["ph"]
_lookups = threading.Lock()
_users = [0]


def _compiled_ph(self: Any) -> Any:
    found = _PH(self)
    return found[0] if found else None


@contextlib.contextmanager
def compiled_placeholder_lookup() -> Iterator[None]:
    """python-pptx's ``ph`` property answered by the compiled expression while the block
    runs (nested and threaded blocks share it); python-pptx's own again after the last."""
    with _lookups:
        if _users[0] == 0:
            BaseShapeElement.ph = property(_compiled_ph)  # type: ignore[method-assign,assignment]
        _users[0] += 1
    try:
        yield
    finally:
        with _lookups:
            _users[0] -= 1
            if _users[0] == 0:
                BaseShapeElement.ph = _ORIGINAL_PH  # type: ignore[method-assign]


# The relationships' XML --------------------------------------------------------------------

# python-pptx writes each part's relationships as XML by building one element per relationship
# through its schema classes (a parse, a lookup and a checked setter per attribute) and by
# working out each internal target's relative path anew: a fitted report's deck has three
# thousand slides, each with its relationships, and saving spent half its time there. The
# same bytes are made here with lxml directly, each relative path worked out once.
_RELS_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_RELS_TAG, _REL_TAG = f"{{{_RELS_NS}}}Relationships", f"{{{_RELS_NS}}}Relationship"
_ORIGINAL_RELS_XML: Any = None
_EXTERNAL = RTM.EXTERNAL
_relative: dict[tuple[str, str], str] = {}


def _rels_xml(self: Any) -> bytes:
    """``_Relationships.xml`` of python-pptx: the relationships in numerical order of their
    ids, ``TargetMode`` only on an external one (internal is the schema's default). Each
    relationship's id, type, mode and target are read from the fields python-pptx's
    properties return (each property a lookup through its cache: 80,000 on a report's deck)."""
    rels = self._rels  # id -> relationship, as python-pptx's mapping holds them
    order = sorted(
        (int(r_id[3:]) if r_id.startswith("rId") and r_id[3:].isdigit() else 0, r_id)
        for r_id in rels
    )
    items: list[tuple[str, str, str, bool]] = []
    for _n, r_id in order:
        rel = rels[r_id]
        if rel._target_mode == _EXTERNAL:
            # An external relationship's target is its address.
            items.append((rel._rId, rel._reltype, rel._target, True))
            continue
        key = (str(rel._target.partname), rel._base_uri)
        ref = _relative.get(key)
        if ref is None:
            name, base = key
            ref = name[1:] if base == "/" else posixpath.relpath(name, base)
            if len(_relative) > 65536:
                _relative.clear()
            _relative[key] = ref
        items.append((rel._rId, rel._reltype, ref, False))
    if all(_PLAIN.fullmatch(f"{r_id}{kind}{target}") for r_id, kind, target, _x in items):
        return _plain_rels_xml(items)
    return _lxml_rels_xml(items)


def _lxml_rels_xml(items: list[tuple[str, str, str, bool]]) -> bytes:
    """The relationships ``(id, type, target, external)`` as lxml writes them."""
    root = etree.Element(_RELS_TAG, nsmap={None: _RELS_NS})
    for r_id, kind, target, external in items:
        el = etree.SubElement(root, _REL_TAG)
        el.set("Id", r_id)
        el.set("Type", kind)
        el.set("Target", target)
        if external:
            el.set("TargetMode", "External")
    return bytes(etree.tostring(root, encoding="UTF-8", standalone=True))


def _plain_rels_xml(items: list[tuple[str, str, str, bool]]) -> bytes:
    """:func:`_lxml_rels_xml` of relationships whose every value is printable ASCII other
    than the four characters an attribute's value escapes (``" & < >``), which lxml writes
    as they are: the same bytes, without building a tree to write them (a report's deck has
    three thousand slides, each part with its relationships)."""
    if not items:
        return _RELS_HEAD + b"/>"
    out = [_RELS_HEAD, b">"]
    for r_id, kind, target, external in items:
        mode = ' TargetMode="External"' if external else ""
        out.append(f'<Relationship Id="{r_id}" Type="{kind}" Target="{target}"{mode}/>'.encode())
    out.append(b"</Relationships>")
    return b"".join(out)


_PLAIN = re.compile(r"[ !#-%'-;=?-~]*")  # printable ASCII but the four escaped: " & < >
_RELS_HEAD = (
    b"<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\n"
    + f'<Relationships xmlns="{_RELS_NS}"'.encode()
)


@contextlib.contextmanager
def direct_relationships_xml() -> Iterator[None]:
    """python-pptx's relationships written by :func:`_rels_xml` while the block runs (nested
    and threaded blocks share it); python-pptx's own again after the last."""
    global _ORIGINAL_RELS_XML
    with _lookups:
        if _rel_users[0] == 0:
            _ORIGINAL_RELS_XML = _Relationships.__dict__["xml"]
            _Relationships.xml = property(_rels_xml)  # type: ignore[method-assign,assignment]
        _rel_users[0] += 1
    try:
        yield
    finally:
        with _lookups:
            _rel_users[0] -= 1
            if _rel_users[0] == 0:
                _Relationships.xml = _ORIGINAL_RELS_XML  # type: ignore[method-assign]


_rel_users = [0]


# Slides -------------------------------------------------------------------------------------


def delete_slides(prs: Any, slides: list[Any]) -> None:
    """Remove ``slides``: their entries in the slide list and the relationships that keep their
    parts in the package (python-pptx saves only parts still reachable). Every other slide's
    links to them go in one pass over the deck: a report's deck has a Notes slide per footnote
    mark, and unlinking them one at a time walked the whole deck once per slide."""
    doomed = {id(slide.part) for slide in slides}
    for other in prs.slides:
        if id(other.part) not in doomed:
            _unlink(other.part, doomed)
    by_part = {id(prs.part.related_part(sld_id.rId)): sld_id for sld_id in prs.slides._sldIdLst}
    for slide in slides:
        sld_id = by_part[id(slide.part)]
        prs.part.drop_rel(sld_id.rId)
        prs.slides._sldIdLst.remove(sld_id)


def _unlink(part: Any, targets: set[int]) -> None:
    """Drop ``part``'s links to the parts whose ids are ``targets`` (pandoc links each footnote
    mark to its Notes slide): the click actions that use them, then the relationships."""
    r_id = qn("r:id")
    for rel_id, rel in list(part.rels.items()):
        if rel.is_external or id(rel.target_part) not in targets:
            continue
        for el in part._element.xpath(f'.//*[@r:id="{rel_id}"]'):
            if el.get(r_id) == rel_id and el.getparent() is not None:
                el.getparent().remove(el)
        part.drop_rel(rel_id)


_EXT_LST = qn("p:extLst")


def _slide_number(partname: str) -> int:
    """N of ``/ppt/slides/slideN.xml``; 0 for a slide part named otherwise."""
    stem = partname.rsplit("/", 1)[-1]
    digits = stem.removeprefix("slide").removesuffix(".xml")
    return int(digits) if stem.startswith("slide") and digits.isdigit() else 0


_MAX_SLIDE_ID = 2147483647  # python-pptx's and PowerPoint's highest slide id


class SlideAdder:
    """Adds slides to a deck at given positions, each at a cost that does not grow with the
    deck: the deck python-pptx's ``add_slide`` makes, byte for byte, the slide then moved.

    python-pptx's ``add_slide`` looks for an existing relationship to the new slide (walking
    every relationship of the presentation) and for the highest slide id (every slide's), and
    moving the slide meant finding its entry among all of them: a 1.7 MB report's deck of 800
    slides, split into 2,400 more, spent a minute and a half there. A new part has no
    relationship yet, and the ids python-pptx gives while only adding are the last one plus
    one, so this adds the relationship directly, counts the ids on, and moves the slide's list
    entry it just made. python-pptx names the new part after the count of slides, which is a
    live slide's name once a slide before the last was deleted; this names it after the
    highest number in use, the same name whenever the deleted slides were the last.
    One adder serves a run of additions with no slide deleted in between (a deletion can lower
    the highest id) and no entry of the slide list added or moved by anything else: it counts
    the entries and holds them in order, since lxml counts an element's children by walking
    them, and finds the child at an index the same way (a 10 MB report's deck of 14,000 slides
    spent a third of its renderer's time there, and the time grew with the square of the
    slides)."""

    def __init__(self, prs: Any) -> None:
        self.prs = prs
        self.id_list = prs.slides._sldIdLst
        self.next_id: int | None = None
        # The slide list's entries in order, held while this adder adds (see above).
        self.entries: list[Element] = list(self.id_list.iterchildren(qn("p:sldId")))
        self.made: dict[int, tuple[Any, list[Element]]] = {}  # a layout's placeholders, cloned
        # New slides are named on from the highest slide part in use: a slide deleted before
        # the last (a Sources slide another slide follows) leaves fewer entries than the
        # numbers the deck's parts hold, and a name counted from the entries would be a live
        # slide's (two parts of one name: a broken package, one slide lost).
        related = prs.part.related_part
        self.number = max(
            (_slide_number(str(related(el.rId).partname)) for el in self.entries), default=0
        )

    def add(self, layout: Any, index: int) -> Any:
        """A new slide of ``layout`` at position ``index`` of the deck."""
        from pptx.opc.constants import RELATIONSHIP_TYPE as RT
        from pptx.opc.packuri import PackURI
        from pptx.parts.slide import SlidePart

        part = self.prs.part
        self.number += 1
        partname = PackURI(f"/ppt/slides/slide{self.number}.xml")
        slide_part = SlidePart.new(partname, part.package, layout.part)  # type: ignore[no-untyped-call]
        r_id = part.rels._add_relationship(RT.SLIDE, slide_part)
        slide = slide_part.slide
        self._placeholders(slide, layout)
        self._place(index, self._id(), r_id)
        return slide

    def _place(self, index: int, slide_id: int, r_id: str) -> None:
        """The slide list's entry for a new slide, at ``index``: beside its neighbour, as
        python-pptx's entry (id, then r:id) moved there would be."""
        sld_id = self.id_list._new_sldId()
        sld_id.id = slide_id
        sld_id.rId = r_id
        entries = self.entries
        if 0 <= index < len(entries):
            entries[index].addprevious(sld_id)
        elif index == len(entries) and entries:
            entries[-1].addnext(sld_id)
        else:  # an empty list, or past its end: where python-pptx's insert puts it
            self.id_list.insert(index, sld_id)
        entries.insert(min(max(index, 0), len(entries)), sld_id)

    def _placeholders(self, slide: Any, layout: Any) -> None:
        """The layout's placeholders on the new slide, as python-pptx clones them: cloned once
        per layout (an XPath search per placeholder for its id and name), then copied, since
        every new slide of a layout starts as the same empty tree and gets the same ones."""
        tree = slide.shapes._spTree
        made = self.made.get(id(layout.part))
        if made is None or made[0] is not layout.part:
            before = len(tree)
            slide.shapes.clone_layout_placeholders(layout)
            self.made[id(layout.part)] = (layout.part, [el.__copy__() for el in tree[before:]])
            return
        ext = tree.find(_EXT_LST)  # python-pptx's insert_element_before(el, "p:extLst")
        for el in made[1]:
            copied = el.__copy__()  # lxml's deep copy
            if ext is not None:
                ext.addprevious(copied)
            else:
                tree.append(copied)

    def _id(self) -> int:
        """The id python-pptx would give the next slide: the highest plus one, found once and
        counted on; at the top of the range, its own search for a gap every time."""
        if self.next_id is not None and self.next_id <= _MAX_SLIDE_ID:
            self.next_id += 1
            return self.next_id - 1
        new_id: int = self.id_list._next_id
        used = [int(s) for s in self.id_list.xpath("./p:sldId/@id")]
        if not used or new_id > max(used):  # not a gap below the highest: count on from it
            self.next_id = new_id + 1
        return new_id


# Paragraphs ---------------------------------------------------------------------------------

_BULLETS = ("a:buNone", "a:buChar", "a:buAutoNum", "a:buBlip", "a:buFont", "a:buSzPct")


def entry_paragraph(paragraph: Any, *, space_before_pt: float, hang: int) -> None:
    """A list entry: no bullet, single line spacing, a fixed space before, and a hanging
    indent of ``hang`` EMU (the number at the margin, a tab stop where the text starts, the
    wrapped lines aligned under the text)."""
    p_pr = paragraph._p.get_or_add_pPr()
    p_pr.set("marL", str(hang))
    p_pr.set("indent", str(-hang))
    for tag in (*_BULLETS, "a:lnSpc", "a:spcBef", "a:tabLst"):
        for old in p_pr.findall(qn(tag)):
            p_pr.remove(old)
    # Schema order inside a:pPr: lnSpc, spcBef, spcAft, bu*..., tabLst, defRPr.
    p_pr.insert(0, parse_xml(f'<a:lnSpc {nsdecls("a")}><a:spcPct val="100000"/></a:lnSpc>'))
    spc = parse_xml(
        f'<a:spcBef {nsdecls("a")}><a:spcPts val="{round(space_before_pt * 100)}"/></a:spcBef>'
    )
    p_pr[0].addnext(spc)
    bu = parse_xml(f"<a:buNone {nsdecls('a')}/>")
    spc.addnext(bu)
    bu.addnext(parse_xml(f'<a:tabLst {nsdecls("a")}><a:tab pos="{hang}" algn="l"/></a:tabLst>'))
