"""Word output: one real footnote per source, repeats cross-referenced, marks = ledger ids after
``postprocess``, endnotes, a Sources section, and files Word and LibreOffice open.

Drafts run through real pandoc (``--filter pandoc-citeledger``, and in-process through
``apply`` + ``pandoc -f json``); results are read back part by part as XML, never as zip bytes.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import docx
import pytest
from lxml import etree

from citeledger.errors import BadInput
from citeledger.filters.base import Caller
from citeledger.filters.run import apply
from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.pandoc import run_pandoc
from citeledger.renderers import postprocess
from tests.helpers import make_ledger, require_tool, run_citeledger

ZWSP = "\u200b"
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PR = "http://schemas.openxmlformats.org/package/2006/relationships"
NS = {"w": W, "r": R, "pr": PR}
HYPERLINK = f"{R}/hyperlink"

SOURCES = [
    (3, "https://example.com/ice?x=1&y=2", "Ice & <density> \"notes\" 'q' ]] x", "2024-05-01"),
    (12, "https://example.org/water", "\u0645\u0627\u0621 \u6c34\u306e\u5bc6\u5ea6", "2024-05-02"),
    (25, "https://example.net/salt", "Salt", "2024-05-03"),
]

DRAFT = """# Findings

Ice floats on water.[3][12] Water is densest at four degrees.[12]

Sea water freezes lower.[25] Ice is lighter again.[3]
"""


def write_ledger(tmp_path: Path, sources=SOURCES) -> Path:
    return make_ledger(tmp_path / "ledger.json", sources)


def build(tmp_path: Path, draft: str, *meta: str, name: str = "out.docx") -> Path:
    """Real pandoc with the filter, as a Makefile rule runs it. The tests here are about one
    note per source (``repeat-notes: cross-reference``) unless ``meta`` says otherwise;
    tests/renderers/test_docx_repeat_notes.py tests the default, a note per citation."""
    if not any(m.startswith("citeledger.repeat-notes=") for m in meta):
        meta = (*meta, "citeledger.repeat-notes=cross-reference")
    ledger = write_ledger(tmp_path)
    out = tmp_path / name
    args = ["-f", "markdown", "-o", str(out), "--filter", "pandoc-citeledger"]
    args += ["-M", f"citeledger.ledger={ledger}"]
    for item in meta:
        args += ["-M", item]
    run_pandoc(args, stdin=draft, cwd=tmp_path)
    return out


def build_in_process(
    tmp_path: Path,
    draft: str,
    options: Options,
    say: Callable[[str], None] = lambda line: None,
    caller: Caller | None = None,
) -> Path:
    ledger = load_ledger(write_ledger(tmp_path))
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=draft))
    apply(doc, "docx", options=options, ledger=ledger, say=say, verify=False, caller=caller)
    out = tmp_path / "inproc.docx"
    run_pandoc(["-f", "json", "-o", str(out)], stdin=json.dumps(doc))
    return out


def finish_file(path: Path, tmp_path: Path, **options: object) -> None:
    ledger = load_ledger(tmp_path / "ledger.json")
    options.setdefault("repeat-notes", "cross-reference")
    postprocess(path, ledger=ledger, options=Options().updated(options))


def part(path: Path, name: str) -> etree._Element:
    with zipfile.ZipFile(path) as zf:
        return etree.fromstring(zf.read(name))


def has_part(path: Path, name: str) -> bool:
    with zipfile.ZipFile(path) as zf:
        return name in zf.namelist()


def parts_xml(path: Path) -> dict[str, bytes]:
    """Every XML part, canonicalised: compare packages part by part, never as zip bytes."""
    with zipfile.ZipFile(path) as zf:
        return {
            n: etree.tostring(etree.fromstring(zf.read(n)), method="c14n")
            for n in zf.namelist()
            if n.endswith((".xml", ".rels"))
        }


def citation_notes(path: Path, kind: str = "footnote") -> list[etree._Element]:
    root = part(path, f"word/{kind}s.xml")
    return [n for n in root.findall(f"w:{kind}", NS) if n.get(f"{{{W}}}type") is None]


def note_text(note: etree._Element) -> str:
    """The note's text as Word draws it: ``w:t`` text and ``w:sym`` characters, in order."""
    out: list[str] = []
    for el in note.iter(f"{{{W}}}t", f"{{{W}}}sym"):
        if el.tag == f"{{{W}}}sym":
            out.append(chr(int(el.get(f"{{{W}}}char"), 16)))
        else:
            out.append(el.text or "")
    # A shown URL's zero-width spaces are where Word may break it, not part of its text.
    return "".join(out).replace(ZWSP, "")


def theme_minor_font(path: Path) -> str:
    theme = part(path, "word/theme/theme1.xml")
    ns = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main"}
    return theme.find(".//a:minorFont/a:latin", ns).get("typeface")


def rel_targets(path: Path, rels_name: str, reltype: str = HYPERLINK) -> dict[str, str]:
    root = part(path, rels_name)
    return {
        r.get("Id"): r.get("Target")
        for r in root.findall("pr:Relationship", NS)
        if r.get("Type") == reltype
    }


def noteref_fields(root: etree._Element) -> list[tuple[str, str]]:
    """(instruction, cached result) of each complex field, reading runs in order."""
    fields: list[tuple[str, str]] = []
    instr: list[str] = []
    result: list[str] = []
    state = None
    for run in root.iter(f"{{{W}}}r"):
        char = run.find("w:fldChar", NS)
        if char is not None:
            kind = char.get(f"{{{W}}}fldCharType")
            if kind == "begin":
                state, instr, result = "instr", [], []
            elif kind == "separate":
                state = "result"
            elif kind == "end":
                fields.append(("".join(instr).strip(), "".join(result)))
                state = None
            continue
        if state == "instr":
            instr += [t.text or "" for t in run.findall("w:instrText", NS)]
        elif state == "result":
            result += [t.text or "" for t in run.findall("w:t", NS)]
    return fields


def body_marks(path: Path) -> list[str]:
    """The visible note marks of the body, in order: custom-mark text, link text of
    cross-references (after finish), or ``#<n>`` for an automatically numbered note."""
    root = part(path, "word/document.xml")
    marks: list[str] = []
    for el in root.iter(f"{{{W}}}footnoteReference", f"{{{W}}}endnoteReference"):
        if el.get(f"{{{W}}}customMarkFollows") == "1":
            run = el.getparent()
            marks.append("".join(t.text or "" for t in run.findall("w:t", NS)))
        else:
            marks.append(f"#{el.get(f'{{{W}}}id')}")
    return marks


# The filter alone (bare pandoc) --------------------------------------------------------------


def test_one_footnote_per_distinct_source_with_a_live_link(tmp_path: Path) -> None:
    out = build(tmp_path, DRAFT)
    notes = citation_notes(out)
    assert len(notes) == 3  # [3] and [12] are cited twice, [25] once
    links = rel_targets(out, "word/_rels/footnotes.xml.rels")
    for note, (_sid, url, title, accessed) in zip(notes, SOURCES, strict=True):
        text = note_text(note)
        # The date breaks nowhere: a no-break space before it, non-breaking hyphens inside.
        date = accessed.replace("-", "\u2011")
        assert title in text and url in text and f"(accessed\u00a0{date})" in text
        rids = [h.get(f"{{{R}}}id") for h in note.iter(f"{{{W}}}hyperlink")]
        assert [links[r] for r in rids] == [url]


def test_first_citation_sits_in_a_valid_bookmark(tmp_path: Path) -> None:
    body = part(build(tmp_path, DRAFT), "word/document.xml")
    starts = [b for b in body.iter(f"{{{W}}}bookmarkStart") if b.get(f"{{{W}}}name", "")[:1] == "_"]
    names = [b.get(f"{{{W}}}name") for b in starts]
    assert names == ["_clsrc3", "_clsrc12", "_clsrc25"]
    ids = [b.get(f"{{{W}}}id") for b in body.iter(f"{{{W}}}bookmarkStart")]
    assert len(ids) == len(set(ids))
    for start in starts:
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,39}", start.get(f"{{{W}}}name"))
        run = start.getnext()
        assert run.find("w:footnoteReference", NS) is not None
        end = run.getnext()
        assert end.tag == f"{{{W}}}bookmarkEnd" and end.get(f"{{{W}}}id") == start.get(f"{{{W}}}id")


def test_repeat_citation_is_a_noteref_field_with_words_number(tmp_path: Path) -> None:
    body = part(build(tmp_path, DRAFT), "word/document.xml")
    assert noteref_fields(body) == [
        (r"NOTEREF _clsrc12 \f \h", "2"),
        (r"NOTEREF _clsrc3 \f \h", "1"),
    ]
    for instr in body.iter(f"{{{W}}}instrText"):
        rpr = instr.getparent().find("w:rPr", NS)
        assert rpr[0].tag == f"{{{W}}}rStyle"
        assert rpr[0].get(f"{{{W}}}val") == "FootnoteReference"


def test_noteref_number_counts_the_drafts_own_footnotes(tmp_path: Path) -> None:
    draft = "A remark.[^a] Ice floats on water.[3] Again ice here.[3]\n\n[^a]: The draft's note.\n"
    body = part(build(tmp_path, draft), "word/document.xml")
    assert noteref_fields(body) == [(r"NOTEREF _clsrc3 \f \h", "2")]


def test_adjacent_citations_get_a_superscript_comma(tmp_path: Path) -> None:
    body = part(build(tmp_path, DRAFT), "word/document.xml")
    first = next(b for b in body.iter(f"{{{W}}}bookmarkEnd"))
    comma = first.getnext()
    assert comma.find("w:t", NS).text == ","
    assert comma.find("w:rPr/w:vertAlign", NS).get(f"{{{W}}}val") == "superscript"


def test_citation_inside_a_draft_footnote_makes_no_nested_note(tmp_path: Path) -> None:
    draft = "Ice floats on water.[3] A remark.[^a]\n\n[^a]: See also [3] and [25].\n"
    out = build(tmp_path, draft)
    notes = part(out, "word/footnotes.xml")
    assert not list(notes.iter(f"{{{W}}}footnoteReference"))
    own = [n for n in citation_notes(out) if "See also" in note_text(n)][0]
    assert noteref_fields(own) == [(r"NOTEREF _clsrc3 \f \h", "1")]
    assert "https://example.net/salt" in note_text(own)  # cited only here: written out


def test_bare_pandoc_keeps_words_sequential_numbering(tmp_path: Path) -> None:
    out = build(tmp_path, DRAFT)
    marks = body_marks(out)
    assert len(marks) == 3 and all(m.startswith("#") for m in marks)
    assert b"customMarkFollows" not in zipfile.ZipFile(out).read("word/document.xml")


def test_in_process_apply_gives_the_same_notes_as_the_pandoc_filter(tmp_path: Path) -> None:
    piped = build(tmp_path, DRAFT)
    inproc = build_in_process(tmp_path, DRAFT, Options(repeat_notes="cross-reference"))
    assert [note_text(n) for n in citation_notes(piped)] == [
        note_text(n) for n in citation_notes(inproc)
    ]
    assert noteref_fields(part(piped, "word/document.xml")) == noteref_fields(
        part(inproc, "word/document.xml")
    )


def test_endnotes_without_finish_warn_through_the_runs_sink_and_stay_footnotes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said: list[str] = []
    under_pandoc = Caller(under_pandoc=True)  # as the console entry tells it when pandoc runs it
    out = build_in_process(
        tmp_path, DRAFT, Options(notes="endnotes"), say=said.append, caller=under_pandoc
    )
    assert len(said) == 1 and "citeledger finish" in said[0] and said[0].startswith("warn:")
    assert capsys.readouterr().err == ""  # the caller's sink, not a print of its own
    assert len(citation_notes(out)) == 3
    assert not has_part(out, "word/endnotes.xml")
    # in-process, as citeledger convert runs it: the default caller
    said.clear()
    build_in_process(tmp_path, DRAFT, Options(notes="endnotes"), say=said.append)
    assert said == []


def test_notes_list_links_each_mark_to_its_sources_entry(tmp_path: Path) -> None:
    out = build(tmp_path, DRAFT, "citeledger.notes=list")
    body = part(out, "word/document.xml")
    assert not list(body.iter(f"{{{W}}}footnoteReference"))
    anchors = [h.get(f"{{{W}}}anchor") for h in body.iter(f"{{{W}}}hyperlink")]
    assert [a for a in anchors if a] == ["src-3", "src-12", "src-12", "src-25", "src-3"]
    marks = [
        "".join(h.itertext()) for h in body.iter(f"{{{W}}}hyperlink") if h.get(f"{{{W}}}anchor")
    ]
    assert marks == ["[3]", "[12]", "[12]", "[25]", "[3]"]
    names = {b.get(f"{{{W}}}name") for b in body.iter(f"{{{W}}}bookmarkStart")}
    assert {"src-3", "src-12", "src-25"} <= names
    assert "Sources" in "".join(body.itertext())


def test_sources_section_replaces_the_drafts_block_only_when_the_draft_has_one(
    tmp_path: Path,
) -> None:
    plain = part(build(tmp_path, DRAFT, name="plain.docx"), "word/document.xml")
    assert "Sources" not in "".join(plain.itertext())
    block = "".join(f"- [{i}] {u} — HAND {i}\n" for i, u, _t, _a in SOURCES)
    out = build(tmp_path, DRAFT + "\n## Sources\n\n" + block, name="listed.docx")
    body = part(out, "word/document.xml")
    text = "".join(body.itertext())
    assert "Sources" in text and "HAND" not in text
    # Each entry's label is a field to the note, so it matches the marks.
    labels = [f for f in noteref_fields(body) if r"\f" not in f[0]]
    assert labels == [
        (r"NOTEREF _clsrc3 \h", "1"),
        (r"NOTEREF _clsrc12 \h", "2"),
        (r"NOTEREF _clsrc25 \h", "3"),
    ]


def test_sources_title_option_asks_for_the_section_and_an_empty_one_drops_it(
    tmp_path: Path,
) -> None:
    titled = build(tmp_path, DRAFT, "citeledger.sources-title=References", name="t.docx")
    headings = [
        "".join(p.itertext())
        for p in part(titled, "word/document.xml").iter(f"{{{W}}}p")
        if p.find("w:pPr/w:pStyle[@w:val='Heading1']", NS) is not None
    ]
    assert headings[-1] == "References"
    block = "".join(f"- [{i}] {u}\n" for i, u, _t, _a in SOURCES)
    dropped = build(
        tmp_path, DRAFT + "\n# Sources\n\n" + block, "citeledger.sources-title=", name="d.docx"
    )
    assert "Sources" not in "".join(part(dropped, "word/document.xml").itertext())


def test_filter_records_its_mode_and_drops_the_ledger_path(tmp_path: Path) -> None:
    out = build(tmp_path, DRAFT, "citeledger.notes=endnotes")
    props = part(out, "docProps/custom.xml")
    found = {p.get("name"): "".join(p.itertext()) for p in props}
    assert list(found) == ["citeledger-options"]
    recorded = json.loads(found["citeledger-options"])
    assert recorded == {
        "notes": "endnotes",
        "numbering": "ledger",
        "repeat-notes": "cross-reference",
        "other-notes": "letters",
        "sources-title": "Sources",
    }


def test_finish_reads_the_mode_files_of_citeledger_0_1_recorded(tmp_path: Path) -> None:
    from citeledger.renderers import recorded_from_text

    legacy = recorded_from_text(None, "notes=endnotes numbering=sequential")
    assert (legacy.notes, legacy.numbering) == ("endnotes", "sequential")


# The renderer (citeledger finish) ------------------------------------------------------------


def test_finish_makes_every_mark_the_ledger_id(tmp_path: Path) -> None:
    out = build(tmp_path, DRAFT)
    finish_file(out, tmp_path)
    assert body_marks(out) == ["3", "12", "25"]
    for ref in part(out, "word/document.xml").iter(f"{{{W}}}footnoteReference"):
        assert ref.get(f"{{{W}}}customMarkFollows") == "1"
        assert ref.getparent().find("w:rPr/w:rStyle", NS).get(f"{{{W}}}val") == (
            "FootnoteReference"
        )
    for note, sid in zip(citation_notes(out), ["3", "12", "25"], strict=True):
        assert note.find(".//w:footnoteRef", NS) is None
        first_run = note.find("w:p/w:r", NS)
        assert first_run.find("w:rPr/w:rStyle", NS).get(f"{{{W}}}val") == "FootnoteReference"
        assert first_run.findall("w:t", NS) == []  # LibreOffice would show a w:t mark twice
        syms = first_run.findall("w:sym", NS)
        assert "".join(chr(int(s.get(f"{{{W}}}char"), 16)) for s in syms) == sid
        # pandoc's default reference.docx names no font but the theme's (docDefaults:
        # asciiTheme="minorHAnsi"), so the mark's font is the theme's minor Latin typeface.
        assert {s.get(f"{{{W}}}font") for s in syms} == {theme_minor_font(out)}


def test_finish_turns_repeats_into_links_showing_the_id(tmp_path: Path) -> None:
    out = build(tmp_path, DRAFT)
    finish_file(out, tmp_path)
    body = part(out, "word/document.xml")
    assert noteref_fields(body) == []
    repeats = [
        (h.get(f"{{{W}}}anchor"), "".join(h.itertext()))
        for h in body.iter(f"{{{W}}}hyperlink")
        if h.get(f"{{{W}}}anchor", "").startswith("_clsrc")
    ]
    assert repeats == [("_clsrc12", "12"), ("_clsrc3", "3")]


def test_finish_twice_changes_nothing(tmp_path: Path) -> None:
    out = build(tmp_path, DRAFT + "\n# Sources\n")
    finish_file(out, tmp_path)
    once = parts_xml(out)
    finish_file(out, tmp_path)
    assert parts_xml(out) == once


def test_finish_endnotes_writes_real_word_endnotes(tmp_path: Path) -> None:
    draft = "A remark.[^a] " + DRAFT + "\n[^a]: The drafts own note.\n"
    out = build(tmp_path, draft, "citeledger.notes=endnotes")
    finish_file(out, tmp_path, notes="endnotes")
    endnotes = part(out, "word/endnotes.xml")
    specials = {n.get(f"{{{W}}}id"): n.get(f"{{{W}}}type") for n in endnotes}
    assert specials["-1"] == "separator" and specials["0"] == "continuationSeparator"
    assert [note_text(n).split(" ")[0] for n in citation_notes(out, "endnote")] == [
        "3",
        "12",
        "25",
    ]
    # The draft's own note stays a footnote; the citations left footnotes.xml.
    assert [note_text(n).strip() for n in citation_notes(out)] == ["The drafts own note."]
    body = part(out, "word/document.xml")
    assert len(list(body.iter(f"{{{W}}}endnoteReference"))) == 3
    assert body_marks(out)[1:] == ["3", "12", "25"]
    links = rel_targets(out, "word/_rels/endnotes.xml.rels")
    assert sorted(links.values()) == sorted(s[1] for s in SOURCES)
    assert not has_part(out, "word/_rels/footnotes.xml.rels") or not rel_targets(
        out, "word/_rels/footnotes.xml.rels"
    )
    doc_rels = part(out, "word/_rels/document.xml.rels")
    assert [r.get("Target") for r in doc_rels if r.get("Type") == f"{R}/endnotes"] == [
        "endnotes.xml"
    ]
    types = part(out, "[Content_Types].xml")
    overrides = {o.get("PartName"): o.get("ContentType") for o in types}
    assert overrides["/word/endnotes.xml"].endswith("wordprocessingml.endnotes+xml")
    styles = {s.get(f"{{{W}}}styleId") for s in part(out, "word/styles.xml")}
    assert {"EndnoteText", "EndnoteReference"} <= styles
    settings = part(out, "word/settings.xml")
    tags = [etree.QName(c).localname for c in settings]
    assert tags.index("endnotePr") < tags.index("rsids")
    ids = [e.get(f"{{{W}}}id") for e in settings.find("w:endnotePr", NS).findall("w:endnote", NS)]
    assert ids == ["-1", "0"]
    docx.Document(str(out))  # python-docx opens it


def test_finish_sequential_endnotes_keep_fields_with_words_numbers(tmp_path: Path) -> None:
    out = build(tmp_path, "A remark.[^a] " + DRAFT + "\n[^a]: Own.\n")
    finish_file(out, tmp_path, notes="endnotes", numbering="sequential")
    body = part(out, "word/document.xml")
    # Endnotes count apart from the draft's footnote: [12] is endnote 2, [3] endnote 1.
    assert [f for f in noteref_fields(body)] == [
        (r"NOTEREF _clsrc12 \f \h", "2"),
        (r"NOTEREF _clsrc3 \f \h", "1"),
    ]
    styles = {
        r.get(f"{{{W}}}val")
        for i in body.iter(f"{{{W}}}instrText")
        for r in i.getparent().iter(f"{{{W}}}rStyle")
    }
    assert styles == {"EndnoteReference"}
    assert b"customMarkFollows" not in zipfile.ZipFile(out).read("word/document.xml")


def test_finish_refuses_a_ledger_that_is_not_the_builds(tmp_path: Path) -> None:
    out = build(tmp_path, DRAFT)
    other = [(3, "https://elsewhere.example/", "Other", "2024-01-01"), *SOURCES[1:]]
    ledger = load_ledger(write_ledger(tmp_path, other))
    with pytest.raises(BadInput, match=r"note of \[3\] links https://example.com/ice"):
        postprocess(out, ledger=ledger, options=Options())


INJECTION = [
    (1, "https://example.com/a?b=1&c=<2>", "Tom & Jerry <script>alert(1)</script>", "2024-01-01"),
    (2, 'https://example.com/q?x="\'"', "\"Quoted\" 'single' ]]> ]] end", "2024-01-01"),
    (
        3,
        "https://example.com/rtl",
        "\u05e9\u05dc\u05d5\u05dd \u0639\u0627\u0644\u0645",
        "2024-01-01",
    ),
    (
        4,
        "https://example.com/cjk",
        "\u4e2d\u6587\u6807\u9898\u3001\u65e5\u672c\u8a9e",
        "2024-01-01",
    ),
]


@pytest.mark.parametrize("notes", ["footnotes", "endnotes", "list"])
def test_hostile_titles_and_urls_give_valid_docx_xml(tmp_path: Path, notes: str) -> None:
    write_ledger(tmp_path, INJECTION)
    ledger = load_ledger(tmp_path / "ledger.json")
    draft = "One claim here.[1][2] Two claims here.[3][4] Repeat all.[1][2][3][4]\n\n# Sources\n"
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=draft))
    apply(doc, "docx", options=Options(notes=notes), ledger=ledger, verify=False)
    out = tmp_path / f"{notes}.docx"
    run_pandoc(["-f", "json", "-o", str(out)], stdin=json.dumps(doc))
    postprocess(out, ledger=ledger, options=Options(notes=notes))
    xml = parts_xml(out)  # every part parses
    text = "".join(
        "".join(etree.fromstring(xml[n]).itertext()).replace(ZWSP, "")
        for n in ("word/document.xml", "word/footnotes.xml", "word/endnotes.xml")
        if n in xml
    )
    for _sid, url, title, _acc in INJECTION:
        assert title in text and url in text
    for name, data in xml.items():
        root = etree.fromstring(data)
        for rpr in root.iter(f"{{{W}}}rPr"):
            styles = rpr.findall("w:rStyle", NS)
            assert not styles or rpr[0] is styles[0], name
    docx.Document(str(out))


def test_finish_accepts_a_docx_built_with_the_bundled_reference(tmp_path: Path) -> None:
    import citeledger

    reference = Path(citeledger.__file__).parent / "templates" / "reference.docx"
    ledger = write_ledger(tmp_path)
    out = tmp_path / "ref.docx"
    run_pandoc(
        [
            "-f",
            "markdown",
            "-o",
            str(out),
            "--filter",
            "pandoc-citeledger",
            "--reference-doc",
            str(reference),
            "-M",
            f"citeledger.ledger={ledger}",
        ],
        stdin=DRAFT,
    )
    finish_file(out, tmp_path, notes="endnotes")
    styles = [s.get(f"{{{W}}}styleId") for s in part(out, "word/styles.xml")]
    assert styles.count("EndnoteText") == 1 and styles.count("EndnoteReference") == 1


def test_reference_docx_script_is_reproducible() -> None:
    from citeledger.templates.make_reference_docx import build as make_reference

    first = make_reference()
    assert make_reference() == first
    with zipfile.ZipFile(io.BytesIO(first)) as zf:
        styles = etree.fromstring(zf.read("word/styles.xml"))
        assert {"EndnoteText", "EndnoteReference", "FootnoteText", "Hyperlink"} <= {
            s.get(f"{{{W}}}styleId") for s in styles
        }
        assert {i.date_time for i in zf.infolist()} == {(2024, 1, 1, 0, 0, 0)}


# Other readers ------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.libreoffice
def test_libreoffice_renders_finished_footnotes_and_endnotes(tmp_path: Path) -> None:
    from pypdf import PdfReader

    soffice = require_tool("soffice")
    foot = build(tmp_path, DRAFT, name="foot.docx")
    finish_file(foot, tmp_path)
    end = build(tmp_path, DRAFT, name="end.docx")
    finish_file(end, tmp_path, notes="endnotes")
    profile = tmp_path / "lo-profile"
    outdir = tmp_path / "pdf"
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={profile.as_uri()}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(outdir),
            str(foot),
            str(end),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    for name in ("foot", "end"):
        pdf = outdir / f"{name}.pdf"
        assert pdf.is_file(), f"LibreOffice wrote no {pdf.name}"
        text = "\n".join(page.extract_text() for page in PdfReader(str(pdf)).pages)
        flat = " ".join(text.split())
        assert "water.3,12 " in flat and "degrees.12 " in flat and "lower.25 " in flat
        assert "again.3" in flat
        for _sid, url, _title, _acc in SOURCES:
            assert url in flat.replace(" ", "") or url in text


def test_verify_passes_on_the_finished_docx(tmp_path: Path) -> None:
    for notes in ("footnotes", "endnotes"):
        out = build(tmp_path, DRAFT, f"citeledger.notes={notes}", name=f"{notes}.docx")
        finish_file(out, tmp_path, notes=notes)
        proc = run_citeledger("verify", str(out), "--ledger", "ledger.json", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip().splitlines()[-1] == "citations OK"
