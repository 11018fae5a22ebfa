"""docx: drawing each note's mark in its run's font costs the same per note however many notes
a report has: the style chains a mark's font is resolved through are walked once per build,
not once per note (a 1.7 MB report has 10,000 notes and a handful of styles)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeledger.filters.run import apply
from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.pandoc import run_pandoc
from citeledger.renderers import _oxml_fonts, postprocess
from tests.helpers import make_ledger


def walks(folder: Path, notes: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """Style lookups (``w:basedOn``, ``w:pStyle``, the document defaults) made while the
    renderer draws the marks of a report with ``notes`` citations."""
    folder.mkdir()
    entries = [(i, f"https://example.org/s/{i}", f"Study {i}", "2025-02-01") for i in range(1, 6)]
    ledger = load_ledger(make_ledger(folder / "ledger.json", entries))
    draft = "\n\n".join(f"Ice sample {k} floats on sea water.[{1 + k % 5}]" for k in range(notes))
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=draft))
    apply(doc, "docx", options=Options(), ledger=ledger, say=lambda _l: None, rendered=True)
    out = folder / "r.docx"
    run_pandoc(["-f", "json", "-o", str(out)], stdin=json.dumps(doc))
    asked = 0
    original = _oxml_fonts.xpath

    def counted(element: Any, expr: str) -> list[Any]:
        nonlocal asked
        asked += 1
        return original(element, expr)

    with monkeypatch.context() as m:
        m.setattr(_oxml_fonts, "xpath", counted)
        postprocess(out, ledger=ledger, options=Options())
    return asked


def test_a_marks_font_is_resolved_once_per_style_chain_not_once_per_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    few = walks(tmp_path / "few", 10, monkeypatch)
    many = walks(tmp_path / "many", 80, monkeypatch)
    assert many == few  # before: about four lookups more for every note


def _noted(folder: Path, notes: int) -> tuple[Path, Any]:
    """A Word file pandoc wrote from a draft with ``notes`` citations (ids up to 12, so marks
    of two characters too), and its ledger; not yet finished."""
    folder.mkdir()
    entries = [(i, f"https://example.org/s/{i}", f"Study {i}", "2025-02-01") for i in range(1, 13)]
    ledger = load_ledger(make_ledger(folder / "ledger.json", entries))
    draft = "\n\n".join(f"Ice sample {k} floats on sea water.[{1 + k % 12}]" for k in range(notes))
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=draft))
    apply(doc, "docx", options=Options(), ledger=ledger, say=lambda _l: None, rendered=True)
    out = folder / "r.docx"
    run_pandoc(["-f", "json", "-o", str(out)], stdin=json.dumps(doc))
    return out, ledger


def test_each_marks_elements_are_copies_of_python_docxs_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mark's ``w:t`` and ``w:sym`` elements, one per character of every note's mark, are
    copied from one made by python-docx (which parses the tag anew for each): the same file."""
    import zipfile

    from citeledger.renderers import _oxml_notes

    made = 0
    original = _oxml_notes.OxmlElement

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal made
        made += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(_oxml_notes, "OxmlElement", counted)
    ours, ledger = _noted(tmp_path / "ours", 30)
    postprocess(ours, ledger=ledger, options=Options())
    assert made == 0
    # python-docx's own element each time, where the renderer copies its template.
    monkeypatch.setattr(_oxml_notes, "_made", _Fresh(original).deepcopy)
    theirs, ledger = _noted(tmp_path / "theirs", 30)
    postprocess(theirs, ledger=ledger, options=Options())
    with zipfile.ZipFile(ours) as a, zipfile.ZipFile(theirs) as b:
        names = [n for n in a.namelist() if n != "docProps/core.xml"]
        assert names == [n for n in b.namelist() if n != "docProps/core.xml"]
        assert all(a.read(n) == b.read(n) for n in names)


class _Fresh:
    """A ``deepcopy`` of a template element that makes a new one with python-docx."""

    def __init__(self, make: Any) -> None:
        self.make = make

    def deepcopy(self, element: Any) -> Any:
        from lxml import etree

        return self.make("w:" + etree.QName(element).localname)
