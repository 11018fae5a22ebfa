"""The evidence cards' HTML, the lettered back-links and marker-style, as the filter writes
them (the browser's side is tests/test_evidence_cards_browser.py)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from citeledger.filters.cards import card_html, has_cards
from citeledger.filters.html import letters
from citeledger.ledger import Quote, Source
from citeledger.pandoc import pandoc_path
from tests.helpers import require_writer

DRAFT = "A claim.[1] Another.[1] A third.[2]\n"
HOSTILE = '<img src=x onerror="alert(1)"> & "quoted"'


def write(tmp: Path) -> Path:
    sources = [
        {"id": 1, "url": "https://www.example.org/a", "title": "Paper A", "accessed": "2024-01-02"},
        {"id": 2, "url": "https://example.net/b", "title": HOSTILE, "accessed": "2024-01-03"},
    ]
    (tmp / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}), "utf-8")
    (tmp / "draft.md").write_text(DRAFT, "utf-8")
    return tmp / "ledger.json"


def filtered(tmp: Path, fmt: str, *extra: str) -> str:
    ledger = write(tmp)
    return subprocess.run(
        [pandoc_path(), "draft.md", "-t", fmt, "--filter", "pandoc-citeledger"]
        + ["-M", f"citeledger.ledger={ledger}", *extra],
        cwd=tmp,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_back_link_letters_run_as_wikipedias_do() -> None:
    assert [letters(k) for k in (1, 2, 26, 27, 28, 52, 53, 702, 703)] == [
        "a", "b", "z", "aa", "ab", "az", "ba", "zz", "aaa"
    ]  # fmt: skip


def test_html_citations_carry_a_title_a_card_and_lettered_back_links(tmp_path: Path) -> None:
    out = filtered(tmp_path, "html5")
    assert 'aria-describedby="card-1"' in out
    assert 'title="Paper A — example.org"' in out
    assert '<div class="citeledger-card" id="card-1" role="tooltip">' in out
    assert re.search(r'aria-label="back to citation a">a</a>\s+<a\s+href="#cite-1-2"', out)
    assert "<script>" in out and "<style>" in out  # a fragment works on its own


def test_a_hostile_title_is_text_in_the_card_and_the_title(tmp_path: Path) -> None:
    out = filtered(tmp_path, "html5")
    card = out[out.index('id="card-2"') :]
    card = card[: card.index("</div>")]
    assert "<img" not in card and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in card
    assert "<img" not in out.replace("&lt;img", "")


def test_card_escapes_every_ledger_text() -> None:
    source = Source(
        id=7,
        url="https://example.org/x",
        title="<b>t</b>",
        accessed="<i>2024</i>",
        quotes=[Quote(text="</blockquote><script>x()</script>", added="")],
        archived='https://web.archive.org/web/2024/https://example.org/x?a=1&b="2"',
    )
    html = card_html(source)
    assert "<b>" not in html and "<i>" not in html and "<script>" not in html
    assert "&lt;/blockquote&gt;&lt;script&gt;" in html
    assert 'href="https://web.archive.org/web/2024/https://example.org/x?a=1&amp;b=%222%22"' in html


@pytest.mark.parametrize("fmt", ["markdown", "gfm", "commonmark", "latex", "docx"])
def test_formats_a_browser_does_not_show_get_no_cards(fmt: str) -> None:
    assert not has_cards(fmt)


@pytest.mark.parametrize("fmt", ["html", "html5", "html4", "revealjs", "chunkedhtml"])
def test_html_formats_get_cards(fmt: str) -> None:
    assert has_cards(fmt)


def test_markdown_output_keeps_its_arrows_and_has_no_cards(tmp_path: Path) -> None:
    out = filtered(tmp_path, "markdown")
    assert "citeledger-card" not in out and "aria-describedby" not in out
    assert "\u21a9" in out


def test_superscript_marker_style_raises_the_marks(tmp_path: Path) -> None:
    out = filtered(tmp_path, "html5", "-M", "citeledger.marker-style=superscript")
    assert re.search(r'<span class="citeledger-mark"><sup><a\s+href="#src-1"', out)
    assert "<sup>" not in filtered(tmp_path, "html5")


def test_pandocs_page_style_gives_way_unless_the_author_asks_for_it(tmp_path: Path) -> None:
    assert "max-width: 36em" not in filtered(tmp_path, "html5", "-s")
    assert "max-width: 36em" in filtered(tmp_path, "html5", "-s", "-M", "document-css=true")


def test_each_chunk_describes_its_citations_by_its_own_cards(tmp_path: Path) -> None:
    require_writer("chunkedhtml")
    ledger = write(tmp_path)
    (tmp_path / "draft.md").write_text("# One\n\nA.[1]\n\n# Two\n\nB.[1][2]\n", "utf-8")
    subprocess.run(
        [pandoc_path(), "draft.md", "-t", "chunkedhtml", "-o", "site"]
        + ["--filter", "pandoc-citeledger", "-M", f"citeledger.ledger={ledger}"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    pages = sorted((tmp_path / "site").glob("*-*.html"))
    assert len(pages) == 2
    for page in pages:
        text = page.read_text("utf-8")
        for card in re.findall(r'aria-describedby="([^"]+)"', text):
            assert f'id="{card}"' in text, (page.name, card)
