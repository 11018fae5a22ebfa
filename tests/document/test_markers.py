"""The one marker finder (citeledger.document.markers) on trees pandoc really builds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citeledger.document.draft import cited_ids_in_file
from citeledger.document.grammar import Marker, split_markers
from citeledger.document.markers import scan
from citeledger.pandoc import run_pandoc


def tree(markdown: str) -> dict[str, Any]:
    return json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=markdown))


def found(markdown: str) -> list[str]:
    return [m.text for _hit, m in scan(tree(markdown)).markers()]


def test_marker_glued_to_punctuation_is_found_in_one_str() -> None:
    assert found("Ice floats.[1][2] Water is wet.[3]\n") == ["[1]", "[2]", "[3]"]


def test_marker_standing_alone_after_a_space_is_found() -> None:
    assert found("Ice floats [1].\n") == ["[1]"]


def test_marker_inside_code_span_is_not_a_citation() -> None:
    assert found("Use `water.[1]` in code.\n") == []


@pytest.mark.parametrize(
    "markdown",
    [
        "```\ncode [1]\n```\n",
        "Math $x[1]$ here.\n",
        "A [link [1]](https://example.org) here.\n",
        "An ![image [1]](pic.png) here.\n",
        "Raw <span title='[1]'>html</span> here.\n",
        "```{=latex}\n[1]\n```\n",
        "See [one](https://example.org/one) and [1](#local).\n",
        "Too long [1234567] for an id.\n",
    ],
)
def test_brackets_in_code_math_links_images_raw_are_not_citations(markdown: str) -> None:
    assert found(markdown) == []


def test_link_whose_text_is_a_marker_is_a_citation_with_its_url() -> None:
    text = "See [1] here. And [2](https://b.example). Or [[3]](https://c.example).\n\n"
    doc = tree(text + "[1]: https://a.example\n")
    # Set apart from the text, [1] and [2] cite when the caller knows them (the ledger, the
    # draft's definitions); [[3]] keeps its brackets and always cites.
    result = scan(doc, known=lambda n, _url: n in (1, 2))
    assert [(m.text, h.url) for h, m in result.markers()] == [
        ("[1]", "https://a.example"),
        ("[2]", "https://b.example"),
        ("[3]", "https://c.example"),
    ]
    unknown = scan(doc)
    assert [m.text for _h, m in unknown.markers()] == ["[3]"]
    assert [h.url for h in unknown.ordinary] == ["https://a.example", "https://b.example"]


def test_reference_link_with_other_text_is_a_link_not_a_citation() -> None:
    assert found("See [the page][1] here.\n\n[1]: https://example.org\n") == []


def test_marker_in_a_footnote_is_found_and_flagged() -> None:
    result = scan(tree("Text.[^n]\n\n[^n]: The note cites.[2]\n"))
    assert [(m.text, h.in_note) for h, m in result.markers()] == [("[2]", True)]


def test_group_split_by_pandoc_at_its_spaces_is_one_marker() -> None:
    result = scan(tree("Water is wet.[1, 2, 3] Ice.\n"))
    markers = [m for _h, m in result.markers()]
    assert [(m.kind, m.ids) for m in markers] == [("group", (1, 2, 3))]


def test_group_range_expands_to_each_id() -> None:
    assert split_markers("x[2-4]")[1] == Marker("group", "[2-4]", (2, 3, 4))


def test_provenance_markers_cite_no_id() -> None:
    pieces = split_markers("a[unverified] b[tool:mcp__tv.data-1] c[policy]")
    kinds = [(p.kind, p.name, p.ids) for p in pieces if isinstance(p, Marker)]
    assert kinds == [("unverified", None, ()), ("tool", "mcp__tv.data-1", ()), ("policy", None, ())]


@pytest.mark.parametrize("text", ["[tool]", "[tool:]", "[tool:bad name]", "[tool:-x]", "[1]("])
def test_malformed_provenance_and_link_brackets_are_not_markers(text: str) -> None:
    assert not any(isinstance(p, Marker) for p in split_markers(text))


@pytest.mark.parametrize(
    "heading", ["## Sources", "# sources", "### SOURCES:", "Sources\n-------", "#### Sources :"]
)
def test_sources_heading_any_level_case_and_colon(heading: str) -> None:
    doc = tree(f"Claim.[1]\n\n{heading}\n\n[1] https://example.org\n")
    result = scan(doc)
    assert result.sources is not None and result.sources.start == 1
    assert result.cited_ids() == [1]


def test_sources_paragraph_with_colon_opens_the_block() -> None:
    result = scan(tree("Claim.[1]\n\nSources:\n[1] https://example.org\n[2] https://b.org\n"))
    assert result.sources is not None and result.cited_ids() == [1]


def test_last_sources_heading_wins_and_its_entries_are_not_citations() -> None:
    md = "# Sources\n\nOld.[5]\n\n# Body\n\nClaim.[1]\n\n## Sources\n\n[1] https://a.org\n[7] x\n"
    result = scan(tree(md))
    assert result.sources is not None
    assert result.cited_ids() == [5, 1]


def test_hits_know_their_heading() -> None:
    result = scan(tree("# One\n\nA.[1]\n\n# Two\n\nB.[2]\n"))
    assert [h.heading for h in result.hits] == ["One", "Two"]


def test_cited_ids_in_file_reads_through_pandoc(tmp_path: Path) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(
        "B.[2] A.[1] again.[2] `[9]`\n\n## Sources\n\n[1] u\n[2] v\n", encoding="utf-8"
    )
    assert cited_ids_in_file(draft) == [2, 1]
