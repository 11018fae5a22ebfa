"""Every raw PresentationML/DrawingML access of citeledger, in one place.

python-pptx has no API to delete or reorder slides, to switch a paragraph's bullet off, or to
restyle a master's text styles and theme; these helpers do it on the XML with python-pptx's own
``qn`` and ``parse_xml`` so the rest of the code stays on the public API.
"""

from __future__ import annotations

from typing import Any

from pptx.oxml import parse_xml
from pptx.oxml.ns import nsdecls, qn

Element = Any


# Slides -------------------------------------------------------------------------------------


def _slide_id(prs: Any, slide: Any) -> Element:
    for sld_id in prs.slides._sldIdLst:
        if prs.part.related_part(sld_id.rId) is slide.part:
            return sld_id
    raise ValueError("slide is not part of this presentation")


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


def move_slide(prs: Any, slide: Any, index: int) -> None:
    """Put ``slide`` at position ``index`` of the deck."""
    id_list = prs.slides._sldIdLst
    sld_id = _slide_id(prs, slide)
    id_list.remove(sld_id)
    id_list.insert(index, sld_id)


# Paragraphs ---------------------------------------------------------------------------------

_BULLETS = ("a:buNone", "a:buChar", "a:buAutoNum", "a:buBlip", "a:buFont", "a:buSzPct")


def plain_paragraph(paragraph: Any, *, space_before_pt: float) -> None:
    """No bullet, no indent, a fixed space before: a list entry that starts at the margin."""
    p_pr = paragraph._p.get_or_add_pPr()
    p_pr.set("marL", "0")
    p_pr.set("indent", "0")
    for tag in _BULLETS:
        for old in p_pr.findall(qn(tag)):
            p_pr.remove(old)
    for old in p_pr.findall(qn("a:spcBef")):
        p_pr.remove(old)
    spc = parse_xml(
        f'<a:spcBef {nsdecls("a")}><a:spcPts val="{round(space_before_pt * 100)}"/></a:spcBef>'
    )
    # Schema order inside a:pPr: lnSpc, spcBef, spcAft, bu*..., so spcBef goes first unless a
    # line spacing is already there.
    ln = p_pr.find(qn("a:lnSpc"))
    if ln is not None:
        ln.addnext(spc)
    else:
        p_pr.insert(0, spc)
    spc.addnext(parse_xml(f"<a:buNone {nsdecls('a')}/>"))


# Reference deck styling (used by templates/make_reference_pptx.py) -------------------------


def set_theme_fonts(theme_part: Any, major: str, minor: str) -> None:
    """The theme's heading (major) and body (minor) Latin typefaces."""
    root = parse_xml(theme_part.blob)
    for kind, face in (("a:majorFont", major), ("a:minorFont", minor)):
        for font in root.iter(qn(kind)):
            latin = font.find(qn("a:latin"))
            if latin is not None:
                latin.set("typeface", face)
    theme_part._blob = _serialize(root)


def set_theme_colors(theme_part: Any, colors: dict[str, str]) -> None:
    """Theme colour slots (``dk2``, ``accent1``, ...) as RGB hex."""
    root = parse_xml(theme_part.blob)
    scheme = next(root.iter(qn("a:clrScheme")))
    for slot, rgb in colors.items():
        holder = scheme.find(qn(f"a:{slot}"))
        if holder is None:
            continue
        for child in list(holder):
            holder.remove(child)
        holder.append(parse_xml(f'<a:srgbClr {nsdecls("a")} val="{rgb}"/>'))
    theme_part._blob = _serialize(root)


def _serialize(root: Element) -> bytes:
    from lxml import etree

    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True))


def style_master_text(
    master: Any, *, title_pt: int, title_color: str, title_align: str, body_pts: list[int]
) -> None:
    """Title and body text styles of a slide master: sizes, colour, alignment, spacing."""
    styles = master._element.find(qn("p:txStyles"))
    title = styles.find(qn("p:titleStyle")).find(qn("a:lvl1pPr"))
    title.set("algn", title_align)
    d = title.find(qn("a:defRPr"))
    d.set("sz", str(title_pt * 100))
    d.set("b", "1")
    _set_fill(d, title_color)
    body = styles.find(qn("p:bodyStyle"))
    for level, pt in enumerate(body_pts, 1):
        lvl = body.find(qn(f"a:lvl{level}pPr"))
        if lvl is None:
            continue
        lvl.find(qn("a:defRPr")).set("sz", str(pt * 100))
        spc = lvl.find(qn("a:spcBef"))
        if spc is not None:
            for child in list(spc):
                spc.remove(child)
            spc.append(parse_xml(f'<a:spcPts {nsdecls("a")} val="{pt * 40}"/>'))
        if lvl.find(qn("a:lnSpc")) is None:
            lvl.insert(0, parse_xml(f'<a:lnSpc {nsdecls("a")}><a:spcPct val="110000"/></a:lnSpc>'))


def _set_fill(rpr: Element, rgb: str) -> None:
    for old in rpr.findall(qn("a:solidFill")):
        rpr.remove(old)
    fill = parse_xml(f'<a:solidFill {nsdecls("a")}><a:srgbClr val="{rgb}"/></a:solidFill>')
    rpr.insert(0, fill)


def add_master_rule(master: Any, *, x: int, y: int, cx: int, cy: int, rgb: str) -> None:
    """A thin filled bar on the master (under every layout that shows master shapes)."""
    tree = master._element.find(qn("p:cSld")).find(qn("p:spTree"))
    ids = [int(e.get("id")) for e in tree.iter(qn("p:cNvPr")) if e.get("id", "").isdecimal()]
    shape_id = max(ids, default=1) + 1
    tree.append(
        parse_xml(
            f"<p:sp {nsdecls('p', 'a')}>"
            f'<p:nvSpPr><p:cNvPr id="{shape_id}" name="citeledger rule"/><p:cNvSpPr/><p:nvPr/>'
            "</p:nvSpPr>"
            f'<p:spPr><a:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm>'
            '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom>'
            f'<a:solidFill><a:srgbClr val="{rgb}"/></a:solidFill><a:ln><a:noFill/></a:ln>'
            "</p:spPr></p:sp>"
        )
    )
