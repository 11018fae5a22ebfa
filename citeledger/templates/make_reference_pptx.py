"""Make ``reference.pptx``, the bundled slide layout, from pandoc's own default.

    python -m citeledger.templates.make_reference_pptx [OUT]

Starts from ``pandoc --print-default-data-file reference.pptx`` so every layout pandoc looks
for keeps its name, then restyles it, plainly: Calibri (Carlito in LibreOffice) throughout, dark
blue bold titles, one accent colour.

- Slides with a title bar ("Title and Content", "Two Content", "Comparison", "Title Only", the
  vertical one): the title box holds two lines of 28 pt (90% line spacing) and sits on its
  bottom edge, so a one-line title stands just above the accent rule and a second line grows
  upwards; the rule lies below the box, never through it. The body starts under the rule and
  ends above the footer row, its text 18/16/14 pt with 110% line spacing (a paragraph of 600
  characters, a report's usual, fits one slide).
- "Title Slide": title and subtitle both centred, a short centred rule between them.
- "Section Header": the heading as written (no capitals forced), 30 pt, standing on the middle
  of the slide (its box holds three lines and grows upwards), a short rule under it.
- "Content with Caption" (pandoc's slide with text beside a table or picture): the same title
  look over its text column.

The rule is a shape of each layout rather than of the master, so it follows each layout's own
title. The zip is written with fixed timestamps and a fixed member order, so running the script
twice gives the same bytes and a change to the template shows up as a real diff.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

from pptx import Presentation

from ..pandoc import run_pandoc
from ..renderers import _pptx_style as st
from ._reproducible import saved, write_main

HERE = Path(__file__).resolve().parent
TITLE_RGB = "1F3A5F"
ACCENT_RGB = "2E75B6"
SUBTLE_RGB = "595959"
RULE = "citeledger rule"

IN = 914400
SLIDE_W = 9144000
LEFT = IN // 2  # the left and right margin
WIDTH = SLIDE_W - 2 * LEFT
# Title bar: 0.22 in from the top, 1 in high (two lines of 28 pt at 90%, with the insets).
TITLE_Y, TITLE_H = round(0.22 * IN), IN
TITLE_BOTTOM = TITLE_Y + TITLE_H
RULE_Y, RULE_H = TITLE_BOTTOM + round(0.05 * IN), 19050  # 1.5 pt, 0.05 in under the title box
BODY_Y = round(1.42 * IN)
BODY_BOTTOM = round(5.1 * IN)  # the footer row starts at 5.21 in
BODY_H = BODY_BOTTOM - BODY_Y
GAP = round(0.2 * IN)  # between two columns


def build() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "default.pptx"
        run_pandoc(["-o", str(base), "--print-default-data-file", "reference.pptx"])
        prs = Presentation(io.BytesIO(base.read_bytes()))
    master = prs.slide_master
    theme = next(
        rel.target_part for rel in master.part.rels.values() if rel.reltype.endswith("/theme")
    )
    st.set_theme_fonts(theme, major="Calibri", minor="Calibri")
    st.set_theme_colors(theme, {"dk2": TITLE_RGB, "accent1": ACCENT_RGB, "hlink": ACCENT_RGB})
    st.style_master_text(
        master, title_pt=28, title_color=TITLE_RGB, title_spacing=90, body_pts=[18, 16, 14, 14, 14]
    )
    st.remove_shape(master, RULE)
    by_idx = {shape.placeholder_format.idx: shape for shape in master.placeholders}
    title_bar(by_idx[0], LEFT, WIDTH)
    st.place(by_idx[1], LEFT, BODY_Y, WIDTH, BODY_H)
    layouts = {layout.name: layout for layout in prs.slide_layouts}
    for name in ("Title and Content", "Two Content", "Comparison", "Title Only"):
        ph = placeholders(layouts[name])
        title_bar(ph[0], LEFT, WIDTH)
        rule(layouts[name], LEFT, WIDTH)
    ph = placeholders(layouts["Title and Content"])
    st.place(ph[1], LEFT, BODY_Y, WIDTH, BODY_H)
    two_columns(placeholders(layouts["Two Content"]))
    comparison(placeholders(layouts["Comparison"]))
    vertical = layouts.get("Title and Vertical Text")
    if vertical is not None:
        ph = placeholders(vertical)
        title_bar(ph[0], LEFT, WIDTH)
        st.place(ph[1], LEFT, BODY_Y, WIDTH, BODY_H)
        rule(vertical, LEFT, WIDTH)
    title_slide(layouts["Title Slide"])
    section_header(layouts["Section Header"])
    caption_slide(layouts["Content with Caption"])
    return saved(prs, "citeledger reference deck")


def placeholders(layout: Any) -> dict[int, Any]:
    return {shape.placeholder_format.idx: shape for shape in layout.placeholders}


def title_bar(shape: Any, x: int, width: int) -> None:
    st.place(shape, x, TITLE_Y, width, TITLE_H)
    st.text_look(shape, anchor="b", align="l")


def rule(layout: Any, x: int, width: int) -> None:
    st.add_rule(layout, x=x, y=RULE_Y, cx=width, cy=RULE_H, rgb=ACCENT_RGB, name=RULE)


def two_columns(ph: dict[int, Any]) -> None:
    half = (WIDTH - GAP) // 2
    st.place(ph[1], LEFT, BODY_Y, half, BODY_H)
    st.place(ph[2], LEFT + half + GAP, BODY_Y, half, BODY_H)


def comparison(ph: dict[int, Any]) -> None:
    half = (WIDTH - GAP) // 2
    head = round(0.45 * IN)
    for k, x in ((1, LEFT), (3, LEFT + half + GAP)):
        st.place(ph[k], x, BODY_Y, half, head)
        st.place(ph[k + 1], x, BODY_Y + head, half, BODY_H - head)


def title_slide(layout: Any) -> None:
    ph = placeholders(layout)
    width = round(8.5 * IN)
    title_bottom = round(2.75 * IN)
    st.place(ph[0], (SLIDE_W - width) // 2, title_bottom - round(1.6 * IN), width, round(1.6 * IN))
    st.text_look(ph[0], anchor="b", align="ctr", size_pt=36)
    short = round(1.2 * IN)
    y = title_bottom + round(0.08 * IN)
    x = (SLIDE_W - short) // 2
    st.add_rule(layout, x=x, y=y, cx=short, cy=25400, rgb=ACCENT_RGB, name=RULE)
    sub_w = round(7.5 * IN)
    sub_y = y + round(0.15 * IN)
    st.place(ph[1], (SLIDE_W - sub_w) // 2, sub_y, sub_w, round(4.45 * IN) - sub_y)
    st.text_look(ph[1], anchor="t", align="ctr", size_pt=20, rgb=SUBTLE_RGB)


def section_header(layout: Any) -> None:
    """Heading in the middle third (1.875 to 3.75 in of a 5.625 in slide): a one-line heading's
    baseline near the middle, the rule and any subtitle under it; left, as titles are."""
    ph = placeholders(layout)
    bottom = round(3.0 * IN)
    high = round(1.45 * IN)  # three lines of 30 pt at 90%
    x = LEFT + round(0.25 * IN)
    width = WIDTH - round(0.5 * IN)
    st.place(ph[0], x, bottom - high, width, high)
    st.text_look(ph[0], anchor="b", align="l", size_pt=30, bold=True, rgb=TITLE_RGB)
    y = bottom + round(0.06 * IN)
    st.add_rule(layout, x=x + 91440, y=y, cx=round(1.5 * IN), cy=25400, rgb=ACCENT_RGB, name=RULE)
    st.place(ph[1], x, y + round(0.12 * IN), width, round(0.6 * IN))
    st.text_look(ph[1], anchor="t", align="l", size_pt=18, rgb=SUBTLE_RGB)


def caption_slide(layout: Any) -> None:
    ph = placeholders(layout)
    column = round(3.3 * IN)
    title_bar(ph[0], LEFT, column)
    st.text_look(ph[0], size_pt=22)
    rule(layout, LEFT, column)
    st.place(ph[2], LEFT, BODY_Y, column, BODY_H)
    st.text_look(ph[2], size_pt=14)
    right = LEFT + column + GAP
    st.place(ph[1], right, TITLE_Y, SLIDE_W - LEFT - right, BODY_BOTTOM - TITLE_Y)


def main(argv: list[str] | None = None) -> None:
    write_main(build, HERE / "reference.pptx", argv)


if __name__ == "__main__":
    main()
