"""A URL in the Sources entries breaks only where a reader expects, read from what each writer
lays out: the PDFs of typst and xelatex, the Word file as LibreOffice prints it, and the HTML
page in chromium at a phone's width. Every line break inside a URL falls after one of
``/ . - ? & = # _``; none falls inside a word, where it would read as a hyphenated word
("polycrystalli" / "ne-ice")."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from citeledger.filters.base import URL_BREAKS_AFTER, url_pieces
from tests.helpers import need, run_citeledger
from tests.helpers.pdf_marks import body_size, libreoffice_pdf, lines, pieces

pytestmark = pytest.mark.slow

# Long, real-looking addresses whose pieces (between break characters) each fit a phone's line.
URLS = [
    "https://www.example-research-institute.org/publications/annual-reports/2025/"
    "measurement-of-thermal-expansion-coefficients-in-polycrystalline-ice?utm=x&session=abcdef",
    "https://docs.python.org/3/library/unicodedata.html#unicodedata.normalize",
    "https://en.wikipedia.org/wiki/Thermal_expansion_of_water_and_ice_under_high_pressure",
    "https://arxiv.org/abs/2401.12345/supplementary-materials/appendix-b/"
    "tables-and-figures-of-the-thermodynamic-analysis",
    "https://github.com/citeledger/citeledger/blob/main/citeledger/renderers/latex.py"
    "?plain=1&line=120&highlight=fonts-and-fallbacks",
    "https://www.nationalgeographic.com/environment/article/sea-ice-extent-hits-record-low",
    # A query with no slash or hyphen to break at: only its = & ? and dots.
    "https://search.example.org/results?query=thermal&expansion=coefficients&material=ice"
    "&pressure=high&temperature=low&sort=relevance&page=2",
]
LEDGER = {
    "version": 1,
    "sources": [
        {
            "id": k,
            "url": url,
            "title": f"Report number {k} on the thermal expansion of ice",
            "accessed": "2025-02-10",
        }
        for k, url in enumerate(URLS, 1)
    ],
}
DRAFT = (
    "---\ntitle: Ice\nlang: en\n---\n\n# Ice\n\n"
    + " ".join(f"Ice fact number {k} holds.[{k}]" for k in range(1, len(URLS) + 1))
    + "\n\n## Sources\n\n"
    + "\n".join(f"[{k}] {url}" for k, url in enumerate(URLS, 1))
    + "\n"
)


def build(folder: Path, out: str, *flags: str) -> Path:
    (folder / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    (folder / "d.md").write_text(DRAFT, encoding="utf-8")
    done = run_citeledger("convert", "d.md", "-o", out, *flags, cwd=folder, timeout=600)
    assert done.returncode == 0, done.stderr
    return folder / out


def breaks_in(lines: list[str], url: str) -> list[int] | None:
    """Where ``url`` is cut between lines (offsets into it), or None when it is not found."""
    text = "\n".join(line.strip() for line in lines)
    text = text.replace("\u200b", "").replace("\u2060", "")
    # A PDF's text may hold spaces between the pieces a writer set apart (zero-width spaces,
    # boxes): not breaks; a newline is.
    pattern = "[ \t]*\n?[ \t]*".join(re.escape(ch) for ch in url)
    found = re.search(pattern, text)
    if found is None:
        return None
    cuts, k = [], 0
    for ch in found.group():
        if ch == "\n":
            cuts.append(k)
        elif not ch.isspace():
            k += 1
    return cuts


def judge(lines: list[str]) -> tuple[list[str], int]:
    """The cuts that fall inside a word ("...polycrystalli|ne..."), and how many cuts there
    are in all (a test where no URL breaks proves nothing)."""
    bad: list[str] = []
    total = 0
    for url in URLS:
        cuts = breaks_in(lines, url)
        assert cuts is not None, f"{url} not found in:\n" + "\n".join(lines)
        total += len(cuts)
        bad += [f"{url[:k]} | {url[k:]}" for k in cuts if url[k - 1] not in URL_BREAKS_AFTER]
    return bad, total


def pdf_lines(pdf: Path) -> list[str]:
    """The PDF's lines as they stand on its pages: text pieces grouped by baseline (pypdf's
    own line breaks follow the drawing order, which TeX's URL pieces do not keep)."""
    pages = pieces(pdf)
    body = body_size(pages)
    rows = ["".join(p.text for p in row) for page in pages for row in lines(page, body)]
    # A URL may run over a page break: the page number and running head between are not text.
    return [row for row in rows if not re.fullmatch(r"\d+|Ice", row.strip())]


def test_url_pieces_end_after_break_characters_and_make_the_url() -> None:
    url = URLS[0]
    pieces = url_pieces(url)
    assert "".join(pieces) == url
    assert pieces[:3] == ["https://", "www.", "example-"]
    assert all(p[-1] in URL_BREAKS_AFTER for p in pieces[:-1])


@pytest.mark.parametrize("paper", ["a4", "a6"])
@pytest.mark.parametrize("engine", ["typst", "xelatex"])
def test_pdf_urls_break_only_after_separators(engine: str, paper: str, tmp_path: Path) -> None:
    if engine != "typst":
        need(shutil.which(engine) is not None, engine)
    pdf = build(tmp_path, "d.pdf", "--pdf-engine", engine, "-M", f"papersize={paper}")
    bad, total = judge(pdf_lines(pdf))
    assert total >= len(URLS) // 2, "the URLs fit their lines: nothing was tested"
    assert bad == []


@pytest.mark.libreoffice
def test_word_urls_break_only_after_separators(tmp_path: Path) -> None:
    docx = build(tmp_path, "d.docx", "-M", "citeledger.sources-title=Sources")
    bad, total = judge(pdf_lines(libreoffice_pdf(docx, tmp_path)))
    assert total >= len(URLS) // 2, "the URLs fit their lines: nothing was tested"
    assert bad == []
    # The delivered file still verifies: its reader drops the zero-width spaces.
    done = run_citeledger("verify", "d.docx", cwd=tmp_path)
    assert done.returncode == 0 and "not in the ledger" not in done.stderr, done.stderr


# Each character of every URL link in the Sources list, with the top of the line it sits on.
_CHAR_TOPS = """() => [...document.querySelectorAll('.citeledger-source a.url')].map(a => {
  const out = [];
  const walker = document.createTreeWalker(a, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      out.push([node.data[i], Math.round(range.getBoundingClientRect().top)]);
    }
  }
  return out;
})"""


def html_lines(tops: list[list[Any]]) -> list[str]:
    out: list[str] = []
    last = None
    for ch, top in tops:
        if top != last:
            out.append("")
            last = top
        out[-1] += ch
    return out


@pytest.mark.browser
@pytest.mark.parametrize("width", [320, 480])
def test_html_urls_break_only_after_separators(width: int, tmp_path: Path) -> None:
    from tests.filters.test_evidence_cards_browser import CHROMIUM, _browser_present

    need(_browser_present(), "chromium and playwright (Debian: chromium; pip: playwright)")
    from playwright.sync_api import sync_playwright

    page_file = build(tmp_path, "d.html")
    with sync_playwright() as p:
        exe = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": width, "height": 800})
            page.goto(page_file.as_uri())
            links = page.evaluate(_CHAR_TOPS)
        finally:
            browser.close()
    bad, total = judge([line for tops in links for line in html_lines(tops)])
    assert total >= len(URLS) // 2, "the URLs fit their lines: nothing was tested"
    assert bad == []
