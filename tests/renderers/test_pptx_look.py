"""A built deck as its audience sees it: read back with python-pptx, and printed by LibreOffice.

- every ``[n]`` on a slide jumps (``ppaction://hlinksldjump``) to the Sources slide that lists
  entry n, its text still ``[n]``, its ScreenTip naming the source: after ``convert``, and
  after a bare ``pandoc --filter pandoc-citeledger``;
- Sources entries hang: the number at the margin, wrapped lines under the text;
- no text frame holds more than its placeholder by the estimate, on a real report built as a
  deck, and LibreOffice prints every word of it inside the slide;
- the title slide's title and subtitle are both centred; a two-line title stays above the
  accent rule; a section slide's heading is in sentence case, in the middle third.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pptx import Presentation
from pptx.oxml.ns import qn

from citeledger.renderers._pptx_text import frame_height_pt, room_pt
from tests.helpers import ROOT, make_ledger, need, run_citeledger
from tests.helpers.paths import FIXTURES
from tests.helpers.pdf_marks import libreoffice_pdf

JUMP = "ppaction://hlinksldjump"
REPORT = FIXTURES / "corpora" / "real2" / "cited" / "odr-did-report.md"
MARK = re.compile(r"^\[(\d+)\]$")
EMU_PER_PT = 12700
_NUM = r'"([\d.-]+)"'
WORD = re.compile(rf"<word xMin={_NUM} yMin={_NUM} xMax={_NUM} yMax={_NUM}>(.*?)</word>")


def ledger(folder: Path, count: int) -> Path:
    entries = [
        (
            i,
            f"https://example.org/studies/{i}",
            f"Study {i} of sea ice density and its seasonal variation across the Arctic basin",
            "2025-02-01",
        )
        for i in range(1, count + 1)
    ]
    return make_ledger(folder / "ledger.json", entries)


LONG = " ".join(
    f"Ice sample {i} floats on sea water, which is denser than the ice it carries."
    for i in range(8)
)


def deck_md(count: int) -> str:
    lines = [
        "---",
        "title: Sea ice density across the Arctic basin and its seasonal variation",
        "subtitle: A survey of forty studies",
        "author: Field team",
        "---",
        "",
        "# Findings",
        "",
    ]
    for start in range(1, count + 1, 5):
        lines += [f"## Samples {start} onwards", ""]
        lines += [f"- Sample {i} floats.[{i}]" for i in range(start, min(start + 5, count + 1))]
        lines.append("")
    lines += ["## A long slide", ""]
    lines += [f"- {LONG}[{k}]" for k in range(1, 6)]
    lines += ["", "## Two findings and one more: what the samples say about density", ""]
    lines += ["Ice floats.[2]", ""]
    return "\n".join(lines)


def convert(folder: Path, md: str, count: int) -> Path:
    path = ledger(folder, count)
    (folder / "deck.md").write_text(md, encoding="utf-8")
    proc = run_citeledger("convert", "deck.md", "-o", "deck.pptx", cwd=folder, ledger=path)
    assert proc.returncode == 0, proc.stderr
    return folder / "deck.pptx"


def title(slide: Any) -> str:
    shape = slide.shapes.title
    return shape.text_frame.text if shape is not None else ""


def entry_slides(prs: Any) -> dict[int, Any]:
    """Entry number → the Sources slide that lists it."""
    out: dict[int, Any] = {}
    for slide in prs.slides:
        if not title(slide).startswith("Sources"):
            continue
        for p in slide.placeholders[1].text_frame.paragraphs:
            m = re.match(r"\[(\d+)\]", p.text)
            if m:
                out[int(m.group(1))] = slide
    return out


def marks(prs: Any) -> list[tuple[Any, Any, int]]:
    """(slide, run element, n) of every ``[n]`` run on a slide that is not a Sources slide."""
    out = []
    for slide in prs.slides:
        if title(slide).startswith("Sources"):
            continue
        for r in slide.shapes._spTree.iter(qn("a:r")):
            for t in r.findall(qn("a:t")):
                for m in re.finditer(r"\[(\d+)\]", t.text or ""):
                    out.append((slide, r, int(m.group(1))))
    return out


def assert_marks_jump_to_their_entries(deck: Path, count: int) -> None:
    prs = Presentation(str(deck))
    where = entry_slides(prs)
    assert len({id(s.part) for s in where.values()}) > 1  # the list runs over several slides
    found = marks(prs)
    assert {n for _, _, n in found} == set(range(1, count + 1))
    for slide, run, n in found:
        text = run.find(qn("a:t")).text
        assert MARK.match(text), f"{text!r}: a mark is a run of its own"
        click = run.find(qn("a:rPr")).find(qn("a:hlinkClick"))
        assert click is not None, f"[{n}] on {title(slide)!r} links nowhere"
        assert click.get("action") == JUMP
        target = slide.part.related_part(click.get(qn("r:id")))
        assert target is where[n].part, f"[{n}] jumps to the wrong slide"


def test_every_mark_jumps_to_the_sources_slide_holding_its_entry(tmp_path: Path) -> None:
    deck = convert(tmp_path, deck_md(40), 40)
    assert_marks_jump_to_their_entries(deck, 40)
    prs = Presentation(str(deck))
    _, run, n = marks(prs)[0]
    tip = run.find(qn("a:rPr")).find(qn("a:hlinkClick")).get("tooltip")
    assert tip.startswith(f"[{n}] source: Study {n} of sea ice")


def test_bare_pandoc_with_the_filter_links_marks_too(tmp_path: Path) -> None:
    pandoc_filter = shutil.which("pandoc-citeledger")
    assert pandoc_filter, "pandoc-citeledger is not on PATH"
    path = ledger(tmp_path, 40)
    (tmp_path / "deck.md").write_text(deck_md(40), encoding="utf-8")
    from citeledger.pandoc import pandoc_path

    proc = subprocess.run(
        [pandoc_path(), "deck.md", "--filter", pandoc_filter, "-o", "deck.pptx"],
        cwd=tmp_path,
        env={**__import__("os").environ, "CITELEDGER_LEDGER": str(path)},
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert_marks_jump_to_their_entries(tmp_path / "deck.pptx", 40)


def test_sources_entries_hang_with_the_text_aligned_after_the_number(tmp_path: Path) -> None:
    prs = Presentation(str(convert(tmp_path, deck_md(40), 40)))
    paragraphs = [
        p
        for slide in prs.slides
        if title(slide).startswith("Sources")
        for p in slide.placeholders[1].text_frame.paragraphs
    ]
    assert len(paragraphs) == 40
    for p in paragraphs:
        p_pr = p._p.find(qn("a:pPr"))
        margin, indent = int(p_pr.get("marL")), int(p_pr.get("indent"))
        assert margin > 0 and indent == -margin, p.text
        stop = p_pr.find(qn("a:tabLst")).find(qn("a:tab"))
        assert int(stop.get("pos")) == margin
        assert re.match(r"\[\d+\]\t\S", p.text)


def overflowing(deck: Path) -> list[str]:
    prs = Presentation(str(deck))
    out = []
    for k, slide in enumerate(prs.slides, 1):
        for shape in slide.shapes:
            if shape.has_text_frame and shape.text_frame.text.strip():
                used, room = frame_height_pt(shape), room_pt(shape)
                if used > room:
                    out.append(
                        f"slide {k} {title(slide)[:40]!r} {shape.name}: {used:.0f} > {room:.0f} pt"
                    )
    return out


def pdf_words(pdf: Path) -> list[tuple[int, float, float, float, float, float, float, str]]:
    """(page, page width, page height, xMin, yMin, xMax, yMax, word) of every word, in pt."""
    tool = shutil.which("pdftotext")
    need(tool is not None, "poppler (pdftotext; Debian: poppler-utils)")
    assert tool is not None
    xml = subprocess.run(
        [tool, "-bbox", str(pdf), "-"], capture_output=True, check=True, text=True
    ).stdout
    out = []
    for k, page in enumerate(re.findall(r"<page (.*?)</page>", xml, re.S), 1):
        w, h = (float(v) for v in re.findall(r'(?:width|height)="([\d.]+)"', page)[:2])
        for m in WORD.finditer(page):
            x0, y0, x1, y1 = (float(m.group(i)) for i in range(1, 5))
            out.append((k, w, h, x0, y0, x1, y1, m.group(5)))
    return out


@pytest.mark.slow
def test_a_real_report_as_a_deck_fits_every_slide(tmp_path: Path) -> None:
    shutil.copy(REPORT, tmp_path / "report.md")
    led = REPORT.with_name("odr-did-report.ledger.json")
    proc = run_citeledger("convert", "report.md", "-o", "report.pptx", cwd=tmp_path, ledger=led)
    assert proc.returncode == 0, proc.stderr
    deck = tmp_path / "report.pptx"
    assert overflowing(deck) == []
    prs = Presentation(str(deck))
    assert any(title(s).endswith("(cont.)") for s in prs.slides)
    bottom = max(
        (s.top + s.height) / EMU_PER_PT
        for s in prs.slide_layouts.get_by_name("Title and Content").placeholders
        if s.placeholder_format.idx == 1
    )
    words = pdf_words(libreoffice_pdf(deck, tmp_path))
    assert words
    for page, w, h, x0, y0, x1, y1, word in words:
        assert x0 >= 0 and x1 <= w and y0 >= 0 and y1 <= h, f"page {page}: {word!r} off the slide"
        # Nothing under the body placeholder but the footer row (the title slide's date).
        assert y1 <= bottom + 4 or y0 >= bottom + 6, f"page {page}: {word!r} cut at the bottom"


def test_a_long_slide_goes_on_on_a_continuation_slide(tmp_path: Path) -> None:
    deck = convert(tmp_path, deck_md(10), 10)
    assert overflowing(deck) == []
    names = [title(s) for s in Presentation(str(deck)).slides]
    assert "A long slide (cont.)" in names
    assert names.index("A long slide (cont.)") == names.index("A long slide") + 1


def effective(shape: Any, attr: str, *, run: bool = False) -> str | None:
    """The first value of ``attr`` on the first paragraph's level-1 style, from the shape up
    its placeholder chain to the master's text styles (PowerPoint's inheritance)."""
    chain = [shape]
    while chain[-1].is_placeholder and hasattr(chain[-1], "_base_placeholder"):
        base = chain[-1]._base_placeholder
        if base is None:
            break
        chain.append(base)
    levels = []
    p = shape.text_frame._txBody.find(qn("a:p"))
    if p is not None and p.find(qn("a:pPr")) is not None:
        levels.append(p.find(qn("a:pPr")))
    for link in chain:
        lvl = link._element.find(".//" + qn("a:lstStyle") + "/" + qn("a:lvl1pPr"))
        if lvl is not None:
            levels.append(lvl)
    master = shape.part.slide_layout.slide_master._element.find(qn("p:txStyles"))
    kind = "p:titleStyle" if shape == shape.part.slide.shapes.title else "p:bodyStyle"
    levels.append(master.find(qn(kind)).find(qn("a:lvl1pPr")))
    for lvl in levels:
        el = lvl.find(qn("a:defRPr")) if run else lvl
        if el is not None and el.get(attr) is not None:
            return str(el.get(attr))
    return None


def test_the_title_slide_centres_title_and_subtitle(tmp_path: Path) -> None:
    prs = Presentation(str(convert(tmp_path, deck_md(5), 5)))
    first = prs.slides[0]
    assert first.slide_layout.name == "Title Slide"
    title_shape = first.shapes.title
    subtitle = next(s for s in first.placeholders if s.placeholder_format.idx == 1)
    assert effective(title_shape, "algn") == "ctr"
    assert effective(subtitle, "algn") == "ctr"


def test_two_line_titles_stay_above_the_rule_and_sections_sit_mid_slide(tmp_path: Path) -> None:
    deck = convert(tmp_path, deck_md(5), 5)
    prs = Presentation(str(deck))
    for name in ("Title and Content", "Two Content", "Comparison", "Title Only"):
        layout = prs.slide_layouts.get_by_name(name)
        head = next(s for s in layout.placeholders if s.placeholder_format.idx == 0)
        shapes = [*layout.shapes, *layout.slide_master.shapes]
        rules = [s for s in shapes if not s.is_placeholder and s.height < 50000]
        assert rules, f"{name}: no accent rule"
        assert all(r.top >= head.top + head.height for r in rules), name
    section = prs.slide_layouts.get_by_name("Section Header")
    section_title = next(s for s in section.placeholders if s.placeholder_format.idx == 0)
    slides = list(prs.slides)
    sec = next(s for s in slides if s.slide_layout.name == "Section Header")
    assert section_title is not None
    long = next(k for k, s in enumerate(slides, 1) if title(s).startswith("Two findings"))
    sec_page = slides.index(sec) + 1
    layout = slides[long - 1].slide_layout
    shapes = [*layout.shapes, *layout.slide_master.shapes]
    rule_top = min(s.top for s in shapes if not s.is_placeholder) / EMU_PER_PT
    words = pdf_words(libreoffice_pdf(deck, tmp_path))
    heading = [w for w in words if w[0] == long and w[4] < rule_top]
    lines = {round(w[4]) for w in heading}
    assert len(lines) == 2, "the long title takes two lines"
    assert all(w[6] <= rule_top for w in heading), "a title line crosses the accent rule"
    findings = [w for w in words if w[0] == sec_page and w[7] == "Findings"]
    assert findings
    _, _, h, _, y0, _, y1, _ = findings[0]
    assert h / 3 <= y0 and y1 <= 2 * h / 3, "the section heading is not in the middle third"
    assert effective(sec.shapes.title, "cap", run=True) in (None, "none")


def test_the_bundled_reference_deck_is_the_one_its_script_makes() -> None:
    from citeledger.templates.make_reference_pptx import build

    assert (ROOT / "citeledger" / "templates" / "reference.pptx").read_bytes() == build()


def test_a_code_block_longer_than_a_slide_is_cut_between_its_lines(tmp_path: Path) -> None:
    code = [f"step_{k} = measure(sample_{k})  # ice sample {k}" for k in range(60)]
    md = deck_md(3) + "\n## The script\n\nIt reads the samples.[1]\n\n```\n"
    md += "\n".join(code) + "\n```\n"
    deck = convert(tmp_path, md, 5)
    assert overflowing(deck) == []
    prs = Presentation(str(deck))
    names = [title(s) for s in prs.slides]
    assert names.count("The script (cont.)") >= 2
    shown: list[str] = []
    for slide in prs.slides:
        if title(slide).startswith("The script"):
            text = slide.placeholders[1].text_frame.text
            shown += [line for line in re.split(r"[\n\v]", text) if line.startswith("step_")]
    assert shown == code  # every line once, in order
