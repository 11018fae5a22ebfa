"""Make ``reference.pptx``, the bundled slide layout, from pandoc's own default.

    python -m citeledger.templates.make_reference_pptx [OUT]

Starts from ``pandoc --print-default-data-file reference.pptx`` so every layout pandoc looks
for keeps its name, then restyles it: Calibri (Carlito in LibreOffice) throughout, a dark blue
left-aligned bold title over a thin accent rule, body text one step smaller than pandoc's
(20/18/16 pt with 110% line spacing) so a bullet with ``[n]`` marks still fits on one line. The
zip is written with fixed timestamps and a fixed member order, so running the script twice gives
the same bytes and a change to the template shows up as a real diff.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from pptx import Presentation
from pptx.util import Emu

from ..pandoc import run_pandoc
from ..renderers import _pptx_oxml as ox
from ._reproducible import saved, write_main

HERE = Path(__file__).resolve().parent
TITLE_RGB = "1F3A5F"
ACCENT_RGB = "2E75B6"


def build() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "default.pptx"
        run_pandoc(["-o", str(base), "--print-default-data-file", "reference.pptx"])
        prs = Presentation(io.BytesIO(base.read_bytes()))
    master = prs.slide_master
    theme = next(
        rel.target_part for rel in master.part.rels.values() if rel.reltype.endswith("/theme")
    )
    ox.set_theme_fonts(theme, major="Calibri", minor="Calibri")
    ox.set_theme_colors(theme, {"dk2": TITLE_RGB, "accent1": ACCENT_RGB, "hlink": ACCENT_RGB})
    ox.style_master_text(
        master, title_pt=30, title_color=TITLE_RGB, title_align="l", body_pts=[20, 18, 16, 14, 14]
    )
    # The rule sits just under the title placeholder of "Title and Content".
    ox.add_master_rule(
        master,
        x=457200,
        y=205979 + 857250 + Emu(38100),
        cx=8229600,
        cy=Emu(28575),
        rgb=ACCENT_RGB,
    )
    return saved(prs, "citeledger reference deck")


def main(argv: list[str] | None = None) -> None:
    write_main(build, HERE / "reference.pptx", argv)


if __name__ == "__main__":
    main()
