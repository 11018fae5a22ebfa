"""A few letters of another script in a Latin draft get a fallback font of their own under
xelatex and lualatex; the document keeps its main font. Read from the PDF: the font each piece
of text is drawn in (pypdf's text visitor hands the font of every run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.helpers import need, require_cjk_font, run_citeledger

pytestmark = pytest.mark.latex

LEDGER = {
    "version": 1,
    "sources": [{"id": 1, "url": "https://example.com/a", "title": "A", "accessed": "2026-01-01"}],
}
PROSE = (
    "The coefficient of expansion and the angles of the lattice describe how the crystal "
    "grows, and a reader of this report meets them in plain English prose around them.[1] "
)
GREEK = (
    "---\ntitle: Ice\nlang: en\n---\n\n# The angle θ of the lattice\n\n"
    + PROSE * 4
    + "The coefficient α and the angles β, γ and δ describe the lattice.[1]\n"
)
CHINESE = (
    "---\ntitle: Ice\nlang: en\n---\n\n# A weekly\n\n"
    + PROSE * 4
    + "The newsletter is called 科技爱好者周刊 in Chinese.[1]\n"
)


def runs(pdf: Path) -> list[tuple[str, str]]:
    """(font name, text) of every run of text the PDF draws."""
    out: list[tuple[str, str]] = []
    for page in PdfReader(pdf).pages:

        def visit(text: str, cm: object, tm: object, font: object, size: object) -> None:
            if text.strip() and isinstance(font, dict):
                out.append((str(font.get("/BaseFont", "")), text))

        page.extract_text(visitor_text=visit)
    return out


def build(tmp_path: Path, text: str, engine: str) -> Path:
    need(shutil.which(engine) is not None, engine)
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    (tmp_path / "d.md").write_text(text, encoding="utf-8")
    done = run_citeledger(
        "convert", "d.md", "-o", "d.pdf", "--pdf-engine", engine, cwd=tmp_path, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return tmp_path / "d.pdf"


def fonts_of(found: list[tuple[str, str]], chars: str) -> set[str]:
    return {font for font, text in found if any(c in text for c in chars)}


def body_fonts(found: list[tuple[str, str]]) -> set[str]:
    return {font for font, text in found if "plain English prose" in text}


@pytest.mark.parametrize("engine", ["xelatex", "lualatex"])
def test_greek_letters_take_a_fallback_and_the_body_keeps_latin_modern(
    engine: str, tmp_path: Path
) -> None:
    found = runs(build(tmp_path, GREEK, engine))
    assert body_fonts(found) and all("LMRoman" in f for f in body_fonts(found)), found[:8]
    greek = fonts_of(found, "αβγδ")
    assert greek and not any("LMRoman" in f for f in greek), greek
    # The heading is sans: its θ comes from the fallback's sans face, bold as the heading.
    heading = fonts_of(found, "θ")
    assert heading and all("Sans" in f and "Bold" in f for f in heading), heading


@pytest.mark.parametrize("engine", ["xelatex", "lualatex"])
def test_a_few_chinese_words_take_a_cjk_fallback(engine: str, tmp_path: Path) -> None:
    require_cjk_font()
    found = runs(build(tmp_path, CHINESE, engine))
    assert body_fonts(found) and all("LMRoman" in f for f in body_fonts(found)), found[:8]
    cjk = fonts_of(found, "科技爱好者周刊")
    assert cjk and all("CJK" in f for f in cjk), cjk


@pytest.mark.parametrize("engine", ["xelatex", "lualatex"])
def test_a_symbol_latin_modern_lacks_comes_from_a_fallback(engine: str, tmp_path: Path) -> None:
    text = "---\ntitle: Ice\nlang: en\n---\n\n# Ice\n\n" + PROSE * 2 + "For each g ∈ G, t ≥ g.[1]\n"
    found = runs(build(tmp_path, text, engine))
    assert body_fonts(found) and all("LMRoman" in f for f in body_fonts(found)), found[:8]
    symbols = fonts_of(found, "∈≥")
    assert symbols and not any("LMRoman" in f for f in symbols), symbols
