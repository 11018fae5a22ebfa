"""The one-pass load of a ledger in citeledger's own layout (ledger/layout.py): it reads what the
field-by-field load reads, refuses nothing that load takes silently (a bad entry goes to that
load, which names it), and the transactions it serves (add, quote) write, by inserting entries
into the text read, the bytes a whole rewrite writes."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeledger.errors import LedgerError
from citeledger.ledger import Ledger, Quote, load_ledger, transaction
from citeledger.ledger.layout import TextLedger, fast_ledger, layout_match
from citeledger.ledger.store import dump_ledger

_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), max_codepoint=0x2FFFF), max_size=12
)
_URL = st.from_regex(r"https://[a-z]{1,6}\.org(/[A-Za-z0-9._~%-]{1,8}){0,2}", fullmatch=True)


_FIXTURE = [HealthCheck.function_scoped_fixture]


def _slow(path: Path) -> Ledger:
    """The field-by-field load of the file at ``path``."""
    return Ledger.from_dict(path, json.loads(path.read_text(encoding="utf-8")))


@st.composite
def _ledgers(draw: st.DrawFn) -> list[dict[str, object]]:
    sources = []
    for i in range(draw(st.integers(1, 6))):
        entry: dict[str, object] = {
            "id": i + 1,
            "url": f"https://example.org/{i}",
            "title": draw(_TEXT),
            "accessed": draw(_TEXT),
        }
        for name in ("issued", "site"):
            if draw(st.booleans()):
                entry[name] = draw(_TEXT)
        if draw(st.booleans()):
            entry["page_sha256"] = "ab" * 32
        quotes = []
        for _ in range(draw(st.integers(0, 2))):
            quote = {"text": draw(_TEXT), "added": draw(_TEXT)}
            if draw(st.booleans()):
                quote["sha256"] = draw(_TEXT)
            quotes.append(quote)
        entry["quotes"] = quotes
        sources.append(entry)
    return sources


def _write(path: Path, sources: list[dict[str, object]], last_id: int | None = None) -> None:
    data: dict[str, object] = {"version": 1, "sources": sources}
    data["last_id"] = last_id if last_id is not None else len(sources)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


@settings(max_examples=60, deadline=None, suppress_health_check=_FIXTURE)
@given(sources=_ledgers())
def test_the_one_pass_load_reads_what_the_field_by_field_load_reads(
    tmp_path: Path, sources: list[dict[str, object]]
) -> None:
    path = tmp_path / "ledger.json"
    _write(path, sources)
    fast = load_ledger(path)
    assert isinstance(fast, TextLedger)
    slow = _slow(path)
    assert fast.get(len(sources)) == slow.get(len(sources))
    assert fast.to_dict() == slow.to_dict()
    assert [s.id for s in fast.sources] == [s.id for s in slow.sources]


@settings(max_examples=40, deadline=None, suppress_health_check=_FIXTURE)
@given(sources=_ledgers(), urls=st.lists(_URL, min_size=1, max_size=3), quoted=st.booleans())
def test_add_and_quote_by_insertion_write_what_a_whole_rewrite_writes(
    tmp_path: Path, sources: list[dict[str, object]], urls: list[str], quoted: bool
) -> None:
    path = tmp_path / "ledger.json"
    _write(path, sources)
    before = _slow(path)
    with transaction(path) as book:
        assert isinstance(book, TextLedger)
        for url in urls:
            book.add(url, title="t \u00e9")
        if quoted:
            book.add_quote(book.source(1), Quote("three new words", "2026-01-01"))
        assert not book.whole  # written by insertion, not by building every source
    # The same changes on the field-by-field ledger, written whole.
    for url in urls:
        before.add(url, title="t \u00e9")
    if quoted:
        before.add_quote(before.source(1), Quote("three new words", "2026-01-01"))
    assert path.read_text(encoding="utf-8") == dump_ledger(before)


def test_the_mark_is_written_never_below_an_id(tmp_path: Path) -> None:
    """A hand-edited high-water mark below the ids: the quote's in-place edit writes the mark
    a whole rewrite writes."""
    path = tmp_path / "ledger.json"
    _write(path, [_entry(1), _entry(7)], last_id=3)
    with transaction(path) as book:
        book.add_quote(book.source(7), Quote("three new words", "2026-01-01"))
        assert not book.whole
    assert json.loads(path.read_text(encoding="utf-8"))["last_id"] == 7
    assert path.read_text(encoding="utf-8") == dump_ledger(_slow(path))
    with transaction(path) as book:
        assert book.add("https://example.org/new")[0].id == 8


def _entry(sid: int, url: str = "") -> dict[str, object]:
    return {
        "id": sid,
        "url": url or f"https://example.org/{sid}",
        "title": "",
        "accessed": "2026-01-01",
        "quotes": [],
    }


@pytest.mark.parametrize(
    ("url", "taken"),
    [
        ("javascript:alert(1)", False),
        ("https://good.example@evil.example/x", False),
        ("https://example.org/" + "a" * 5000, False),
        ("https://Example.org/x", True),  # the full check takes these too, as they are
        ("https://example.org/x/", True),
        ("https://example.org/a%zz", True),
        ("http://doi.org/10.1/x", True),
        ("example.org/page", True),  # a sources.py entry without a scheme
    ],
)
def test_a_url_that_is_not_canonical_is_checked_on_its_own(url: str, taken: bool) -> None:
    """The one-pass load takes a URL the canonical pattern leaves only when the full check of
    that URL takes it; then it reads and finds what the field-by-field load does."""
    data = {"version": 1, "sources": [_entry(1), _entry(2, url)], "last_id": 2}
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    fast = fast_ledger(Path("x.json"), text)
    assert (fast is not None) == taken
    if fast is not None:
        slow = Ledger.from_dict(Path("x.json"), data)
        assert fast.to_dict() == slow.to_dict()
        found = fast.find_url(url)
        assert found is not None and found.id == 2
        assert fast.find_url(url.lower()) == slow.find_url(url.lower())


def test_a_bad_url_deep_in_a_large_ledger_is_named_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    entries = [_entry(i) for i in range(1, 2001)]
    entries[1500] = _entry(1501, "https://good.example@evil.example/x")
    _write(path, entries)
    with pytest.raises(LedgerError, match=r"sources\[1500\]\.url"):
        load_ledger(path)
    with pytest.raises(LedgerError, match=r"sources\[1500\]\.url"), transaction(path) as book:
        book.add("https://example.org/new")
    assert "new" not in path.read_text(encoding="utf-8")


def test_twice_the_same_id_is_refused_as_before(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    _write(path, [_entry(1), _entry(2), _entry(2, "https://example.org/other")])
    with pytest.raises(LedgerError, match="id 2 appears twice"):
        load_ledger(path)


@pytest.mark.parametrize(
    "change",
    [
        ('"title": "",', '"title": "\\ud800",'),  # a lone surrogate
        ('"title": "",', '"title": "a\tb",'),  # a raw control character
        ('"id": 2,', '"id": 1000000,'),  # past the largest id
        ('"quotes": []', '"quotes": [{}]'),  # a quote without text
        ('"title": "",', '"title": "", "author": [{"family": "X"}],'),  # a field it leaves
        ('"quotes": []\n    }', '"quotes": []\n    },'),  # a comma before the list closes
        (
            '"quotes": []\n    }',
            '"quotes": [\n        {\n          "text": "a",\n'
            '          "added": ""\n        },\n      ]\n    }',
        ),  # and in a quote list
    ],
)
def test_what_the_pattern_does_not_take_goes_to_the_field_by_field_load(
    tmp_path: Path, change: tuple[str, str]
) -> None:
    path = tmp_path / "ledger.json"
    _write(path, [_entry(1), _entry(2)])
    text = path.read_text(encoding="utf-8")
    at = text.index('"id": 2,')
    text = text[:at] + text[at:].replace(*change, 1)
    assert not layout_match(text)
    path.write_text(text, encoding="utf-8")
    try:
        expected = _slow(path).to_dict()
    except Exception:  # noqa: BLE001 - the field-by-field load refuses it: so must load_ledger
        with pytest.raises(LedgerError):
            load_ledger(path)
        return
    # Refused on a check of its own (the surrogate walk) or read the same: never differently.
    with contextlib.suppress(LedgerError):
        assert load_ledger(path).to_dict() == expected


def test_a_tracking_parameter_in_a_stored_url_is_found_by_its_clean_form(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    _write(path, [_entry(1), _entry(2, "https://example.org/p?utm_source=x")])
    with transaction(path) as book:
        found, created = book.add("https://example.org/p")
    assert (found.id, created) == (2, False)


def test_urls_the_full_check_takes_as_they_are_keep_the_one_pass_load(tmp_path: Path) -> None:
    """A DOI address and a path in another script are stored as written (normalize_url gives
    them back) though the canonical pattern leaves them: the load checks those alone."""
    path = tmp_path / "ledger.json"
    odd = ["https://doi.org/10.21105/joss.01686", "https://ru.wikibooks.org/wiki/Ассемблер"]
    _write(path, [_entry(1), _entry(2, odd[0]), _entry(3, odd[1])])
    ledger = load_ledger(path)
    assert isinstance(ledger, TextLedger)
    assert ledger.to_dict() == _slow(path).to_dict()
    with transaction(path) as book:
        assert book.add(odd[1])[0].id == 3
        assert book.add("doi:10.21105/joss.01686")[0].id == 2
        assert not book.whole


@settings(max_examples=60, deadline=None, suppress_health_check=_FIXTURE)
@given(
    sources=_ledgers(),
    quote_kept=st.booleans(),
    change=st.sampled_from(["none", "quote", "drop", "page", "add"]),
)
def test_what_verify_asks_is_read_off_the_text_as_the_sources_tell_it(
    tmp_path: Path, sources: list[dict[str, object]], quote_kept: bool, change: str
) -> None:
    """The ids, the quoted ids and whether a page is kept, read off the text without building
    every source (verify asks them of a 50,000-source ledger), equal what the sources say, also
    after a change in memory."""
    if quote_kept and sources[0]["quotes"]:
        sources[0]["quotes"][0]["text_sha256"] = "cd" * 32  # type: ignore[index]
    path = tmp_path / "ledger.json"
    _write(path, sources)
    fast = load_ledger(path)
    assert isinstance(fast, TextLedger)
    if change == "quote":
        fast.add_quote(fast.source(1), Quote("three new words", "2026-01-01"))
    elif change == "drop" and fast.source(1).quotes:
        fast.source(1).quotes.clear()
    elif change == "page":
        fast.source(1).page_sha256 = None
    elif change == "add":
        fast.add("https://example.net/new", title="new")
    answers = (fast.ids(), fast.quoted_ids(), fast.holds_pages())
    assert not fast.whole
    built = Ledger(path, [*fast.sources])  # every source built, the base class's answers
    assert answers == (built.ids(), built.quoted_ids(), built.holds_pages())
    assert answers == (fast.ids(), fast.quoted_ids(), fast.holds_pages())  # once whole


@pytest.mark.parametrize("change", ["quote", "page"])
def test_a_kept_page_removed_in_memory_is_no_longer_held(tmp_path: Path, change: str) -> None:
    """The text still names the page; the source built and changed since no longer does."""
    entry = _entry(1)
    if change == "quote":
        entry["quotes"] = [{"text": "words", "added": "2026-01-01", "text_sha256": "cd" * 32}]
    else:
        entry = {**{k: v for k, v in entry.items() if k != "quotes"}, "page_sha256": "ab" * 32}
        entry["quotes"] = []
    path = tmp_path / "ledger.json"
    _write(path, [entry, _entry(2)])
    fast = load_ledger(path)
    assert isinstance(fast, TextLedger)
    assert fast.holds_pages()
    source = fast.source(1)
    if change == "quote":
        source.quotes.clear()
        assert fast.quoted_ids() == set()
    else:
        source.page_sha256 = None
    assert not fast.holds_pages()
    assert not fast.whole
