"""Hostile titles and URLs (tests/fixtures/injection.json) through every format of the print and
web placements: LaTeX compiles on each engine, typst compiles, HTML and gfm hold no live markup
from a title, and every title still reads as its own text.

The corpus is shared: the docx and pptx tests can load the same file."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pypdf import PdfReader

from citeledger.pandoc import run_pandoc
from tests.helpers import FIXTURES, require_cjk_font, require_tool, run_citeledger

CORPUS = FIXTURES / "injection.json"
DRAFT = (
    "# Hostile sources\n\n"
    "Titles from the web can hold markup of every format.[1][2][3] Quotes and dashes must\n"
    "survive as text.[4] Right-to-left and CJK titles must print.[5][6] Odd URLs must stay\n"
    "links.[7][8][9] Wiki signatures, TeX carets and live HTML must stay text.[11][12][13]\n"
)


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    data = json.loads(CORPUS.read_text(encoding="utf-8"))
    ledger = {"version": 1, "sources": data["sources"]}
    (tmp_path / "ledger.json").write_text(json.dumps(ledger, ensure_ascii=False), "utf-8")
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    return tmp_path


def convert(folder: Path, *args: str) -> None:
    proc = run_citeledger("convert", "draft.md", *args, cwd=folder)
    assert proc.returncode == 0, proc.stderr


def pdf_text(path: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def flat(text: str) -> str:
    # Without typst's word joiners (no glyph, no width): they keep a mark on its word.
    return " ".join(text.replace("\u2060", "").split())


@pytest.mark.slow  # lualatex alone takes 5 to 15 s
@pytest.mark.latex
@pytest.mark.parametrize("engine", ["pdflatex", "xelatex", "lualatex"])
def test_hostile_titles_compile_on_each_latex_engine(hostile: Path, engine: str) -> None:
    require_tool(engine)
    if engine != "pdflatex":
        require_cjk_font()  # the CJK title must print
    convert(hostile, "-o", "out.pdf", "--pdf-engine", engine)
    text = flat(pdf_text(hostile / "out.pdf"))
    assert "format.1,2,3" in text  # endnote marks keyed by ledger id
    assert "Sources" in text
    assert r"\input{x} & % $ # _ { } ~ ^ \ and \def\x{y}." in text
    assert "<script>alert('x')</script>" in text
    assert "https://example.org/latex?a=1&b=2#frag" in text
    if engine != "pdflatex":  # pdflatex prints [...] for scripts it has no font for
        assert "中文标题" in text


def test_hostile_titles_compile_with_typst(hostile: Path) -> None:
    require_cjk_font()  # the CJK title must print
    convert(hostile, "-o", "out.pdf")
    text = flat(pdf_text(hostile / "out.pdf"))
    assert "format.[1][2][3]" in text
    assert r"\input{x} & % $ # _ { } ~ ^ \ and \def\x{y}." in text
    assert "]] [[Link]] ]]> <!-- #set text(red) #link(" in text
    assert "中文标题" in text and "https://example.org/wiki" in text.replace(" ", "")


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.hrefs: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.hrefs += [v or "" for k, v in attrs if k == "href"]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_holds_no_live_markup_from_a_title(hostile: Path) -> None:
    from citeledger.filters.cards import assets_html

    convert(hostile, "-o", "out.html")
    page = Elements()
    html = (hostile / "out.html").read_text(encoding="utf-8")
    # citeledger's own stylesheet and card script, exactly once; nothing else may run.
    assert html.count(assets_html()) == 1
    page.feed(html.replace(assets_html(), ""))
    assert "script" not in page.tags and "b" not in page.tags
    assert not any(h.startswith("javascript:") for h in page.hrefs)
    text = flat("".join(page.text))
    assert "<script>alert('x')</script> <b>bold</b>" in text


def test_gfm_escapes_markup_from_a_title(hostile: Path) -> None:
    convert(hostile, "-o", "out.md", "--to", "gfm")
    md = (hostile / "out.md").read_text(encoding="utf-8")
    assert "<script>" not in md and "<b>" not in md
    assert "\\<script\\>" in md
    html = run_pandoc(["-f", "gfm", "-t", "html"], stdin=md).decode()
    page = Elements()
    page.feed(html)
    assert "script" not in page.tags and "b" not in page.tags
