"""How much work a wiki build does, counted rather than timed: the walk over every footnote
runs once per build (verify reads the notes and the build places what verify read), and the
html pages' navigation is handed each page's place instead of looking it up among all pages
(n lookups of n steps each grew with the square of the pages); a gfm page's Sources entry is
made once for all the pages that list it; a long draft is read by one pandoc run per core
(document/parts.py) into the pages a whole reading gives."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

import citeledger.document.note_citations as note_module
import citeledger.document.parts as parts_module
import citeledger.publish.wiki.build as build_module
import citeledger.verify as verify_module
from citeledger.filters.html import HtmlEntries
from citeledger.ledger import load_ledger
from citeledger.publish.wiki import build_wiki
from tests.publish.test_wiki import write_ledger

NOTED = """\
# Floating

Ice floats on water.[1] Sea ice is thinner each year.[^a]

[^a]: https://example.org/ice/2

# Melting

Ice melts above zero.[1]
"""


def test_a_wiki_build_walks_the_footnotes_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    draft = tmp_path / "notes.md"
    draft.write_text(NOTED, encoding="utf-8")
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    calls: list[range] = []
    real = note_module.note_citations

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs.get("skip", range(0)))
        return real(*args, **kwargs)

    # Both names the build reaches it by: verify's and the placement's own module's.
    monkeypatch.setattr(verify_module, "note_citations", counted)
    monkeypatch.setattr(note_module, "note_citations", counted)
    out = tmp_path / "out"
    build_wiki([draft], out, ledger, fmt="gfm", say=lambda _l: None)
    assert len(calls) == 1
    page = (out / "floating.md").read_text(encoding="utf-8")
    # The footnote verify counted as a citation of 2 is placed as one, listed on its page.
    assert '<a href="#src-2"' in page
    assert "https://example.org/ice/2" in page.split("Sources")[-1]


def test_html_navigation_is_handed_each_pages_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    draft = tmp_path / "many.md"
    draft.write_text(
        "\n".join(f"# Part {k}\n\nIce floats.[1]\n" for k in range(1, 41)), encoding="utf-8"
    )
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    handed: dict[str, int | None] = {}
    real = build_module.navigation

    def recorded(page: Any, pages: Any, title: str, at: int | None = None) -> str:
        handed[page.slug] = at
        return real(page, pages, title, at)

    monkeypatch.setattr(build_module, "navigation", recorded)
    result = build_wiki([draft], tmp_path / "out", ledger, fmt="html", say=lambda _l: None)
    assert len(result.pages) == 40
    assert {p.slug: handed[p.slug] for p in result.pages} == {
        p.slug: k for k, p in enumerate(result.pages)
    }
    third = (tmp_path / "out" / "part-3.html").read_text(encoding="utf-8")
    assert 'href="part-2.html" rel="prev"' in third
    assert 'href="part-4.html" rel="next"' in third


def test_a_gfm_sources_entry_is_made_once_for_every_page_that_lists_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = []
    for k in range(1, 31):
        twice = " It sinks when it melts.[1]" if k % 3 == 0 else ""
        parts.append(f"# Part {k}\n\nIce floats.[1] Ice paper two says so.[2]{twice}\n")
    draft = tmp_path / "many.md"
    draft.write_text("\n".join(parts), encoding="utf-8")
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    made: list[int] = []
    real = HtmlEntries.entry

    def counted(self: HtmlEntries, source: Any, number: int) -> Any:
        made.append(source.id)
        return real(self, source, number)

    monkeypatch.setattr(HtmlEntries, "entry", counted)
    out = tmp_path / "out"
    build_wiki([draft], out, ledger, fmt="gfm", say=lambda _l: None)
    # Three distinct entries on the pages (1 cited once, 1 cited twice, 2 cited once), and
    # the sources page's two: not one per page.
    assert sorted(made) == [1, 1, 1, 2, 2]
    for k in (1, 3):
        page = (out / f"part-{k}.md").read_text(encoding="utf-8")
        listed = page.split("# Sources")[-1]
        backs = re.findall(r"#cite-1-(\d)", listed)
        assert backs == (["1", "2"] if k == 3 else ["1"])
        assert "https://example.org/ice/1" in listed and "https://example.org/ice/2" in listed


@pytest.mark.parametrize("fmt", ["gfm", "html", "mediawiki"])
def test_a_long_draft_is_read_by_one_pandoc_run_per_core_into_the_same_pages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    sections = [f"# Part {k}\n\nIce floats.[1] Ice paper two says so.[2]\n" for k in range(40)]
    draft = tmp_path / "long.md"
    draft.write_text("\n".join(sections), encoding="utf-8")
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    reads: list[str] = []
    real = parts_module.run_pandoc

    def counted(args: list[str], **kwargs: Any) -> bytes:
        reads.append(kwargs["stdin"])
        return real(args, **kwargs)

    monkeypatch.setattr(parts_module, "run_pandoc", counted)
    built: dict[int, dict[str, bytes]] = {}
    for least in (10**9, 0):  # read whole, then in parts
        monkeypatch.setattr(parts_module, "MIN_CHARS", least)
        out = tmp_path / f"out-{least}"
        build_wiki([draft], out, ledger, fmt=fmt, say=lambda _l: None)
        built[least] = {p.name: p.read_bytes() for p in out.iterdir()}
    cores = os.cpu_count() or 1
    # One run per core, up to four; a machine of one core reads the draft whole.
    assert len(reads) == (min(4, cores) if cores > 1 else 0)
    if reads:
        assert "".join(reads) == draft.read_text(encoding="utf-8")
    assert built[0] == built[10**9] and len(built[0]) == 42
