"""Footnotes made Word endnotes (``notes=endnotes``), in WordprocessingML: the endnotes part
with its separator endnotes, the endnote styles and settings in their schema places, and each
note moved with its relationships. The XML templates the renderer writes for them live here."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from docx.opc.packuri import PackURI
from docx.opc.part import XmlPart

from ..formats.docx_marks import ENDNOTE_REFERENCE, FOOTNOTE_REFERENCE
from ._oxml import (
    CT,
    W_SECTPR,
    Element,
    OxmlElement,
    R,
    nsdecls,
    parse_xml,
    qn,
    xpath,
)
from ._oxml_notes import CitationRef

FOOTNOTE_TEXT = "FootnoteText"
ENDNOTE_TEXT = "EndnoteText"

# CT_Settings: the children that must follow w:endnotePr (ECMA-376 part 1, 17.15.1.78).
_SETTINGS_AFTER_ENDNOTEPR = (
    "w:compat",
    "w:docVars",
    "w:rsids",
    "m:mathPr",
    "w:attachedSchema",
    "w:themeFontLang",
    "w:clrSchemeMapping",
    "w:doNotIncludeSubdocsInStats",
    "w:doNotAutoCompressPictures",
    "w:forceUpgrade",
    "w:captions",
    "w:readModeInkLockDown",
    "w:smartTagType",
    "sl:schemaLibrary",
    "w:shapeDefaults",
    "w:doNotEmbedSmartTags",
    "w:decimalSymbol",
    "w:listSeparator",
)

ENDNOTES_XML = (
    f"<w:endnotes {nsdecls('w', 'r')}>"
    '<w:endnote w:type="separator" w:id="-1"><w:p><w:pPr>'
    '<w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr>'
    "<w:r><w:separator/></w:r></w:p></w:endnote>"
    '<w:endnote w:type="continuationSeparator" w:id="0"><w:p><w:pPr>'
    '<w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr>'
    "<w:r><w:continuationSeparator/></w:r></w:p></w:endnote>"
    "</w:endnotes>"
)

ENDNOTE_PR_XML = (
    f"<w:endnotePr {nsdecls('w')}>"
    '<w:numFmt w:val="decimal"/><w:endnote w:id="-1"/><w:endnote w:id="0"/>'
    "</w:endnotePr>"
)

# Used only when the document has no footnote styles to copy from.
ENDNOTE_STYLES_XML = (
    f'<w:style {nsdecls("w")} w:type="paragraph" w:styleId="{ENDNOTE_TEXT}">'
    '<w:name w:val="Endnote Text"/><w:basedOn w:val="Normal"/><w:uiPriority w:val="99"/>'
    '<w:unhideWhenUsed/><w:rPr><w:sz w:val="20"/><w:szCs w:val="20"/></w:rPr></w:style>',
    f'<w:style {nsdecls("w")} w:type="character" w:styleId="{ENDNOTE_REFERENCE}">'
    '<w:name w:val="Endnote Reference"/><w:uiPriority w:val="99"/><w:unhideWhenUsed/>'
    '<w:rPr><w:vertAlign w:val="superscript"/></w:rPr></w:style>',
)


def new_endnotes_part(package: Any) -> XmlPart:
    return XmlPart(PackURI("/word/endnotes.xml"), CT.WML_ENDNOTES, parse_xml(ENDNOTES_XML), package)


def next_note_id(notes_root: Element, kind: str) -> int:
    ids = [int(v) for v in xpath(notes_root, f"w:{kind}/@w:id") if str(v).lstrip("-").isdecimal()]
    return max([0, *ids]) + 1


class Relations:
    """``part.relate_to`` for many relationships in a row, with python-docx's answers: an equal
    relationship (type, target, external or not) already there is reused, the first one
    listed; a new one takes the lowest free ``rId<n>``.

    python-docx finds both by going through all of the part's relationships at each call:
    moving 500 notes with their links to the endnotes part took 0.07 s that way, 0.03 s with
    this. This looks them up in a dictionary, which holds while nothing else adds or drops a
    relationship of the part meanwhile.
    """

    def __init__(self, part: Any) -> None:
        self.part = part
        self._known: dict[tuple[str, bool, Any], str] = {}
        for rel in part.rels.values():
            target = rel.target_ref if rel.is_external else rel.target_part
            self._known.setdefault((rel.reltype, rel.is_external, target), rel.rId)
        self._free = 1  # no rId below rId<_free> is free

    def relate_to(self, target: Any, reltype: str, is_external: bool = False) -> str:
        key = (reltype, bool(is_external), target)
        rid = self._known.get(key)
        if rid is None:
            while f"rId{self._free}" in self.part.rels:
                self._free += 1
            rid = f"rId{self._free}"
            self.part.rels.add_relationship(reltype, target, rid, is_external)
            self._known[key] = rid
        return rid


def footnote_to_endnote(
    ref: CitationRef,
    note: Element,
    new_id: int,
    src_part: Any,
    dst_part: Any,
    relations: Relations | None = None,
) -> Element:
    """Turn one footnote into an endnote of ``dst_part``: element names, styles, the reference
    in the body, and the note's relationships (its hyperlinks) re-made on the endnotes part
    (through ``relations`` of that part, when the caller moves many notes)."""
    relate = relations.relate_to if relations is not None else dst_part.relate_to
    endnote = copy.deepcopy(note)
    endnote.tag = qn("w:endnote")
    endnote.set(qn("w:id"), str(new_id))
    for auto in xpath(endnote, ".//w:footnoteRef"):
        auto.tag = qn("w:endnoteRef")
    _restyle(endnote, "w:pStyle", FOOTNOTE_TEXT, ENDNOTE_TEXT)
    _restyle(endnote, "w:rStyle", FOOTNOTE_REFERENCE, ENDNOTE_REFERENCE)
    for element in endnote.iter():
        for name, value in list(element.attrib.items()):
            if name.startswith(f"{{{R}}}"):
                rel = src_part.rels.get(value)
                if rel is None:
                    continue
                target = rel.target_ref if rel.is_external else rel.target_part
                element.set(name, relate(target, rel.reltype, rel.is_external))
    dst_part.element.append(endnote)
    note.getparent().remove(note)
    ref.reference.tag = qn("w:endnoteReference")
    ref.reference.set(qn("w:id"), str(new_id))
    _restyle(ref.run, "w:rStyle", FOOTNOTE_REFERENCE, ENDNOTE_REFERENCE)
    ref.kind = "endnote"
    return endnote


def _restyle(root: Element, tag: str, old: str, new: str) -> None:
    for el in xpath(root, f".//{tag}[@w:val='{old}']"):
        el.set(qn("w:val"), new)


def drop_unused_rels(part: Any, reltypes: Iterable[str]) -> None:
    """Drop relationships of ``reltypes`` that nothing in the part refers to any more."""
    wanted = set(reltypes)
    used = {str(v) for v in xpath(part.element, ".//@r:*")}
    for rid, rel in list(part.rels.items()):
        if rel.reltype in wanted and rid not in used:
            del part.rels[rid]


def ensure_endnote_settings(settings: Element) -> None:
    """``w:endnotePr`` naming the separator endnotes, decimal numbers (Word's default for
    endnotes is i, ii, iii), in its schema place."""
    if xpath(settings, "w:endnotePr"):
        return
    element = parse_xml(ENDNOTE_PR_XML)
    for tag in _SETTINGS_AFTER_ENDNOTEPR:
        successors = xpath(settings, tag)
        if successors:
            successors[0].addprevious(element)
            return
    settings.append(element)


def ensure_endnote_section_format(body: Element) -> None:
    """Decimal endnote numbers in each section too: LibreOffice reads the format there and
    would otherwise number endnotes i, ii, iii (Word's default)."""
    for sect in body.iter(W_SECTPR):
        if xpath(sect, "w:endnotePr"):
            continue
        pr = OxmlElement("w:endnotePr")
        fmt = OxmlElement("w:numFmt")
        fmt.set(qn("w:val"), "decimal")
        pr.append(fmt)
        footnote_pr = xpath(sect, "w:footnotePr")
        if footnote_pr:
            footnote_pr[0].addnext(pr)
        else:
            after = xpath(sect, "w:headerReference | w:footerReference")
            if after:
                after[-1].addnext(pr)
            else:
                sect.insert(0, pr)


def ensure_endnote_styles(styles: Element) -> None:
    """Endnote Text and Endnote Reference, made like the footnote styles when those exist."""
    pairs = (
        (ENDNOTE_TEXT, FOOTNOTE_TEXT, "Endnote Text", 0),
        (ENDNOTE_REFERENCE, FOOTNOTE_REFERENCE, "Endnote Reference", 1),
    )
    for style_id, model_id, name, fallback in pairs:
        if xpath(styles, f"w:style[@w:styleId='{style_id}']"):
            continue
        model = xpath(styles, f"w:style[@w:styleId='{model_id}']")
        if model:
            style = copy.deepcopy(model[0])
            style.set(qn("w:styleId"), style_id)
            for el in xpath(style, "w:name"):
                el.set(qn("w:val"), name)
            for el in xpath(style, "w:next"):
                if el.get(qn("w:val")) == model_id:
                    el.set(qn("w:val"), style_id)
            for el in xpath(style, "w:link"):
                el.getparent().remove(el)
        else:
            style = parse_xml(ENDNOTE_STYLES_XML[fallback])
        styles.append(style)
