"""Every slide format paginates its Sources list as the pptx deck does: "Sources (1/3)", ...,
each page a slide of its own at the deck's slide level, and the pages read back as one Sources
block that lists every entry (issue 20, section 7)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from citeledger.document.readers import unwrap_slides
from citeledger.document.sources_block import entries, find_sources_block
from citeledger.pandoc import pandoc_path
from tests.helpers import need, run_citeledger

COUNT = 31
PAGE_TITLE = re.compile(r"Sources \((\d+)/(\d+)\)")


def _deck(folder: Path, *, sources_level: int = 2) -> Path:
    sources = [
        {
            "id": n,
            "url": f"https://example.com/some/long/path/to/article-number-{n}.html",
            "title": f"A fairly long title of the source number {n} about something interesting",
            "accessed": "2026-12-01",
            "quotes": [],
        }
        for n in range(1, COUNT + 1)
    ]
    (folder / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}))
    lines = ["# Deck", ""]
    for s in range(7):
        lines += [f"## Slide {s + 1}", ""]
        lines += [" ".join(f"Claim {n}.[{n}]" for n in range(1, COUNT + 1) if n % 7 == s), ""]
    lines += ["#" * sources_level + " Sources", ""]
    draft = folder / "deck.md"
    draft.write_text("\n".join(lines), encoding="utf-8")
    return draft


def _convert(folder: Path, out: str, writer: str) -> subprocess.CompletedProcess[str]:
    run = run_citeledger(
        "convert", "deck.md", "-o", out, "-t", writer, cwd=folder, ledger=folder / "ledger.json"
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run


def _read_back(path: Path) -> dict:
    done = subprocess.run(
        [pandoc_path(), "-f", "html", "-t", "json", str(path)], capture_output=True, check=True
    )
    doc = json.loads(done.stdout)
    unwrap_slides(doc)
    return doc


@pytest.mark.parametrize("writer", ["revealjs", "slidy", "s5", "slideous", "dzslides"])
def test_html_slide_show_paginates_sources_and_reads_back_every_entry(
    writer: str, tmp_path: Path
) -> None:
    _deck(tmp_path)
    _convert(tmp_path, "deck.html", writer)
    html = (tmp_path / "deck.html").read_text(encoding="utf-8")
    titles = PAGE_TITLE.findall(html)
    assert len(titles) >= 3, titles
    assert [int(k) for k, _ in titles] == list(range(1, len(titles) + 1))
    assert {int(n) for _, n in titles} == {len(titles)}
    doc = _read_back(tmp_path / "deck.html")
    block = find_sources_block(doc["blocks"])
    assert block is not None
    assert PAGE_TITLE.fullmatch(block.title), block.title  # the block starts at page 1
    assert [e.id for e in entries(doc["blocks"], block)] == list(range(1, COUNT + 1))
    # Each page is a slide at the deck's slide level (2), not content of a section slide.
    wrappers = re.findall(r'id="sources(?:-\d+)?" class="([^"]*)"', html)
    assert len(wrappers) == len(titles)
    assert all("level2" in classes.split() for classes in wrappers), wrappers


def test_revealjs_sources_pages_verify_back(tmp_path: Path) -> None:
    _deck(tmp_path)
    _convert(tmp_path, "deck.html", "revealjs")
    run = run_citeledger(
        "verify", "deck.html", "--format", "json", cwd=tmp_path, ledger=tmp_path / "ledger.json"
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "no `Sources:` block" not in run.stdout + run.stderr


@pytest.mark.parametrize("sources_level", [1, 2])
def test_beamer_writes_one_frame_per_sources_page_at_the_slide_level(
    sources_level: int, tmp_path: Path
) -> None:
    _deck(tmp_path, sources_level=sources_level)
    _convert(tmp_path, "deck.tex", "beamer")
    tex = (tmp_path / "deck.tex").read_text(encoding="utf-8")
    frames = re.findall(r"\\begin\{frame\}\[[^\]]*\]\{Sources \((\d+)/(\d+)\)\}", tex)
    assert len(frames) >= 3, tex[-3000:]
    assert [int(k) for k, _ in frames] == list(range(1, len(frames) + 1))
    assert "\\section{Sources" not in tex
    listed = [int(n) for n in re.findall(r"\\citeledgerentry\{(\d+)\}", tex)]
    assert listed == list(range(1, COUNT + 1))


@pytest.mark.latex
@pytest.mark.latex
def test_beamer_pdf_shows_every_entry_on_its_sources_pages(tmp_path: Path) -> None:
    need(shutil.which("xelatex") is not None, "xelatex (Debian: texlive-xetex)")
    _deck(tmp_path)
    _convert(tmp_path, "deck.tex", "beamer")
    done = subprocess.run(
        ["xelatex", "-interaction=nonstopmode", "-halt-on-error", "deck.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    pdf = tmp_path / "deck.pdf"
    assert done.returncode == 0 and pdf.is_file(), done.stdout[-2000:]
    pages = subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout.split("\f")
    sources_pages = [p for p in pages if PAGE_TITLE.search(p)]
    assert len(sources_pages) >= 3
    # pdftotext drops the hyphen where \url broke a line: compare without hyphens and breaks.
    text = "".join(sources_pages).replace("-", "").replace("\n", "")
    for n in range(1, COUNT + 1):
        assert f"articlenumber{n}.html" in text, n


def test_a_deck_a_renderer_finishes_gets_one_sources_slide_from_the_filter(tmp_path):
    """convert's pptx: the renderer repaginates for the deck's real layout, so the filter hands
    pandoc one Sources slide (pandoc's writer would spend time on pages the renderer deletes);
    the filter alone (bare pandoc) still paginates for pandoc's default layout."""
    from citeledger.filters.run import apply
    from citeledger.ledger import load_ledger
    from citeledger.options import Options

    draft = _deck(tmp_path)
    ledger = load_ledger(tmp_path / "ledger.json")
    read = [pandoc_path(), "-f", "markdown", "-t", "json", str(draft)]
    raw = subprocess.run(read, capture_output=True, check=True).stdout

    def headings(rendered: bool) -> tuple[list[str], int]:
        doc = json.loads(raw)
        apply(doc, "pptx", options=Options(), ledger=ledger, verify=False, rendered=rendered)
        titles = [
            "".join(i.get("c", " ") if i["t"] == "Str" else " " for i in b["c"][2])
            for b in doc["blocks"]
            if b["t"] == "Header" and b["c"][2][0].get("c", "").startswith("Sources")
        ]
        listed = entries(doc["blocks"], find_sources_block(doc["blocks"], ("Sources",)))
        return titles, len(listed)

    paged, _ = headings(rendered=False)
    assert len(paged) > 1 and all(PAGE_TITLE.fullmatch(t) for t in paged), paged
    one, listed = headings(rendered=True)
    assert one == ["Sources"] and listed == COUNT


def test_converted_deck_still_paginates_its_sources_for_the_real_layout(tmp_path):
    from pptx import Presentation

    _deck(tmp_path)
    _convert(tmp_path, "deck.pptx", "pptx")
    titles = [s.shapes.title.text for s in Presentation(str(tmp_path / "deck.pptx")).slides]
    pages = [t for t in titles if t.startswith("Sources")]
    assert len(pages) > 1 and all(PAGE_TITLE.fullmatch(t) for t in pages), pages
    assert [int(PAGE_TITLE.fullmatch(t).group(1)) for t in pages] == list(range(1, len(pages) + 1))
