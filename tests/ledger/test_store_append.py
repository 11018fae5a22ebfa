"""An add writes out only what it adds: new entries go into the text that was read when that is
all that changed, the same JSON value as a whole rewrite (byte for byte when the file is
citeledger's own), and every URL of the file is still checked on load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.errors import LedgerError
from citeledger.ledger import Quote, load_ledger, transaction
from citeledger.ledger.store import dump_ledger
from citeledger.ledger.urls import all_canonical, is_canonical


def _fill(path: Path, n: int) -> None:
    with transaction(path) as book:
        for i in range(n):
            book.add(f"https://example.org/page/{i}", title=f'Page {i} \u00e9t\u00e9 "q"')


def test_add_into_a_citeledger_ledger_writes_what_a_whole_dump_writes(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    _fill(path, 30)
    with transaction(path) as book:
        book.add("https://example.org/new", title="New \u2014 one")
        book.add_quote(book.add("https://example.org/newer")[0], Quote("a b", "2024-01-01"))
    assert path.read_text(encoding="utf-8") == dump_ledger(load_ledger(path))
    assert [s.id for s in load_ledger(path).sources][-2:] == [31, 32]


def test_add_keeps_the_text_of_entries_it_did_not_change(tmp_path: Path) -> None:
    """A hand-edited entry keeps its spelling (here, an escaped e-acute): the add wrote the
    new entry only; the file still reads as the ledger in memory."""
    path = tmp_path / "ledger.json"
    _fill(path, 3)
    text = path.read_text(encoding="utf-8").replace("\u00e9", "\\u00e9")
    path.write_text(text, encoding="utf-8")
    with transaction(path) as book:
        book.add("https://example.org/new")
        expected = book.to_dict()
    after = path.read_text(encoding="utf-8")
    assert after.startswith(text[: text.rindex("\n  ],")])
    assert json.loads(after) == expected


def test_a_changed_old_entry_is_rewritten_in_place(tmp_path: Path) -> None:
    """A quote on source 2 rewrites entry 2 alone: entry 1 keeps its hand-escaped spelling."""
    path = tmp_path / "ledger.json"
    _fill(path, 3)
    path.write_text(path.read_text(encoding="utf-8").replace("\u00e9", "\\u00e9"), encoding="utf-8")
    with transaction(path) as book:
        book.add("https://example.org/new")
        book.add_quote(book.source(2), Quote("some words", "2024-01-01"))
        expected = book.to_dict()
    after = path.read_text(encoding="utf-8")
    assert json.loads(after) == expected
    first, rest = after.split('"id": 2,')
    second = rest.split('"id": 3,')[0]
    assert "\\u00e9" in first and "\u00e9" in second and "some words" in second


def test_a_change_the_layout_hides_rewrites_the_file_whole(tmp_path: Path) -> None:
    """An entry whose opening lines appear twice (a copy nested in another entry's unknown
    field, laid out as an entry) is not guessed at: the file is written whole."""
    path = tmp_path / "ledger.json"
    _fill(path, 2)
    text = path.read_text(encoding="utf-8")
    decoy = '"note": [\n    {\n      "id": 2,\n      "url": "x"\n    }\n  ],\n      "quotes"'
    path.write_text(text.replace('"quotes"', decoy, 1), encoding="utf-8")
    with transaction(path) as book:
        book.add_quote(book.source(2), Quote("some words here", "2024-01-01"))
        expected = book.to_dict()
    assert json.loads(path.read_text(encoding="utf-8")) == expected
    assert path.read_text(encoding="utf-8") == dump_ledger(load_ledger(path))


@pytest.mark.parametrize(
    "tail",
    [
        '  ],\n  "last_id": 3,\n  "note": "kept"\n}\n',  # a key citeledger does not know
        "  ]\n}\n",  # no high-water mark (sources.py's file)
    ],
)
def test_other_file_shapes_are_rewritten_whole(tmp_path: Path, tail: str) -> None:
    path = tmp_path / "ledger.json"
    _fill(path, 3)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: text.rindex("\n  ],") + 1] + tail, encoding="utf-8")
    with transaction(path) as book:
        book.add("https://example.org/new")
    assert path.read_text(encoding="utf-8") == dump_ledger(load_ledger(path))
    assert load_ledger(path).source(4).url == "https://example.org/new"


def test_a_bad_url_among_thousands_of_canonical_ones_is_named(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    _fill(path, 2000)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sources"][1500]["url"] = "javascript:alert(1)"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LedgerError, match=r"sources\[1500\]\.url"):
        load_ledger(path)


def test_a_url_hiding_a_line_break_is_not_taken_for_two(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    _fill(path, 3)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sources"][1]["url"] = "https://example.org/a\nhttps://example.org/b"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LedgerError, match=r"sources\[1\]\.url"):
        load_ledger(path)


def test_null_quotes_are_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    entry = {"id": 1, "url": "https://example.org/", "title": "", "quotes": None}
    path.write_text(json.dumps({"version": 1, "sources": [entry]}), encoding="utf-8")
    with pytest.raises(LedgerError, match=r"quotes is not a list"):
        load_ledger(path)


def test_tracking_parameters_still_find_the_clean_entry(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    entry = {"id": 7, "url": "https://example.org/p?utm_source=x", "title": "", "quotes": []}
    path.write_text(json.dumps({"version": 1, "sources": [entry]}), encoding="utf-8")
    with transaction(path) as book:
        assert book.add("https://example.org/p")[0].id == 7


_urls = st.from_regex(
    r"https?://[a-z0-9.-]{1,14}(/[\x21-\x7e]{0,14})?(\?[\x21-\x7e]{0,8})?\n?", fullmatch=True
)


@settings(deadline=None)  # a busy machine is no failure
@given(st.lists(_urls, max_size=6))
def test_one_pass_agrees_with_the_check_of_each(urls: list[str]) -> None:
    assert all_canonical(urls) == all(is_canonical(u) for u in urls)
