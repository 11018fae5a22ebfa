"""The windowed look at a large page (``quotes.found_in_windows``) never finds a quote the whole
page's matching form does not hold, whatever the page holds at its cuts: links whose text or
target runs over lines, hyphenated line breaks, white space and characters NFKC turns into any
of these; and it finds the quote in a large page without normalising the page."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.ledger import quotes
from citeledger.ledger.quotes import (
    found_in,
    found_in_windows,
    normalize_for_match,
    page_form,
    quote_in_text,
)

# Pieces a page is made of: words the quotes use, and everything the matching form reads
# across lines or folds.
_PIECES = st.sampled_from(
    [
        "alpha", "Alpha", "beta", "gamma", "delta", " ", "  ", "\n", "\n\n", " \n ", "\t",
        "-", "-\n", "- \n", "\u00ad\n", "\u2010\n", "[", "]", "(", ")", "](x)", "](x (y\nz))",
        "![", "*", "_", "`", "\\", "\u00a0", "\u3000", "\ufb01", "\uff3b", "\uff3d", "\uff08",
        "\u2474", "\u201c", "\u2014", "--", "\r\n", "al-\npha", "be\u00adta",
    ]
)  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(
    pieces=st.lists(_PIECES, min_size=1, max_size=60),
    start=st.integers(0, 59),
    length=st.integers(1, 12),
    margin=st.integers(0, 40),
    look_back=st.integers(1, 64),
)
def test_a_window_finds_only_what_the_whole_page_holds(
    pieces: list[str], start: int, length: int, margin: int, look_back: int
) -> None:
    page = "".join(pieces)
    quote = "".join(pieces[start : start + length])
    needle = normalize_for_match(quote)
    if not needle:
        return
    with pytest.MonkeyPatch.context() as mp:
        # Small windows and look-backs, so that cuts fall everywhere in a small page.
        mp.setattr(quotes, "_MARGIN", margin - 2 * len(needle))
        mp.setattr(quotes, "_LOOK_BACK", look_back)
        mp.setattr(quotes, "_LOOK_BACK_MAX", look_back * 16)
        windowed = found_in_windows(needle, page)
    if windowed:
        assert found_in(needle, page_form(page)), (quote, page)


def _big_page(lines: int) -> str:
    line = (
        "Ice shelves [calve](https://example.org/x) icebergs when cracks *reach* the sea; the "
        "\u2014 process is \u201cslow\u201d until it is not, and nobody can say when.\n"
    )
    needles = "".join(f"Needle sentence number {k} is at the very end.\n" for k in range(5))
    return line * lines + needles + line * 10


def test_a_large_page_is_searched_in_windows_not_normalised(monkeypatch) -> None:
    page = _big_page(20_000)
    assert len(page) >= quotes.WINDOWED_FROM
    seen: list[int] = []
    real = quotes.page_form
    monkeypatch.setattr(quotes, "page_form", lambda text: seen.append(len(text)) or real(text))
    assert quote_in_text("needle sentence number 3 is at the very end", page)
    assert seen and max(seen) < 10_000  # windows only
    seen.clear()
    assert not quote_in_text("needle sentence number 9 is at the very end", page)
    assert max(seen) == len(page)  # not in the windows: the whole page decides
    assert quote_in_text("icebergs when cracks reach the sea; the - process", page)
    assert quote_in_text("calve icebergs when", page)


def test_the_characters_nfkc_turns_into_brackets_hyphens_or_spaces_are_all_listed() -> None:
    """With the running Python's Unicode tables: a character this list misses could hide a
    bracket from a cut's check."""
    wanted = set("[]()-\u00ad\u2010\u2011 \t\r\n")
    missing = []
    for cp in range(0x80, sys.maxunicode + 1):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        ch = chr(cp)
        folded = unicodedata.normalize("NFKC", ch)
        if folded != ch and wanted & set(folded) and not quotes._NFKC_SPECIAL.match(ch):
            missing.append(f"U+{cp:04X}")
    assert not missing


@pytest.mark.parametrize(
    ("page", "quote"),
    [
        # a link's text over two lines: cut before its second line, the window holds "](".
        ("one two\nthree [alpha\nbeta gamma](http://e.org) zeta\nlast line\n", "beta gamma](http://e.org)"),
        # a link's target with parentheses over two lines
        ("one two\nthree [alpha](http://e.org/(a\nbeta gamma)) zeta\nlast\n", "beta gamma)) zeta"),
        # brackets NFKC makes: a link in the matching form
        ("one two\nthree \uff3balpha\nbeta gamma\uff3d(http://e.org) zeta\nlast\n", "beta gamma](http://e.org)"),
        ("one two\nthree [alpha\nbeta gamma\u2474 zeta](x)\nlast\n", "beta gamma(1) zeta](x)"),
    ],
)  # fmt: skip
def test_a_window_is_never_cut_inside_a_link(monkeypatch, page: str, quote: str) -> None:
    needle = normalize_for_match(quote)
    assert not found_in(needle, page_form(page))
    for margin in range(0, 40):
        monkeypatch.setattr(quotes, "_MARGIN", margin - 2 * len(needle))
        assert not found_in_windows(needle, page)


def test_a_page_without_line_breaks_is_normalised_once(monkeypatch) -> None:
    """One line of 2 MB: a window would be the whole page, so none is made."""
    page = "alpha beta gamma delta " * 100_000
    seen: list[int] = []
    real = quotes.page_form
    monkeypatch.setattr(quotes, "page_form", lambda text: seen.append(len(text)) or real(text))
    assert quote_in_text("beta gamma delta", page)
    assert seen == [len(page)]
