"""pptx fitting: a slide whose body runs over goes on on continuation slides of its own layout.

A deck finished with ``citeledger finish`` may hold slides of any layout of its reference deck;
pandoc's own are "Title and Content". A slide of another layout whose body placeholder is all
it holds besides its title goes on on slides of that layout, as the fitting's docstring says
(it took "Title and Content" whenever the deck had one: the check compared two python-pptx
proxies of the same shape by identity, which never holds).
"""

from __future__ import annotations

from pathlib import Path

from pptx import Presentation

from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.renderers._pptx_oxml import delete_slides
from citeledger.renderers.pptx import postprocess_pptx
from tests.helpers import ROOT, make_ledger

REFERENCE = ROOT / "citeledger" / "templates" / "reference.pptx"
LONG = " ".join(f"Ice sample {i} floats on sea water, denser than the ice." for i in range(6))


def deck(tmp_path: Path, layout_name: str) -> Path:
    """A deck on the bundled reference deck: one slide of ``layout_name`` (a title and a body
    placeholder), its body far too long for one slide."""
    prs = Presentation(str(REFERENCE))
    delete_slides(prs, list(prs.slides))  # the reference deck's own samples
    layout = next(la for la in prs.slide_layouts if la.name == layout_name)
    slide = prs.slides.add_slide(layout)
    slide.shapes.title.text = "Long section"
    body = next(s for s in slide.placeholders if s.placeholder_format.idx == 1)
    frame = body.text_frame
    frame.text = LONG
    for _ in range(11):
        frame.add_paragraph().text = LONG
    path = tmp_path / f"{layout_name}.pptx"
    prs.save(str(path))
    return path


def finish(path: Path, tmp_path: Path) -> list[tuple[str, str]]:
    ledger = load_ledger(make_ledger(tmp_path / "ledger.json"))
    postprocess_pptx(path, ledger=ledger, options=Options())
    prs = Presentation(str(path))
    return [(s.slide_layout.name, s.shapes.title.text) for s in prs.slides]


def test_a_body_of_another_layout_goes_on_on_slides_of_that_layout(tmp_path: Path) -> None:
    slides = finish(deck(tmp_path, "Section Header"), tmp_path)
    assert len(slides) > 2
    assert slides[0] == ("Section Header", "Long section")
    assert set(slides[1:]) == {("Section Header", "Long section (cont.)")}


def test_a_title_and_content_slide_goes_on_as_before(tmp_path: Path) -> None:
    slides = finish(deck(tmp_path, "Title and Content"), tmp_path)
    assert len(slides) > 2
    assert {name for name, _title in slides} == {"Title and Content"}
