"""Word's page, as a reader sees it printed: A4 like the PDFs unless the draft's ``papersize``
says otherwise, and the page number at the foot of every page."""

from __future__ import annotations

import shutil
from pathlib import Path

from pypdf import PdfReader

from tests.helpers import ROOT, run_citeledger
from tests.helpers.pdf_marks import libreoffice_pdf, pieces

REPORT = ROOT / "examples" / "report"


def build(folder: Path, *flags: str) -> Path:
    for name in ("report.md", "ledger.json", "figure.png"):
        shutil.copy(REPORT / name, folder / name)
    proc = run_citeledger(
        "convert", "report.md", "--ledger", "ledger.json", *flags, "-o", "out.docx", cwd=folder
    )
    assert proc.returncode == 0, proc.stderr
    return folder / "out.docx"


def test_a4_pages_numbered_in_the_footer(tmp_path: Path) -> None:
    pdf = libreoffice_pdf(build(tmp_path), tmp_path)
    reader = PdfReader(str(pdf))
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (595, 842)  # A4 in points
    for number, page in enumerate(pieces(pdf), 1):
        lowest = min(page, key=lambda p: p.y)
        assert lowest.text.strip() == str(number), f"page {number} ends with {lowest.text!r}"


def test_papersize_sets_the_page(tmp_path: Path) -> None:
    pdf = libreoffice_pdf(build(tmp_path, "-M", "papersize=letter"), tmp_path)
    box = PdfReader(str(pdf)).pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (612, 792)


def test_an_unknown_papersize_is_one_line_naming_it(tmp_path: Path) -> None:
    for name in ("report.md", "ledger.json", "figure.png"):
        shutil.copy(REPORT / name, tmp_path / name)
    proc = run_citeledger(
        "convert",
        "report.md",
        "--ledger",
        "ledger.json",
        "-M",
        "papersize=huge",
        "-o",
        "out.docx",
        cwd=tmp_path,
    )
    assert proc.returncode != 0
    assert "papersize 'huge'" in proc.stderr and "Traceback" not in proc.stderr
