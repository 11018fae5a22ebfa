"""pptx: every slide's text inside its placeholder, by the estimate of :mod:`._pptx_text`.

Pandoc puts everything under a slide heading on one slide, however long (a report's section
becomes one slide of forty paragraphs that runs off the bottom). After pandoc writes the deck:

- a slide whose text (its one body placeholder, or the one text placeholder beside a table or
  picture) is taller than its placeholder even at 90% of its size keeps what fits and goes on
  on continuation slides, "Title (cont.)" ("Title and Content" after a slide with a table or
  picture, else the slide's own layout; a slide pandoc left untitled continues the title of the
  slide before it). It is cut between paragraphs; a short bold paragraph (a heading inside the
  slide) never ends a slide, it moves on with what it heads; a paragraph taller than a whole
  slide (a long code block) is cut between its lines; a numbered list goes on counting;
- any other text that is too tall (two columns, a title of three lines, a slide that fits at
  90%, a text box holding an equation) is set smaller, in 10% steps down to half its size,
  with the sizes written on its runs so PowerPoint and LibreOffice show the same;
- the estimate runs against 97% of the placeholder's height, a margin for the wider glyphs
  of bold text.

Speaker notes stay with the first slide of a split. Links inside moved paragraphs (a URL in the
text, a jump to another slide) get their relationship on the new slide.
"""

from __future__ import annotations

from typing import Any

from lxml import etree
from pptx.oxml import parse_xml
from pptx.oxml.ns import nsdecls, qn

import citeledger.renderers._pptx_text as tx

from ..formats.slide_fit import EMU_PER_PT
from ._pptx_oxml import SlideAdder

FILL = 0.97
CONT = " (cont.)"
SCALES = (0.9, 0.8, 0.7, 0.6, 0.5)
_R_ATTRS = (qn("r:id"), qn("r:embed"), qn("r:link"))


def fit_slides(prs: Any, slides: list[Any]) -> None:
    """Fit each of ``slides`` (a deck's body slides, in deck order), splitting or shrinking.
    Each slide's place in the deck is its place before the fitting plus the continuation
    slides added before it (looking it up among the deck's slides at every split made the
    fitting of a long report's deck grow with the square of its slides)."""
    adder = SlideAdder(prs)
    place = {id(s.part): k for k, s in enumerate(prs.slides)}
    added = 0
    last_title = ""
    fitted: set[Any] = set()  # the split's text elements its measure found fit: not again
    for slide in slides:
        head = slide.shapes.title  # looked up once: each lookup walks the slide's shapes
        title = head.text_frame.text if head is not None else ""
        last_title = title.strip() or last_title
        index = place[id(slide.part)] + added
        pieces = _split(prs, adder, slide, index, title or last_title, fitted)
        added += len(pieces) - 1
        for piece in pieces:
            for shape in _text_shapes(piece, fitted):
                shrink_to_fit(shape)
        fitted.clear()


def _text_shapes(slide: Any, fitted: set[Any]) -> list[Any]:
    """The shapes of ``slide`` whose text is set smaller if too tall: each ``p:sp`` (the one
    kind of shape python-pptx gives a text frame) that holds text, among the slide's shapes and
    inside ``mc:AlternateContent`` (pandoc writes a text box holding an equation so, both as
    its Choice and as its Fallback, and python-pptx does not list them: they are shrunk, never
    split, as their equations would need the wrapper on a new slide too), less the elements
    of ``fitted``. A proxy is made only for a shape returned: python-pptx makes a new one at
    every lookup, and a fitted report's deck has ten thousand shapes."""
    from pptx.shapes.shapetree import SlideShapeFactory

    shapes = slide.shapes
    tree = shapes._spTree
    elements = [
        *tree.iter_shape_elms(),
        *(sp for wrapper in tree.iter(_MC_ALTERNATE) for sp in wrapper.iter(_P_SP)),
    ]
    out = []
    for el in elements:
        if el.tag != _P_SP or el in fitted:
            continue
        body = el.find(_TX_BODY)
        if body is None:
            # python-pptx's text frame adds the missing (empty) text body: as it always did.
            _has_text(SlideShapeFactory(el, shapes))
        elif _body_has_text(body):
            out.append(SlideShapeFactory(el, shapes))
    return out


_MC_ALTERNATE = "{http://schemas.openxmlformats.org/markup-compatibility/2006}AlternateContent"
_P_SP = qn("p:sp")


def _body(slide: Any) -> Any:
    """The slide's one body placeholder when that is all it holds besides its title."""
    return _title_and_body(slide)[1]


def _title_and_body(slide: Any) -> tuple[Any, Any]:
    """``slide.shapes.title`` and :func:`_body` of ``slide``, from one pass over its shapes
    (python-pptx makes a new object for a shape at every lookup: a report's deck of three
    thousand slides spent a tenth of its fitting making them)."""
    from pptx.shapes.shapetree import SlideShapeFactory

    shapes = slide.shapes
    elements = [(el, el.ph) for el in shapes._spTree.iter_shape_elms()]
    head = next((el for el, ph in elements if ph is not None and ph.idx == 0), None)
    others = [(el, ph) for el, ph in elements if el is not head]
    title = SlideShapeFactory(head, shapes) if head is not None else None
    # The body: the one other shape, a placeholder (its element has a p:ph) of index 1 with a
    # text frame (only a p:sp has one); a proxy is made for it alone.
    if len(others) != 1:
        return title, None
    el, ph = others[0]
    if ph is None or ph.idx != 1 or el.tag != _P_SP:
        return title, None
    return title, SlideShapeFactory(el, shapes)


def _flowing_text(slide: Any) -> tuple[Any, bool]:
    """The text that may go on to another slide: the body placeholder, or the one text
    placeholder beside a table or picture (pandoc's "Content with Caption"); None for two
    columns of text. With it, whether it is the body placeholder (the continuation slides
    then take the slide's own layout)."""
    body = _body(slide)
    if body is not None:
        return body, True
    title = slide.shapes.title
    texts = [
        s
        for s in slide.placeholders
        if s != title and s.has_text_frame and s.text_frame.text.strip()
    ]
    return (texts[0] if len(texts) == 1 else None), False


def _is_heading(p: Any) -> bool:
    runs = p.findall(_A_R)
    text = "".join(t.text or "" for r in runs for t in r.findall(_A_T))
    bold = all(r.find(_A_R_PR) is not None and r.find(_A_R_PR).get("b") == "1" for r in runs)
    return bool(runs) and bold and len(text) <= 120


def _paragraphs(shape: Any) -> list[Any]:
    return list(_text_body(shape).findall(_A_P))


def _fitting(shape: Any, measured: Any = None, *, cut: bool = True) -> tuple[int, bool]:
    """How many of ``shape``'s paragraphs stay on its slide (at least one, never a heading
    last), and whether :func:`shrink_to_fit` would leave those as they are (their heights,
    added as it adds them, clearly within the room); with ``cut``, a first paragraph taller
    than the slide is cut between its lines first. ``measured``: ``shape``'s
    :func:`~._pptx_text.measure`, when the caller has it."""
    styles, box = measured or tx.measure(shape)
    room = box.height / EMU_PER_PT * FILL
    paragraphs = _paragraphs(shape)
    if cut:
        _cut_lines(paragraphs[0], styles, box, room)
        paragraphs = _paragraphs(shape)
    used = 0.0
    sums = [used]  # the heights of the first k paragraphs, added in order
    for k, p in enumerate(paragraphs):
        used += tx.paragraph_height_pt(p, styles, box, first=k == 0)
        if used > room and k > 0:
            while k > 1 and _is_heading(paragraphs[k - 1]):
                k -= 1  # a heading goes with what it heads
            return k, sums[k] * _CLEARLY <= room
        sums.append(used)
    return len(paragraphs), used * _CLEARLY <= room


def _cut_lines(p: Any, styles: Any, box: Any, room: float) -> None:
    """Cut paragraph ``p`` after as many of its lines (``a:br``) as fit ``room``; the rest
    becomes a paragraph of its own, with the same properties, right after it."""
    if tx.paragraph_height_pt(p, styles, box, first=True) <= room:
        return
    _breaks_as_elements(p)
    breaks = [k for k, child in enumerate(p) if child.tag == _A_BR]
    for at in reversed(breaks):
        head = _copied(p)
        for child in list(head)[at:]:
            head.remove(child)
        if not "".join(t.text or "" for t in head.iter(_A_T)).strip():
            return  # only blank lines would stay: shrink instead
        # The first line alone is cut off even when it is too tall itself (it is shrunk).
        if at == breaks[0] or tx.paragraph_height_pt(head, styles, box, first=True) <= room:
            tail = _copied(p)
            for k, child in enumerate(list(tail)):
                if k <= at and child.tag != _A_P_PR:
                    tail.remove(child)
            _drop_leading_blank_lines(tail)
            for child in list(p)[at:]:
                p.remove(child)
            p.addnext(tail)
            return


def _drop_leading_blank_lines(p: Any) -> None:
    """A continued code block starts with its next line of text, not with blank lines."""
    for child in list(p):
        if child.tag == _A_P_PR:
            continue
        t = child.find(_A_T)
        blank = child.tag == _A_BR or (
            child.tag == _A_R and not (t is not None and (t.text or "").strip())
        )
        if not blank:
            return
        p.remove(child)


def _breaks_as_elements(p: Any) -> None:
    """Each newline inside a run's text (pandoc writes a code block without highlighting as
    one run) made a line break element, as PowerPoint writes one: each line its own run with
    the same properties, so the paragraph can be cut between them."""
    for run in p.findall(_A_R):
        t = run.find(_A_T)
        text = t.text if t is not None and t.text else ""
        if "\n" not in text and "\v" not in text:
            continue
        lines = text.replace("\v", "\n").split("\n")
        at = run
        for k, line in enumerate(lines):
            if k:
                br = parse_xml(f"<a:br {nsdecls('a')}/>")
                r_pr = run.find(_A_R_PR)
                if r_pr is not None:
                    br.append(_copied(r_pr))
                at.addnext(br)
                at = br
            piece = run if k == 0 else _copied(run)
            piece.find(_A_T).text = line
            if k:
                at.addnext(piece)
                at = piece


def _split(
    prs: Any, adder: SlideAdder, slide: Any, index: int, title: str, fitted: set[Any]
) -> list[Any]:
    """``slide`` (at ``index`` in the deck) and its continuation slides (titled ``title`` and
    "(cont.)"), or ``slide`` alone when its text fits at 90% of its size (it is shrunk then, as
    PowerPoint's autofit would). The text elements whose measure here found them fitting their
    slide are added to ``fitted``: shrinking them would measure them again to change nothing."""
    (shape, own_layout), wrapper = _flowing_text(slide), None
    if shape is None:
        shape, wrapper = _flowing_equation_text(slide)
    if shape is None:
        return [slide]
    styles, box = tx.measure(shape)
    room = box.height / EMU_PER_PT * FILL
    if not _taller(_paragraphs(shape), styles, box, SCALES[0], room):
        return [slide]
    originals = _paragraphs(shape)  # held, so each element keeps its id() while we split
    numbers = dict(zip(map(id, originals), _numbers(originals), strict=True))
    # The body placeholder goes on on the slide's own layout. (This compared the shape with a
    # second lookup of the body by ``is``, never true since python-pptx makes a new object at
    # every lookup: every continuation slide took "Title and Content".)
    layout = slide.slide_layout if own_layout else _content_layout(prs, slide)
    pieces = [slide]
    made = None  # the title's text on this slide's first continuation slide, for the others
    measured: Any = (styles, box)  # for the first piece; each other is measured anew
    while True:
        keep, fits = _fitting(shape, measured, cut=wrapper is None)
        measured = None
        rest = _paragraphs(shape)[keep:]
        if not rest:
            if fits:
                fitted.add(shape._element)
            return pieces
        new = adder.add(layout, index + len(pieces))
        head, target = _title_and_body(new)
        made = _set_title(head, title, made)
        if target is None:
            return pieces  # a layout without a body: the rest stays, shrunk
        _continue_numbering(rest, [numbers.get(id(p)) for p in rest])
        if fits:
            fitted.add(shape._element)
        if wrapper is None:
            _move_paragraphs(pieces[-1], new, rest, target)
            shape = target
        else:
            wrapper, shape = _move_wrapped(pieces[-1], new, wrapper, rest, target)
        pieces.append(new)


MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"


def _flowing_equation_text(slide: Any) -> tuple[Any, Any]:
    """The one text placeholder of a slide that pandoc wrapped in ``mc:AlternateContent``
    (its text holds an equation), as a shape, and its wrapper; (None, None) otherwise."""
    from pptx.shapes.shapetree import SlideShapeFactory

    title = slide.shapes.title
    texts = [
        s
        for s in slide.placeholders
        if s != title and s.has_text_frame and s.text_frame.text.strip()
    ]
    wrappers = list(slide.shapes._spTree.iter(f"{MC}AlternateContent"))
    if texts or len(wrappers) != 1:
        return None, None
    choice = wrappers[0].find(f"{MC}Choice")
    sp = choice.find(qn("p:sp")) if choice is not None else None
    if sp is None or sp.find(qn("p:txBody")) is None:
        return None, None
    return SlideShapeFactory(sp, slide.shapes), wrappers[0]


def _move_wrapped(
    source: Any, new: Any, wrapper: Any, paragraphs: list[Any], body: Any
) -> tuple[Any, Any]:
    """Move ``paragraphs`` to slide ``new`` in a copy of ``wrapper`` that takes the place of
    its body placeholder ``body``; the copy, and its text shape."""
    from pptx.shapes.shapetree import SlideShapeFactory

    copied = _copied(wrapper)
    for sp in copied.iter(qn("p:sp")):
        ph = sp.find(f"{qn('p:nvSpPr')}/{qn('p:nvPr')}/{qn('p:ph')}")
        if ph is not None:
            for key in ("type", "sz", "orient"):
                ph.attrib.pop(key, None)
            ph.set("idx", "1")
        sp_pr = sp.find(qn("p:spPr"))
        if sp_pr is not None:
            for child in list(sp_pr):
                sp_pr.remove(child)
        tx_body = sp.find(qn("p:txBody"))
        if tx_body is not None:
            for old in tx_body.findall(qn("a:p")):
                tx_body.remove(old)
    body._element.addprevious(copied)
    body._element.getparent().remove(body._element)
    sp = copied.find(f"{MC}Choice").find(qn("p:sp"))
    shape = SlideShapeFactory(sp, new.shapes)
    tx_body = sp.find(qn("p:txBody"))
    for p in paragraphs:
        for el in _LINKING(p):
            for attr in _R_ATTRS:
                if el.get(attr):
                    el.set(attr, _relink(source.part, new.part, el.get(attr)))
        tx_body.append(p)
    fallback = copied.find(f"{MC}Fallback")
    for fallback_body in fallback.iter(qn("p:txBody")) if fallback is not None else ():
        if fallback_body.find(qn("a:p")) is None:
            fallback_body.append(parse_xml(f"<a:p {nsdecls('a')}/>"))  # one is required
    return copied, shape


def _content_layout(prs: Any, slide: Any) -> Any:
    """The deck's "Title and Content" layout, else ``slide``'s own."""
    hit = _CONTENT_LAYOUT.get(id(prs.part))
    if hit is None or hit[0] is not prs.part:
        found = next((la for la in prs.slide_layouts if la.name == "Title and Content"), None)
        hit = _CONTENT_LAYOUT[id(prs.part)] = (prs.part, found)  # looked up once per deck
        if len(_CONTENT_LAYOUT) > 64:
            _CONTENT_LAYOUT.clear()
            _CONTENT_LAYOUT[id(prs.part)] = hit
    return hit[1] if hit[1] is not None else slide.slide_layout


_CONTENT_LAYOUT: dict[int, tuple[Any, Any]] = {}


def _has_text(shape: Any) -> bool:
    """``shape.text_frame.text.strip()`` of python-pptx, without making its text: whether a
    run or field of one of its paragraphs holds more than white space."""
    return _body_has_text(shape.text_frame._txBody)


def _text_body(shape: Any) -> Any:
    """``shape.text_frame._txBody`` of python-pptx (which adds an empty one to a shape without
    one): its ``p:txBody`` found directly, without the text frame's lookups."""
    body = shape._element.find(_TX_BODY)
    return body if body is not None else shape.text_frame._txBody


def _copied(el: Any) -> Any:
    """``copy.deepcopy(el)`` of an lxml element: lxml's ``__deepcopy__`` is its ``__copy__``
    (the element and all it holds), called here without the copy module's memo."""
    return el.__copy__()


def _body_has_text(body: Any) -> bool:
    """:func:`_has_text` of the shape whose text body (``p:txBody``) is ``body``."""
    for p in body.iterchildren(_A_P):
        for child in p.iterchildren(_A_R, _A_FLD):
            t = child.find(_A_T)
            if t is not None and t.text and t.text.strip():
                return True
    return False


_A_P, _A_R, _A_FLD, _A_T = qn("a:p"), qn("a:r"), qn("a:fld"), qn("a:t")
_A_R_PR, _A_BR, _A_P_PR, _A_END_PARA_R_PR = qn("a:rPr"), qn("a:br"), qn("a:pPr"), qn("a:endParaRPr")
_A_BU_AUTO_NUM = qn("a:buAutoNum")


def _level(p: Any) -> int:
    p_pr = p.find(_A_P_PR)
    return int(p_pr.get("lvl", "0")) if p_pr is not None else 0


def _auto_number(p: Any) -> Any:
    p_pr = p.find(_A_P_PR)
    return p_pr.find(_A_BU_AUTO_NUM) if p_pr is not None else None


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
        auto = _auto_number(p)
        if start != 1:
            auto.set("startAt", str(start))
        elif "startAt" in auto.attrib:
            del auto.attrib["startAt"]


def _taller(paragraphs: list[Any], styles: Any, box: Any, scale: float, room: float) -> bool:
    """Whether the sum of ``paragraphs``' heights at ``scale`` is over ``room``, as ``sum``
    adds them. No height is negative: once the heights so far pass the room by more than any
    way of adding them could be off, the rest of them (most of a long slide's paragraphs) need
    no measure at that scale."""
    heights: list[float] = []
    used = 0.0
    for k, p in enumerate(paragraphs):
        heights.append(tx.paragraph_height_pt(p, styles, box, first=k == 0, scale=scale))
        used += heights[-1]
        if used > room * _CLEARLY:
            return True
    return sum(heights) > room


# Past the room by this factor, a sum of up to a million heights is past it however added;
# within it by this factor, within it however added.
_CLEARLY = 1 + 1e-9


def _set_title(shape: Any, title: str, made: Any = None) -> Any:
    """Title a continuation slide's title placeholder ``shape`` "``title`` (cont.)", or remove
    it when ``title`` is blank. ``made``: the text body an earlier continuation slide of the same
    slide and layout got (its placeholder was the same clone, its title the same text), copied
    instead of written again; returns the text body for the next one."""
    if shape is None:
        return made
    if not title.strip():
        shape._element.getparent().remove(shape._element)  # no empty "Click to add title"
        return made
    old = shape._element.find(_TX_BODY)
    if made is not None and old is not None:
        old.addprevious(_copied(made))
        old.getparent().remove(old)
        return made
    base = title[: -len(CONT)] if title.endswith(CONT) else title
    shape.text_frame.text = base + CONT
    return _copied(shape._element.find(_TX_BODY))


_TX_BODY = qn("p:txBody")


def _move_paragraphs(source: Any, target: Any, paragraphs: list[Any], shape: Any) -> None:
    body = _text_body(shape)
    for old in body.findall(_A_P):
        body.remove(old)
    for p in paragraphs:
        for el in _LINKING(p):
            for attr in _R_ATTRS:
                if el.get(attr):
                    el.set(attr, _relink(source.part, target.part, el.get(attr)))
        body.append(p)  # moves it


# The elements of a paragraph (itself among them) with a relationship attribute, in document
# order: found by one compiled expression instead of asking every element for each attribute.
_LINKING = etree.XPath(
    "descendant-or-self::*[@r:id or @r:embed or @r:link]",
    namespaces={"r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships"},
)


def _relink(src: Any, dst: Any, r_id: str) -> str:
    rel = src.rels.get(r_id)
    if rel is None:
        return r_id
    if rel.is_external:
        return str(dst.relate_to(rel.target_ref, rel.reltype, is_external=True))
    return str(dst.relate_to(rel.target_part, rel.reltype))


def shrink_to_fit(shape: Any) -> None:
    """Set ``shape``'s text smaller, 10% at a time, until it fits (or at half its size)."""
    measured = tx.measure(shape)
    styles, box = measured
    room = box.height / EMU_PER_PT * FILL
    if tx.frame_height_pt(shape, measured) <= room:
        return
    original: list[tuple[Any, float]] = []
    for p in _text_body(shape).findall(_A_P):
        size = tx.paragraph_style(p, styles).size_pt
        for run in [*p.findall(_A_R), *p.findall(_A_FLD), *p.findall(_A_BR)]:
            original.append((run, tx.run_size(run, size)))
        end = p.find(_A_END_PARA_R_PR)
        if end is not None:
            original.append((end, float(end.get("sz", 0)) / 100 or size))
    for scale in SCALES:
        for el, size in original:
            r_pr = el if el.tag == _A_END_PARA_R_PR else _r_pr(el)
            r_pr.set("sz", str(max(100, round(size * scale * 100))))
        if tx.frame_height_pt(shape, measured) <= room:
            return


def _r_pr(run: Any) -> Any:
    """The ``a:rPr`` of a run, field or line break, made if missing (it comes first)."""
    r_pr = run.find(_A_R_PR)
    if r_pr is None:
        r_pr = parse_xml(f"<a:rPr {nsdecls('a')}/>")
        run.insert(0, r_pr)
    return r_pr
