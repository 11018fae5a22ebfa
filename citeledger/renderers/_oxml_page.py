"""The page of a Word document: its size from the draft's ``papersize`` (pandoc's variable,
which pandoc's docx writer leaves in the custom properties and otherwise ignores), else what
the reference document says (the bundled one: A4, as every PDF)."""

from __future__ import annotations

from pathlib import Path

from ..errors import BadInput
from ._oxml import W_SECTPR, Element, OxmlElement, custom_property, qn, xpath

# Width and height in twentieths of a point.
PAPER_SIZES = {
    "a3": (16838, 23811),
    "a4": (11906, 16838),
    "a5": (8391, 11906),
    "b5": (9979, 14173),
    "letter": (12240, 15840),
    "legal": (12240, 20160),
    "executive": (10440, 15120),
}


def paper_size(path: Path) -> tuple[int, int] | None:
    """The size ``papersize`` names (``a4``, ``A4``, ``a4paper``, ``letter``...), or None when
    the draft sets none."""
    value = custom_property(path, "papersize")
    if value is None or not value.strip():
        return None
    name = value.strip().lower().removesuffix("paper")
    if name not in PAPER_SIZES:
        raise BadInput(
            f"{path}: the draft's papersize {value!r} is no paper size known here",
            hint="set papersize to one of " + ", ".join(PAPER_SIZES),
        )
    return PAPER_SIZES[name]


def set_page_size(body: Element, size: tuple[int, int]) -> None:
    """Every section's ``w:pgSz`` set to ``size``, portrait or landscape as the section was."""
    width, height = size
    for sect in body.iter(W_SECTPR):
        found = xpath(sect, "w:pgSz")
        if found:
            pg = found[0]
        else:
            pg = OxmlElement("w:pgSz")
            # CT_SectPr: headers, footers, footnotePr, endnotePr, type, then pgSz.
            before = xpath(
                sect, "w:headerReference | w:footerReference | w:footnotePr | w:endnotePr | w:type"
            )
            if before:
                before[-1].addnext(pg)
            else:
                sect.insert(0, pg)
        landscape = pg.get(qn("w:orient")) == "landscape"
        pg.set(qn("w:w"), str(height if landscape else width))
        pg.set(qn("w:h"), str(width if landscape else height))
