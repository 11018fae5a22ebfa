"""Provider quotes in the ledger file: their own list beside ``quotes``, so that no reader
that counts ``quotes`` (sources.py, an older citeledger) takes one for a page-checked quote,
and a ledger without them is written back as it was read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeledger.errors import LedgerError
from citeledger.ledger import load_ledger, transaction

SOURCES_PY = {
    "version": 1,
    "sources": [
        {
            "id": 1,
            "url": "https://example.org/a",
            "title": "A",
            "accessed": "2025-01-01",
            "quotes": [{"text": "sea ice floats on water", "added": "2025-01-01"}],
        }
    ],
}


def test_a_sources_py_ledger_round_trips_without_a_provider_quotes_key(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    path.write_text(json.dumps(SOURCES_PY), encoding="utf-8")
    with transaction(path) as book:
        book.dirty = True
    data = json.loads(path.read_text(encoding="utf-8"))
    assert "provider_quotes" not in data["sources"][0]
    assert data["sources"][0]["quotes"] == SOURCES_PY["sources"][0]["quotes"]


def test_provider_quotes_round_trip_with_unknown_keys_kept(tmp_path: Path) -> None:
    data = json.loads(json.dumps(SOURCES_PY))
    data["sources"][0]["provider_quotes"] = [
        {"text": "t", "added": "d", "provider": "anthropic", "origin": "o", "future": 1}
    ]
    path = tmp_path / "l.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with transaction(path) as book:
        book.dirty = True
    assert json.loads(path.read_text(encoding="utf-8")) == {**data, "last_id": 1}


def test_a_provider_quote_is_added_once_and_never_as_a_page_checked_quote(tmp_path: Path) -> None:
    path = tmp_path / "l.json"
    path.write_text(json.dumps(SOURCES_PY), encoding="utf-8")
    with transaction(path) as book:
        source = book.source(1)
        assert book.add_provider_quote(source, "Penguins live in the south.", "anthropic", "x")
        assert not book.add_provider_quote(source, "Penguins  live in the South.", "storm", "y")
        assert not book.add_provider_quote(source, "Sea ice floats on water", "storm", "y")
    source = load_ledger(path).source(1)
    assert [q.text for q in source.quotes] == ["sea ice floats on water"]
    assert [q.provider for q in source.provider_quotes] == ["anthropic"]


@pytest.mark.parametrize("bad", [{"text": 3}, "quote", {"text": ""}])
def test_a_malformed_provider_quote_is_a_shape_error(tmp_path: Path, bad: object) -> None:
    data = json.loads(json.dumps(SOURCES_PY))
    data["sources"][0]["provider_quotes"] = [bad]
    path = tmp_path / "l.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LedgerError, match="provider_quotes"):
        load_ledger(path)
