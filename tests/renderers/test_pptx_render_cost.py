"""pptx renderer on a long deck: work saved that changes no byte of the deck.

A 1.8 MB report's deck is fitted into 3,100 slides: saving it built every relationship through
python-pptx's schema classes (half the save), and the fitting measured every paragraph of a
slide at 90% of its size to learn that a slide of six screenfuls does not fit. These tests build
real decks with pandoc, finish them both ways, and compare every part."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pptx.opc.oxml import CT_Relationships, serialize_part_xml

from citeledger.renderers import _pptx_oxml, pptx_fit
from citeledger.renderers import _pptx_text as tx
from tests.renderers.test_pptx_fit_growth import build, parts


def test_the_relationships_are_written_as_python_pptx_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    original = CT_Relationships.add_rel

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(CT_Relationships, "add_rel", counted)
    ours = build(tmp_path / "ours", 6)
    assert built == []  # none made through the schema classes
    # python-pptx's own writing of them: every part the same, the slides' links to the
    # Sources slides and the entries' web addresses among them.
    monkeypatch.setattr(_pptx_oxml, "_rels_xml", _pptx_oxml._ORIGINAL_RELS_XML.fget)
    theirs = build(tmp_path / "theirs", 6)
    assert built
    mine, own = parts(ours), parts(theirs)
    assert mine == own
    rels = b"".join(v for k, v in mine.items() if k.endswith(".rels"))
    assert b'TargetMode="External"' in rels and b'Target="slide' in rels


def test_a_slide_far_too_tall_is_not_measured_to_its_end_at_ninety_percent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[float] = []
    original = tx.paragraph_height_pt

    def counted(*args: Any, **kwargs: Any) -> float:
        asked.append(kwargs.get("scale", 1.0))
        return original(*args, **kwargs)

    monkeypatch.setattr(tx, "paragraph_height_pt", counted)
    ours = build(tmp_path / "ours", 8)
    at_ninety = asked.count(pptx_fit.SCALES[0])
    # Six paragraphs a slide, each a third of it: the first three or four tell.
    assert at_ninety <= 8 * 4 + 2

    def summed(paragraphs: list[Any], styles: Any, box: Any, scale: float, room: float) -> bool:
        """The whole sum, as the fitting compared it before."""
        heights = [
            original(p, styles, box, first=k == 0, scale=scale) for k, p in enumerate(paragraphs)
        ]
        return sum(heights) > room

    monkeypatch.setattr(pptx_fit, "_taller", summed)
    assert parts(build(tmp_path / "whole", 8)) == parts(ours)


def test_continuation_titles_copied_from_the_first_are_the_ones_python_pptx_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[str] = []
    own_set_title = pptx_fit._set_title

    def counted(shape: Any, title: str, made: Any = None) -> Any:
        written.append("copied" if made is not None else "written")
        return own_set_title(shape, title, made)

    monkeypatch.setattr(pptx_fit, "_set_title", counted)
    ours = build(tmp_path / "ours", 6)
    assert written.count("copied") >= written.count("written") > 0

    def each_written(shape: Any, title: str, made: Any = None) -> Any:
        return own_set_title(shape, title)

    def looked_up(slide: Any) -> tuple[Any, Any]:
        """python-pptx's title, and the one other shape when it is a body placeholder with
        a text frame, each asked of python-pptx's own shapes."""
        title = slide.shapes.title
        others = [s for s in slide.shapes if s != title]
        if len(others) != 1:
            return title, None
        shape = others[0]
        body = shape.is_placeholder and shape.placeholder_format.idx == 1 and shape.has_text_frame
        return title, shape if body else None

    monkeypatch.setattr(pptx_fit, "_set_title", each_written)
    monkeypatch.setattr(pptx_fit, "_title_and_body", looked_up)
    assert parts(build(tmp_path / "theirs", 6)) == parts(ours)


def test_the_marks_relationships_and_measures_are_python_pptxs_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The marks' relationships made as ``relate_to`` makes them, and each slide's layout
    asked of python-pptx at every measure: the same deck."""
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT

    from citeledger.renderers import pptx_marks

    ours = build(tmp_path / "ours", 6)

    def relate(part: Any, target: Any, _rels: Any) -> str:
        return str(part.relate_to(target, RT.SLIDE))

    monkeypatch.setattr(pptx_marks, "_relate", relate)
    monkeypatch.setattr(tx, "_layout_of", lambda part: getattr(part, "slide_layout", None))
    assert parts(build(tmp_path / "theirs", 6)) == parts(ours)


def test_a_paragraph_moved_to_a_continuation_slide_is_not_measured_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A continuation slide's tree declares the namespaces in another order than pandoc's,
    and its body placeholder is another clone of the same styles: the paragraphs it takes
    over are the ones measured on the slide they came from."""
    import re

    from lxml import etree

    measured: list[tuple[bytes, float]] = []
    original = tx._measure_paragraph

    def counted(p: Any, styles: Any, box: Any, scale: float) -> Any:
        bare = re.sub(rb' xmlns(:\w+)?="[^"]*"', b"", etree.tostring(p))
        measured.append((bare, scale))
        return original(p, styles, box, scale)

    monkeypatch.setattr(tx, "_measure_paragraph", counted)
    monkeypatch.setattr(tx, "_HEIGHTS", {})  # nothing measured by the tests before
    monkeypatch.setattr(tx, "_BY_KIND", {})
    ours = build(tmp_path / "ours", 6)
    assert len(measured) == len(set(measured)) > 0
    monkeypatch.setattr(tx, "_spelled", etree.tostring)
    assert parts(build(tmp_path / "theirs", 6)) == parts(ours)


def test_whether_a_shape_holds_text_is_what_its_text_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pptx import Presentation
    from pptx.oxml import parse_xml
    from pptx.oxml.ns import nsdecls

    ours = build(tmp_path / "ours", 4)
    deck = Presentation(str(ours))
    shapes = [s for slide in deck.slides for s in slide.shapes if s.has_text_frame]
    body = shapes[-1].text_frame._txBody
    for p in body.findall(qn_p := "{http://schemas.openxmlformats.org/drawingml/2006/main}p"):
        body.remove(p)
    for xml in (
        "<a:p><a:br/><a:r><a:t> \t</a:t></a:r></a:p>",  # a break and white space: blank
        "<a:p><a:fld id='{1}' type='slidenum'><a:t> 7 </a:t></a:fld></a:p>",  # a field's text
        "<a:p/>",
    ):
        body.append(parse_xml(xml.replace("<a:p", f"<a:p {nsdecls('a')}", 1)))
        assert body.findall(qn_p)
        for shape in shapes:
            assert pptx_fit._has_text(shape) == bool(shape.text_frame.text.strip())
    monkeypatch.setattr(pptx_fit, "_text_shapes", every_text_shape)
    monkeypatch.setattr(pptx_fit, "_CONTENT_LAYOUT", {})
    assert parts(build(tmp_path / "theirs", 4)) == parts(ours)


def every_text_shape(slide: Any, _fitted: Any) -> list[Any]:
    """What the fitting shrank before: every shape python-pptx lists, and every one inside
    ``mc:AlternateContent``, that has a text frame with text, none left out."""
    from pptx.shapes.shapetree import SlideShapeFactory

    tree = slide.shapes._spTree
    wrapped = [
        SlideShapeFactory(sp, slide.shapes)
        for wrapper in tree.iter(pptx_fit._MC_ALTERNATE)
        for sp in wrapper.iter(pptx_fit._P_SP)
    ]
    return [
        shape
        for shape in [*slide.shapes, *wrapped]
        if shape.has_text_frame and shape.text_frame.text.strip()
    ]


def test_a_continued_body_the_split_found_fitting_is_not_measured_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The split measured each piece of a long slide's body to cut it: setting it smaller
    would measure it all again to find it fits. Only the titles are asked."""
    from pptx import Presentation

    asked: list[int] = []
    original = pptx_fit.shrink_to_fit

    def counted(shape: Any) -> None:
        asked.append(shape.placeholder_format.idx if shape.is_placeholder else -1)
        original(shape)

    monkeypatch.setattr(pptx_fit, "shrink_to_fit", counted)
    ours = build(tmp_path / "ours", 6)
    slides = [s for s in Presentation(str(ours)).slides if "Long slide" in s.shapes.title.text]
    assert len(slides) > 12  # every long slide was split
    assert asked == [0] * len(asked)  # before: each piece's body (idx 1) too
    assert len(asked) >= len(slides)
    # Shrinking every shape with text, none left out: the same deck.
    monkeypatch.setattr(pptx_fit, "_text_shapes", every_text_shape)
    assert parts(build(tmp_path / "theirs", 6)) == parts(ours)


def test_relationships_written_without_a_tree_are_the_bytes_lxml_writes() -> None:
    """Plain values (printable ASCII but ``" & < >``) are written as they are; any other
    part goes through lxml, which escapes them."""
    internal = ("rId1", "http://schemas/slideLayout", "../slideLayouts/slideLayout2.xml", False)
    plain = (
        "rId2",
        "http://schemas/hyperlink",
        "https://x.org/a b'c!#$%()*+,-./:;=?@[]^_`{|}~",
        True,
    )
    escaped = ("rId3", "http://schemas/hyperlink", 'https://x.org/?a=1&b="2"<3>', True)
    wide = ("rId4", "http://schemas/hyperlink", "https://x.org/caf\u00e9\t", True)
    for items in ([], [internal], [internal, plain]):
        assert all(_pptx_oxml._PLAIN.fullmatch("".join(item[:3])) for item in items)
        assert _pptx_oxml._plain_rels_xml(items) == _pptx_oxml._lxml_rels_xml(items)
    for odd in (escaped, wide):
        assert not _pptx_oxml._PLAIN.fullmatch("".join(odd[:3]))
    rels = CT_Relationships.new()
    for r_id, kind, target, external in (internal, plain, escaped, wide):
        rels.add_rel(r_id, kind, target, external)
    assert _pptx_oxml._lxml_rels_xml([internal, plain, escaped, wide]) == serialize_part_xml(rels)
