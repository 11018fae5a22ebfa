"""The optional ``archived`` address of a source: added, written by ``archive``, checked on load,
merged, and shown beside the URL in every Sources entry."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from citeledger.filters.run import apply
from citeledger.ledger import load_ledger
from citeledger.ledger.merge import merge_ledgers
from citeledger.ledger.render import render_block
from citeledger.options import Options
from citeledger.pandoc import pandoc_path

ARCHIVED = "https://web.archive.org/web/20240305/https://example.com/a"


def write_ledger(path: Path, **extra: str) -> Path:
    source = {"id": 1, "url": "https://example.com/a", "title": "A page", "accessed": "2024-03-05"}
    source.update(extra)
    source["quotes"] = []  # type: ignore[assignment]
    path.write_text(json.dumps({"version": 1, "sources": [source], "last_id": 1}), "utf-8")
    return path


def test_add_archived_records_the_address(cli, tmp_path: Path) -> None:
    done = cli("add", "https://example.com/a", "--archived", ARCHIVED)
    assert done.code == 0, done.err
    assert load_ledger(tmp_path / "ledger.json").source(1).archived == ARCHIVED


def test_add_refuses_an_archived_address_that_is_no_url(cli, tmp_path: Path) -> None:
    done = cli("add", "https://example.com/a", "--archived", "javascript:alert(1)")
    assert done.code != 0
    assert not (tmp_path / "ledger.json").exists()


def test_archive_writes_the_wayback_address_of_the_access_date(cli, tmp_path: Path) -> None:
    cli("add", "https://example.com/a", "--accessed", "2024-03-05")
    cli("add", "https://example.com/b", "--accessed", "2023-12-31T10:00Z")
    done = cli("archive", "--wayback", "2")
    assert done.code == 0, done.err
    book = load_ledger(tmp_path / "ledger.json")
    assert book.source(1).archived is None
    assert book.source(2).archived == "https://web.archive.org/web/20231231/https://example.com/b"
    cli("archive")
    assert load_ledger(tmp_path / "ledger.json").source(1).archived == ARCHIVED


def test_archive_keeps_an_address_already_set(cli, tmp_path: Path) -> None:
    cli("add", "https://example.com/a", "--archived", "https://archive.ph/abc")
    cli("archive", "--wayback")
    assert load_ledger(tmp_path / "ledger.json").source(1).archived == "https://archive.ph/abc"


def test_a_ledger_without_archived_is_written_back_unchanged(tmp_path: Path) -> None:
    path = write_ledger(tmp_path / "l.json")
    book = load_ledger(path)
    assert "archived" not in json.dumps(book.to_dict())
    assert (
        load_ledger(write_ledger(tmp_path / "m.json", archived=ARCHIVED)).to_dict()["sources"][0][
            "archived"
        ]
        == ARCHIVED
    )


@pytest.mark.parametrize("bad", ["javascript:alert(1)", "example.com/page", "http://exa mple"])
def test_an_unsafe_archived_address_is_refused_on_load(tmp_path: Path, bad: str) -> None:
    from citeledger.errors import CiteledgerError

    with pytest.raises(CiteledgerError, match="archived"):
        load_ledger(write_ledger(tmp_path / "l.json", archived=bad))


def test_merge_fills_an_empty_archived_address(tmp_path: Path) -> None:
    ours = load_ledger(write_ledger(tmp_path / "ours.json"))
    theirs = load_ledger(write_ledger(tmp_path / "theirs.json", archived=ARCHIVED))
    result = merge_ledgers(ours, theirs)
    assert ours.source(1).archived == ARCHIVED and result.changed


def test_every_text_style_shows_the_archived_address(tmp_path: Path) -> None:
    book = load_ledger(write_ledger(tmp_path / "l.json", archived=ARCHIVED))
    for style in ("markdown", "plain", "footnotes", "evidence"):
        assert f"(archived {ARCHIVED})" in render_block(book, None, style)


@pytest.mark.parametrize(
    "fmt", ["html", "latex", "typst", "docx", "pptx", "mediawiki", "dokuwiki", "markdown"]
)
def test_every_placement_shows_the_archived_address(tmp_path: Path, fmt: str) -> None:
    book = load_ledger(write_ledger(tmp_path / "l.json", archived=ARCHIVED))
    doc = {
        "pandoc-api-version": [1, 23, 1],
        "meta": {},
        "blocks": [{"t": "Para", "c": [{"t": "Str", "c": "Claim"}, {"t": "Str", "c": "[1]"}]}],
    }
    apply(doc, fmt, options=Options(), ledger=book, verify=False)
    text = json.dumps(doc)
    assert "archived" in text and "web.archive.org/web/20240305" in text
    if fmt in ("html", "markdown"):
        out = subprocess.run(
            [pandoc_path(), "-f", "json", "-t", fmt],
            input=json.dumps(doc),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "archived" in out and "web.archive.org/web/20240305" in out


def test_a_pptx_sources_slide_links_the_archived_copy(tmp_path: Path) -> None:
    from pptx import Presentation

    from tests.helpers import run_citeledger

    ledger = write_ledger(tmp_path / "ledger.json", archived=ARCHIVED)
    (tmp_path / "deck.md").write_text("# Ice\n\n- Ice floats.[1]\n", "utf-8")
    done = run_citeledger("convert", "deck.md", "-o", "deck.pptx", cwd=tmp_path, ledger=ledger)
    assert done.returncode == 0, done.stderr
    links = [
        run.hyperlink.address
        for slide in Presentation(str(tmp_path / "deck.pptx")).slides
        for shape in slide.shapes
        if shape.has_text_frame
        for para in shape.text_frame.paragraphs
        for run in para.runs
        if run.hyperlink.address
    ]
    assert ARCHIVED in links and "https://example.com/a" in links
