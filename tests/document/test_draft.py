"""The one reading of a draft (``document/draft.open_draft``): every job that starts from a
draft sees the same citations in it.

A ``.tex`` draft as pandoc's LaTeX writer prints ``Ice floats.[1]`` (``{[}1{]}``) reads back as
``Str "floats."``, ``Span [Str "["]``, ``Str "1"``, ``Span [Str "]"]``: verify melted the Spans
and counted the citation, while convert and ``pandoc --filter pandoc-citeledger`` left ``[1]``
as plain text and exited 0.
"""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from citeledger.document.draft import cited_ids_in_file, open_draft
from citeledger.document.readers import input_format
from citeledger.pandoc import pandoc_path, run_pandoc
from tests.helpers.ledgers import make_ledger
from tests.helpers.run import CITELEDGER, citeledger_env, run_filter

SOURCES = [
    (1, "https://example.org/ice", "Ice", "2024-01-01"),
    (2, "https://example.org/sea", "Sea", "2024-01-01"),
]
# What ``pandoc -t latex`` makes of the markdown draft, checked below.
TEX = "Ice floats.{[}1{]}\n\n\\section{Sources}\n\n{[}1{]} \\url{https://example.org/ice} --- Ice\n"


@pytest.fixture
def tex_draft(tmp_path: Path) -> Path:
    make_ledger(tmp_path / "ledger.json", SOURCES)
    draft = tmp_path / "draft.tex"
    draft.write_text(TEX, encoding="utf-8")
    return draft


def test_pandoc_writes_a_marker_in_latex_as_escaped_brackets() -> None:
    latex = run_pandoc(["-f", "markdown", "-t", "latex"], stdin="Ice floats.[1]\n")
    assert latex.decode("utf-8").strip() == "Ice floats.{[}1{]}"


def test_open_draft_reads_a_tex_marker_as_one_str(tex_draft: Path) -> None:
    draft = open_draft(tex_draft)
    assert draft.format == "latex"
    assert draft.text is None  # no markdown text to locate markers in
    assert {"t": "Str", "c": "floats.[1]"} in draft.tree["blocks"][0]["c"]
    assert cited_ids_in_file(tex_draft) == [1]


def test_open_draft_locates_markdown_markers_while_pandoc_reads(tmp_path: Path) -> None:
    path = tmp_path / "d.md"
    path.write_text("Ice floats.[1]\n", encoding="utf-8")
    draft = open_draft(path, titles=("Sources",), name="d.md")
    assert draft.text == "Ice floats.[1]\n"
    located = draft.locator(("Sources",))
    assert located is not None and located.name == "d.md"
    assert draft.locator(("Sources",)) is located


def test_input_format_reads_a_zip_by_what_it_holds(tmp_path: Path) -> None:
    deck = tmp_path / "deck.md"
    with zipfile.ZipFile(deck, "w") as archive:
        archive.writestr("[Content_Types].xml", "presentationml.presentation.main+xml")
        archive.writestr("ppt/presentation.xml", "")
    assert input_format(deck) == "pptx"
    assert input_format(tmp_path / "draft.tex") == "latex"


def test_verify_counts_the_citation_of_a_tex_draft(tex_draft: Path) -> None:
    done = subprocess.run(
        [*CITELEDGER, "verify", tex_draft.name, "--format", "json"],
        cwd=tex_draft.parent,
        env=citeledger_env(unset=("CITELEDGER_LEDGER",)),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["cited_ids"] == [1]


def test_convert_places_the_citation_of_a_tex_draft(tex_draft: Path) -> None:
    done = subprocess.run(
        [*CITELEDGER, "convert", tex_draft.name, "-o", "out.html"],
        cwd=tex_draft.parent,
        env=citeledger_env(unset=("CITELEDGER_LEDGER",)),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert 'href="#src-1"' in (tex_draft.parent / "out.html").read_text(encoding="utf-8")


def test_filter_places_the_citation_of_a_tex_draft(tex_draft: Path) -> None:
    assert pandoc_path()
    done = run_filter(
        tex_draft.name, "-t", "html", cwd=tex_draft.parent, ledger=tex_draft.parent / "ledger.json"
    )
    assert done.returncode == 0, done.stderr
    assert 'href="#src-1"' in done.stdout


def test_a_tree_handed_over_without_its_reader_has_its_latex_brackets_melted(
    tex_draft: Path,
) -> None:
    from citeledger.document.readers import join_split_brackets
    from citeledger.pandoc import read_json

    tree = read_json(tex_draft)
    assert join_split_brackets(tree)
    assert {"t": "Str", "c": "floats.[1]"} in tree["blocks"][0]["c"]
    plain = {"blocks": [{"t": "Para", "c": [{"t": "Str", "c": "Ice"}]}]}
    assert not join_split_brackets(plain)
