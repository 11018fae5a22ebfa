"""pptx fitting on a long deck: the continuation slides are the ones python-pptx's own
``add_slide`` makes, and the work of adding them grows with the deck, not with its square.

A 1.7 MB report's deck (800 slides, 2,400 continuation slides) spent a minute and a half
looking each new slide up among all the others; these tests build real decks with pandoc, fit
them, and read them back.
"""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path
from typing import Any

import pytest
from pptx import Presentation
from pptx.opc.package import Part
from pptx.oxml import parse_xml
from pptx.oxml.ns import nsdecls, qn

from citeledger.filters.run import apply
from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.pandoc import run_pandoc
from citeledger.renderers import _pptx_oxml
from citeledger.renderers import _pptx_text as tx
from citeledger.renderers.pptx import postprocess_pptx
from tests.helpers import ROOT, make_ledger

REFERENCE = ROOT / "citeledger" / "templates" / "reference.pptx"
LONG = " ".join(f"Ice sample {i} floats on sea water, denser than the ice." for i in range(6))


def long_deck_md(slides: int) -> str:
    """``slides`` slides, each too long for one slide (so each gets continuation slides)."""
    lines = ["---", "title: Sea ice", "---", ""]
    for n in range(1, slides + 1):
        lines += [f"## Long slide {n}", ""]
        lines += [f"- {LONG}[{1 + (n + k) % 5}]" for k in range(6)]
        lines.append("")
    return "\n".join(lines)


def build(folder: Path, slides: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    entries = [(i, f"https://example.org/s/{i}", f"Study {i}", "2025-02-01") for i in range(1, 6)]
    ledger = load_ledger(make_ledger(folder / "ledger.json", entries))
    options = Options()
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=long_deck_md(slides)))
    apply(doc, "pptx", options=options, ledger=ledger, say=lambda _l: None)
    out = folder / "deck.pptx"
    run_pandoc(
        ["-f", "json", "-o", str(out), "--reference-doc", str(REFERENCE)], stdin=json.dumps(doc)
    )
    postprocess_pptx(out, ledger=ledger, options=options)
    return out


def parts(deck: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(deck) as z:
        return {n: z.read(n) for n in z.namelist() if n != "docProps/core.xml"}


def pptx_add(self: Any, layout: Any, index: int) -> Any:
    """python-pptx's own way: ``add_slide``, then the slide's entry found and moved."""
    prs = self.prs
    slide = prs.slides.add_slide(layout)
    id_list = prs.slides._sldIdLst
    entry = next(e for e in id_list if prs.part.related_part(e.rId) is slide.part)
    id_list.remove(entry)
    id_list.insert(index, entry)
    return slide


def test_continuation_slides_are_python_pptxs_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = build(tmp_path / "ours", 12)
    names = [s.shapes.title.text for s in Presentation(str(ours)).slides if s.shapes.title]
    assert names.index("Long slide 3 (cont.)") == names.index("Long slide 3") + 1
    monkeypatch.setattr(_pptx_oxml.SlideAdder, "add", pptx_add)
    theirs = build(tmp_path / "theirs", 12)
    assert parts(ours) == parts(theirs)


def lookups(folder: Path, slides: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Slides in the finished deck, and relationship lookups made while building it."""
    count = 0
    original = Part.related_part

    def counted(self: Part, r_id: str) -> Part:
        nonlocal count
        count += 1
        return original(self, r_id)

    with monkeypatch.context() as m:
        m.setattr(Part, "related_part", counted)
        deck = build(folder, slides)
    return len(Presentation(str(deck)).slides), count


def test_fitting_a_deck_four_times_as_long_costs_about_four_times_as_much(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    small, small_lookups = lookups(tmp_path / "small", 10, monkeypatch)
    large, large_lookups = lookups(tmp_path / "large", 40, monkeypatch)
    assert large > 3.5 * small  # every long slide was split
    # Per slide of the deck, the lookups stay flat (before the fix they grew with the deck:
    # 3.4 times as many per slide here).
    assert large_lookups / large <= 1.3 * small_lookups / small


# The measure a character at a time, as it was before words were measured once per build:
# the token measure must give the same heights to the last bit (a slide is cut where they say).
def reference_height(p: Any, styles: Any, box: Any, *, first: bool, scale: float = 1.0) -> float:
    style = tx.paragraph_style(p, styles)
    capacity = (box.width - style.margin) / tx.EMU_PER_PT
    lines: list[list[tuple[str, float]]] = [[]]
    sizes = [0.0]
    for child in p:
        if child.tag == qn("a:br"):
            lines.append([])
            sizes.append(tx.run_size(child, style.size_pt) * scale)
            sizes[-2] = sizes[-2] or sizes[-1]
        elif child.tag in (qn("a:r"), qn("a:fld")):
            size = tx.run_size(child, style.size_pt) * scale
            sizes[-1] = size if not lines[-1] else max(sizes[-1], size)
            mono, bold = tx.is_monospace(child), tx._is_bold(child)
            t = child.find(qn("a:t"))
            for ch in t.text or "" if t is not None else "":
                if ch in "\n\v":
                    lines.append([])
                    sizes.append(size)
                    continue
                lines[-1].append((ch, size * tx.glyph_em(ch, mono=mono, bold=bold)))
    if not sizes[-1]:
        sizes[-1] = style.size_pt * scale
    biggest = max(sizes)
    height = sum(
        reference_wrapped(line, capacity) * size * tx.LINE * style.spacing
        for line, size in zip(lines, sizes, strict=True)
    )
    if not first:
        before = style.before_pt
        height += before if before is not None else style.before_pct * biggest * tx.LINE
    return height


def reference_wrapped(chars: list[tuple[str, float]], capacity: float) -> int:
    if capacity <= 0:
        return max(1, len(chars))
    lines, used, word, pending_space = 1, 0.0, 0.0, 0.0

    def place(width: float) -> None:
        nonlocal lines, used, pending_space
        space = pending_space if used else 0.0
        if used and used + space + width > capacity:
            lines += 1
            used, space = 0.0, 0.0
        used += space
        while used + width > capacity:
            width -= capacity - used
            lines += 1
            used = 0.0
        used += width
        pending_space = 0.0

    for ch, width in chars:
        if ch.isspace():
            if word:
                place(word)
                word = 0.0
            pending_space += width
        elif tx.is_wide(ch):
            if word:
                place(word)
                word = 0.0
            place(width)
        else:
            word += width
    if word:
        place(word)
    return lines


PIECES = ["Ice", " ", "  ", "floats", ".", "[12]", "\t", "海冰", "密度", "\n", "x" * 90]
PIECES += ["Größe", "lé", "–", " 浮", "https://example.org/a/very/long/path", "\u00a0", "\u3000"]


def paragraph(rng: random.Random) -> Any:
    runs = []
    for _ in range(rng.randint(1, 12)):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))
        props = []
        if rng.random() < 0.3:
            props.append(f'sz="{rng.choice([1000, 1450, 1800, 2400])}"')
        if rng.random() < 0.3:
            props.append('b="1"')
        face = '<a:latin typeface="Consolas"/>' if rng.random() < 0.2 else ""
        escaped = text.replace("&", "&amp;").replace("<", "&lt;")
        tag = "a:br" if rng.random() < 0.1 else "a:r"
        if tag == "a:br":
            runs.append(f"<a:br><a:rPr {' '.join(props)}/></a:br>")
        else:
            runs.append(f"<a:r><a:rPr {' '.join(props)}>{face}</a:rPr><a:t>{escaped}</a:t></a:r>")
    return parse_xml(f"<a:p {nsdecls('a')}>{''.join(runs)}</a:p>")


def test_words_measured_once_give_the_heights_measured_a_character_at_a_time() -> None:
    rng = random.Random(37)
    styles = {level: tx.LevelStyle(size_pt=18.0, margin=0) for level in tx.LEVELS}
    for k in range(3000):
        p = paragraph(rng)
        box = tx.Box(width=rng.choice([0, 300_000, 2_000_000, 8_000_000]), height=5_000_000)
        scale = rng.choice([1.0, 0.9, 0.5])
        first = k % 2 == 0
        ours = tx.paragraph_height_pt(p, styles, box, first=first, scale=scale)
        assert ours == reference_height(p, styles, box, first=first, scale=scale), k


def test_a_shapes_placeholder_is_found_without_compiling_an_xpath_each_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """python-pptx compiles its ``p:ph`` lookup at every call (90,000 calls, a fifth of the
    renderer's time on a report's deck); the renderer asks the same compiled once, and gives
    python-pptx its own lookup back when it is done."""
    from pptx.oxml.shapes.shared import BaseShapeElement
    from pptx.oxml.xmlchemy import BaseOxmlElement

    own = BaseShapeElement.__dict__["ph"]
    asked: list[str] = []
    original = BaseOxmlElement.xpath

    def counted(self: Any, expr: str) -> Any:
        asked.append(expr)
        return original(self, expr)

    monkeypatch.setattr(BaseOxmlElement, "xpath", counted)
    deck = build(tmp_path, 10)
    assert len(Presentation(str(deck)).slides) > 30
    assert "./*[1]/p:nvPr/p:ph" not in asked
    assert BaseShapeElement.__dict__["ph"] is own


def test_a_paragraph_is_measured_once_however_often_the_fitting_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fitting asks for most paragraphs' heights three or four times (the slide at 90%,
    where to cut it, whether each piece fits); the lines are measured once per paragraph."""
    measured = 0
    original = tx.wrapped

    def counted(tokens: Any, capacity: float) -> int:
        nonlocal measured
        measured += 1
        return original(tokens, capacity)

    monkeypatch.setattr(tx, "wrapped", counted)
    deck = build(tmp_path, 10)
    paragraphs = sum(
        len(shape.text_frame.paragraphs)
        for slide in Presentation(str(deck)).slides
        for shape in slide.shapes
        if shape.has_text_frame
    )
    assert measured <= paragraphs  # 2.7 measures a paragraph before


def list_walks(folder: Path, slides: int, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Slides in the finished deck, and the slide list's entries walked while building it:
    lxml counts an element's children (``len``) and reaches the child at an index
    (``insert``) by walking them, and python-pptx's ``_add_sldId`` looks through them all for
    the list's ``p:extLst``."""
    from pptx.oxml.presentation import CT_SlideIdList
    from pptx.oxml.xmlchemy import BaseOxmlElement

    walked = 0
    size = BaseOxmlElement.__len__
    insert = BaseOxmlElement.insert
    found_in = BaseOxmlElement.first_child_found_in

    def counted_len(self: Any) -> int:
        nonlocal walked
        n = size(self)
        walked += n
        return n

    def counted_insert(self: Any, index: int, element: Any) -> None:
        nonlocal walked
        walked += max(index, 0)
        insert(self, index, element)

    def counted_found_in(self: Any, *tagnames: str) -> Any:
        nonlocal walked
        walked += size(self)
        return found_in(self, *tagnames)

    with monkeypatch.context() as m:
        m.setattr(CT_SlideIdList, "__len__", counted_len, raising=False)
        m.setattr(CT_SlideIdList, "insert", counted_insert, raising=False)
        m.setattr(CT_SlideIdList, "first_child_found_in", counted_found_in, raising=False)
        deck = build(folder, slides)
    return len(Presentation(str(deck)).slides), walked


def test_adding_slides_walks_the_slide_list_as_often_per_slide_however_long_the_deck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each continuation slide's entry goes beside its neighbour in the slide list, and the
    adder counts the entries itself: a 10 MB report's deck of 14,000 slides spent a third of
    its renderer's time walking the list, twice for every slide added."""
    small, small_walked = list_walks(tmp_path / "small", 10, monkeypatch)
    large, large_walked = list_walks(tmp_path / "large", 40, monkeypatch)
    assert large > 3.5 * small
    # Before: 3.9 times as many entries walked per slide at four times the slides.
    assert large_walked / large <= 1.3 * max(small_walked, 1) / small


def test_a_slide_relates_to_a_sources_slide_once_however_many_marks_jump_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """python-pptx's ``relate_to`` looks through all of a slide's relationships at every call;
    the marks look through each slide's once, and those that jump from one slide to the same
    Sources slide share one relationship."""
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT
    from pptx.opc.package import _Relationships

    asked = 0
    original = _Relationships._get_matching

    def counted(self: Any, reltype: str, target: Any, is_external: bool = False) -> Any:
        nonlocal asked
        if reltype == RT.SLIDE:
            asked += 1
        return original(self, reltype, target, is_external)

    monkeypatch.setattr(_Relationships, "_get_matching", counted)
    deck = build(tmp_path, 6)
    pairs = 0
    marks = 0
    for slide in Presentation(str(deck)).slides:
        pairs += sum(1 for rel in slide.part.rels.values() if rel.reltype == RT.SLIDE)
        marks += sum(
            1
            for el in slide.shapes._spTree.iter(qn("a:hlinkClick"))
            if el.get("action") == "ppaction://hlinksldjump"
        )
    assert marks >= 2 * pairs > 0  # several marks on a slide jump to one Sources slide
    assert asked == 0
