"""pptx: [n] in the bullets, never a URL on a body slide, paginated Sources slides with live links,
no "Notes" slide; both the in-process path and ``pandoc --filter pandoc-citeledger`` + finish."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from pptx import Presentation

from citeledger.filters.pptx import slide_level
from citeledger.filters.run import apply
from citeledger.formats.slide_fit import (
    BodyBox,
    SlideEntry,
    entry_height_pt,
    fit_entry,
    paginate,
    wrapped_lines,
)
from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.pandoc import pandoc_path, run_pandoc
from citeledger.renderers.pptx import postprocess_pptx
from citeledger.templates.make_reference_pptx import build as build_reference
from tests.helpers import ROOT, make_ledger

REFERENCE = ROOT / "citeledger" / "templates" / "reference.pptx"


def write_ledger(path: Path, count: int, *, long_titles: bool = False) -> Path:
    sources = []
    for i in range(1, count + 1):
        title = f"Study {i} of sea ice density"
        if long_titles:
            title += " and its seasonal variation across the Arctic basin" * 3
        sources.append(
            {
                "id": i,
                "url": f"https://example.org/studies/{i}",
                "title": title,
                "accessed": "2025-02-01",
                "quotes": [{"text": f"Ice sample {i} floats on sea water", "added": "2025-02-01"}],
            }
        )
    return make_ledger(path, sources)


def deck_md(count: int, *, footnote: bool = False) -> str:
    lines = ["---", "title: Sea ice", "---", "", "# Findings", ""]
    per_slide = 6
    for start in range(1, count + 1, per_slide):
        lines += [f"## Slide {start}", ""]
        for i in range(start, min(start + per_slide, count + 1)):
            lines.append(f"- Sample {i} floats.[{i}]")
        lines.append("")
    if footnote:
        lines += ["## Caveats", "", "Ice is tricky.^[Measured in winter only.] It floats.[1]", ""]
    return "\n".join(lines)


def build_in_process(tmp: Path, md: str, ledger_path: Path, **opts: object) -> Path:
    ledger = load_ledger(ledger_path)
    options = Options(**opts)  # type: ignore[arg-type]
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=md))
    apply(doc, "pptx", options=options, ledger=ledger, say=lambda _l: None)
    out = tmp / "deck.pptx"
    run_pandoc(
        ["-f", "json", "-o", str(out), "--reference-doc", str(REFERENCE)], stdin=json.dumps(doc)
    )
    postprocess_pptx(out, ledger=ledger, options=options)
    return out


def build_with_pandoc_filter(tmp: Path, md: str, ledger_path: Path) -> Path:
    pandoc_filter = shutil.which("pandoc-citeledger")
    assert pandoc_filter, "pandoc-citeledger is not on PATH: pip install -e ."
    (tmp / "deck.md").write_text(md, encoding="utf-8")
    out = tmp / "deck.pptx"
    proc = subprocess.run(
        [pandoc_path(), "deck.md", "--filter", pandoc_filter, "-o", str(out)],
        cwd=tmp,
        env={**os.environ, "CITELEDGER_LEDGER": str(ledger_path)},
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return out


def titles(path: Path) -> list[str]:
    prs = Presentation(str(path))
    return [s.shapes.title.text if s.shapes.title is not None else "" for s in prs.slides]


def source_slides(path: Path) -> list:
    prs = Presentation(str(path))
    return [
        s
        for s in prs.slides
        if s.shapes.title is not None and s.shapes.title.text.startswith("Sources")
    ]


def body_texts(path: Path) -> list[str]:
    prs = Presentation(str(path))
    out = []
    for s in prs.slides:
        if s.shapes.title is not None and s.shapes.title.text.startswith("Sources"):
            continue
        out += [sh.text_frame.text for sh in s.shapes if sh.has_text_frame]
    return out


def linked_urls(slides: list) -> list[str]:
    return [
        run.hyperlink.address
        for s in slides
        for sh in s.shapes
        if sh.has_text_frame
        for p in sh.text_frame.paragraphs
        for run in p.runs
        if run.hyperlink.address
    ]


def test_forty_sources_continue_on_numbered_sources_slides(tmp_path: Path) -> None:
    ledger = write_ledger(tmp_path / "ledger.json", 40)
    deck = build_in_process(tmp_path, deck_md(40), ledger)
    slides = source_slides(deck)
    assert len(slides) > 1
    names = [s.shapes.title.text for s in slides]
    assert names == [f"Sources ({k}/{len(slides)})" for k in range(1, len(slides) + 1)]
    assert titles(deck)[-len(slides) :] == names  # the deck ends with them


def test_every_cited_source_is_a_live_link_in_ledger_order(tmp_path: Path) -> None:
    ledger = write_ledger(tmp_path / "ledger.json", 40)
    deck = build_in_process(tmp_path, deck_md(40), ledger)
    assert linked_urls(source_slides(deck)) == [
        f"https://example.org/studies/{i}" for i in range(1, 41)
    ]
    texts = [p.text for s in source_slides(deck) for p in s.placeholders[1].text_frame.paragraphs]
    assert texts[0] == "[1]\tStudy 1 of sea ice density \u2014 https://example.org/studies/1"


def test_body_slides_keep_the_marker_and_show_no_url(tmp_path: Path) -> None:
    ledger = write_ledger(tmp_path / "ledger.json", 12)
    deck = build_in_process(tmp_path, deck_md(12), ledger)
    body = "\n".join(body_texts(deck))
    assert "Sample 3 floats.[3]" in body
    assert "http" not in body


def test_sources_slide_text_fits_its_placeholder_by_the_estimate(tmp_path: Path) -> None:
    ledger = write_ledger(tmp_path / "ledger.json", 35, long_titles=True)
    deck = build_in_process(tmp_path, deck_md(35), ledger)
    for slide in source_slides(deck):
        body = slide.placeholders[1]
        sizes = {r.font.size.pt for p in body.text_frame.paragraphs for r in p.runs}
        assert sizes == {14.0}  # a readable size, set explicitly
        box = BodyBox(int(body.width), int(body.height), 14.0)
        used = sum(
            entry_height_pt(SlideEntry(p.text, "", 0), box) for p in body.text_frame.paragraphs
        )
        assert used <= box.inner_height_pt


def test_long_titles_alone_make_the_list_paginate(tmp_path: Path) -> None:
    short = write_ledger(tmp_path / "short.json", 12)
    long = write_ledger(tmp_path / "long.json", 12, long_titles=True)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert len(source_slides(build_in_process(tmp_path / "a", deck_md(12), short))) == 1
    assert len(source_slides(build_in_process(tmp_path / "b", deck_md(12), long))) > 1


def test_pandoc_filter_alone_already_ends_with_linked_sources_slides(tmp_path: Path) -> None:
    ledger = write_ledger(tmp_path / "ledger.json", 30)
    deck = build_with_pandoc_filter(tmp_path, deck_md(30, footnote=True), ledger)
    slides = source_slides(deck)
    assert slides and slides[0].shapes.title.text.startswith("Sources")
    assert set(linked_urls(slides)) == {f"https://example.org/studies/{i}" for i in range(1, 31)}
    assert "Notes" not in titles(deck)
    assert "http" not in "\n".join(body_texts(deck))


def test_finish_repaginates_a_deck_written_by_pandoc_with_the_filter(tmp_path: Path) -> None:
    ledger_path = write_ledger(tmp_path / "ledger.json", 30)
    deck = build_with_pandoc_filter(tmp_path, deck_md(30), ledger_path)
    before = len(source_slides(deck))
    postprocess_pptx(deck, ledger=load_ledger(ledger_path), options=Options())
    after = source_slides(deck)
    assert 1 < len(after) < before  # 14 pt on the real layout packs more per slide than 24 pt
    assert linked_urls(after) == [f"https://example.org/studies/{i}" for i in range(1, 31)]
    postprocess_pptx(deck, ledger=load_ledger(ledger_path), options=Options())
    assert len(source_slides(deck)) == len(after)  # finishing twice changes nothing


def test_footnotes_go_to_speaker_notes_and_no_notes_slide_appears(tmp_path: Path) -> None:
    ledger = write_ledger(tmp_path / "ledger.json", 3)
    deck = build_in_process(tmp_path, deck_md(3, footnote=True), ledger)
    assert "Notes" not in titles(deck)
    prs = Presentation(str(deck))
    caveats = next(s for s in prs.slides if s.shapes.title.text == "Caveats")
    assert "Measured in winter only." in caveats.notes_slide.notes_text_frame.text


def test_finish_removes_pandocs_notes_slide(tmp_path: Path) -> None:
    ledger_path = write_ledger(tmp_path / "ledger.json", 2)
    md = "## One\n\n- Ice floats.^[A footnote.] Really.[1]\n- Water.[2]\n"
    out = tmp_path / "plain.pptx"
    run_pandoc(["-f", "markdown", "-o", str(out)], stdin=md)  # no filter: pandoc's Notes slide
    assert titles(out)[-1] == "Notes"
    postprocess_pptx(out, ledger=load_ledger(ledger_path), options=Options())
    assert "Notes" not in titles(out)
    assert linked_urls(source_slides(out)) == [
        "https://example.org/studies/1",
        "https://example.org/studies/2",
    ]


def test_slide_notes_list_each_slides_sources_with_quotes(tmp_path: Path) -> None:
    ledger = write_ledger(tmp_path / "ledger.json", 8)
    deck = build_in_process(tmp_path, deck_md(8), ledger, slide_notes=True)
    prs = Presentation(str(deck))
    second = next(s for s in prs.slides if s.shapes.title.text == "Slide 7")
    notes = second.notes_slide.notes_text_frame.text
    assert "[7] Study 7 of sea ice density \u2014 https://example.org/studies/7" in notes
    assert "\u201cIce sample 8 floats on sea water\u201d" in notes
    assert "[1]" not in notes  # only this slide's sources


def test_sources_heading_is_written_at_the_decks_slide_level() -> None:
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=deck_md(3)))
    assert slide_level(doc["blocks"]) == 2
    flat = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin="# A\n\ntext\n"))
    assert slide_level(flat["blocks"]) == 1


def test_wrap_estimate_counts_words_long_urls_and_cjk() -> None:
    box = BodyBox(width=8229600, height=3394472, font_pt=14.0)
    per_line = int(box.line_ems / 0.5)
    assert wrapped_lines("word " * 5, box) == 1
    assert wrapped_lines("x" * (per_line * 2 + 2), box) == 3  # a URL breaks mid-word
    assert wrapped_lines("\u6c37" * int(box.line_ems * 2), box) == 2  # CJK: 1 em per character


def test_a_pathological_title_is_shortened_never_the_url() -> None:
    box = BodyBox(width=8229600, height=3394472, font_pt=14.0)
    entry = SlideEntry("[1] " + "very long title " * 200 + "\u2014 ", "https://e.org/x", 1)
    fitted = fit_entry(entry, box)
    assert fitted.url == entry.url and "\u2026" in fitted.text
    assert len(paginate([entry], box)) == 1


def test_reference_deck_is_reproducible_and_keeps_pandocs_layout_names() -> None:
    first = build_reference()
    assert first == build_reference()
    names = {layout.name for layout in Presentation(str(REFERENCE)).slide_layouts}
    assert {"Title Slide", "Title and Content", "Section Header", "Two Content"} <= names
