"""No line starts with a citation mark, read from the pages as a reader reads them.

The real 242-citation report (tests/fixtures/corpora/cited) writes its clusters with a space
before them (``sign [50][3][9].``): typst, xelatex and Word (laid out by LibreOffice) each
build it, and on no page before the Sources list does a line start with a mark, raised or
bracketed. Each writer keeps a mark on its word by its own means: the draft's space before the
marker is not kept (Word, LaTeX, typst) and typst joins each mark to what precedes it with a
word joiner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import FIXTURES, need, run_citeledger
from tests.helpers.pdf_marks import libreoffice_pdf, stranded_marks

CITED = FIXTURES / "corpora" / "cited"


def build(folder: Path, out: str, *flags: str) -> Path:
    for name in ("odr-did-report.md", "odr-did-report.ledger.json"):
        shutil.copy(CITED / name, folder / name)
    proc = run_citeledger(
        "convert",
        "odr-did-report.md",
        "--ledger",
        "odr-did-report.ledger.json",
        *flags,
        "-o",
        out,
        cwd=folder,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return folder / out


@pytest.mark.parametrize("engine", ["typst", "xelatex"])
def test_no_pdf_line_starts_with_a_mark(engine: str, tmp_path: Path) -> None:
    if engine != "typst":
        need(shutil.which(engine) is not None, engine)
    pdf = build(tmp_path, "out.pdf", "--pdf-engine", engine)
    assert stranded_marks(pdf) == []


def test_no_word_line_starts_with_a_mark(tmp_path: Path) -> None:
    docx = build(tmp_path, "out.docx")
    assert stranded_marks(libreoffice_pdf(docx, tmp_path)) == []
