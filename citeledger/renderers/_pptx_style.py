"""The reference deck's look, on the XML (used by ``templates/make_reference_pptx.py``).

python-pptx has no API to restyle a theme, a master's text styles or a layout placeholder's
text; these helpers do it with python-pptx's own ``qn`` and ``parse_xml``.
"""

from __future__ import annotations

from typing import Any

from pptx.oxml import parse_xml
from pptx.oxml.ns import nsdecls, qn

Element = Any


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
    master: Any, *, title_pt: int, title_color: str, title_spacing: int, body_pts: list[int]
) -> None:
    """Title and body text styles of a slide master: sizes, colour, left alignment, spacing
    (``title_spacing`` in percent: a two-line title set tighter than body text)."""
    styles = master._element.find(qn("p:txStyles"))
    title = styles.find(qn("p:titleStyle")).find(qn("a:lvl1pPr"))
    title.set("algn", "l")
    _line_spacing(title, title_spacing)
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
        _line_spacing(lvl, 110)


def _line_spacing(p_pr: Element, percent: int) -> None:
    for old in p_pr.findall(qn("a:lnSpc")):
        p_pr.remove(old)
    p_pr.insert(
        0, parse_xml(f'<a:lnSpc {nsdecls("a")}><a:spcPct val="{percent * 1000}"/></a:lnSpc>')
    )


def _set_fill(rpr: Element, rgb: str) -> None:
    for old in rpr.findall(qn("a:solidFill")):
        rpr.remove(old)
    fill = parse_xml(f'<a:solidFill {nsdecls("a")}><a:srgbClr val="{rgb}"/></a:solidFill>')
    rpr.insert(0, fill)


def place(shape: Any, x: int, y: int, cx: int, cy: int) -> None:
    """A master or layout placeholder's position and size, in EMU."""
    shape.left, shape.top, shape.width, shape.height = x, y, cx, cy


def text_look(
    shape: Any,
    *,
    anchor: str | None = None,
    align: str | None = None,
    size_pt: int | None = None,
    bold: bool | None = None,
    rgb: str | None = None,
) -> None:
    """A placeholder's own text look: its anchor (``t``/``ctr``/``b``), its first level's
    alignment, size, weight and colour (set on the placeholder, over the master's), any
    capitals switched off."""
    tx_body = shape._element.find(qn("p:txBody"))
    body_pr = tx_body.find(qn("a:bodyPr"))
    if anchor is not None:
        body_pr.set("anchor", anchor)
    lst = tx_body.find(qn("a:lstStyle"))
    if lst is None:
        lst = parse_xml(f"<a:lstStyle {nsdecls('a')}/>")
        body_pr.addnext(lst)
    lvl = lst.find(qn("a:lvl1pPr"))
    if lvl is None:
        lvl = parse_xml(f"<a:lvl1pPr {nsdecls('a')}/>")
        lst.insert(0, lvl)
    if align is not None:
        lvl.set("algn", align)
    d = lvl.find(qn("a:defRPr"))
    if d is None:
        d = parse_xml(f"<a:defRPr {nsdecls('a')}/>")
        lvl.append(d)
    if "cap" in d.attrib:
        del d.attrib["cap"]
    if size_pt is not None:
        d.set("sz", str(size_pt * 100))
    if bold is not None:
        d.set("b", "1" if bold else "0")
    if rgb is not None:
        _set_fill(d, rgb)


def remove_shape(owner: Any, name: str) -> None:
    """Drop the shape called ``name`` from a master's or layout's tree (an earlier rule)."""
    tree = owner._element.find(qn("p:cSld")).find(qn("p:spTree"))
    for sp in tree.findall(qn("p:sp")):
        c_nv = sp.find(qn("p:nvSpPr")).find(qn("p:cNvPr"))
        if c_nv.get("name") == name:
            tree.remove(sp)


def add_rule(owner: Any, *, x: int, y: int, cx: int, cy: int, rgb: str, name: str) -> None:
    """A thin filled bar on a master or layout, drawn under the slides that use it."""
    tree = owner._element.find(qn("p:cSld")).find(qn("p:spTree"))
    ids = [int(e.get("id")) for e in tree.iter(qn("p:cNvPr")) if e.get("id", "").isdecimal()]
    shape_id = max(ids, default=1) + 1
    tree.append(
        parse_xml(
            f"<p:sp {nsdecls('p', 'a')}>"
            f'<p:nvSpPr><p:cNvPr id="{shape_id}" name="{name}"/><p:cNvSpPr/><p:nvPr userDrawn="1"/>'
            "</p:nvSpPr>"
            f'<p:spPr><a:xfrm><a:off x="{x}" y="{y}"/><a:ext cx="{cx}" cy="{cy}"/></a:xfrm>'
            '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom>'
            f'<a:solidFill><a:srgbClr val="{rgb}"/></a:solidFill><a:ln><a:noFill/></a:ln>'
            "</p:spPr></p:sp>"
        )
    )
