"""Evidence cards in a real browser (Debian's chromium, driven by playwright): hover, keyboard
focus, Escape, click-through and highlight, in convert's html, the filter's html, the wiki's
html and reveal.js. Screenshots are compared by their size and a few sampled regions, never
by bytes. A machine without the browser skips; CI (CI=true) fails."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeledger.pandoc import pandoc_path
from tests.helpers import need, run_citeledger

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
HOSTILE = '<img src=x onerror="window.pwned=1">Hostile title'
DRAFT = """---
title: Cards
---

# Findings

Sea ice floats because it is less dense than sea water.[1] Arctic summer ice extent has declined
over the satellite record, and the trend is steady across decades of measurement.[2]

Thin ice melts faster in summer, which the melt-rate record shows for every recent year.[1][3]

Filler paragraph one. Filler paragraph two. Filler paragraph three. Filler paragraph four.

## Sources

[1] https://example.org/density — Density
[2] https://example.org/extent — Extent
[3] https://example.org/hostile — Hostile
"""
LEDGER = {
    "version": 1,
    "sources": [
        {
            "id": 1,
            "url": "https://example.org/density",
            "title": "Density of sea ice",
            "accessed": "2024-05-01",
            "archived": "https://web.archive.org/web/20240501/https://example.org/density",
            "quotes": [{"text": "sea ice is less dense than sea water", "added": "2024-05-01"}],
        },
        {
            "id": 2,
            "url": "https://example.org/extent",
            "title": "Arctic sea ice extent record",
            "accessed": "2024-05-03",
            "quotes": [],
        },
        {
            "id": 3,
            "url": "https://example.org/hostile",
            "title": HOSTILE,
            "accessed": "2024-05-04",
            "quotes": [{"text": "<script>window.pwned=2</script> melts", "added": "2024-05-04"}],
        },
    ],
    "last_id": 3,
}


def _browser_present() -> bool:
    try:
        import playwright  # noqa: F401
    except ImportError:
        return False
    return Path(CHROMIUM).exists() or shutil.which("chromium") is not None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    need(_browser_present(), "chromium and playwright (Debian: chromium; pip: playwright)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        exe = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The draft as convert's html, the filter's html, a wiki html page and reveal.js."""
    root = tmp_path_factory.mktemp("cards")
    (root / "draft.md").write_text(DRAFT, "utf-8")
    ledger = root / "ledger.json"
    ledger.write_text(json.dumps(LEDGER), "utf-8")
    done = run_citeledger("convert", "draft.md", "-o", "convert.html", cwd=root, ledger=ledger)
    assert done.returncode == 0, done.stderr
    done = run_citeledger("wiki", "draft.md", "-t", "html", "-o", "wiki", cwd=root, ledger=ledger)
    assert done.returncode == 0, done.stderr
    for fmt, name in (("html5", "filter.html"), ("revealjs", "reveal.html")):
        subprocess.run(
            [pandoc_path(), "draft.md", "-s", "-t", fmt, "-o", name]
            + ["--filter", "pandoc-citeledger", "-M", f"citeledger.ledger={ledger}"],
            cwd=root,
            check=True,
            capture_output=True,
        )
    page = next(p for p in (root / "wiki").glob("*.html") if "cite-1-1" in p.read_text("utf-8"))
    return {
        "convert": root / "convert.html",
        "filter": root / "filter.html",
        "wiki": page,
        "reveal": root / "reveal.html",
    }


def open_page(browser: Any, path: Path) -> Any:
    context = browser.new_context(viewport={"width": 1000, "height": 700}, color_scheme="light")
    # No network: a test page that asks for anything (reveal.js's CDN) is told no.
    context.route("http://*/**", lambda route: route.abort())
    context.route("https://*/**", lambda route: route.abort())
    page = context.new_page()
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page


def visible_cards(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        ".citeledger-card", "cs => cs.filter(c => !c.hidden && c.offsetWidth).map(c => c.id)"
    )


KINDS = ["convert", "filter", "wiki", "reveal"]


@pytest.mark.parametrize("kind", KINDS)
def test_hover_shows_the_card_and_leaving_hides_it(browser, outputs, kind: str) -> None:
    page = open_page(browser, outputs[kind])
    link = page.locator("a.citeledger-cite").first
    link.hover()
    assert visible_cards(page) == ["card-1"]
    card = page.locator("#card-1")
    assert "Density of sea ice" in card.inner_text()
    assert "example.org" in card.inner_text()
    assert "2024-05-01" in card.inner_text()
    assert "sea ice is less dense than sea water" in card.inner_text()
    assert card.get_attribute("role") == "tooltip"
    archived = card.get_by_role("link", name="Archived copy")
    assert archived.get_attribute("href").startswith("https://web.archive.org/")
    # The card links its source (its title) and its Sources entry.
    assert card.get_by_role("link", name="Density of sea ice").get_attribute("href") == (
        "https://example.org/density"
    )
    assert card.get_by_role("link", name="Sources entry").get_attribute("href").endswith("src-1")
    page.mouse.move(5, 5)
    page.wait_for_timeout(500)
    assert visible_cards(page) == []
    page.context.close()


@pytest.mark.parametrize("kind", KINDS)
def test_keyboard_focus_shows_the_card_escape_closes_it_and_tab_moves_on(
    browser, outputs, kind: str
) -> None:
    page = open_page(browser, outputs[kind])
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('citeledger-cite')"):
            break
    else:
        pytest.fail("Tab never reached a citation")
    focused = page.evaluate("document.activeElement.getAttribute('aria-describedby')")
    assert visible_cards(page) == [focused]
    page.keyboard.press("Escape")
    assert visible_cards(page) == []
    page.keyboard.press("Tab")
    # Focus moves on, never into a card: the card holds nothing focusable.
    assert page.evaluate("!document.activeElement.closest('.citeledger-card')")
    assert page.evaluate("document.activeElement !== document.body")
    page.context.close()


def test_an_open_card_follows_its_citation_when_the_page_scrolls(browser, outputs) -> None:
    context = browser.new_context(viewport={"width": 500, "height": 260}, color_scheme="light")
    page = context.new_page()
    page.goto(outputs["convert"].as_uri())
    page.focus("#cite-2-1")
    page.mouse.wheel(0, 60)
    page.wait_for_timeout(300)
    assert page.evaluate("window.scrollY") > 0
    assert visible_cards(page) == ["card-2"]
    link = page.locator("#cite-2-1").bounding_box()
    card = page.locator("#card-2").bounding_box()
    below = abs(card["y"] - (link["y"] + link["height"] + 6)) < 3
    above = abs(card["y"] + card["height"] + 6 - link["y"]) < 3
    assert below or above, (link, card)
    context.close()


def _background(page: Any, selector: str) -> str:
    return page.eval_on_selector(selector, "e => getComputedStyle(e).backgroundColor")


@pytest.mark.parametrize("kind", ["convert", "filter", "wiki"])
def test_click_through_highlights_the_entry_and_the_back_link_the_paragraph(
    browser, outputs, kind: str
) -> None:
    page = open_page(browser, outputs[kind])
    page.locator("a.citeledger-cite").first.click()
    assert page.evaluate("location.hash") == "#src-1"
    assert _background(page, "#src-1") not in ("rgba(0, 0, 0, 0)", "transparent")
    back = page.locator("#src-1 a.citeledger-back", has_text="a").first
    back.click()
    assert page.evaluate("location.hash") == "#cite-1-1"
    here = page.eval_on_selector_all(".citeledger-here", "es => es.map(e => e.tagName)")
    assert here == ["P"]
    assert page.evaluate(
        "document.querySelector('.citeledger-here').contains(document.getElementById('cite-1-1'))"
    )
    page.context.close()


def test_reveal_click_through_reaches_the_entry(browser, outputs) -> None:
    page = open_page(browser, outputs["reveal"])
    page.locator("a.citeledger-cite").first.click()
    assert page.evaluate("location.hash") in ("#/src-1", "#src-1")
    assert page.eval_on_selector_all(".citeledger-here", "es => es.map(e => e.id)") == ["src-1"]
    page.context.close()


@pytest.mark.parametrize("kind", KINDS)
def test_ledger_html_in_a_card_stays_text(browser, outputs, kind: str) -> None:
    page = open_page(browser, outputs[kind])
    page.locator("a.citeledger-cite[aria-describedby='card-3']").first.hover()
    card = page.locator("#card-3")
    assert "<img" in card.inner_text() and "<script>" in card.inner_text()
    assert card.locator("img, script").count() == 0
    assert page.evaluate("window.pwned") is None
    page.context.close()


def test_links_describe_their_source_with_scripts_off(browser, outputs) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(outputs["filter"].as_uri())
    link = page.locator("a.citeledger-cite").first
    assert link.get_attribute("title") == "Density of sea ice \u2014 example.org"
    assert visible_cards(page) == []
    context.close()


def _pixel(image: Any, x: float, y: float) -> tuple[int, ...]:
    return tuple(image.getpixel((int(x), int(y)))[:3])


def test_screenshots_of_an_open_card_and_a_highlighted_entry(browser, outputs, tmp_path) -> None:
    from io import BytesIO

    from PIL import Image

    page = open_page(browser, outputs["convert"])
    before = Image.open(BytesIO(page.screenshot()))
    page.locator("a.citeledger-cite").first.hover()
    box = page.locator("#card-1").bounding_box()
    after = Image.open(BytesIO(page.screenshot(path=str(tmp_path / "card.png"))))
    assert before.size == after.size == (1000, 700)
    assert box["width"] > 150 and box["height"] > 50
    # Inside the card: its white face over the paragraph's text, and a yellow-edged quote.
    inside = [
        (box["x"] + box["width"] * f, box["y"] + box["height"] * g)
        for f, g in ((0.95, 0.1), (0.95, 0.9))
    ]
    for x, y in inside:
        assert _pixel(after, x, y) == (255, 255, 255)
    changed = sum(
        _pixel(before, box["x"] + dx, box["y"] + dy) != _pixel(after, box["x"] + dx, box["y"] + dy)
        for dx in range(5, int(box["width"]), 20)
        for dy in range(5, int(box["height"]), 10)
    )
    assert changed > 5
    assert _pixel(after, 5, 5) == _pixel(before, 5, 5)
    page.mouse.move(5, 5)
    page.locator("a.citeledger-cite").first.click()
    entry = page.locator("#src-1").bounding_box()
    shot = Image.open(BytesIO(page.screenshot(path=str(tmp_path / "entry.png"))))
    r, g, b = _pixel(shot, entry["x"] + entry["width"] - 4, entry["y"] + entry["height"] / 2)
    assert r > 240 and g > 225 and b < 215, (r, g, b)  # the highlight's yellow
    page.context.close()
