"""A machine with pip alone: no CJK font, no TeX. What is missing is named in one line, with
the Debian package that provides it, instead of a PDF with blank lines or a TeX error."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
import typst
from pypdf import PdfReader

from citeledger.pandoc import run_pandoc
from citeledger.publish.convert.tools import TEMPLATES
from citeledger.renderers.fonts import font_warning, missing_scripts
from tests.helpers import make_ledger, need, require_cjk_font, run_citeledger

JAPANESE = "# 食品ロス\n\n家庭から発生した食品ロスは、年間約236万トンと推計されている。[1]\n"
SOURCES = [(1, "https://example.org/loss", "Loss", "2025-01-01")]


def typst_source(markdown: str) -> bytes:
    template = TEMPLATES / "report.typst"
    return run_pandoc(
        ["-f", "markdown", "-t", "typst", "-s", "--template", str(template)], stdin=markdown
    )


def citeledger(folder: Path, *args: str, env: dict[str, str] | None = None):
    return run_citeledger(*args, cwd=folder, env=env)


def draft(folder: Path, text: str) -> None:
    make_ledger(folder / "ledger.json", SOURCES)
    (folder / "draft.md").write_text(text, encoding="utf-8")


# --- fonts -------------------------------------------------------------------------------------


def test_typst_pdf_drawn_without_a_cjk_font_names_the_scripts_and_package() -> None:
    """typst with its own fonts only (none holds CJK glyphs): the text comes out blank and
    typst says nothing about it; the check reads the PDF back and names what is missing."""
    source = typst_source(JAPANESE)
    pdf = typst.compile(source, ignore_system_fonts=True)
    assert isinstance(pdf, bytes)
    missing = missing_scripts(source.decode("utf-8"), pdf)
    assert [s.name for s in missing] == ["Han (Chinese, Japanese kanji)", "Japanese kana"]
    line = font_warning("out.pdf", missing)
    assert line == (
        "warn: out.pdf: no font for the Han (Chinese, Japanese kanji) and Japanese kana text, "
        "which typst drew blank; install one and convert again "
        "(Debian: apt-get install fonts-noto-cjk)"
    )


def test_latin_text_needs_no_extra_font_and_no_read_back() -> None:
    source = typst_source("# Title\n\nPlain English, with café and naïve.\n")
    pdf = typst.compile(source, ignore_system_fonts=True)
    assert isinstance(pdf, bytes)
    assert missing_scripts(source.decode("utf-8"), pdf) == []


def test_japanese_converts_with_a_cjk_font_and_no_warning(tmp_path: Path) -> None:
    require_cjk_font()
    draft(tmp_path, JAPANESE)
    proc = citeledger(tmp_path, "convert", "draft.md", "-o", "out.pdf")
    assert proc.returncode == 0, proc.stderr
    assert "no font for" not in proc.stderr
    text = "".join(
        p.extract_text() for p in PdfReader(io.BytesIO((tmp_path / "out.pdf").read_bytes())).pages
    )
    assert "食品ロス" in text


# --- TeX ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "packages"),
    [
        ("pdflatex", "texlive-latex-recommended texlive-latex-extra lmodern"),
        (
            "xelatex",
            "texlive-xetex texlive-latex-recommended texlive-latex-extra "
            "texlive-fonts-recommended lmodern",
        ),
        ("lualatex", "texlive-luatex texlive-latex-recommended texlive-latex-extra lmodern"),
    ],
)
def test_missing_latex_engine_names_every_package_it_needs(
    engine: str, packages: str, tmp_path: Path
) -> None:
    draft(tmp_path, "# Title\n\nText.[1]\n")
    env = {**os.environ, "PATH": str(tmp_path / "no-tex-here")}
    proc = citeledger(
        tmp_path, "convert", "draft.md", "-o", "out.pdf", "--pdf-engine", engine, env=env
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"citeledger: error: {engine} not found on PATH (Debian: apt-get install {packages}; "
        "or use the default --pdf-engine typst)"
    ]


@pytest.mark.latex
def test_latex_engine_without_its_packages_is_refused_before_the_build(tmp_path: Path) -> None:
    """An empty TeX tree (``TEXMF``) stands for a TeX Live installed without the packages."""
    need(shutil.which("xelatex") is not None, "xelatex (Debian: texlive-xetex)")
    draft(tmp_path, "# Title\n\nText.[1]\n")
    (tmp_path / "texmf").mkdir()
    env = {**os.environ, "TEXMF": str(tmp_path / "texmf")}
    proc = citeledger(
        tmp_path, "convert", "draft.md", "-o", "out.pdf", "--pdf-engine", "xelatex", env=env
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("citeledger: error: xelatex is installed, but TeX Live lacks ")
    assert "pzdr.tfm" in lines[0] and "texlive-fonts-recommended" in lines[0]
    assert not (tmp_path / "out.pdf").exists()
