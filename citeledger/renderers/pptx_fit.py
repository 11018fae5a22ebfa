"""pptx: every slide's text inside its placeholder, by the estimate of :mod:`._pptx_text`.

Pandoc puts everything under a slide heading on one slide, however long (a report's section
becomes one slide of forty paragraphs that runs off the bottom). After pandoc writes the deck:

- a slide whose only text is its title and one body placeholder (pandoc's "Title and Content")
  and whose body is taller than the placeholder even at 90% of its size is split at paragraph
  boundaries into continuation slides, "Title (cont.)", on the same layout (a slide pandoc left
  untitled continues the title of the slide before it); a short bold paragraph (a heading
  inside the slide) never ends a slide, it moves to the next with what it heads;
- any other text that is too tall (a paragraph longer than a slide, a column beside a table
  or picture, a caption, a title of three lines) is set smaller, in 10% steps down to half its
  size, with the sizes written on its runs so PowerPoint and LibreOffice show the same;
- the estimate runs against 97% of the placeholder's height, a margin for the wider glyphs
  of bold text.

Speaker notes stay with the first slide of a split. Links inside moved paragraphs (a URL in the
text, a jump to another slide) get their relationship on the new slide.
"""

from __future__ import annotations

import copy
from typing import Any

from pptx.oxml.ns import qn

import citeledger.renderers._pptx_text as tx

from ._pptx_oxml import move_slide

FILL = 0.97
CONT = " (cont.)"
SCALES = (0.9, 0.8, 0.7, 0.6, 0.5)
_R_ATTRS = (qn("r:id"), qn("r:embed"), qn("r:link"))


def fit_slides(prs: Any, slides: list[Any]) -> None:
    """Fit each of ``slides`` (a deck's body slides, in order), splitting or shrinking."""
    last_title = ""
    for slide in slides:
        title = slide.shapes.title.text_frame.text if slide.shapes.title is not None else ""
        last_title = title.strip() or last_title
        for piece in _split(prs, slide, title or last_title):
            for shape in piece.shapes:
                if shape.has_text_frame and shape.text_frame.text.strip():
                    shrink_to_fit(shape)


def _body(slide: Any) -> Any:
    """The slide's one body placeholder when that is all it holds besides its title."""
    others = [s for s in slide.shapes if s != slide.shapes.title]
    if len(others) != 1:
        return None
    shape = others[0]
    if not (shape.is_placeholder and shape.placeholder_format.idx == 1 and shape.has_text_frame):
        return None
    return shape


def _is_heading(p: Any) -> bool:
    runs = p.findall(qn("a:r"))
    text = "".join(t.text or "" for r in runs for t in r.findall(qn("a:t")))
    bold = all(
        r.find(qn("a:rPr")) is not None and r.find(qn("a:rPr")).get("b") == "1" for r in runs
    )
    return bool(runs) and bold and len(text) <= 120


def _chunks(heights: list[float], headings: list[bool], room: float) -> list[int]:
    """Where each slide after the first starts: paragraph indexes."""
    starts: list[int] = []
    used = 0.0
    start = 0
    for k, height in enumerate(heights):
        if k > start and used + height > room:
            cut = k
            while cut - 1 > start and headings[cut - 1]:
                cut -= 1  # a heading goes with what it heads
            starts.append(cut)
            start = cut
            used = sum(heights[cut : k + 1])
            continue
        used += height
    return starts


def _split(prs: Any, slide: Any, title: str) -> list[Any]:
    """``slide`` and its continuation slides (titled ``title`` and "(cont.)"), or ``slide``
    alone when its body fits at 90% of its size (it is shrunk then, as PowerPoint's autofit
    would)."""
    body = _body(slide)
    if body is None:
        return [slide]
    room = tx.room_pt(body) * FILL
    styles = tx.level_styles(body)
    box = tx.text_box(body)
    paragraphs = body.text_frame._txBody.findall(qn("a:p"))
    if _height(paragraphs, styles, box, SCALES[0]) <= room:
        return [slide]
    # Measured as the first of a slide: each may open one.
    heights = [tx.paragraph_height_pt(p, styles, box, first=True) for p in paragraphs]
    befores = [
        tx.paragraph_height_pt(p, styles, box, first=False) - h
        for p, h in zip(paragraphs, heights, strict=True)
    ]
    sized = [h + b for h, b in zip(heights, befores, strict=True)]
    starts = _chunks(sized, [_is_heading(p) for p in paragraphs], room)
    if not starts:
        return [slide]
    index = list(prs.slides).index(slide)
    pieces = [slide]
    bounds = [*starts, len(paragraphs)]
    numbers = _numbers(paragraphs)
    for n, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False), 1):
        _continue_numbering(paragraphs[start:end], numbers[start:end])
        new = prs.slides.add_slide(slide.slide_layout)
        move_slide(prs, new, index + n)
        _set_title(new, title)
        target = _body(new) or next(
            (s for s in new.placeholders if s.placeholder_format.idx == 1), None
        )
        _move_paragraphs(slide, new, paragraphs[start:end], target)
        pieces.append(new)
    return pieces


def _level(p: Any) -> int:
    p_pr = p.find(qn("a:pPr"))
    return int(p_pr.get("lvl", "0")) if p_pr is not None else 0


def _auto_number(p: Any) -> Any:
    p_pr = p.find(qn("a:pPr"))
    return p_pr.find(qn("a:buAutoNum")) if p_pr is not None else None


def _numbers(paragraphs: list[Any]) -> list[int | None]:
    """The number each numbered paragraph shows: a list goes on at its level until a
    paragraph at that level or above without a number ends it."""
    counters: dict[int, int] = {}
    out: list[int | None] = []
    for p in paragraphs:
        level, auto = _level(p), _auto_number(p)
        for deeper in [k for k in counters if k > level]:
            del counters[deeper]
        if auto is None:
            counters.pop(level, None)
            out.append(None)
            continue
        counters[level] = counters.get(level, int(auto.get("startAt", "1")) - 1) + 1
        out.append(counters[level])
    return out


def _continue_numbering(paragraphs: list[Any], numbers: list[int | None]) -> None:
    """On a continuation slide a numbered list goes on from where the slide before left it:
    each of its runs of numbered paragraphs starts at its first one's number (every paragraph
    of a run carries it, as PowerPoint needs to count them as one list)."""
    first: dict[int, int] = {}
    for p, number in zip(paragraphs, numbers, strict=True):
        level = _level(p)
        for deeper in [k for k in first if k > level]:
            del first[deeper]
        if number is None:
            first.pop(level, None)
            continue
        start = first.setdefault(level, number)
        if start != 1:
            _auto_number(p).set("startAt", str(start))


def _height(paragraphs: list[Any], styles: Any, box: Any, scale: float) -> float:
    return sum(
        tx.paragraph_height_pt(p, styles, box, first=k == 0, scale=scale)
        for k, p in enumerate(paragraphs)
    )


def _set_title(slide: Any, title: str) -> None:
    shape = slide.shapes.title
    if shape is None:
        return
    if not title.strip():
        shape._element.getparent().remove(shape._element)  # no empty "Click to add title"
        return
    base = title[: -len(CONT)] if title.endswith(CONT) else title
    shape.text_frame.text = base + CONT


def _move_paragraphs(source: Any, target: Any, paragraphs: list[Any], shape: Any) -> None:
    body = shape.text_frame._txBody
    for old in body.findall(qn("a:p")):
        body.remove(old)
    src_body = _body(source).text_frame._txBody
    for tag in ("a:bodyPr", "a:lstStyle"):
        mine, theirs = body.find(qn(tag)), src_body.find(qn(tag))
        if mine is not None and theirs is not None:
            mine.getparent().replace(mine, copy.deepcopy(theirs))
    for p in paragraphs:
        for el in p.iter():
            for attr in _R_ATTRS:
                if el.get(attr):
                    el.set(attr, _relink(source.part, target.part, el.get(attr)))
        body.append(p)  # moves it


def _relink(src: Any, dst: Any, r_id: str) -> str:
    rel = src.rels.get(r_id)
    if rel is None:
        return r_id
    if rel.is_external:
        return str(dst.relate_to(rel.target_ref, rel.reltype, is_external=True))
    return str(dst.relate_to(rel.target_part, rel.reltype))


def shrink_to_fit(shape: Any) -> None:
    """Set ``shape``'s text smaller, 10% at a time, until it fits (or at half its size)."""
    room = tx.room_pt(shape) * FILL
    if tx.frame_height_pt(shape) <= room:
        return
    styles = tx.level_styles(shape)
    original: list[tuple[Any, float]] = []
    for p in shape.text_frame._txBody.findall(qn("a:p")):
        size = tx.paragraph_style(p, styles).size_pt
        for run in [*p.findall(qn("a:r")), *p.findall(qn("a:fld"))]:
            original.append((run, tx.run_size(run, size)))
        end = p.find(qn("a:endParaRPr"))
        if end is not None:
            original.append((end, float(end.get("sz", 0)) / 100 or size))
    for scale in SCALES:
        for el, size in original:
            r_pr = el if el.tag == qn("a:endParaRPr") else el.get_or_add_rPr()
            r_pr.set("sz", str(max(100, round(size * scale * 100))))
        if tx.frame_height_pt(shape) <= room:
            return
