"""Word, read as a reader reads it: the bundled example report built by ``citeledger convert``,
laid out by LibreOffice and printed to PDF. Every mark in the text has its note at the foot of
the same page (a note per citation, ``repeat-notes: short``), and a repeated source's later notes
are shortened to its title."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from tests.helpers import ROOT, run_citeledger
from tests.helpers.pdf_marks import body_size, libreoffice_pdf, lines, pieces, word_marks

REPORT = ROOT / "examples" / "report"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def built_report(folder: Path, *flags: str) -> Path:
    for name in ("report.md", "ledger.json", "figure.png"):
        shutil.copy(REPORT / name, folder / name)
    proc = run_citeledger(
        "convert", "report.md", "--ledger", "ledger.json", *flags, "-o", "out.docx", cwd=folder
    )
    assert proc.returncode == 0, proc.stderr
    return folder / "out.docx"


def note_texts(docx: Path) -> list[str]:
    with zipfile.ZipFile(docx) as zf:
        root = etree.fromstring(zf.read("word/footnotes.xml"))
    return [
        # A shown URL's zero-width spaces are where Word may break it, not part of its text.
        "".join(t.text or "" for t in note.iter(f"{W}t")).replace("\u200b", "").strip()
        for note in root.iter(f"{W}footnote")
        if note.get(f"{W}type") is None
    ]


@pytest.fixture(scope="module")
def report_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    return libreoffice_pdf(built_report(folder), folder)


def test_every_mark_has_its_note_on_its_page(report_pdf: Path) -> None:
    pages = word_marks(report_pdf)
    assert sum(len(p.in_text) for p in pages) >= 30  # the report's citations, all seen
    for number, page in enumerate(pages, 1):
        missing = sorted(set(page.in_text) - set(page.in_notes), key=int)
        assert not missing, f"page {number}: marks {missing} have no note on the page"


def test_no_line_starts_with_a_mark(report_pdf: Path) -> None:
    found = pieces(report_pdf)
    body = body_size(found)
    for number, page in enumerate(found, 1):
        for row in lines(page, body):
            first = row[0]
            # A note's label (smaller still) starts its note: only the text's marks count.
            raised = first.text.strip().isdigit() and 0.53 * body <= first.size < 0.7 * body
            assert not raised, f"page {number}: a line starts with the mark {first.text!r}"


def test_a_repeated_source_gets_a_short_note_with_its_id(tmp_path: Path) -> None:
    texts = note_texts(built_report(tmp_path))
    heat = [t for t in texts if "What is an urban heat island?" in t]
    # [1] is cited three times: the full entry, then its title alone, twice.
    assert len(heat) == 3, texts
    assert "heatresilience.org" in heat[0] and "accessed" in heat[0]
    assert heat[1] == heat[2] == "What is an urban heat island?"


def test_cross_reference_keeps_one_note_per_source(tmp_path: Path) -> None:
    texts = note_texts(built_report(tmp_path, "--repeat-notes", "cross-reference"))
    assert len(texts) == 12  # the twelve sources, each noted once
    assert sum("What is an urban heat island?" in t for t in texts) == 1
