"""The Word renderer's raw XML helpers on small hand-written trees: which ``NOTEREF`` fields
they find in odd markup (a bookmark or a comment between the runs, an instruction split over
runs, a nested field, one split across paragraphs), and that the relationship cache hands out
the rIds python-docx would."""

from __future__ import annotations

import docx

from citeledger.renderers import _oxml, _oxml_endnotes, _oxml_fields, _oxml_notes

W_NS = _oxml.nsdecls("w")
W_T = _oxml.qn("w:t")
STYLE = '<w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr>'


def _run(body: str, styled: bool = True) -> str:
    return f"<w:r>{STYLE if styled else ''}{body}</w:r>"


def _char(kind: str) -> str:
    return _run(f'<w:fldChar w:fldCharType="{kind}"/>')


def _field(source_id: int, shown: str = "9", instr: str = "") -> str:
    instr = instr or _run(
        f'<w:instrText xml:space="preserve"> NOTEREF _clsrc{source_id} \\f \\h </w:instrText>'
    )
    return _char("begin") + instr + _char("separate") + _run(f"<w:t>{shown}</w:t>") + _char("end")


def _found(paragraphs: str) -> list[tuple[int, bool, int, list[str]]]:
    body = _oxml.parse_xml(f"<w:body {W_NS}>{paragraphs}</w:body>")
    return [
        (f.source_id, f.as_mark, len(f.runs), [t.text for r in f.result for t in r.iter(W_T)])
        for f in _oxml_fields.noteref_fields(body)
    ]


def test_fields_are_found_around_bookmarks_comments_and_split_instructions() -> None:
    split = _run("<w:instrText> NOTEREF _clsrc</w:instrText>") + _run(
        "<w:instrText>12 \\h </w:instrText><w:instrText/>", styled=False
    )
    found = _found(
        "<w:p>"
        + _char("begin")
        + '<w:bookmarkStart w:id="5" w:name="x"/><!-- note -->'
        + _run('<w:instrText xml:space="preserve"> NOTEREF _clsrc3 \\f \\h </w:instrText>')
        + _char("separate")
        + _run("<w:t>4</w:t>")
        + '<w:bookmarkEnd w:id="5"/>'
        + _char("end")
        + _field(7, instr=split)
        + "</w:p>"
    )
    assert found == [(3, True, 5, ["4"]), (12, False, 6, ["9"])]


def test_nested_fields_are_each_found_and_a_field_split_across_paragraphs_is_not() -> None:
    outer_begin = _char("begin") + _run(
        '<w:instrText xml:space="preserve"> NOTEREF _clsrc1 \\f \\h </w:instrText>'
    )
    nested = outer_begin + _char("separate") + _field(2) + _char("end")
    split = _char("begin") + _run("<w:instrText> NOTEREF _clsrc4 </w:instrText>")
    found = _found(f"<w:p>{nested}</w:p><w:p>{split}</w:p><w:p>{_char('end')}</w:p>")
    # The outer field's runs take in the inner field's five.
    assert [(sid, runs) for sid, _, runs, _ in found] == [(1, 9), (2, 5)]


def test_a_run_holding_two_field_characters_counts_as_its_first() -> None:
    untyped = _run('<w:fldChar/><w:fldChar w:fldCharType="separate"/>')
    instr = _run('<w:instrText xml:space="preserve"> NOTEREF _clsrc6 \\h </w:instrText>')
    result = _run("<w:t>2</w:t><w:t>b</w:t>")
    found = _found(f"<w:p>{_char('begin')}{instr}{untyped}{result}{_char('end')}</w:p>")
    assert found == [(6, False, 5, ["2", "b"])]


def test_notes_by_id_keeps_the_first_of_a_duplicated_id() -> None:
    root = _oxml.parse_xml(
        f"<w:footnotes {W_NS}>"
        '<w:footnote w:id="1"><w:p/></w:footnote><w:footnote w:id="1"/>'
        '<w:footnote/><w:endnote w:id="2"/></w:footnotes>'
    )
    notes = _oxml_notes.notes_by_id(root, "footnote")
    assert list(notes) == ["1"]
    assert len(notes["1"]) == 1


def test_relations_hand_out_the_rids_python_docx_would() -> None:
    calls = [
        ("https://a.example/", _oxml.RT.HYPERLINK, True),
        ("https://b.example/", _oxml.RT.HYPERLINK, True),
        ("https://a.example/", _oxml.RT.HYPERLINK, True),
        ("styles", _oxml.RT.STYLES, False),
        ("https://c.example/", _oxml.RT.HYPERLINK, True),
    ]

    def run(use_cache: bool) -> tuple[list[str], list[tuple[str, str, str, bool]]]:
        part = docx.Document().part
        del part.rels[sorted(part.rels)[0]]  # a gap in the rIds for the next one to fill
        styles = part.part_related_by(_oxml.RT.STYLES)
        relate = _oxml_endnotes.Relations(part).relate_to if use_cache else part.relate_to
        rids = [
            relate(styles if target == "styles" else target, reltype, external)
            for target, reltype, external in calls
        ]
        rels = [(r.rId, r.reltype, r.target_ref, r.is_external) for r in part.rels.values()]
        return rids, rels

    assert run(use_cache=True) == run(use_cache=False)
