"""The ledger core reads a small ledger in citeledger's own layout with the fast lane's reading
(``lane_file.parsed``: the C scanner and ``str`` checks) before compiling the one-pass pattern
(``layout.py``): whatever ledger text it is handed, the load ends as the pattern's load ends
(the same ids, URLs, high-water mark and sources, or the same refusal), and the ordinary
ledger takes the lane's reading."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeledger.errors import LedgerError
from citeledger.ledger import Quote, layout, store, transaction
from tests.ledger.test_lane import _build, _ledgers

_EMPTY = b'{\n  "version": 1,\n  "sources": []\n}\n'


def _mutated(raw: bytes, how: str) -> bytes:
    """``raw`` as written, or changed the way a hand edit or another writer changes it."""
    if how == "no final line break":
        return raw.rstrip(b"\n")
    if how == "escaped title":
        return raw.replace(b'"title": "', b'"title": "\\u00e9', 1)
    if how == "id repeated":
        return raw.replace(b'"id": 2,', b'"id": 1,', 1)
    if how == "bad URL":
        return raw.replace(b'"url": "https://', b'"url": "ftp://', 1)
    if how == "tracking parameter":
        return raw.replace(b'"url": "https://a.example/p"', b'"url": "https://a.example/p?utm_x=1"')
    if how == "high-water mark":
        return raw.replace(b"\n  ]\n}\n", b'\n  ],\n  "last_id": 99\n}\n')
    return raw


def _load(path: Path, raw: bytes, lane: bool) -> object:
    """What loading ``raw`` ends in, with or without the lane's reading: the checked lists and
    the sources, or the refusal's text."""
    layout._LAST.clear()  # the text read last is not checked again: each side checks it
    with pytest.MonkeyPatch.context() as patch:
        if not lane:
            patch.setattr(layout, "lane_parsed", lambda text: None)
        text = raw.decode("utf-8")
        checked = layout._checked(text)
        try:
            book = store.parse_ledger(path, raw)
        except LedgerError as exc:
            return checked, exc.line()
        return checked, [repr(s) for s in book.sources], book.last_id, type(book).__name__


_HOW = [
    "as written",
    "no final line break",
    "escaped title",
    "id repeated",
    "bad URL",
    "tracking parameter",
    "high-water mark",
]


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=_ledgers(), how=st.sampled_from(_HOW))
def test_the_lanes_reading_loads_what_the_pattern_loads(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, object]], how: str
) -> None:
    path = tmp_path_factory.mktemp("ledger") / "ledger.json"
    _build(path, steps)
    raw = _mutated(path.read_bytes() if path.exists() else _EMPTY, how)
    assert _load(path, raw, lane=True) == _load(path, raw, lane=False)


def test_an_ordinary_ledger_takes_the_lanes_reading(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    with transaction(path) as book:
        for n in range(1, 11):
            source = book.add(f"https://example.org/sea-ice/{n}", title=f"Sea ice {n}")[0]
            book.add_quote(source, Quote(text="ice floats", added="2026-01-02"))
    text = path.read_text(encoding="utf-8")
    assert layout.lane_parsed(text) is not None
    assert _load(path, path.read_bytes(), lane=True) == _load(path, path.read_bytes(), lane=False)
