"""The formats table (citeledger/formats/__init__.py) walked against its other homes: the filter's
placement registry, pandoc's own lists of readers and writers, and the suffix maps."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

import citeledger.filters
from citeledger import formats
from citeledger.filters.base import BasePlacement
from citeledger.filters.escaped import ESCAPERS
from citeledger.filters.registry import PLACEMENTS, placement_type
from citeledger.pandoc import format_for, pandoc_path, reading, writing
from tests.helpers import run_citeledger, running_pandoc_version

PANDOC_ROWS = [row for row in formats.ROWS if not row.own]


def _pandoc_list(which: str) -> set[str]:
    out = subprocess.run(
        [pandoc_path(), f"--list-{which}-formats"], capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


@pytest.mark.parametrize("row", formats.ROWS, ids=lambda row: row.name)
def test_every_row_names_a_registered_placement_class(row: formats.Format) -> None:
    placement = PLACEMENTS[row.placement]
    assert issubclass(placement, BasePlacement)
    assert placement_type(row.name) is placement
    assert placement_type(f"{row.name}+smart-raw_html") is placement


def _placement_classes(name: str) -> list[type]:
    module = importlib.import_module(f"citeledger.filters.{name}")
    return [
        found
        for found in vars(module).values()
        if isinstance(found, type)
        and issubclass(found, BasePlacement)
        and found.__module__ == module.__name__
    ]


def test_every_placement_class_is_registered_and_places_some_row() -> None:
    # BasePlacement is what the others share; the default for an unknown writer is html's.
    names = {info.name for info in pkgutil.iter_modules(citeledger.filters.__path__)}
    defined = {cls for name in names for cls in _placement_classes(name)} - {BasePlacement}
    assert defined == set(PLACEMENTS.values())
    assert set(PLACEMENTS) == {row.placement for row in formats.ROWS}


def test_each_placement_is_named_for_its_format() -> None:
    for key, placement in PLACEMENTS.items():
        assert placement.__name__ == f"{key.capitalize()}Placement"


def test_every_writer_a_placement_singles_out_has_a_row_placed_by_it() -> None:
    # The formats the placement code tests by name (escaped's escapers, the wiki and latex
    # placements' own branches) must reach that placement through the table.
    named = {fmt: "escaped" for fmt in ESCAPERS}
    named |= {"mediawiki": "wiki", "dokuwiki": "wiki", "obsidian": "wiki", "beamer": "latex"}
    for fmt, module in named.items():
        assert formats.placement(fmt) == module, fmt


@pytest.mark.parametrize("row", PANDOC_ROWS, ids=lambda row: row.name)
def test_every_writer_is_one_the_running_pandoc_has_or_is_marked_newer(
    row: formats.Format,
) -> None:
    version = running_pandoc_version()
    if row.writes:
        newer = row.writes_since is not None and version < row.writes_since
        assert newer or row.name in _pandoc_list("output")
    if row.reads:
        newer = row.reads_since is not None and version < row.reads_since
        assert newer or row.name in _pandoc_list("input")
    assert row.reads or row.writes


def test_own_names_are_citeledgers_not_pandocs() -> None:
    assert {row.name for row in formats.ROWS if row.own} == {"pdf", "obsidian"}


def test_markdown_sources_are_markdown_kinds() -> None:
    sources = {row.name for row in formats.ROWS if row.markdown_source}
    assert {row.kind for row in formats.ROWS if row.name in sources} == {"markdown"}
    assert {"markdown", "gfm", "commonmark", "markdown_mmd"} <= sources


@pytest.mark.parametrize("field", ["suffixes", "output_suffixes"])
def test_every_suffix_names_one_format(field: str) -> None:
    counts = Counter(s for row in formats.ROWS for s in getattr(row, field))
    assert [s for s, n in counts.items() if n > 1] == []
    assert all(s.startswith(".") and s == s.lower() for s in counts)


@pytest.mark.parametrize(
    ("fmt", "family"),
    [
        ("gfm+hard_line_breaks-smart", "gfm"),
        ("markdown-smart", "markdown"),
        ("html5", "html5"),
        ("commonmark_x+sourcepos", "commonmark_x"),
        ("HTML5", "html5"),
        ("latex", "latex"),
        ("", ""),
    ],
)
def test_family_strips_extensions(fmt: str, family: str) -> None:
    assert formats.family(fmt) == family


def test_facts_are_looked_up_with_extensions_stripped() -> None:
    assert formats.is_standalone("html5+smart")
    assert formats.is_binary("docx+native_numbering")
    assert formats.is_markdown_source("gfm-autolink_bare_uris")
    assert formats.is_markdown_source("commonmark_x+smart")
    assert formats.placement("chunkedhtml-smart") == "chunked"
    assert formats.placement("no-such-writer") == formats.DEFAULT_PLACEMENT
    assert writing("typst+smart") is not None and reading("pptx-styles") is not None


def test_suffixes_read_and_written_differ_where_a_reader_and_a_writer_do() -> None:
    assert format_for("draft.txt") == "markdown"
    assert formats.writer_for_suffix(".txt") == "plain"
    assert format_for("page.html") == "html"
    assert formats.writer_for_suffix(".HTML") == "html5"
    assert format_for("notes.qmd") == format_for("notes.Rmd") == "markdown"
    assert formats.writer_for_suffix(".pdf") == "pdf"


def test_zip_sniffing_tries_a_deck_before_a_word_file() -> None:
    kinds = [fmt for _part, _needle, fmt in formats.zip_kinds()]
    assert kinds.index("pptx") < kinds.index("docx")
    assert set(kinds) == {"docx", "pptx", "odt", "epub"}


def test_markdown_mmd_draft_failures_carry_line_and_column(tmp_path: Path) -> None:
    # pandoc.TEXT_FORMATS read markdown_mmd as text but verify's list did not: its findings
    # had no LINE:COL. Every markdown flavour's raw text maps back now.
    source = {"id": 1, "url": "https://example.org/a", "title": "A", "accessed": "2025-01-01"}
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": [source]}))
    (tmp_path / "draft.md").write_text("Intro.\n\nIce floats.[1] Water is wet.[7]\n")
    proc = run_citeledger(
        "verify",
        "--from",
        "markdown_mmd",
        "draft.md",
        cwd=tmp_path,
        ledger=tmp_path / "ledger.json",
    )
    assert proc.returncode == 1
    assert "draft.md:3:29: citations not in the ledger" in proc.stderr
