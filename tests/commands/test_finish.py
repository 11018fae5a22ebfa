"""``citeledger finish``: the second line of a two-line Makefile rule, and its one-line errors."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

from citeledger.pandoc import run_pandoc
from tests.helpers import make_ledger, run_citeledger

SOURCES = [
    (7, "https://example.com/seven", "Seven", "2024-02-02"),
    (40, "https://example.org/forty", "Forty", "2024-02-03"),
]
DRAFT = "Ice floats on water.[7][40] It floats again here.[40]\n"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd)


def pandoc_build(tmp_path: Path, *meta: str) -> Path:
    make_ledger(tmp_path / "ledger.json", SOURCES)
    args = ["-f", "markdown", "-o", "out.docx", "--filter", "pandoc-citeledger"]
    for item in ("citeledger.ledger=ledger.json", *meta):
        args += ["-M", item]
    run_pandoc(args, stdin=DRAFT, cwd=tmp_path)
    return tmp_path / "out.docx"


def document_xml(path: Path) -> str:
    with zipfile.ZipFile(path) as zf:
        return zf.read("word/document.xml").decode("utf-8")


def test_two_line_build_gives_ledger_id_marks(tmp_path: Path) -> None:
    out = pandoc_build(tmp_path, "citeledger.repeat-notes=cross-reference")
    proc = cli("finish", "out.docx", "--ledger", "ledger.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "finished out.docx"
    xml = document_xml(out)
    assert xml.count('w:customMarkFollows="1"') == 2
    assert 'w:anchor="_clsrc40"' in xml and "NOTEREF" not in xml


def test_two_line_build_gives_every_citation_a_note_with_its_id(tmp_path: Path) -> None:
    out = pandoc_build(tmp_path)
    proc = cli("finish", "out.docx", "--ledger", "ledger.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    xml = document_xml(out)
    assert xml.count('w:customMarkFollows="1"') == 3  # the repeat has a short note of its own
    assert "NOTEREF" not in xml


def test_finish_reads_the_notes_mode_the_filter_recorded(tmp_path: Path) -> None:
    out = pandoc_build(tmp_path, "citeledger.notes=endnotes")
    proc = cli("--ledger", "ledger.json", "finish", "out.docx", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(out) as zf:
        assert "word/endnotes.xml" in zf.namelist()
    assert document_xml(out).count("<w:endnoteReference") == 2


def test_metadata_flag_wins_over_the_recorded_mode(tmp_path: Path) -> None:
    out = pandoc_build(tmp_path, "citeledger.repeat-notes=cross-reference")
    proc = cli(
        "finish", "out.docx", "--ledger", "ledger.json", "-M", "numbering=sequential", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    xml = document_xml(out)
    assert "customMarkFollows" not in xml and "NOTEREF _clsrc40" in xml


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


def test_missing_file_is_one_line_exit_2(tmp_path: Path) -> None:
    make_ledger(tmp_path / "ledger.json", SOURCES)
    line = one_line_error(cli("finish", "nowhere.docx", cwd=tmp_path))
    assert "nowhere.docx: no such file" in line


def test_non_office_file_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    line = one_line_error(cli("finish", "notes.txt", cwd=tmp_path))
    assert "notes.txt" in line and ".docx" in line


def test_a_docx_that_is_not_a_zip_is_one_line_exit_2(tmp_path: Path) -> None:
    make_ledger(tmp_path / "ledger.json", SOURCES)
    (tmp_path / "fake.docx").write_text("not a zip", encoding="utf-8")
    line = one_line_error(cli("finish", "fake.docx", cwd=tmp_path))
    assert "fake.docx: not a Word document" in line


def test_bad_metadata_is_one_line_exit_2(tmp_path: Path) -> None:
    pandoc_build(tmp_path)
    line = one_line_error(cli("finish", "out.docx", "-M", "notes", cwd=tmp_path))
    assert "KEY=VALUE" in line
    line = one_line_error(cli("finish", "out.docx", "-M", "notes=sidenotes", cwd=tmp_path))
    assert "citeledger.notes" in line
