"""The fast lane of ``quote`` (citeledger/ledger/lane_quote.py) against the core's
``attach_quote``: its matching form is ``normalize_for_match`` wherever it gives one, and a
quote it attaches leaves the same ledger, the same kept page and the same line as the core's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.commands._quick import _quote
from citeledger.ledger import Quote, lane_file, lane_quote, quotes, transaction
from citeledger.ledger.attach import MAX_QUOTE
from citeledger.ledger.evidence_pages import _HTML_SUFFIXES
from citeledger.ledger.evidence_store import SUFFIX, evidence_dir, store_text
from citeledger.ledger.light import _SMALL_PAGE
from citeledger.ledger.lock_file import prepare_lock_path
from tests.helpers.run import loaded_by
from tests.ledger.test_lane import lane_hits

PAGE = (
    "Sea ice floats on the ocean because frozen water is less dense than liquid water.\n"
    "In winter the pack grows; in summer it melts back \u2014 \u201cslowly\u201d, as ever.\n"
)


def test_the_quote_lane_repeats_the_cores_constants() -> None:
    assert lane_quote.MIN_WORDS == quotes.MIN_WORDS
    assert lane_quote.MAX_QUOTE == MAX_QUOTE
    assert lane_quote.BREAK == quotes.BREAK
    assert set(lane_quote.HTML_SUFFIXES) == _HTML_SUFFIXES
    assert lane_quote.EVIDENCE_SUFFIX == SUFFIX
    assert lane_quote.TYPOGRAPHY == quotes._TYPOGRAPHY
    assert lane_quote.PAGE_BYTES < quotes.WINDOWED_FROM
    assert lane_quote.PAGE_BYTES <= _SMALL_PAGE
    ranges = quotes._CJK_RANGES.encode().decode("unicode_escape")
    spans = [(ord(ranges[i]), ord(ranges[i + 2])) for i in range(0, len(ranges), 3)]
    assert tuple(spans) == lane_quote.CJK


_CHARS = st.sampled_from(
    [
        *"aZ9 _-.,;'\"*`~[]()\\!?",
        *"\t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u2028\u2029\u3000\x01",
        *"\u00ad\u2010\u2011\u2013\u2014\u2212\u2018\u2019\u201c\u201d\u200b\ufeff",
        *"\u00e9e\u0301\u00df\u0130\u03a3\u1e9e\ufb01\uff21\u2460\u00bd\u3042\u4e00",
    ]
)
_TEXT = st.lists(_CHARS, max_size=40).map("".join)


@settings(max_examples=3000, deadline=None)
@given(_TEXT)
def test_the_matching_form_is_the_cores(text: str) -> None:
    form = lane_quote.matching_form(text)
    if form is not None:
        assert form == quotes.normalize_for_match(text)
    page = lane_quote.matching_form(text, page=True)
    if page is not None:
        assert page == quotes.page_form(text)


def test_the_matching_form_is_given_for_ordinary_text() -> None:
    """Not a vacuous lane: a page as agents save them takes no regular expression."""
    assert lane_quote.matching_form(PAGE, page=True) == quotes.page_form(PAGE)
    assert lane_quote.matching_form("frozen water is less dense") is not None
    assert lane_quote.matching_form("a-\nb", page=True) is None
    assert lane_quote.matching_form("see [1](x)") is None


@settings(max_examples=2000, deadline=None)
@given(_TEXT)
def test_the_word_count_is_the_cores(text: str) -> None:
    count = lane_quote.word_count(text)
    if count is not None:
        assert count == quotes.word_count(text)


def _ledger(folder: Path, *, kept: bool = True) -> Path:
    path = folder / "ledger.json"
    with transaction(path) as book:
        book.add("https://example.org/ice", title="Sea ice")
        book.add("https://example.org/other", title="Other")
        book.add_quote(book.source(2), Quote(text="in summer it melts back", added="2026-01-02"))
    prepare_lock_path(path)
    if kept:
        store_text(evidence_dir(path), "a page kept before")
    (folder / "page.txt").write_text(PAGE, encoding="utf-8")
    return path


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".citeledger-lock" not in p.parts
    }


CASES = [
    ("1", "frozen water is less dense", True),
    ("[1]", "  Frozen   water IS less dense  ", True),
    ("2", "in summer it melts back", True),  # held already: nothing added
    ("2", "it melts back \u2014 \u201cslowly\u201d", True),
    ("1", "water is less dense than liquid", True),
    ("3", "frozen water is less dense", False),  # no such source: the core says so
    ("1", "frozen water is more dense", False),  # not on the page: the core's refusal
    ("1", "too short", False),
    ("0", "frozen water is less dense", False),
]


@pytest.mark.parametrize(("sid", "text", "taken"), CASES)
def test_quote_in_the_lane_does_what_the_core_does(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    sid: str,
    text: str,
    taken: bool,
) -> None:
    sides = {}
    for side in ("lane", "core"):
        (tmp_path / side).mkdir()
        sides[side] = _ledger(tmp_path / side)
    monkeypatch.chdir(tmp_path / "lane")
    before = _tree(tmp_path / "lane")
    lines = lane_quote.quote("ledger.json", sid, text, "page.txt")
    if not taken:
        assert lines is None
        assert _tree(tmp_path / "lane") == before
        return
    monkeypatch.chdir(tmp_path / "core")
    capsys.readouterr()
    assert _quote([sid], {"--text": [text], "--from": ["page.txt"]}, "ledger.json", None)
    assert capsys.readouterr().out.splitlines() == lines
    assert _tree(tmp_path / "lane") == _tree(tmp_path / "core")


@pytest.mark.parametrize(
    ("name", "page"),
    [
        ("page.html", PAGE),
        ("page.txt", "<p>" + PAGE),
        ("page.txt", "%PDF-1.7\n" + PAGE),
        ("page.txt", PAGE.replace("frozen", "fro-\nzen")),
        ("page.txt", PAGE + "[a link](https://example.org)\n"),
        ("page.txt", "\ufeff" + PAGE),
    ],
    ids=["html-name", "markup", "pdf", "line-end-hyphen", "link", "bom"],
)
def test_pages_the_lane_does_not_read_go_to_the_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, page: str
) -> None:
    _ledger(tmp_path)
    (tmp_path / name).write_text(page, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    before = _tree(tmp_path)
    assert lane_quote.quote("ledger.json", "1", "water is less dense", name) is None
    assert _tree(tmp_path) == before


def test_a_first_quote_goes_to_the_core_which_makes_the_evidence_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _ledger(tmp_path, kept=False)
    monkeypatch.chdir(tmp_path)
    assert lane_quote.quote("ledger.json", "1", "water is less dense", "page.txt") is None
    os.symlink(tmp_path, tmp_path / "ledger.evidence")
    assert lane_quote.quote("ledger.json", "1", "water is less dense", "page.txt") is None


def test_the_quote_lane_loads_no_regular_expression(tmp_path: Path) -> None:
    _ledger(tmp_path)
    args = ["--ledger", "ledger.json", "quote", "1", "--text", "water is less dense"]
    out, loaded = loaded_by(tmp_path, [*args, "--from", "page.txt"])
    assert out.startswith("[1] evidence attached (1 quote(s))")
    assert lane_hits(loaded) == []
    assert not loaded & {"hashlib", "citeledger.ledger.attach", "citeledger.ledger.quotes"}


@pytest.mark.parametrize("sid", ["1", "2", "1500", "9999"])
def test_quote_on_a_large_ledger_does_what_the_core_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sid: str
) -> None:
    """Above the lane's small size the ledger is checked by the core's one-pass pattern and
    only the quoted source's entry is written anew, as the core writes it."""
    for side in ("lane", "core"):
        (tmp_path / side).mkdir()
        path = _ledger(tmp_path / side)
        with transaction(path) as book:
            for n in range(3, 2000):
                book.add(f"https://example.org/more/{n}", title=f"More about ice, part {n}")
    assert (tmp_path / "lane" / "ledger.json").stat().st_size > lane_file.LANE_BYTES
    monkeypatch.chdir(tmp_path / "lane")
    lines = lane_quote.quote("ledger.json", sid, "water is less dense", "page.txt")
    if sid == "9999":  # no such source: the core says so
        assert lines is None
        return
    assert lines is not None
    monkeypatch.chdir(tmp_path / "core")
    capsys.readouterr()
    given = {"--text": ["water is less dense"], "--from": ["page.txt"]}
    assert _quote([sid], given, "ledger.json", None)
    assert capsys.readouterr().out.splitlines() == lines
    assert _tree(tmp_path / "lane") == _tree(tmp_path / "core")
