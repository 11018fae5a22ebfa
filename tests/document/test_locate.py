"""LINE:COL locations: tree markers mapped back onto the markdown they came from."""

from __future__ import annotations

import json
from typing import Any

from citeledger.document.locate import Locator, drop_escaped
from citeledger.document.markers import scan
from citeledger.document.sources_block import entries
from citeledger.document.sources_titles import DEFAULT_TITLES
from citeledger.pandoc import run_pandoc
from citeledger.tree import stringify


def tree(markdown: str) -> dict[str, Any]:
    return json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=markdown))


def places(markdown: str) -> list[str | None]:
    found = scan(tree(markdown), known=lambda _n, _url: True)
    rows = Locator.from_text("d.md", markdown).place(found)
    return [pos for row in rows for pos in row]


def test_marker_after_brackets_that_are_not_markers_keeps_its_place() -> None:
    text = (
        "---\ntitle: x [1]\n---\n\n"
        "`[1]` and $[1]$ and [l [1]](u) and <b title='[1]'>b</b> and <!-- [1] -->\n"
        "the real one.[1]\n\n"
        "```\n[1]\n```\n\n"
        "    indented code [1]\n\n"
        "Last.[1]\n"
    )
    assert places(text) == ["6:14", "14:6"]


def test_list_continuation_is_not_mistaken_for_code() -> None:
    text = "- item one.[1]\n\n    continued here.[2]\n\nAfter.[3]\n"
    assert places(text) == ["1:12", "3:20", "5:7"]


def test_reference_link_to_a_defined_label_is_a_located_citation() -> None:
    text = "See [the page][3] and [1] there. Claim.[2]\n\n[1]: https://a.org\n[3]: https://c.org\n"
    assert places(text) == ["1:23", "1:40"]


def test_escaped_brackets_are_text_and_the_real_marker_keeps_its_place() -> None:
    text = "A \\[1\\] and \\[2] and [3\\] literal. Claim.[1]\n"
    doc = tree(text)
    found = scan(doc)
    assert [m.text for _hit, m in found.markers()] == ["[1]", "[2]", "[3]", "[1]"]
    locator = Locator.from_text("d.md", text)
    assert drop_escaped(doc, found, locator, DEFAULT_TITLES)
    assert [m.text for _hit, m in found.markers()] == ["[1]"]
    assert locator.place(found) == [[f"1:{text.index('.[1]') + 2}"]]
    assert "A [1] and [2] and [3] literal." in stringify(doc["blocks"])


def test_sources_paragraph_entries_are_read_and_located() -> None:
    text = "Claim.[1]\n\nSources:\n[1] https://a.org/x — A\n[2] - https://b.org\n"
    found = scan(tree(text))
    assert found.sources is not None
    got = entries(tree(text)["blocks"], found.sources)
    assert [(e.id, e.url) for e in got] == [(1, "https://a.org/x"), (2, "https://b.org")]
    assert Locator.from_text("d.md", text).entries == {1: (4, 1), 2: (5, 1)}


def test_unmatched_marker_has_no_place() -> None:
    # Pandoc reads an escaped bracket as a plain "[1]"; the raw text has no such run.
    assert places("Escaped \\[1\\] here.\n") == [None]


def test_adjacent_markers_each_keep_their_column() -> None:
    """``water.[1][2]`` is the convention's commonest form: the second bracket is a marker, not
    the label of a reference link (no label 2 is defined)."""
    text = "Ice floats on water.[1][2] Lakes freeze.[3]\n\n[4]: https://example.org/four\n"
    assert places(text) == ["1:21", "1:24", "1:41"]


def test_located_ahead_gives_the_text_and_the_same_places(tmp_path) -> None:
    """Builds locate the draft's markers in a thread while pandoc reads it; the result is the
    Locator verify would make, and a draft that cannot be read gives neither."""
    from citeledger.document.locate import LocatedAhead

    text = "# Sources of heat\n\nRoofs store heat.[1] Walls too.[2]\n"
    draft = tmp_path / "d.md"
    draft.write_text(text, encoding="utf-8")
    got, located = LocatedAhead(draft, "d.md", DEFAULT_TITLES).result()
    assert got == text and located is not None
    assert located.titles == tuple(DEFAULT_TITLES)
    found = scan(tree(text), known=lambda _n, _url: True)
    assert located.place(found) == Locator.from_text("d.md", text).place(found)
    assert LocatedAhead(tmp_path / "missing.md", "m.md", DEFAULT_TITLES).result() == (None, None)


def test_verify_makes_the_locator_again_for_other_sources_titles(tmp_path) -> None:
    """A Locator made ahead with the flags' titles is not used when the draft's own front
    matter names another Sources title: its list would be located under the wrong heading."""
    from citeledger.options import Options
    from citeledger.verify import verify
    from tests.helpers import ledger_of

    text = (
        "Roofs store heat.[1]\n\n# Provenance of claims\n\n"
        "[1] https://example.org/a — A\n[2] https://example.org/b — B\n"
    )
    ledger = ledger_of(
        tmp_path / "ledger.json",
        [
            (1, "https://example.org/a", "A", "2024-01-01"),
            (2, "https://example.org/b", "B", "2024-01-01"),
        ],
    )
    options = Options().updated({"sources-title": "Provenance of claims"})
    wrong = Locator.from_text("d.md", text)  # the default titles: no list found
    assert wrong.entries == {}
    good = verify(tree(text), ledger, options, source_name="d.md", source_text=text)
    ahead = verify(tree(text), ledger, options, source_name="d.md", source_text=text, located=wrong)
    lines = [f.line() for f in good.findings]
    assert any("d.md:6:" in line for line in lines), lines  # the entry of [2], located
    assert [f.line() for f in ahead.findings] == lines
