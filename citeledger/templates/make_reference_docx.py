"""Make ``reference.docx``, the bundled Word styles, from pandoc's own default.

    python -m citeledger.templates.make_reference_docx [OUT]

``reference.docx`` is made by this script; edit the script, not the file. It starts from
``pandoc --print-default-data-file reference.docx`` so every style pandoc writes keeps its name,
then restyles it for a plain professional report: Cambria 11 pt body text (Caladea in
LibreOffice) with 1.15 line spacing, Calibri headings (Carlito) in dark blue, a left-aligned
title, 9 pt footnote and endnote text, superscript note marks, dark-blue underlined links, A4
pages with 2.5 cm margins and the page number centred in the footer.
The Endnote Text and Endnote Reference styles are present so ``notes=endnotes`` looks like
footnotes. The zip is written with fixed timestamps and member order, so running the script
twice gives the same bytes and a change to the template shows up as a real diff.
"""

from __future__ import annotations

import io
from pathlib import Path

import docx
from docx.enum.style import WD_STYLE_TYPE
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Cm, Mm, Pt, RGBColor

from ..pandoc import run_pandoc
from ..renderers import _oxml, _oxml_endnotes, _oxml_fonts
from ._reproducible import saved, write_main

HERE = Path(__file__).resolve().parent
BODY_FONT = "Cambria"
HEADING_FONT = "Calibri"
HEADING_RGB = RGBColor(0x1F, 0x3A, 0x5F)
LINK_RGB = RGBColor(0x1F, 0x4E, 0x79)
TEXT_RGB = RGBColor(0x22, 0x22, 0x22)
HEADING_SIZES = {1: 16, 2: 13, 3: 12, 4: 11, 5: 11, 6: 11}


def _style(document: object, name: str, kind: WD_STYLE_TYPE) -> object:
    styles = document.styles  # type: ignore[attr-defined]
    try:
        return styles[name]
    except KeyError:
        return styles.add_style(name, kind)


def build() -> bytes:
    base = run_pandoc(["--print-default-data-file", "reference.docx"])
    document = docx.Document(io.BytesIO(base))
    styles = document.styles

    normal = styles["Normal"]
    normal.font.name = BODY_FONT
    normal.font.size = Pt(11)
    normal.font.color.rgb = TEXT_RGB
    normal.paragraph_format.line_spacing = 1.15

    for name in ("Body Text", "First Paragraph"):
        fmt = styles[name].paragraph_format
        fmt.space_before = Pt(0)
        fmt.space_after = Pt(8)

    title = styles["Title"]
    title.font.name = HEADING_FONT
    title.font.size = Pt(24)
    title.font.bold = True
    title.font.color.rgb = HEADING_RGB
    title.paragraph_format.alignment = WD_ALIGN_PARAGRAPH.LEFT
    title.paragraph_format.space_after = Pt(12)
    subtitle = styles["Subtitle"]
    subtitle.font.size = Pt(14)
    subtitle.font.bold = False
    subtitle.font.color.rgb = LINK_RGB

    for level, size in HEADING_SIZES.items():
        heading = styles[f"Heading {level}"]
        heading.font.name = HEADING_FONT
        heading.font.size = Pt(size)
        heading.font.bold = True
        heading.font.italic = False
        heading.font.color.rgb = HEADING_RGB
        heading.paragraph_format.space_before = Pt(18 if level == 1 else 12)
        heading.paragraph_format.space_after = Pt(6)
        heading.paragraph_format.keep_with_next = True

    for name in ("Footnote Text", "Endnote Text"):
        note = _style(document, name, WD_STYLE_TYPE.PARAGRAPH)
        note.base_style = styles["Normal"]  # type: ignore[attr-defined]
        note.font.size = Pt(9)  # type: ignore[attr-defined]
        fmt = note.paragraph_format  # type: ignore[attr-defined]
        fmt.space_before = Pt(0)
        fmt.space_after = Pt(2)
        fmt.line_spacing = 1.0
    for name in ("Footnote Reference", "Endnote Reference"):
        mark = _style(document, name, WD_STYLE_TYPE.CHARACTER)
        mark.font.superscript = True  # type: ignore[attr-defined]

    label = _style(document, "Citeledger Label", WD_STYLE_TYPE.CHARACTER)
    label.font.size = Pt(9)  # type: ignore[attr-defined]
    label.font.small_caps = True  # type: ignore[attr-defined]
    label.font.color.rgb = RGBColor(0x59, 0x59, 0x59)  # type: ignore[attr-defined]

    link = styles["Hyperlink"]
    link.font.color.rgb = LINK_RGB
    link.font.underline = True

    _page(document)
    _oxml_endnotes.ensure_endnote_styles(styles.element)
    # Named fonts, not the theme's: in the defaults too, so runs without a style follow.
    _oxml_fonts.drop_theme_fonts(styles.element)
    defaults = _oxml.xpath(styles.element, "w:docDefaults/w:rPrDefault/w:rPr/w:rFonts")
    for fonts in defaults:
        fonts.set(_oxml.qn("w:ascii"), BODY_FONT)
        fonts.set(_oxml.qn("w:hAnsi"), BODY_FONT)

    return saved(document, "citeledger reference")


def _page(document: object) -> None:
    """A4 with 2.5 cm margins, as the PDFs (a draft's ``papersize`` is applied by the docx
    renderer), and the page number centred in the footer, 9 pt, as a ``PAGE`` field."""
    section = document.sections[0]  # type: ignore[attr-defined]
    section.page_width, section.page_height = Mm(210), Mm(297)
    for side in ("left_margin", "right_margin", "top_margin", "bottom_margin"):
        setattr(section, side, Cm(2.5))
    footer = section.footer
    footer.is_linked_to_previous = False
    para = footer.paragraphs[0]
    para.alignment = WD_ALIGN_PARAGRAPH.CENTER
    for kind, text in (("begin", None), (None, " PAGE "), ("separate", None), (None, "1")):
        run = para.add_run()
        run.font.size = Pt(9)
        if kind is not None:
            fld = _oxml.OxmlElement("w:fldChar")
            fld.set(_oxml.qn("w:fldCharType"), kind)
            run._r.append(fld)
        elif text == " PAGE ":
            instr = _oxml.OxmlElement("w:instrText")
            instr.set(_oxml.qn("xml:space"), "preserve")
            instr.text = text
            run._r.append(instr)
        else:
            run.text = text
    end = para.add_run()
    end.font.size = Pt(9)
    fld = _oxml.OxmlElement("w:fldChar")
    fld.set(_oxml.qn("w:fldCharType"), "end")
    end._r.append(fld)


def main(argv: list[str] | None = None) -> None:
    write_main(build, HERE / "reference.docx", argv)


if __name__ == "__main__":
    main()
