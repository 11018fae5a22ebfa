"""pptx fitting on a long deck: the continuation slides are the ones python-pptx's own
``add_slide`` makes, and the work of adding them grows with the deck, not with its square.

A 1.7 MB report's deck (800 slides, 2,400 continuation slides) spent a minute and a half
looking each new slide up among all the others; these tests build real decks with pandoc, fit
them, and read them back.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from pptx import Presentation
from pptx.opc.package import Part

from citeledger.filters.run import apply
from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.pandoc import run_pandoc
from citeledger.renderers import _pptx_oxml
from citeledger.renderers.pptx import postprocess_pptx
from tests.helpers import ROOT, make_ledger

REFERENCE = ROOT / "citeledger" / "templates" / "reference.pptx"
LONG = " ".join(f"Ice sample {i} floats on sea water, denser than the ice." for i in range(6))


def long_deck_md(slides: int) -> str:
    """``slides`` slides, each too long for one slide (so each gets continuation slides)."""
    lines = ["---", "title: Sea ice", "---", ""]
    for n in range(1, slides + 1):
        lines += [f"## Long slide {n}", ""]
        lines += [f"- {LONG}[{1 + (n + k) % 5}]" for k in range(6)]
        lines.append("")
    return "\n".join(lines)


def build(folder: Path, slides: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    entries = [(i, f"https://example.org/s/{i}", f"Study {i}", "2025-02-01") for i in range(1, 6)]
    ledger = load_ledger(make_ledger(folder / "ledger.json", entries))
    options = Options()
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=long_deck_md(slides)))
    apply(doc, "pptx", options=options, ledger=ledger, say=lambda _l: None)
    out = folder / "deck.pptx"
    run_pandoc(
        ["-f", "json", "-o", str(out), "--reference-doc", str(REFERENCE)], stdin=json.dumps(doc)
    )
    postprocess_pptx(out, ledger=ledger, options=options)
    return out


def parts(deck: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(deck) as z:
        return {n: z.read(n) for n in z.namelist() if n != "docProps/core.xml"}


def pptx_add(self: Any, layout: Any, index: int) -> Any:
    """python-pptx's own way: ``add_slide``, then the slide's entry found and moved."""
    prs = self.prs
    slide = prs.slides.add_slide(layout)
    id_list = prs.slides._sldIdLst
    entry = next(e for e in id_list if prs.part.related_part(e.rId) is slide.part)
    id_list.remove(entry)
    id_list.insert(index, entry)
    return slide


def test_continuation_slides_are_python_pptxs_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = build(tmp_path / "ours", 12)
    names = [s.shapes.title.text for s in Presentation(str(ours)).slides if s.shapes.title]
    assert names.index("Long slide 3 (cont.)") == names.index("Long slide 3") + 1
    monkeypatch.setattr(_pptx_oxml.SlideAdder, "add", pptx_add)
    theirs = build(tmp_path / "theirs", 12)
    assert parts(ours) == parts(theirs)


def lookups(folder: Path, slides: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Slides in the finished deck, and relationship lookups made while building it."""
    count = 0
    original = Part.related_part

    def counted(self: Part, r_id: str) -> Part:
        nonlocal count
        count += 1
        return original(self, r_id)

    with monkeypatch.context() as m:
        m.setattr(Part, "related_part", counted)
        deck = build(folder, slides)
    return len(Presentation(str(deck)).slides), count


def test_fitting_a_deck_four_times_as_long_costs_about_four_times_as_much(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small, small_lookups = lookups(tmp_path / "small", 10, monkeypatch)
    large, large_lookups = lookups(tmp_path / "large", 40, monkeypatch)
    assert large > 3.5 * small  # every long slide was split
    # Per slide of the deck, the lookups stay flat (before the fix they grew with the deck:
    # 3.4 times as many per slide here).
    assert large_lookups / large <= 1.3 * small_lookups / small
