"""The bundled typst template (templates/report.typst) numbers pages under every pandoc with a
typst writer: pandoc 3.6 and later set ``page-numbering`` to "1" themselves, 3.5 sets nothing,
and a template that read the unset variable as "no numbers" printed none under 3.5. ``.ci/run``
repeats this file under an older pandoc (``CITELEDGER_PANDOC``)."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader

from tests.helpers import make_ledger, require_writer, run_citeledger

SOURCES = [(1, "https://example.org/one", "One", "2025-01-01")]
LONG = "---\ntitle: Long report\n---\n\n" + "".join(
    f"Paragraph {i} runs long enough that sixty of them fill three pages of the report, "
    "and then some more words follow to be sure of it.[1]\n\n"
    for i in range(60)
)


def footers(tmp_path: Path, *args: str) -> list[str]:
    require_writer("typst")
    make_ledger(tmp_path / "ledger.json", SOURCES)
    (tmp_path / "long.md").write_text(LONG, encoding="utf-8")
    proc = run_citeledger("convert", "long.md", "-o", "long.pdf", *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    pages = PdfReader(tmp_path / "long.pdf").pages
    assert len(pages) >= 3
    return [page.extract_text().strip().splitlines()[-1] for page in pages]


def test_typst_pdf_numbers_its_pages(tmp_path: Path) -> None:
    marks = footers(tmp_path)
    assert marks == [str(n) for n in range(1, len(marks) + 1)]


def test_page_numbering_takes_a_typst_pattern(tmp_path: Path) -> None:
    marks = footers(tmp_path, "-M", "page-numbering=i")
    assert marks[:3] == ["i", "ii", "iii"]


def test_page_numbering_none_switches_them_off(tmp_path: Path) -> None:
    marks = footers(tmp_path, "-M", "page-numbering=none")
    assert not any(mark.isdigit() for mark in marks)
