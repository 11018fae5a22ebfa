"""A quote an agent cut with an ellipsis is no passage of the page: refused, and when each part
is on the page the refusal says so and says to attach the parts apart, instead of naming a
nearest passage that wrongly calls words of the page missing."""

from __future__ import annotations

import pytest

from citeledger.ledger.attach import refusal

PAGE = (
    "Sea ice has a high albedo, reflecting up to 80 percent of incoming sunlight. Open ocean "
    "absorbs about 94 percent of the sunlight that reaches it."
)


@pytest.mark.parametrize("cut", [" ... ", " … ", " [...] ", "...", " [\u2026] ", " . . . "])
def test_each_part_on_the_page_is_said_and_the_fix_is_to_attach_them_apart(cut: str) -> None:
    said = refusal(f"Sea ice has a high albedo{cut}Open ocean absorbs about 94 percent", PAGE)
    assert said == (
        "a quote is one passage, and this one is cut with an ellipsis: \u201cSea ice has a high "
        "albedo\u201d and \u201cOpen ocean absorbs about 94 percent\u201d are each on the page; "
        "attach each part as its own quote"
    )


def test_a_part_not_on_the_page_gets_the_nearest_passage(cli, tmp_path) -> None:
    said = refusal("Sea ice has a high albedo ... Open ocean absorbs about 95 percent", PAGE)
    assert said.startswith("nearest passage")
    (tmp_path / "page.txt").write_text(PAGE, encoding="utf-8")
    assert cli("add", "https://nsidc.org/ice").code == 0
    done = cli(
        "quote", "1", "--text", "high albedo ... absorbs about 94 percent", "--from", "page.txt"
    )
    assert done.code == 1 and "attach each part as its own quote" in done.err
