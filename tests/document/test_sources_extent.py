"""Where a Sources block begins and ends, by one rule for verify, ``render --replace-in`` and
every build: it ends after its last entry, so the text after the entries stays in every output;
it is found wherever a reader nests it (a notebook cell, a djot section, a Quarto callout), and
a document holds one (issue 32, items 3 and 4)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citeledger.document.markers import scan
from citeledger.document.sources_block import find_sources_block
from citeledger.document.sources_lines import find_sources_lines, replace_in_text
from citeledger.pandoc import run_pandoc
from tests.helpers import make_ledger
from tests.helpers.outputs import build_all, verify

URL = "https://example.org/a"
SIGNED = f"Ice floats on water.[1]\n\n## Sources\n\n[1] {URL}\n\nWritten by Jane Roe, 2022-02-08.\n"
CELLS = (
    "::: {.cell .markdown}\nIce floats on water.[1]\n:::\n\n"
    f"::: {{.cell .markdown}}\n## Sources\n\n[1] {URL}\n:::\n"
)


def _tree(text: str, fmt: str = "markdown") -> dict:
    return json.loads(run_pandoc(["-f", fmt, "-t", "json"], stdin=text, what="test"))


def _ledger(tmp_path: Path) -> Path:
    return make_ledger(tmp_path / "ledger.json", [(1, URL, "Ice", "2024-01-01")])


def test_sources_block_ends_after_its_last_entry_in_the_tree_and_the_lines() -> None:
    blocks = _tree(SIGNED)["blocks"]
    block = find_sources_block(blocks)
    assert block is not None and (block.start, block.end) == (1, 3)
    lines = SIGNED.split("\n")
    found = find_sources_lines(lines)
    assert found is not None and (found.start, found.end) == (2, 5)


def test_replace_in_keeps_the_text_after_the_entries() -> None:
    new = replace_in_text(SIGNED, f"## Sources\n\n[1] {URL} — Ice")
    assert new.endswith(f"[1] {URL} — Ice\n\nWritten by Jane Roe, 2022-02-08.\n")


def test_text_after_the_entries_is_kept_in_every_output(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    draft = tmp_path / "f.md"
    draft.write_text(SIGNED, encoding="utf-8")
    assert verify(draft, ledger)[0] == 0
    built = build_all(draft, ledger)
    for text in (built.html, built.word_body, " ".join(built.deck), built.wiki, built.filtered):
        assert "Jane Roe" in text
    # After the placed list, as in the draft.
    assert built.html.index(URL) < built.html.index("Jane Roe")


def test_sources_block_inside_divs_is_found_and_not_cited() -> None:
    found = scan(_tree(CELLS))
    assert found.sources is not None and found.sources.path == (1,)
    assert found.cited_ids() == [1] and len(found.hits) == 1


@pytest.mark.parametrize("fmt", ["ipynb", "djot", "markdown"])
def test_sources_block_a_reader_nests_verifies_and_is_placed_once(tmp_path: Path, fmt: str) -> None:
    ledger = _ledger(tmp_path)
    source = CELLS if fmt == "markdown" else SIGNED
    suffix = {"ipynb": ".ipynb", "djot": ".dj", "markdown": ".md"}[fmt]
    draft = tmp_path / f"f{suffix}"
    if fmt == "markdown":
        draft.write_text(source, encoding="utf-8")
    else:
        run_pandoc(["-f", "markdown", "-t", fmt, "-o", str(draft)], stdin=source, what="test")
    code, said = verify(draft, ledger, "-f", fmt)
    assert code == 0, said
    built = build_all(draft, ledger, from_format=fmt)
    # Placed once: one mark and one entry (each card links its entry and source again).
    page = re.sub(r'<div[^>]*class="citeledger-card".*?</div>\s*</div>', "", built.html, flags=re.S)
    assert built.html.count('id="cite-1-1"') == 1 and 'id="cite-1-2"' not in built.html
    assert page.count(f'href="{URL}"') == 1
    assert built.word_notes.count(URL) == 1
    if fmt != "markdown":
        assert "Jane Roe" in built.html


def test_a_second_sources_block_is_a_finding_naming_both(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    draft = tmp_path / "f.md"
    draft.write_text(
        f"# Part one\n\nIce floats.[1]\n\n## Sources\n\n[1] {URL}\n\n"
        f"# Part two\n\nIce floats again.[1]\n\n## References\n\n[1] {URL}\n",
        encoding="utf-8",
    )
    code, said = verify(draft, ledger)
    assert code == 1, said
    line = next(ln for ln in said.splitlines() if "second Sources block" in ln)
    assert "f.md:5" in line and "f.md:13" in line


def test_footnote_citations_beside_a_sources_block_a_div_holds_are_placed_as_verify_counts(
    tmp_path: Path,
) -> None:
    # The list's indices inside its Div are no top-level blocks: a build once left out the
    # top-level paragraph at the list's inner index, so its footnote stayed a plain note where
    # verify had counted a citation, and verify read the list's own addresses as typed prose.
    second = "https://example.org/b"
    ledger = make_ledger(
        tmp_path / "ledger.json",
        [(1, URL, "Ice", "2024-01-01"), (2, second, "Sea", "2024-01-01")],
    )
    draft = tmp_path / "f.md"
    draft.write_text(
        "Ice floats on water.[^1]\n\nSea water holds salt.[^2]\n\nA third paragraph.\n\n"
        "::: {#wrap}\nSome words before the list.\n\n## Sources\n\n"
        f"- [1] Ice — {URL}\n- [2] Sea — {second}\n:::\n\n"
        f"[^1]: {URL}\n[^2]: {second}\n",
        encoding="utf-8",
    )
    code, said = verify(draft, ledger)
    assert code == 0 and "typed into the prose" not in said, said
    assert "2 distinct source(s) cited" in said
    built = build_all(draft, ledger)
    assert 'id="cite-1-1"' in built.html and 'id="cite-2-1"' in built.html
    assert 'class="footnote-ref"' not in built.html
    assert URL in built.word_notes and second in built.word_notes
    for text in (built.wiki, built.filtered, " ".join(built.deck)):
        assert URL in text and second in text
