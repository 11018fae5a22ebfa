"""How tall a slide's text is, by estimate: python-pptx cannot measure rendered text.

A text frame's paragraphs are measured as :mod:`citeledger.formats.slide_fit` measures Sources
entries, with what each paragraph really carries: its level's size, left margin, line spacing
and space before, looked up as PowerPoint does (the paragraph, then the shape's own list style,
its layout's placeholder, the master's placeholder, the master's text styles); a run's own size;
Latin glyphs 0.5 em wide, monospace (code) 0.6 em, wide (CJK) 1 em; breaks at spaces, between
wide characters and at line breaks (``a:br``, which pandoc writes inside a code block).

Glyph widths are Calibri's (its metric twin Carlito's, which LibreOffice shows in its place):
the advance of each printable ASCII character, bold 3% wider; any other Latin, Greek or
Cyrillic letter 0.55 em; a monospace (code) glyph 0.6 em; a wide (CJK) one 1 em. A line is
1.22 em high (Calibri's ascent and descent) times the paragraph's line spacing.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from lxml import etree
from pptx.oxml.ns import qn

from ..formats.slide_fit import EMU_PER_PT, WIDE_EM

A14_MATH = "{http://schemas.microsoft.com/office/drawing/2010/main}m"
M_T = "{http://schemas.openxmlformats.org/officeDocument/2006/math}t"
MONO_EM = 0.6
OTHER_EM = 0.55
BOLD = 1.03
LINE = 1.22
# Advance widths of " " to "~" in thousandths of an em (Carlito Regular, metric-compatible
# with Calibri).
_ASCII = (
    "226 326 401 498 507 715 682 221 303 303 498 498 250 306 252 386 507 507 507 507 507 507 "
    "507 507 507 507 268 268 498 498 498 463 894 579 544 533 615 488 459 631 623 252 319 520 "
    "420 855 646 662 517 673 543 459 487 642 567 890 519 487 468 307 386 307 498 498 291 479 "
    "525 423 525 498 305 471 525 230 239 455 230 799 525 527 525 525 349 391 335 525 452 715 "
    "433 453 395 314 460 314 498"
)
_SP_PR, _XFRM = qn("p:spPr"), qn("a:xfrm")
_TX_BODY, _LST_STYLE, _BODY_PR = qn("p:txBody"), qn("a:lstStyle"), qn("a:bodyPr")
_R, _FLD, _BR, _T, _R_PR = qn("a:r"), qn("a:fld"), qn("a:br"), qn("a:t"), qn("a:rPr")
_FACES = (qn("a:latin"), qn("a:ea"), qn("a:cs"))
_P, _P_PR, _END_PARA_R_PR, _DEF_R_PR = qn("a:p"), qn("a:pPr"), qn("a:endParaRPr"), qn("a:defRPr")
_LN_SPC, _SPC_BEF = qn("a:lnSpc"), qn("a:spcBef")
_SPC_PCT, _SPC_PTS = qn("a:spcPct"), qn("a:spcPts")
ASCII_EM = {chr(32 + k): int(w) / 1000 for k, w in enumerate(_ASCII.split())}
DEFAULT_PT = 18.0
LEVELS = range(1, 10)
_MONO = ("courier", "consolas", "menlo", "monaco", "lucida console", "mono", "code")


@dataclass
class LevelStyle:
    size_pt: float = DEFAULT_PT
    margin: int = 0  # marL, EMU
    spacing: float = 1.0  # lnSpc as a fraction of single spacing
    before_pt: float | None = None  # spcBef in points (None: a percentage of the size)
    before_pct: float = 0.0


def _apply(style: LevelStyle, p_pr: Any) -> None:
    """Copy what ``p_pr`` (an ``a:lvlNpPr`` or a paragraph's ``a:pPr``) sets onto ``style``."""
    if p_pr is None:
        return
    if p_pr.get("marL") is not None:
        style.margin = int(p_pr.get("marL"))
    d = p_pr.find(_DEF_R_PR)
    if d is not None and d.get("sz") is not None:
        style.size_pt = int(d.get("sz")) / 100
    ln = p_pr.find(_LN_SPC)
    if ln is not None:
        pct = ln.find(_SPC_PCT)
        if pct is not None:
            style.spacing = int(pct.get("val")) / 100000
    before = p_pr.find(_SPC_BEF)
    if before is not None:
        pts = before.find(_SPC_PTS)
        pct = before.find(_SPC_PCT)
        if pts is not None:
            style.before_pt, style.before_pct = int(pts.get("val")) / 100, 0.0
        elif pct is not None:
            style.before_pt, style.before_pct = None, int(pct.get("val")) / 100000


def _chain(shape: Any) -> list[Any]:
    """The shape, its layout placeholder and the master's, most specific first."""
    return [shape, *_bases(shape)]


# A slide placeholder's bases (its layout's placeholder and the master's), per layout and
# placeholder index: python-pptx finds each by an XPath search over the layout, and the fitting
# measures the same few placeholders thousands of times. Bounded, and checked against the
# layout part it was made for.
_BASES: dict[tuple[int, int], tuple[Any, list[Any]]] = {}


def _bases(shape: Any) -> list[Any]:
    if not shape.is_placeholder:
        return []
    layout = _layout_of(shape.part)
    if layout is None:
        return _walk_bases(shape)
    key = (id(layout.part), shape._element.ph_idx)
    hit = _BASES.get(key)
    if hit is not None and hit[0] is layout.part:
        return hit[1]
    if len(_BASES) > 256:
        _BASES.clear()
    bases = _walk_bases(shape)
    _BASES[key] = (layout.part, bases)
    return bases


def _walk_bases(shape: Any) -> list[Any]:
    out: list[Any] = []
    link = shape
    while True:
        base = getattr(link, "_base_placeholder", None) if link.is_placeholder else None
        if base is None:
            return out
        out.append(base)
        link = base


def _size(shape: Any) -> tuple[int, int]:
    """Width and height in EMU: the shape's own, else its nearest base's."""
    xfrm = shape._element.find(f"{_SP_PR}/{_XFRM}")
    if xfrm is not None or not shape.is_placeholder:
        return int(shape.width or 0), int(shape.height or 0)
    for base in _bases(shape):
        if base._element.find(f"{_SP_PR}/{_XFRM}") is not None:
            return int(base.width or 0), int(base.height or 0)
    return 0, 0


def _master_style(shape: Any) -> Any:
    master = shape.part.slide_layout.slide_master if hasattr(shape.part, "slide_layout") else None
    if master is None:
        return None
    styles = master._element.find(qn("p:txStyles"))
    kind = shape.placeholder_format.type if shape.is_placeholder else None
    name = "p:otherStyle"
    if shape.is_placeholder:
        name = "p:titleStyle" if kind is not None and int(kind) in (1, 3) else "p:bodyStyle"
    return styles.find(qn(name))


# A slide placeholder's level styles and text box depend on its layout (and so its master) and
# on its own placeholder entry, list style, body properties and position: the fitting measures
# a report's deck's few kinds of placeholder tens of thousands of times (two fifths of its
# time went to looking the same styles up again), so each kind is worked out once. Bounded,
# checked against the layout part it was made for; the values are never changed by a caller.
_BY_KIND: dict[tuple[int, tuple[Any, ...]], tuple[Any, Any]] = {}


def _kind(shape: Any) -> tuple[tuple[int, tuple[Any, ...]], Any] | None:
    """What a placeholder's styles and box are made of besides its layout, and the layout
    part; None for any other shape (worked out each time)."""
    if not shape.is_placeholder:
        return None
    layout = _layout_of(shape.part)
    if layout is None:
        return None
    el = shape._element
    body = el.find(_TX_BODY)
    own = [
        el.ph,
        el.find(f"{_SP_PR}/{_XFRM}"),
        body.find(_LST_STYLE) if body is not None else None,
        body.find(_BODY_PR) if body is not None else None,
    ]
    return (id(layout.part), tuple(map(_spelled_part, own))), layout.part


def _spelled_part(x: Any) -> Any:
    """``x`` (an element or None) as a part of :func:`_kind`'s key: an element without
    children or text by its tag and attributes (an empty list style, a placeholder's
    ``p:ph``: most of them, spelled without writing them out), any other by its XML."""
    if x is None:
        return None
    if not len(x) and x.text is None:
        return (x.tag, *x.attrib.items())
    return etree.tostring(x, with_tail=False)


# Each slide part's layout: python-pptx finds it by looking through the slide's relationships
# at every ask, and the fitting asks at every measure. Bounded, checked against the part it
# was found for (a slide's layout never changes while a deck is finished).
_LAYOUTS: dict[int, tuple[Any, Any]] = {}


def _layout_of(part: Any) -> Any:
    """``part.slide_layout`` (None for a part without one)."""
    hit = _LAYOUTS.get(id(part))
    if hit is not None and hit[0] is part:
        return hit[1]
    if len(_LAYOUTS) > 16384:
        _LAYOUTS.clear()
    layout = getattr(part, "slide_layout", None)
    _LAYOUTS[id(part)] = (part, layout)
    return layout


def measure(shape: Any) -> tuple[dict[int, LevelStyle], Box]:
    """Each level's style for the text of ``shape`` (a slide's shape) and its text area,
    looked up together: the fitting asks for both at every measure."""
    kind = _kind(shape)
    if kind is None:
        return _level_styles(shape), _text_box(shape)
    (layout_id, spelled), layout_part = kind
    key = (layout_id, spelled)
    hit = _BY_KIND.get(key)
    if hit is not None and hit[0] is layout_part:
        found: tuple[dict[int, LevelStyle], Box] = hit[1]
        return found
    if len(_BY_KIND) > 256:
        _BY_KIND.clear()
    styles = _level_styles(shape)
    # Another kind of the same styles (pandoc's body placeholder and the clone of its layout's
    # that a continuation slide gets) shares their object, and so the heights measured with
    # them: a paragraph moved on to a continuation slide is not measured again.
    same = (v[1][0] for v in _BY_KIND.values() if v[1][0] == styles)
    value = (next(same, styles), _text_box(shape))
    _BY_KIND[key] = (layout_part, value)
    return value


def level_styles(shape: Any) -> dict[int, LevelStyle]:
    """Each level's style for the text of ``shape`` (a slide's shape)."""
    return measure(shape)[0]


def _level_styles(shape: Any) -> dict[int, LevelStyle]:
    sources = [_master_style(shape)]
    for link in reversed(_chain(shape)):
        body = link._element.find(_TX_BODY)
        sources.append(body.find(_LST_STYLE) if body is not None else None)
    out: dict[int, LevelStyle] = {}
    for level in LEVELS:
        style = LevelStyle()
        for lst in sources:
            if lst is not None:
                _apply(style, lst.find(qn(f"a:lvl{level}pPr")))
        out[level] = style
    return out


@dataclass
class Box:
    width: int  # EMU, inside the insets
    height: int


def text_box(shape: Any) -> Box:
    """The shape's text area: its size less its insets (PowerPoint's 0.1 and 0.05 in unless
    a bodyPr in its chain says otherwise)."""
    return measure(shape)[1]


def _text_box(shape: Any) -> Box:
    insets = {"lIns": 91440, "rIns": 91440, "tIns": 45720, "bIns": 45720}
    for link in reversed(_chain(shape)):
        body = link._element.find(_TX_BODY)
        body_pr = body.find(_BODY_PR) if body is not None else None
        if body_pr is not None:
            for key in insets:
                if body_pr.get(key) is not None:
                    insets[key] = int(body_pr.get(key))
    outer_w, outer_h = _size(shape)
    width = outer_w - insets["lIns"] - insets["rIns"]
    height = outer_h - insets["tIns"] - insets["bIns"]
    return Box(max(width, 0), max(height, 0))


def is_monospace(run: Any) -> bool:
    r_pr = run.find(_R_PR)
    if r_pr is None:
        return False
    for tag in _FACES:
        face = r_pr.find(tag)
        if face is not None and any(m in face.get("typeface", "").lower() for m in _MONO):
            return True
    return False


def run_size(run: Any, default: float) -> float:
    r_pr = run.find(_R_PR)
    if r_pr is not None and r_pr.get("sz") is not None:
        return int(r_pr.get("sz")) / 100
    return default


def paragraph_style(p: Any, styles: dict[int, LevelStyle]) -> LevelStyle:
    p_pr = p.find(_P_PR)
    level = int(p_pr.get("lvl", "0")) + 1 if p_pr is not None else 1
    base = styles.get(level, styles[1])
    style = LevelStyle(base.size_pt, base.margin, base.spacing, base.before_pt, base.before_pct)
    _apply(style, p_pr)
    return style


@functools.lru_cache(maxsize=4096)
def is_wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


@functools.lru_cache(maxsize=8192)
def glyph_em(ch: str, *, mono: bool, bold: bool) -> float:
    if is_wide(ch):
        return WIDE_EM
    if mono:
        return MONO_EM
    return ASCII_EM.get(ch, OTHER_EM) * (BOLD if bold else 1.0)


def _is_bold(run: Any) -> bool:
    r_pr = run.find(_R_PR)
    return r_pr is not None and r_pr.get("b") == "1"


def paragraph_height_pt(
    p: Any, styles: dict[int, LevelStyle], box: Box, *, first: bool, scale: float = 1.0
) -> float:
    """Height of paragraph ``p`` (an ``a:p``) in ``box``, its space before counted unless it
    opens the frame (PowerPoint and LibreOffice add none there); ``scale``: its text that much
    smaller (what :func:`~citeledger.renderers.pptx_fit.shrink_to_fit` would write)."""
    key = (_spelled(p), id(styles), box.width, scale)
    hit = _HEIGHTS.get(key)
    if hit is None or hit[0] is not styles:
        if len(_HEIGHTS) >= _HEIGHTS_KEPT:
            _HEIGHTS.clear()
        hit = (styles, *_measure_paragraph(p, styles, box, scale))
        _HEIGHTS[key] = hit
    _styles, height, before = hit
    if not first:
        height += before
    return height


def _spelled(p: Any) -> bytes:
    """``p``'s XML as the key of its height: the namespaces it is written with stand first on
    its tag, in the order its tree declared them, and a paragraph moved to a continuation
    slide (whose tree declares them in another order) is the same paragraph: they are put
    in one order."""
    raw: bytes = etree.tostring(p)
    end = raw.find(b">")  # a quote or ">" inside an attribute's value is written escaped
    declared = _XMLNS.findall(raw, 0, end)
    if len(declared) < 2:
        return raw
    return b"".join(sorted(declared)) + _XMLNS.sub(b"", raw[:end]) + raw[end:]


_XMLNS = re.compile(rb' xmlns(?::[\w.-]+)?="[^"]*"')


# A paragraph's height by its XML, its styles and its box: the fitting measures most
# paragraphs three or four times (is the slide too tall at 90%, where to cut it, does each
# piece fit), unchanged in between. Its space before is kept apart, added when it does not
# open its frame. A few slides' worth, dropped when full; the styles are held, so their id
# is not reused while a height made with them is kept.
_HEIGHTS: dict[tuple[bytes, int, int, float], tuple[Any, float, float]] = {}
_HEIGHTS_KEPT = 4096


def _measure_paragraph(
    p: Any, styles: dict[int, LevelStyle], box: Box, scale: float
) -> tuple[float, float]:
    """The height of ``p`` without its space before, and its space before."""
    style = paragraph_style(p, styles)
    capacity = (box.width - style.margin) / EMU_PER_PT
    lines: list[list[Token]] = [[]]
    sizes = [0.0]  # each line's tallest text; an empty line is as tall as its break
    for child in p:
        if child.tag == _BR:
            lines.append([])
            sizes.append(run_size(child, style.size_pt) * scale)
            sizes[-2] = sizes[-2] or sizes[-1]
        elif child.tag in (_R, _FLD):
            size = run_size(child, style.size_pt) * scale
            sizes[-1] = size if not lines[-1] else max(sizes[-1], size)
            mono, bold = is_monospace(child), _is_bold(child)
            t = child.find(_T)
            text = t.text or "" if t is not None else ""
            if "\n" in text or "\v" in text:  # a break written as a character (plain code)
                for k, part in enumerate(_BREAKS.split(text)):
                    if k:
                        lines.append([])
                        sizes.append(size)
                    lines[-1] += _tokens(part, size, mono, bold)
            else:
                lines[-1] += _tokens(text, size, mono, bold)
        elif child.tag == A14_MATH:  # an equation: its characters, as text
            size = style.size_pt * scale
            sizes[-1] = max(sizes[-1], size)
            for t in child.iter(M_T):
                lines[-1] += _char_tokens(t.text or "", size, False, False)
    if not sizes[-1]:
        end = p.find(_END_PARA_R_PR)
        last = int(end.get("sz")) / 100 if end is not None and end.get("sz") else style.size_pt
        sizes[-1] = last * scale
    biggest = max(sizes)
    height = sum(
        wrapped(line, capacity) * size * LINE * style.spacing
        for line, size in zip(lines, sizes, strict=True)
    )
    before = style.before_pt
    return height, before if before is not None else style.before_pct * biggest * LINE


# A line's text as tokens: a run of spaces, one wide character, or a run of other characters,
# each with its characters' widths in pt and their sum (added one by one from zero, as the
# measure adds them). A paragraph's text was measured a character at a time, several times
# over while a deck is fitted: its words are measured once per build now.
SPACE, WIDE, WORD = 0, 1, 2
Token = tuple[int, float, tuple[float, ...]]
_BREAKS = re.compile("[\n\v]")
_ASCII_TOKENS = re.compile(r"\s+|\S+")


def _tokens(text: str, size: float, mono: bool, bold: bool) -> list[Token]:
    if not text.isascii():  # no wide character, nor a space str.isspace and \s disagree on
        return _char_tokens(text, size, mono, bold)
    words = _words(text)
    known = _KNOWN.get((size, mono, bold))
    if known is None or len(known) > _KNOWN_KEPT:
        if len(_KNOWN) > 64:
            _KNOWN.clear()
        known = _KNOWN[size, mono, bold] = {}
    out: list[Any] = list(map(known.get, words))
    if None in out:
        for k, word in enumerate(words):
            if out[k] is None:
                out[k] = known[word] = _token(word, size, mono, bold)
    return out


# A run's text split into words and spaces, and each word's token at each size and face: the
# same text is measured at several sizes (is a slide too tall at 90%, where to cut it, each
# step of setting it smaller) and splitting it was a third of a measure; a word's token was
# looked up through a cache of four arguments, another third. Both bounded, dropped when full.
_KNOWN: dict[tuple[float, bool, bool], dict[str, Token]] = {}
_KNOWN_KEPT = 65536


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    return tuple(_ASCII_TOKENS.findall(text))


def _token(word: str, size: float, mono: bool, bold: bool) -> Token:
    widths = tuple(size * glyph_em(ch, mono=mono, bold=bold) for ch in word)
    total = 0.0
    for width in widths:
        total += width
    return (SPACE if word[0].isspace() else WORD), total, widths


def _char_tokens(text: str, size: float, mono: bool, bold: bool) -> list[Token]:
    out: list[Token] = []
    for ch in text:
        width = size * glyph_em(ch, mono=mono, bold=bold)
        kind = SPACE if ch.isspace() else WIDE if is_wide(ch) else WORD
        out.append((kind, width, (width,)))
    return out


def wrapped(tokens: list[Token], capacity: float) -> int:
    """Lines a line's ``tokens`` take at ``capacity`` pt, greedy at spaces and between wide
    characters; a word longer than a line breaks across lines."""
    if capacity <= 0:
        return max(1, sum(len(widths) for _kind, _total, widths in tokens))
    lines, used, word = 1, 0.0, 0.0
    pending_space = 0.0
    # A space after the last token places the word it ends, as any space does. Each piece
    # placed (a word, then a wide character) is placed in the loop's own body: a call for
    # each word cost a tenth of the measure.
    for kind, total, widths in itertools.chain(tokens, _END):
        if kind == WORD:
            if word:  # a word going on from the run before: its widths added one by one
                for width in widths:
                    word += width
            else:
                word = total
            continue
        if kind == WIDE:
            pieces: tuple[float, ...] = (word, total) if word else (total,)
        else:
            pieces = (word,) if word else ()
        for width in pieces:
            # The space before it unless it opens a line; a new line when it does not fit;
            # a piece longer than a line broken across lines.
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
        word = 0.0
        if kind == WIDE:
            continue
        if pending_space:  # spaces going on from the run before
            for width in widths:
                pending_space += width
        else:
            pending_space = total
    return lines


_END: tuple[Token] = ((SPACE, 0.0, ()),)


def frame_height_pt(shape: Any, measured: Any = None) -> float:
    """The estimated height of all of ``shape``'s text (``measured``: its :func:`measure`,
    when the caller has it)."""
    styles, box = measured or measure(shape)
    body = shape._element.find(_TX_BODY)  # python-pptx's text frame's, without its lookups
    paragraphs = (body if body is not None else shape.text_frame._txBody).findall(_P)
    return sum(paragraph_height_pt(p, styles, box, first=k == 0) for k, p in enumerate(paragraphs))


def room_pt(shape: Any) -> float:
    return text_box(shape).height / EMU_PER_PT
