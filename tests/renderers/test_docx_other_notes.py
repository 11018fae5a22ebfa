"""No two notes of a delivered Word file show the same mark.

Citation notes show the ledger ids (1, 3) as custom marks; Word numbers every other note (the
draft's own ``^[...]``, a note-style CSL's through ``--citeproc``) itself, 1, 2, ..., so before
``citeledger.other-notes`` a reader met two different notes marked "1". The marks are read back
as Word draws them (document.xml's references, ``w:customMarkFollows`` and the text after it,
the section's ``w:numFmt``; footnotes.xml's ``w:sym`` marks) and as LibreOffice renders them
(PDF text layer).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from lxml import etree
from pypdf import PdfReader

from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.pandoc import run_pandoc
from citeledger.renderers import postprocess
from tests.helpers import FIXTURES, need

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = {"w": W}

SOURCES = {1: "Alpha density survey", 3: "Bravo freezing record", 12: "Charlie salinity atlas"}

DRAFT = """# Findings

Ice floats on water.[1] The sample was warm.^[Measured at noon.]

Sea water freezes lower.[3] Cities are warmer than their fields [@oke1987].

Salt lowers the freezing point.[12] A second remark.^[Second remark of the author.]
Ice floats again.[1]
"""

BIB = """@book{oke1987,
  author = {Oke, T. R.},
  title = {Boundary Layer Climates},
  year = {1987}
}
"""

# Word's number formats as Word draws the first few numbers.
SERIES = {
    "decimal": [str(n) for n in range(1, 10)],
    "lowerLetter": list("abcdefghi"),
    "lowerRoman": ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"],
    "chicago": ["*", "\u2020", "\u2021", "\u00a7", "||", "#", "**", "\u2020\u2020", "\u2021\u2021"],
}


def write_inputs(folder: Path) -> Path:
    ledger = folder / "ledger.json"
    entries = [
        {
            "id": sid,
            "url": f"https://example.org/source-{sid}",
            "title": title,
            "accessed": "2024-05-01",
            "quotes": [],
        }
        for sid, title in SOURCES.items()
    ]
    ledger.write_text(json.dumps({"version": 1, "sources": entries}), encoding="utf-8")
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    (folder / "draft.md").write_text(DRAFT, encoding="utf-8")
    return ledger


def build(folder: Path, options: Options, *meta: str) -> Path:
    """pandoc with a note-style CSL through --citeproc, then the filter, then the renderer."""
    ledger = write_inputs(folder)
    out = folder / "out.docx"
    args = ["draft.md", "-o", str(out), "--citeproc", "--bibliography", "refs.bib"]
    args += ["--csl", str(FIXTURES / "note-style.csl"), "--filter", "pandoc-citeledger"]
    args += ["-M", f"citeledger.ledger={ledger}", "-M", "citeledger.repeat-notes=cross-reference"]
    for entry in meta:
        args += ["-M", entry]
    run_pandoc(args, cwd=folder)
    postprocess(out, ledger=load_ledger(ledger), options=options)
    return out


def _xml(docx: Path, part: str) -> etree._Element | None:
    with zipfile.ZipFile(docx) as zf:
        if part not in zf.namelist():
            return None
        return etree.fromstring(zf.read(part))


def _number_format(document: etree._Element, kind: str) -> str:
    fmts = document.xpath(f"//w:sectPr/w:{kind}Pr/w:numFmt/@w:val", namespaces=NS)
    return str(fmts[-1]) if fmts else "decimal"


def word_marks(docx: Path) -> list[tuple[str, str, str]]:
    """(kind, mark at the reference, note text) for every note reference, in document order,
    with the mark Word draws: the custom mark that follows a ``customMarkFollows`` reference,
    else the next number of that kind's series in the section's format."""
    document = _xml(docx, "word/document.xml")
    assert document is not None
    parts = {kind: _xml(docx, f"word/{kind}s.xml") for kind in ("footnote", "endnote")}
    counts = {"footnote": 0, "endnote": 0}
    found = []
    refs = document.xpath("//w:footnoteReference | //w:endnoteReference", namespaces=NS)
    for ref in refs:
        kind = "endnote" if ref.tag == f"{{{W}}}endnoteReference" else "footnote"
        note_id = ref.get(f"{{{W}}}id")
        notes = parts[kind]
        assert notes is not None
        (note,) = notes.xpath(f"w:{kind}[@w:id='{note_id}']", namespaces=NS)
        text = "".join(note.xpath(".//w:t/text()", namespaces=NS)).strip()
        if ref.get(f"{{{W}}}customMarkFollows") in ("1", "true", "on"):
            mark = "".join(ref.xpath("following-sibling::w:t/text()", namespaces=NS))
            # Inside the note the same mark stands where the automatic number would.
            syms = note.xpath(".//w:sym/@w:char", namespaces=NS)
            assert "".join(chr(int(c, 16)) for c in syms) == mark
            assert not note.xpath(f".//w:{kind}Ref", namespaces=NS)
        else:
            mark = SERIES[_number_format(document, kind)][counts[kind]]
            counts[kind] += 1
            assert note.xpath(f".//w:{kind}Ref", namespaces=NS), "an automatic note lost its number"
        found.append((kind, mark, text))
    return found


def note_of(marks: list[tuple[str, str, str]], words: str) -> str:
    (mark,) = {m for _, m, text in marks if words in text}
    return mark


def assert_each_mark_once(marks: list[tuple[str, str, str]]) -> None:
    by_mark: dict[str, set[str]] = {}
    for _, mark, text in marks:
        by_mark.setdefault(mark, set()).add(text)
    shared = {mark: texts for mark, texts in by_mark.items() if len(texts) > 1}
    assert not shared, f"one mark, several notes: {shared}"


@pytest.mark.parametrize(
    ("choice", "series"),
    [("letters", ["a", "b", "c"]), ("roman", ["i", "ii", "iii"]), ("symbols", SERIES["chicago"])],
)
def test_author_and_citeproc_notes_get_a_series_apart_from_the_ledger_ids(
    choice: str, series: list[str], tmp_path: Path
) -> None:
    out = build(tmp_path, Options().updated({"other-notes": choice}))
    marks = word_marks(out)
    assert_each_mark_once(marks)
    for sid, title in SOURCES.items():
        assert note_of(marks, title) == str(sid)
    assert note_of(marks, "Measured at noon.") == series[0]
    assert note_of(marks, "Oke") == series[1]
    assert note_of(marks, "Second remark") == series[2]


def test_the_series_is_read_from_the_build_metadata_by_finish(tmp_path: Path) -> None:
    # finish gets no options: what the filter recorded in the file decides.
    from citeledger.renderers import recorded_options

    ledger = write_inputs(tmp_path)
    out = tmp_path / "out.docx"
    run_pandoc(
        ["draft.md", "-o", str(out), "--filter", "pandoc-citeledger"]
        + ["-M", f"citeledger.ledger={ledger}", "-M", "citeledger.other-notes=symbols"],
        cwd=tmp_path,
    )
    postprocess(out, ledger=load_ledger(ledger), options=recorded_options(out))
    assert note_of(word_marks(out), "Measured at noon.") == "*"


def test_citation_endnotes_beside_author_footnotes_show_no_mark_twice(tmp_path: Path) -> None:
    for numbering in ("ledger", "sequential"):
        folder = tmp_path / numbering
        folder.mkdir()
        out = build(folder, Options().updated({"notes": "endnotes", "numbering": numbering}))
        marks = word_marks(out)
        assert_each_mark_once(marks)
        kinds = {text.split()[0]: kind for kind, _, text in marks}
        assert kinds["Alpha"] == "endnote" and kinds["Measured"] == "footnote"
        assert note_of(marks, "Measured at noon.") == "a"


def test_sequential_footnotes_stay_one_series_of_word_numbers(tmp_path: Path) -> None:
    out = build(tmp_path, Options().updated({"numbering": "sequential"}))
    marks = word_marks(out)
    assert [m for _, m, _ in marks] == ["1", "2", "3", "4", "5", "6"]
    document = _xml(out, "word/document.xml")
    assert document is not None
    assert _number_format(document, "footnote") == "decimal"


def libreoffice_pdf(docx: Path, folder: Path) -> Path:
    soffice = shutil.which("soffice")
    need(soffice is not None, "LibreOffice (soffice; Debian: libreoffice-writer-nogui)")
    assert soffice is not None
    outdir = folder / "pdf"
    subprocess.run(
        [soffice, f"-env:UserInstallation={(folder / 'lo-profile').as_uri()}", "--headless"]
        + ["--convert-to", "pdf", "--outdir", str(outdir), str(docx)],
        check=True,
        capture_output=True,
        timeout=240,
    )
    pdf = outdir / f"{docx.stem}.pdf"
    assert pdf.is_file(), f"LibreOffice wrote no {pdf.name}"
    return pdf


@pytest.mark.libreoffice
@pytest.mark.parametrize("choice", ["letters", "symbols"])
def test_libreoffice_shows_every_note_mark_once(choice: str, tmp_path: Path) -> None:
    out = build(tmp_path, Options().updated({"other-notes": choice}))
    text = "\n".join(p.extract_text() for p in PdfReader(str(libreoffice_pdf(out, tmp_path))).pages)
    series = {"letters": ["a", "b", "c"], "symbols": SERIES["chicago"]}[choice]
    expected = {title: [str(sid)] for sid, title in SOURCES.items()}
    expected |= {"Measured at noon.": [series[0]], "Oke": [series[1]], "Second remark": [series[2]]}
    found = {words: re.findall(rf"(?m)^(\S*)\s*{re.escape(words)}", text) for words in expected}
    assert found == expected, text
