"""pptx: each ``[n]`` on a slide a link to the Sources slide that lists entry n.

A mark is found as verify finds it, by the one marker grammar
(:func:`citeledger.document.grammar.split_markers`) in a run's text, never in a run set in a
monospace typeface (code). Its run is split so the mark is a run of its own, with the same
formatting, carrying a click action that jumps to the slide (``ppaction://hlinksldjump`` and a
relationship to that slide, as PowerPoint writes an internal link). The mark's text stays
``[n]`` as the reader sees and a screen reader reads it; the link's ScreenTip (``tooltip``)
names the source, as an HTML mark's accessible name does. A cluster ``[2, 5]`` jumps to the
slide of its first id. A run that already is a link to an address (a draft's own hyperlink)
is left as it is.

Text in tables is linked too; text in speaker notes is not (notes are not on a slide).
"""

from __future__ import annotations

from typing import Any

from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.oxml.ns import qn
from pptx.oxml.xmlchemy import OxmlElement

from ..document.grammar import Marker, split_markers
from ._pptx_text import is_monospace

JUMP = "ppaction://hlinksldjump"
_P, _R, _T, _R_PR, _HLINK = qn("a:p"), qn("a:r"), qn("a:t"), qn("a:rPr"), qn("a:hlinkClick")


def link_marks(slides: list[Any], targets: dict[int, Any], tooltips: dict[int, str]) -> int:
    """Link every mark on ``slides`` whose number is a key of ``targets`` (number → slide);
    how many were linked."""
    linked = 0
    rels: dict[int, dict[int, str]] = {}  # each slide's relationships to slides, by target
    for slide in slides:
        for p in _paragraphs(slide):
            for run in p.findall(_R):
                linked += _link_run(slide, run, targets, tooltips, rels)
    return linked


def _paragraphs(slide: Any) -> list[Any]:
    tree = slide.shapes._spTree
    return list(tree.iter(_P))


def _existing_link(run: Any) -> Any:
    r_pr = run.find(_R_PR)
    return r_pr.find(_HLINK) if r_pr is not None else None


def _link_run(
    slide: Any,
    run: Any,
    targets: dict[int, Any],
    tooltips: dict[int, str],
    rels: dict[int, dict[int, str]],
) -> int:
    t = run.find(_T)
    text = t.text if t is not None and t.text else ""
    if "[" not in text or is_monospace(run):
        return 0
    current = _existing_link(run)
    if current is not None and current.get("action") != JUMP:
        return 0  # the draft's own link: its text stays one link
    pieces = split_markers(text)
    if not any(_target(piece, targets) is not None for piece in pieces):
        return 0
    parent = run.getparent()
    at = parent.index(run)
    parent.remove(run)
    # Each piece is a copy of the run, its properties made if missing and its old link
    # dropped: done once on the run (now out of the tree), then copied.
    r_pr = run.get_or_add_rPr()
    for old in r_pr.findall(_HLINK):
        r_pr.remove(old)
    linked = 0
    for piece in pieces:
        new = run.__copy__()  # copy.deepcopy's own copy (lxml's deep copy), without its memo
        new.find(_T).text = piece.text if isinstance(piece, Marker) else piece
        number = _target(piece, targets)
        if number is not None:
            # python-pptx's add_hlinkClick parses the element's tag anew: made once, copied.
            r_id = _relate(slide.part, targets[number].part, rels)
            click = _add_click(new.find(_R_PR), r_id)
            click.set("action", JUMP)
            if tooltips.get(number):
                click.set("tooltip", tooltips[number])
            linked += 1
        parent.insert(at, new)
        at += 1
    return linked


def _relate(part: Any, target: Any, rels: dict[int, dict[int, str]]) -> str:
    """``part.relate_to(target, RT.SLIDE)`` of python-pptx: the first relationship of ``part``
    to the slide ``target``, else a new one. python-pptx looks through every relationship of
    the slide, grouped by type anew, at each call; each slide's are looked through once here
    (``rels``: by slide part, each target part's relationship id), then the new ones added."""
    known = rels.get(id(part))
    if known is None:
        known = rels[id(part)] = {}
        for r_id, rel in part.rels.items():
            if rel.reltype == RT.SLIDE and not rel.is_external:
                known.setdefault(id(rel.target_part), r_id)
    r_id = known.get(id(target))
    if r_id is None:
        r_id = known[id(target)] = str(part.rels._add_relationship(RT.SLIDE, target))
    return r_id


_CLICK = OxmlElement("a:hlinkClick")
_AFTER_CLICK = tuple(qn(tag) for tag in ("a:hlinkMouseOver", "a:rtl", "a:extLst"))
_R_ID = qn("r:id")


def _add_click(r_pr: Any, r_id: str) -> Any:
    """``r_pr.add_hlinkClick(r_id)`` of python-pptx, the same element in the same place
    (before the run's hover link, right-to-left mark and extensions), from one made once."""
    click = _CLICK.__copy__()
    after = next((el for el in r_pr.iterchildren(*_AFTER_CLICK)), None)
    if after is None:
        r_pr.append(click)
    else:
        after.addprevious(click)
    click.set(_R_ID, r_id)
    return click


def _target(piece: object, targets: dict[int, Any]) -> int | None:
    if isinstance(piece, Marker) and piece.ids and piece.ids[0] in targets:
        return piece.ids[0]
    return None
