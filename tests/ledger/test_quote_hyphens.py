"""``citeledger quote`` against PDF and text evidence whose words are hyphenated across line
breaks, and the refusal that shows the page's real wording."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import typst

from citeledger.ledger.attach import differences
from citeledger.ledger.quotes import quote_in_text
from tests.helpers import Result
from tests.helpers.tools import in_ci

Cli = Callable[..., Result]

# Justified in a narrow column, so the PDF engine hyphenates long words at line ends.
WORDS = (
    "The unencapsulated payload travelled through the well-known intermediary network, where "
    "characteristically incomprehensible configurations of interoperability standards "
    "accumulated unpredictably across institutional boundaries."
)
TYPST = (
    '#set page(width: 6cm, height: auto, margin: 0.5cm)\n#set text(lang: "en", hyphenate: true)\n'
    f"#set par(justify: true)\n{WORDS}\n"
)
LATEX = (
    "\\documentclass{article}\\usepackage[paperwidth=7cm,paperheight=12cm,margin=0.5cm]"
    "{geometry}\\begin{document}" + WORDS + "\\end{document}\n"
)


def _typst_pdf(folder: Path) -> Path:
    (folder / "page.typ").write_text(TYPST, encoding="utf-8")
    pdf = folder / "page.pdf"
    pdf.write_bytes(typst.compile(str(folder / "page.typ")))
    return pdf


def _latex_pdf(folder: Path) -> Path:
    engine = shutil.which("pdflatex")
    if engine is None:
        if in_ci():
            pytest.fail("pdflatex is missing in CI")
        pytest.skip("pdflatex is not installed")
    (folder / "page.tex").write_text(LATEX, encoding="utf-8")
    subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", "page.tex"],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return folder / "page.pdf"


@pytest.fixture(params=["typst", "latex"])
def pdf(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return _typst_pdf(tmp_path) if request.param == "typst" else _latex_pdf(tmp_path)


def _split_words(pdf: Path) -> list[str]:
    """The words the PDF's text layer breaks across a line with a hyphen."""
    from citeledger.ledger.evidence_pages import read_evidence

    text = read_evidence(str(pdf)).text
    return [line.split()[-1][:-1] for line in text.splitlines() if line.endswith("-")]


def test_a_word_hyphenated_across_lines_in_a_pdf_matches_as_one_word(cli: Cli, pdf: Path) -> None:
    split = _split_words(pdf)
    assert any(w.isalpha() for w in split), "the column is narrow enough to hyphenate"
    cli("add", "https://a.example/paper")
    result = cli("quote", "1", "--text", WORDS, "--from", str(pdf))
    assert result.code == 0, result.err
    changed = WORDS.replace("incomprehensible", "incomprehensibly")
    assert cli("quote", "1", "--text", changed, "--from", str(pdf)).code == 1


@pytest.mark.parametrize(
    "quote",
    [
        "characteristically incomprehensible configurations",
        "characteristically incom- prehensible configurations",
        "characteristically incom-prehensible configurations",
    ],
)
def test_a_hyphenated_line_break_in_text_evidence_matches_each_spelling(quote: str) -> None:
    page = "where characteristically incom-\nprehensible configurations of"
    assert quote_in_text(quote, page)


def test_a_real_hyphen_at_a_line_end_still_matches_the_hyphenated_word() -> None:
    page = "through the well-\nknown intermediary network"
    assert quote_in_text("through the well-known intermediary", page)
    assert quote_in_text("through the wellknown intermediary", page)
    assert not quote_in_text("through the well known intermediary", "the well-known way")


def test_joining_never_accepts_a_changed_letter() -> None:
    page = "where characteristically incom-\nprehensible configurations of"
    assert not quote_in_text("characteristically incomprehensibly configurations", page)
    assert not quote_in_text("characteristically incomprehensible configuration of", page)
    assert not quote_in_text("characteristically incom prehensible configurations", "incom-ok")


def test_a_refused_quote_shows_the_nearest_passage_and_what_differs(
    cli: Cli, tmp_path: Path
) -> None:
    (tmp_path / "page.md").write_text(
        "Intro.\n\nSea ice floats because it is about 9% less dense than liquid water.\n",
        encoding="utf-8",
    )
    cli("add", "https://a.example/ice")
    result = cli(
        "quote", "1", "--text", "it is about 8% less dense than water", "--from", "page.md"
    )
    assert result.code == 1
    [line] = result.err.strip().splitlines()
    assert "nearest passage" in line and "about 9% less dense than liquid water" in line
    assert "\u201c8%\u201d where the page has \u201c9%\u201d" in line
    assert "the page has \u201cliquid\u201d here" in line


def test_differences_name_words_missing_from_the_page() -> None:
    assert differences("ice is very dense", "ice is dense") == "\u201cvery\u201d is not in the page"
