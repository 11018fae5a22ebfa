"""Evidence cards: what an HTML reader sees of a source without leaving the sentence.

Every citation link of an HTML output (``html``, ``html5``, ``revealjs``, ``chunkedhtml``, the
wiki's html pages: the formats of kind ``html`` in :mod:`citeledger.formats`) carries a
``title`` (the source's title and host: what a reader sees with scripts off) and
``aria-describedby`` naming its card. The cards follow the Sources list, one per cited source,
inside a hidden ``<div class="citeledger-cards">``: the title, the host, the access date, the
evidence quotes the ledger holds and the archived copy's address. A few lines of script
(``templates/citeledger-cards.js``) show a card on hover and keyboard focus and hide it when
the pointer leaves, on blur and on Escape; a screen reader announces the card as the link's
description (``role="tooltip"``); nothing in a card takes focus. The stylesheet
(``templates/citeledger.css``, shared with the wiki's page frame) hides the cards in print and
highlights the entry a citation jumps to and the paragraph a back-link returns to.

The cards are raw HTML: every text from the ledger in them goes through
:func:`citeledger.escape.html_text`, and every URL through ``published_url`` first.
"""

from __future__ import annotations

import functools
from pathlib import Path
from urllib.parse import urlsplit

from .. import formats
from ..escape import html_text
from ..ledger import Source
from ..ledger.display import display_text
from .base import source_anchor

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
STYLESHEET = TEMPLATES / "citeledger.css"
SCRIPT = TEMPLATES / "citeledger-cards.js"
QUOTES_SHOWN = 3
QUOTE_CHARS = 400
DOT = " \u00b7 "


def has_cards(fmt: str) -> bool:
    """Whether ``fmt`` writes HTML a browser shows, where the cards work."""
    row = formats.find(formats.family(fmt))
    return row is not None and row.kind == "html" and row.writes


def host(url: str) -> str:
    try:
        name = urlsplit(url).hostname or ""
    except ValueError:
        name = ""
    return name.removeprefix("www.")


def description(source: Source) -> str:
    """The link's ``title``: ``Title — host`` (the host alone for a source without a title)."""
    title, where = source.display_title, host(source.url)
    return " \u2014 ".join(p for p in (title, where) if p) or source.url


def card_id(source_id: int, prefix: str = "") -> str:
    return f"{prefix}card-{source_id}"


SOURCE_WORD = "source"  # what a mark's accessible name calls what it cites
NAME_CHARS = 160


def accessible_name(source: Source, number: int) -> str:
    """A mark's accessible name: its visible label first (WCAG 2.5.3, label in name), then what
    it is and which: ``[3] source: Title — host``. Written by the filter, so it holds with
    scripts off and in every HTML-family output."""
    return f"[{number}] {SOURCE_WORD}: {display_text(description(source), NAME_CHARS)}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def card_html(source: Source, prefix: str = "") -> str:
    """One card, escaped (see the module docstring). Its links (the source, through its title;
    its entry in the Sources list; the archived copy) take no keyboard focus: the keyboard
    reaches the same places through the mark itself and the list; a touch reader taps them."""
    lines = [f'<div class="citeledger-card" id="{card_id(source.id, prefix)}" role="tooltip">']
    title = html_text(source.display_lead or source.url)
    href = html_text(source.href)
    lines.append(f'<p class="citeledger-card-title"><a href="{href}" tabindex="-1">{title}</a></p>')
    meta = [f'<span class="citeledger-card-host">{html_text(host(source.url))}</span>']
    if source.display_accessed:
        meta.append(f"accessed {html_text(source.display_accessed)}")
    lines.append(f'<p class="citeledger-card-meta">{DOT.join(meta)}</p>')
    for quote in source.quotes[:QUOTES_SHOWN]:
        text = display_text(quote.text, QUOTE_CHARS)
        lines.append(f'<blockquote class="citeledger-card-quote">{html_text(text)}</blockquote>')
        if source.page_note(quote):
            note = html_text("text: " + source.page_note(quote))
            lines.append(f'<p class="citeledger-card-meta">{note}</p>')
    more = len(source.quotes) - QUOTES_SHOWN
    if more > 0:
        lines.append(
            f'<p class="citeledger-card-meta">{plural(more, "other quote")} in the ledger</p>'
        )
    entry = f"#{prefix}{source_anchor(source.id)}"
    links = [f'<a href="{entry}" class="citeledger-card-entry" tabindex="-1">Sources entry</a>']
    if source.archived:
        archived = html_text(source.archived_href)
        links.append(f'<a href="{archived}" tabindex="-1">Archived copy</a>')
    lines.append(f'<p class="citeledger-card-links">{" ".join(links)}</p>')
    lines.append("</div>")
    return "\n".join(lines)


def cards_html(sources: list[Source], prefix: str = "") -> str:
    """The hidden block of cards for ``sources``."""
    cards = "\n".join(card_html(s, prefix) for s in sources)
    return f'<div class="citeledger-cards" hidden>\n{cards}\n</div>'


@functools.cache
def stylesheet() -> str:
    return STYLESHEET.read_text("utf-8")


@functools.cache
def assets_html() -> str:
    """The stylesheet and the script, inline: the page needs no other file and no network."""
    script = SCRIPT.read_text("utf-8")
    return f"<style>\n{stylesheet()}</style>\n<script>\n{script}</script>"
