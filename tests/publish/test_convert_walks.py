"""``citeledger convert`` walks the whole tree only where a walk may find something: the
reading of the draft (the trust model's one walk) tells the build which element types the
tree holds and whether it holds raw HTML, a live link or a live attribute. A draft with
none of these is built without the element types' walk, the verifier's walks for
footnotes and raw code, the HTML sanitiser's walk, the page's walk for images, links and
tables, and the Word filter's count of every note; a draft with them is walked as before,
and sanitised."""

from __future__ import annotations

import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import citeledger.document.note_citations as note_citations_module
import citeledger.filters.docx as docx_filter
import citeledger.filters.html_page as html_page
import citeledger.filters.raw_html as raw_html
import citeledger.options.trust as trust
import citeledger.publish.convert as convert_module
import citeledger.verify as verify_module
from citeledger.options import Options
from citeledger.publish.convert import ConvertRequest
from citeledger.publish.convert import convert as build
from tests.helpers import make_ledger

SOURCES = [(k, f"https://example.org/ice/{k}", f"Ice paper {k}", "2024-05-01") for k in (1, 2)]
PLAIN = "---\ntitle: Ice\n---\n\n# Ice\n\nIce floats on water.[1] Sea ice is thin.[2][1]\n"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_ledger(tmp_path / "ledger.json", SOURCES)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITELEDGER_LEDGER", str(tmp_path / "ledger.json"))
    return tmp_path


def _count(
    monkeypatch: pytest.MonkeyPatch, calls: Counter[str], owner: Any, name: str, label: str
) -> None:
    real: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[label] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def _walks(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The walks of the whole tree a build may make besides reading, scanning and placing."""
    calls: Counter[str] = Counter()
    _count(monkeypatch, calls, convert_module, "element_kinds", "element types")
    _count(monkeypatch, calls, verify_module, "note_citations", "footnotes")
    _count(monkeypatch, calls, note_citations_module, "note_citations", "footnotes")
    _count(monkeypatch, calls, trust, "check_raw", "raw code")
    _count(monkeypatch, calls, raw_html, "_sanitize_blocks", "sanitiser")
    _count(monkeypatch, calls, html_page, "figure_alts", "images, links, tables")
    _count(monkeypatch, calls, docx_filter._NoteCounter, "blocks", "notes counted")
    return calls


def _convert(folder: Path, draft: str, output: str) -> Path:
    (folder / "draft.md").write_text(draft, encoding="utf-8")
    out = folder / output
    # A later citation refers to the source's note (a field showing its number): the Word
    # filter then needs each note's number.
    options = Options().updated({"repeat-notes": "cross-reference"})
    build(ConvertRequest(draft=Path("draft.md"), outputs=[out], jobs=1, options=options))
    return out


def test_a_draft_of_text_and_markers_is_built_without_a_walk_it_does_not_need(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _walks(monkeypatch)
    page = _convert(folder, PLAIN, "ice.html").read_text(encoding="utf-8")
    _convert(folder, PLAIN, "ice.docx")
    assert calls == Counter()
    assert 'href="#src-1"' in page


def test_a_draft_with_a_live_attribute_is_still_sanitised(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _walks(monkeypatch)
    draft = PLAIN + '\nA [span]{onclick="alert(1)" title="kept"} here.[2]\n'
    page = _convert(folder, draft, "ice.html").read_text(encoding="utf-8")
    assert calls["sanitiser"] >= 1
    assert "onclick" not in page
    assert 'title="kept"' in page


def test_a_draft_with_footnotes_links_and_raw_html_is_walked_as_before(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _walks(monkeypatch)
    draft = PLAIN + "\nA note.[^a] A [link](https://example.org/x), <b>raw</b>.[2]\n\n[^a]: Ice.\n"
    _convert(folder, draft, "ice.html")
    _convert(folder, draft, "ice.docx")
    assert calls["element types"] == 2
    assert calls["footnotes"] >= 2
    assert calls["sanitiser"] >= 1
    assert calls["images, links, tables"] == 1
    assert calls["notes counted"] >= 1


def _parts(path: Path) -> dict[str, bytes]:
    if path.suffix != ".docx":
        return {path.name: path.read_bytes()}
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in sorted(archive.namelist())}


@pytest.mark.parametrize("output", ["ice.html", "ice.docx"])
@pytest.mark.parametrize("numbering", ["ledger", "sequential"])
def test_the_walks_saved_change_nothing_written(
    folder: Path, monkeypatch: pytest.MonkeyPatch, output: str, numbering: str
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # Office files stamped alike
    draft = PLAIN.replace("title: Ice", f"title: Ice\nciteledger:\n  numbering: {numbering}")
    draft += "\n# Sources\n\n[1] Ice paper 1. https://example.org/ice/1\n\n"
    draft += "[2] Ice paper 2. https://example.org/ice/2\n"
    saved = _parts(_convert(folder, draft, output))
    monkeypatch.setattr(convert_module, "_walked", lambda _read, _doc: None)
    walked = _parts(_convert(folder, draft, output))
    assert saved == walked
