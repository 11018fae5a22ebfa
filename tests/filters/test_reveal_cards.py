"""Evidence cards in a reveal.js deck running the real reveal.js (from the npm registry, loaded
from a local folder through pandoc's revealjs-url): hover, Escape, and a citation that takes the
reader to the Sources slide and a back-link that brings them back. Without npm a machine skips;
CI (CI=true) fails."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeledger.pandoc import pandoc_path
from tests.filters.test_evidence_cards_browser import (
    CHROMIUM,
    DRAFT,
    LEDGER,
    _browser_present,
    visible_cards,
)
from tests.helpers import need

pytestmark = pytest.mark.browser


@pytest.fixture(scope="session")
def reveal_js(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """reveal.js 5 unpacked: its dist/ and plugin/, as pandoc's template asks for them."""
    need(shutil.which("npm") is not None, "npm (Debian: npm), which fetches reveal.js")
    root = tmp_path_factory.mktemp("reveal.js")
    done = subprocess.run(
        ["npm", "pack", "reveal.js@5", "--silent"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    need(done.returncode == 0, f"reveal.js from the npm registry ({done.stderr.strip()})")
    with tarfile.open(root / done.stdout.split()[-1]) as tar:
        tar.extractall(root, filter="data")
    return root / "package"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    need(_browser_present(), "chromium and playwright (Debian: chromium; pip: playwright)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module", params=["1", "2"], ids=["sources-under-text", "sources-slide"])
def deck(request: pytest.FixtureRequest, reveal_js: Path, tmp_path_factory) -> Path:
    """The draft as a deck. At pandoc's slide level 1 its Sources heading falls under the
    Findings slide's text; at level 2 Sources is a slide of its own in a vertical stack."""
    root = tmp_path_factory.mktemp("deck")
    (root / "draft.md").write_text(DRAFT, "utf-8")
    ledger = root / "ledger.json"
    ledger.write_text(json.dumps(LEDGER), "utf-8")
    subprocess.run(
        [pandoc_path(), "draft.md", "-s", "-t", "revealjs", "-o", "deck.html"]
        + [f"--slide-level={request.param}", "-V", f"revealjs-url={reveal_js}"]
        + ["--filter", "pandoc-citeledger", "-M", f"citeledger.ledger={ledger}"],
        cwd=root,
        check=True,
        capture_output=True,
    )
    return root / "deck.html"


VIEWPORT = {"width": 1000, "height": 700}


def open_deck(browser: Any, deck: Path) -> Any:
    context = browser.new_context(viewport=VIEWPORT, color_scheme="light")
    context.route("http://*/**", lambda route: route.abort())
    context.route("https://*/**", lambda route: route.abort())
    page = context.new_page()
    page.goto(deck.as_uri())
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    page.evaluate("Reveal.configure({transition: 'none', backgroundTransition: 'none'})")
    # The Findings slide, where the citations are.
    page.evaluate(
        "(at => Reveal.slide(at.h, at.v))"
        "(Reveal.getIndices(document.getElementById('cite-1-1').closest('.slides section')))"
    )
    page.wait_for_timeout(300)
    return page


def in_viewport(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    return (
        box is not None
        and box["height"] > 0
        and box["y"] >= 0
        and box["y"] + box["height"] <= VIEWPORT["height"]
        and box["x"] >= 0
        and box["x"] + box["width"] <= VIEWPORT["width"]
    )


def test_reveal_hover_shows_the_card_and_escape_hides_it(browser, deck) -> None:
    page = open_deck(browser, deck)
    page.locator("#cite-1-1").hover()
    assert visible_cards(page) == ["card-1"]
    assert "sea ice is less dense than sea water" in page.locator("#card-1").inner_text()
    page.keyboard.press("Escape")
    assert visible_cards(page) == []
    # Escape closed the card and nothing else: reveal.js did not open its overview.
    assert not page.evaluate("Reveal.isOverview()")
    page.context.close()


def test_reveal_keyboard_focus_shows_the_card(browser, deck) -> None:
    page = open_deck(browser, deck)
    page.focus("#cite-2-1")
    assert visible_cards(page) == ["card-2"]
    page.keyboard.press("Escape")
    assert visible_cards(page) == []
    page.context.close()


@pytest.mark.parametrize("how", ["click", "enter"])
def test_reveal_citation_shows_the_sources_slide_and_back_link_returns(
    browser, deck, how: str
) -> None:
    page = open_deck(browser, deck)
    at_text = page.evaluate("Reveal.getIndices()")
    if how == "click":
        page.locator("#cite-1-1").click()
    else:
        page.focus("#cite-1-1")
        page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    at_sources = page.evaluate("Reveal.getIndices()")
    assert at_sources != at_text
    assert page.evaluate("Reveal.getCurrentSlide().contains(document.getElementById('src-1'))")
    assert in_viewport(page, "#src-1")
    assert page.eval_on_selector_all(".citeledger-here", "es => es.map(e => e.id)") == ["src-1"]
    page.locator("#src-1 a.citeledger-back", has_text="a").click()
    page.wait_for_timeout(300)
    assert page.evaluate("Reveal.getIndices()") == at_text
    assert in_viewport(page, "#cite-1-1")
    assert page.evaluate(
        "document.querySelector('.citeledger-here').contains(document.getElementById('cite-1-1'))"
    )
    page.context.close()
