"""The raw OOXML of the Word renderer starts here: one namespace map, one :func:`xpath` helper,
python-docx's ``qn``/``OxmlElement``/``parse_xml``, the relationship and content-type constants
(docxcompose's habit). The modules beside it (``_oxml_notes``, ``_oxml_fields``,
``_oxml_endnotes``, ``_oxml_fonts``) hold the XML of one concern each and reach WordprocessingML
only through this one, so the rest of the renderer speaks in notes, marks and fields and only
these modules know where WordprocessingML keeps them and in which order the schema wants child
elements.

The filter's own snippets (bookmarks, ``NOTEREF`` fields) are text built in
``formats/docx_marks.py``, which the filter imports without python-docx.
"""

from __future__ import annotations

import functools
import zipfile
from pathlib import Path
from typing import Any

from docx.opc.constants import CONTENT_TYPE as CT
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.part import PartFactory, XmlPart
from docx.oxml import OxmlElement, parse_xml
from docx.oxml.ns import nsdecls, nsmap, qn
from lxml import etree
from lxml.etree import XMLSyntaxError

__all__ = [
    "CT",
    "RT",
    "OxmlElement",
    "XMLSyntaxError",
    "nsdecls",
    "nsmap",
    "parse_xml",
    "qn",
    "xpath",
]

Element = Any  # an lxml element (python-docx's BaseOxmlElement or a plain one)

# python-docx keeps footnotes.xml and endnotes.xml as opaque bytes; as XmlParts they parse on
# load and serialise on save, which is the extension point python-docx documents for parts it
# does not model itself.
PartFactory.part_type_for.setdefault(CT.WML_FOOTNOTES, XmlPart)
PartFactory.part_type_for.setdefault(CT.WML_ENDNOTES, XmlPart)

W = nsmap["w"]
R = nsmap["r"]


@functools.lru_cache(maxsize=256)
def _compiled(expr: str) -> etree.XPath:
    return etree.XPath(expr, namespaces=nsmap)


def xpath(element: Element, expr: str) -> list[Any]:
    """XPath with the one namespace map (compiled once per expression)."""
    result: list[Any] = _compiled(expr)(element)
    return result


def attr(element: Element, name: str) -> str | None:
    value: str | None = element.get(qn(name))
    return value


# Clark names (``{namespace}local``) of what the _oxml modules look at for each run or note. A
# report with 12,000 citations has 60,000 field runs: a compiled XPath and a ``qn`` per run were
# a quarter of the renderer's time, where lxml's tag-filtered ``iter``/``iterchildren`` search
# in C.
W_P = qn("w:p")
W_R = qn("w:r")
W_RPR = qn("w:rPr")
W_RSTYLE = qn("w:rStyle")
W_T = qn("w:t")
W_VAL = qn("w:val")
W_ID = qn("w:id")
W_FLDCHAR = qn("w:fldChar")
W_FLDCHARTYPE = qn("w:fldCharType")
W_INSTRTEXT = qn("w:instrText")
W_BOOKMARKSTART = qn("w:bookmarkStart")
W_BOOKMARKEND = qn("w:bookmarkEnd")
W_FOOTNOTEREFERENCE = qn("w:footnoteReference")
W_ENDNOTEREFERENCE = qn("w:endnoteReference")
W_ANCHOR = qn("w:anchor")
W_SECTPR = qn("w:sectPr")
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


def first_attr(element: Element, child: str, name: str) -> str | None:
    """``child/@name`` of ``element``: the attribute of the first such child that has it."""
    for sub in element.iterchildren(child):
        value: str | None = sub.get(name)
        if value is not None:
            return value
    return None


def run_style(run: Element) -> str | None:
    """``w:rPr/w:rStyle/@w:val``: the run's character style."""
    for rpr in run.iterchildren(W_RPR):
        style = first_attr(rpr, W_RSTYLE, W_VAL)
        if style is not None:
            return style
    return None


CUSTOM_PROPS = "docProps/custom.xml"
_CUSTOM_NS = {"cp": "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"}


def custom_property(path: Path, name: str) -> str | None:
    """A text custom property of a package (pandoc writes unknown metadata there), read with
    zipfile alone; None when the file, the part or the property is absent."""
    try:
        with zipfile.ZipFile(path) as zf:
            data = zf.read(CUSTOM_PROPS)
    except (OSError, KeyError, zipfile.BadZipFile):
        return None
    try:
        root = parse_xml(data)
    except XMLSyntaxError:
        return None
    for prop in etree.XPath("cp:property", namespaces=_CUSTOM_NS)(root):
        if prop.get("name") == name:
            return "".join(prop.itertext()).strip()
    return None
