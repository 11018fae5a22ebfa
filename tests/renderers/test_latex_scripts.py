"""A LaTeX PDF holds every script of the draft, or is not written: Chinese, Arabic and Cyrillic
drafts read back from the PDF's text layer, pdflatex is refused for them in one line, and a
font that lacks the draft's letters refuses the PDF (the engine's log says which)."""

from __future__ import annotations

import json
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.helpers import has_font_for, need, require_cjk_font, run_citeledger

pytestmark = pytest.mark.latex

LEDGER = {
    "version": 1,
    "sources": [{"id": 1, "url": "https://example.com/a", "title": "A", "accessed": "2026-01-01"}],
}
SOURCES = "\n\n## Sources\n\n[1] https://example.com/a — A\n"
CHINESE = "程序员当久了以后，一般都有机会组建或者负责团队。"
ARABIC = "هذه قائمة باللغة العربية للاختبار، وهي مكتوبة من اليمين إلى اليسار."
RUSSIAN = "Привет мир, это список на русском языке."


def engine(name: str) -> None:
    need(shutil.which(name) is not None, name)


def has_family(family: str) -> bool:
    if shutil.which("fc-list") is None:
        return False
    out = subprocess.run(["fc-list", family, "family"], capture_output=True, text=True)
    return bool(out.stdout.strip())


def build(tmp_path: Path, text: str, pdf_engine: str, *trust: str):
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    (tmp_path / "d.md").write_text(text, encoding="utf-8")
    args = ("convert", "d.md", "-o", "d.pdf", "--pdf-engine", pdf_engine, *trust)
    return run_citeledger(*args, cwd=tmp_path, timeout=600)


def letters(text: str) -> set[str]:
    return {c for c in unicodedata.normalize("NFKC", text) if c.isalpha() and ord(c) > 0x36F}


def pdf_letters(path: Path) -> set[str]:
    return letters("".join(page.extract_text() or "" for page in PdfReader(path).pages))


def test_xelatex_pdf_holds_the_drafts_chinese(tmp_path: Path) -> None:
    engine("xelatex")
    require_cjk_font()
    done = build(tmp_path, "# 周刊\n\n" + CHINESE * 6 + "[1]" + SOURCES, "xelatex")
    assert done.returncode == 0, done.stderr
    assert letters("周刊" + CHINESE) <= pdf_letters(tmp_path / "d.pdf")


def test_xelatex_pdf_holds_arabic_written_right_to_left(tmp_path: Path) -> None:
    engine("xelatex")
    need(has_font_for("ar"), "a font with Arabic (Debian: fonts-dejavu-core)")
    done = build(tmp_path, "# قائمة القراءة\n\n" + ARABIC + "[1]" + SOURCES, "xelatex")
    assert done.returncode == 0, done.stderr
    assert letters("قائمة القراءة" + ARABIC) <= pdf_letters(tmp_path / "d.pdf")


def test_lualatex_pdf_holds_cyrillic_headings_and_text(tmp_path: Path) -> None:
    engine("lualatex")
    need(has_font_for("ru"), "a font with Cyrillic (Debian: fonts-dejavu-core)")
    done = build(tmp_path, "# Список\n\n" + RUSSIAN + "[1]" + SOURCES, "lualatex")
    assert done.returncode == 0, done.stderr
    assert letters("Список" + RUSSIAN) <= pdf_letters(tmp_path / "d.pdf")


def test_pdflatex_refuses_chinese_in_one_line_naming_the_way_out(tmp_path: Path) -> None:
    engine("pdflatex")
    done = build(tmp_path, "# 周刊\n\n" + CHINESE + "[1]" + SOURCES, "pdflatex")
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, done.stderr
    assert "pdflatex cannot set the Han" in errors[0]
    assert "xelatex" in errors[0] and "fonts-noto-cjk" in errors[0]
    assert not (tmp_path / "d.pdf").exists()


def test_a_font_without_the_drafts_letters_refuses_the_pdf(tmp_path: Path) -> None:
    engine("xelatex")
    need(has_family("DejaVu Serif"), "DejaVu Serif (Debian: fonts-dejavu-core)")
    # The draft's own mainfont wins (a draft its writer trusts: an untrusted one sets no
    # font), and it has no Arabic: the engine's log says so.
    text = "---\nmainfont: DejaVu Serif\n---\n\n# List\n\nThe word " + ARABIC + "[1]" + SOURCES
    done = build(tmp_path, text, "xelatex", "--trust-draft")
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, done.stderr
    assert "xelatex left out the Arabic letters" in errors[0]
    assert "d.pdf not written" in errors[0]
    assert not (tmp_path / "d.pdf").exists()
