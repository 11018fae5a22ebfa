"""The frame of a wiki's html page: its language, a ``<main>`` landmark, and the navigation a
reader of a set of pages expects (back to the index, the previous and next pages, the Sources
page), above and below the page's text. And the page's outline: its title an ``h1``, its
Sources list one level below its own top sections.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from ...escape import html_text
from ...filters.cards import assets_html
from ...tree import Json
from .formats import FORMATS
from .links import page_href
from .pages import Page

FRAME_FILE = Path(__file__).resolve().parents[2] / "templates" / "wiki-page.html"


@functools.cache
def _frame_template() -> str:
    return FRAME_FILE.read_text("utf-8")


def html_frame(
    title: str, body: str, lang: str = "en", text_dir: str = "ltr", nav: str = ""
) -> str:
    """An html page around ``body``: the wiki-page template with the title escaped, the page's
    language and direction, its navigation (``nav``: :func:`navigation`, escaped there) and
    citeledger's stylesheet and card script (``filters/cards.py``) in its head."""
    values = {
        "title": html_text(title),
        "body": body,
        "assets": assets_html(),
        "lang": html_text(lang),
        "dir": ' dir="rtl"' if text_dir == "rtl" else "",
        "nav": nav,
    }
    return re.sub(
        r"\$(title|body|assets|lang|dir|nav)\$", lambda m: values[m.group(1)], _frame_template()
    )


def navigation(page: Page, pages: list[Page], sources_title: str, at: int | None = None) -> str:
    """The links around ``page`` among the build's ``pages`` (the content pages in reading
    order; the index and the sources page link to the index and the Sources page only).
    ``at``: the page's place in ``pages`` when the caller knows it (a build of n pages looked
    each one up in n steps, n squared in all); None: looked up, and not there for the index
    and the sources page."""
    items = []
    if page.slug != "index":
        items.append(_item("index", "Index", "Index"))
    if at is None:
        at = next((k for k, p in enumerate(pages) if p is page), None)
    if at is not None and at > 0:
        items.append(_item(pages[at - 1].slug, f"\u2190 {pages[at - 1].title}", "prev"))
    if at is not None and at + 1 < len(pages):
        items.append(_item(pages[at + 1].slug, f"{pages[at + 1].title} \u2192", "next"))
    if page.slug != "sources":
        items.append(_item("sources", sources_title, "Sources"))
    return "\n".join(items)


def _item(slug: str, text: str, rel: str) -> str:
    href = html_text(page_href(FORMATS["html"], slug))
    rel_attr = f' rel="{rel}"' if rel in ("prev", "next") else ""
    return f'<li><a href="{href}"{rel_attr}>{html_text(text)}</a></li>'


def promote_headings(blocks: list[Json]) -> None:
    """The page's headings raised together so its first is an ``h1`` (a page split at level 2
    opens with an ``h2``): every page's title is its ``h1``."""
    levels = [b["c"][0] for b in blocks if b.get("t") == "Header"]
    if not levels or blocks[0].get("t") != "Header":
        return
    shift = blocks[0]["c"][0] - 1
    if shift <= 0 or min(levels) - shift < 1:
        return
    for b in blocks:
        if b.get("t") == "Header":
            b["c"][0] -= shift


def sources_level(blocks: list[Json], sources_id: str = "sources") -> None:
    """The page's own Sources heading one level below the page's title (its first heading),
    beside the page's sections: never an ``h1`` over a page titled by an ``h2``."""
    if not blocks or blocks[0].get("t") != "Header":
        return
    level = min(blocks[0]["c"][0] + 1, 6)
    for b in blocks[1:]:
        if b.get("t") == "Header" and b["c"][1][0] == sources_id:
            b["c"][0] = level
