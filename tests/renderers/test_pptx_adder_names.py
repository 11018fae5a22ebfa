"""A deck whose Sources slide is followed by another (a writer's filter adds a closing slide
after the list) keeps every slide: the slides the renderer adds are named after the highest
slide part in use, never after the count of slides, which after the Sources slide is deleted
is the name of a live slide (two parts of one name: a broken package, the closing slide lost)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from pptx import Presentation

from citeledger.publish.convert import ConvertRequest
from citeledger.publish.convert import convert as build
from tests.helpers import make_ledger

CLOSING = """function Pandoc(doc)
  doc.blocks:insert(pandoc.Header(2, "Thank you"))
  doc.blocks:insert(pandoc.Para("Questions?"))
  return doc
end
"""


def test_a_slide_after_the_sources_keeps_its_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_ledger(
        tmp_path / "ledger.json",
        [(k, f"https://example.org/{k}", f"Paper {k}", "2024-01-01") for k in (1, 2, 3)],
    )
    long = "\n\n".join(
        f"Sentence {j} about sea ice, long enough to wrap on the slide.[{j % 3 + 1}]"
        for j in range(25)
    )
    (tmp_path / "deck.md").write_text(
        f"## Findings\n\n{long}\n\n## Methods\n\n{long}\n", encoding="utf-8"
    )
    (tmp_path / "close.lua").write_text(CLOSING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITELEDGER_LEDGER", str(tmp_path / "ledger.json"))
    out = tmp_path / "deck.pptx"
    build(
        ConvertRequest(
            draft=Path("deck.md"), outputs=[out], pandoc_args=["--lua-filter", "close.lua"]
        )
    )
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
    assert len(names) == len(set(names))
    titles = [s.shapes.title.text for s in Presentation(str(out)).slides]
    assert titles[0] == "Findings" and titles[-1] == "Thank you"
    assert titles[-2].startswith("Sources") and "Findings (cont.)" in titles
