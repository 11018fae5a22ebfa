"""A marker before a colon: ``known[1]: power`` cites, as every other ``[n]`` in prose does;
only a line that opens with ``[n]:`` and a URL is a reference definition (issue 32, item 1)."""

from __future__ import annotations

import json
from pathlib import Path

from citeledger.document.grammar import Marker, split_markers
from citeledger.document.locate import Locator
from citeledger.document.markers import scan
from citeledger.pandoc import run_pandoc
from tests.helpers import make_ledger
from tests.helpers.outputs import build_all, verify

URL = "https://example.org/a"
DRAFT = f"Two things are known[1]: power and bias.\n\n## Sources\n\n[1] {URL}\n"


def _tree(text: str, fmt: str = "markdown") -> dict:
    return json.loads(run_pandoc(["-f", fmt, "-t", "json"], stdin=text, what="test"))


def test_marker_before_a_colon_mid_line_is_a_citation() -> None:
    pieces = split_markers("known[1]:")
    assert pieces == ["known", Marker("id", "[1]", (1,)), ":"]
    assert scan(_tree(DRAFT)).cited_ids() == [1]


def test_marker_before_a_colon_is_located_in_the_raw_text() -> None:
    found = scan(_tree(DRAFT))
    assert Locator.from_text("d.md", DRAFT).place(found) == [["1:21"]]


def test_line_opening_with_a_definition_and_a_url_is_no_citation_in_any_reader() -> None:
    # The org reader keeps ``[1]: url`` as text, where markdown would read a definition.
    org = f"Ice floats.[2]\n\n[1]: {URL}\n"
    assert scan(_tree(org, "org")).cited_ids() == [2]


def test_marker_before_a_colon_cites_in_verify_and_every_output(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path / "ledger.json", [(1, URL, "A", "2024-01-01")])
    draft = tmp_path / "f.md"
    draft.write_text(DRAFT, encoding="utf-8")
    code, said = verify(draft, ledger)
    assert code == 0, said
    assert "not cited" not in said
    built = build_all(draft, ledger)
    assert 'href="#src-1"' in built.html
    assert 'href="#src-1"' in built.filtered
    assert URL in built.word_notes
    assert any(URL in slide for slide in built.deck[-1:])
    assert "#src-1" in built.wiki
