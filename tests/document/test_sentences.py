"""Sentences for coverage: the splitter, and which parts of the tree are prose."""

from __future__ import annotations

import json
from typing import Any

import pytest

from citeledger.document.markers import scan
from citeledger.document.sentences import Sentence, sentences, split_text
from citeledger.pandoc import run_pandoc


def tree(markdown: str) -> dict[str, Any]:
    return json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=markdown))


def prose(markdown: str) -> list[Sentence]:
    doc = tree(markdown)
    return sentences(doc, scan(doc))


@pytest.mark.parametrize(
    "text",
    [
        "The effect is large, e.g. in lakes, and small elsewhere.",
        "The data, i.e. the samples, were kept.",
        "Dr. Smith and Prof. Jones measured it.",
        "The U.S. agency measured it.",
        "It rose by 3.5 percent in a year.",
        "It rose... and then it fell again.",
        "It rose\u2026 and then it fell again.",
        "J. R. Smith wrote it down.",
        "See Fig. 3 and cf. the table.",
    ],
)
def test_splitter_does_not_break_inside_a_sentence(text: str) -> None:
    assert split_text(text) == [text]


def test_splitter_breaks_at_terminal_punctuation_followed_by_space() -> None:
    assert split_text('One thing. Two things! Three? "Four." Five') == [
        "One thing.",
        "Two things!",
        "Three?",
        '"Four."',
        "Five",
    ]


def test_splitter_splits_cjk_without_spaces() -> None:
    assert split_text("冰比水轻。水是液体！真的吗？是的；好") == [
        "冰比水轻。",
        "水是液体！",
        "真的吗？",
        "是的；",
        "好",
    ]


def test_marker_run_stays_with_the_sentence_it_follows() -> None:
    got = prose("Ice floats on water.[1][2] Water is wet and cold.[3]\n")
    assert [s.text for s in got] == ["Ice floats on water.[1][2]", "Water is wet and cold.[3]"]
    assert [s.ids for s in got] == [[1, 2], [3]]


def test_spaced_marker_run_after_the_stop_belongs_to_the_sentence() -> None:
    got = prose("Ice floats on water. [1] [2] Water is wet and cold.\n")
    assert [s.ids for s in got] == [[1, 2], []]


def test_cjk_marker_after_stop_belongs_to_the_sentence() -> None:
    got = prose("冰的密度比液态水小得多。[1]水在四摄氏度时密度最大。[2]\n")
    assert [s.ids for s in got] == [[1], [2]]


def test_headings_tables_and_code_are_not_prose_but_quotes_and_lists_are() -> None:
    md = (
        "# A heading with many words in it\n\n"
        "| a table cell with many words | b |\n|---|---|\n| x | y |\n\n"
        "```\na code block with many words\n```\n\n"
        "> A quoted sentence with many words.\n\n"
        "- A list item with many words.\n\n"
        "Term with four words\n:   A definition with many words.\n"
    )
    assert [s.text for s in prose(md)] == [
        "A quoted sentence with many words.",
        "A list item with many words.",
        "Term with four words",
        "A definition with many words.",
    ]


def test_footnote_text_is_prose_of_its_own() -> None:
    got = prose("The main sentence has five words.^[The note sentence also has words.[2]]\n")
    assert [(s.text, s.ids) for s in got] == [
        ("The main sentence has five words.", []),
        ("The note sentence also has words.[2]", [2]),
    ]


def test_words_count_cjk_pairs_and_leave_markers_out() -> None:
    got = prose("Three words here [1].\n\n冰比水轻很多。\n")
    assert [s.words for s in got] == [3, 3]


def test_links_and_code_spans_count_as_words_but_cite_nothing() -> None:
    got = prose("See [the page [9]](https://example.org) and `code [8]` now.\n")
    assert got[0].ids == [] and got[0].words == 8
