"""Sources blocks in the grounded-citations formats, pinned by golden files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from citeledger.errors import BadInput
from citeledger.escape import bibtex_text, latex_url
from citeledger.ledger import STYLES, load_ledger, render_block
from citeledger.ledger.render import parse_id_spec
from tests.helpers import GOLDEN_ROOT

GOLDEN = GOLDEN_ROOT / "render"
Golden = Callable[[str | Path, str], None]


@pytest.mark.parametrize("style", STYLES)
def test_render_style_matches_golden(style: str, golden: Golden) -> None:
    ledger = load_ledger(GOLDEN / "ledger.json")
    golden(GOLDEN / style / "expected.txt", render_block(ledger, None, style) + "\n")


@pytest.mark.parametrize("style", ["markdown", "bibtex"])
def test_render_only_picks_ids_in_id_order(style: str, golden: Golden) -> None:
    ledger = load_ledger(GOLDEN / "ledger.json")
    golden(
        GOLDEN / f"{style}-only-5-1" / "expected.txt", render_block(ledger, [5, 1, 4], style) + "\n"
    )


def test_markdown_entry_line_format() -> None:
    block = render_block(load_ledger(GOLDEN / "ledger.json"), [1, 2], "markdown")
    assert block.splitlines() == [
        "## Sources",
        "",
        "[1] https://example.com/ice — Why ice floats",
        "[2] https://example.org/search?q=a_b&n=100%25",
    ]


def test_nothing_picked_renders_nothing() -> None:
    assert render_block(load_ledger(GOLDEN / "ledger.json"), [99], "markdown") == ""


def test_unknown_style_is_bad_input() -> None:
    with pytest.raises(BadInput, match="unknown render style"):
        render_block(load_ledger(GOLDEN / "ledger.json"), None, "apa")


def test_bibtex_text_covers_every_special_character_and_keeps_braces_balanced() -> None:
    assert bibtex_text(r"& % $ # _ { } ~ ^ \ plain") == (
        r"\& \% \$ \# \_ \textbraceleft{} \textbraceright{} \textasciitilde{} "
        r"\textasciicircum{} \textbackslash{} plain"
    )


def test_latex_url_keeps_the_url_verbatim_but_safe() -> None:
    assert latex_url("https://e.org/a_b~c?x=1&y=50%25") == r"https://e.org/a_b~c?x=1&y=50\%25"
    assert latex_url("https://e.org/{x}") == r"https://e.org/\%7Bx\%7D"


@pytest.mark.parametrize(
    ("spec", "ids"),
    [("1,3,5-7", {1, 3, 5, 6, 7}), ("2", {2}), (" 4 - 5 , 9", {4, 5, 9}), ("3-3", {3})],
)
def test_only_spec_parses_ids_and_ranges(spec: str, ids: set[int]) -> None:
    assert parse_id_spec(spec) == ids


@pytest.mark.parametrize("spec", ["a", "1,x", "7-5", "1-", ",", "1.5"])
def test_bad_only_spec_is_bad_input(spec: str) -> None:
    with pytest.raises(BadInput, match="--only"):
        parse_id_spec(spec)
