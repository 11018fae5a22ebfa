"""Every note mark of a finished Word file, as LibreOffice draws it: once, and the ledger id.

LibreOffice takes a note's label from the custom mark at its reference and showed a ``w:t`` mark
inside the note as body text as well ("1212 Title ..."); the renderer writes that mark as
``w:sym`` characters, which it shows once (_oxml_notes.set_note_mark). The file is rendered
to PDF by LibreOffice itself and each note's line is read back with pypdf: footnotes, endnotes,
ids above 9, and the draft's own automatic note among them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.pandoc import run_pandoc
from citeledger.renderers import postprocess
from tests.helpers import make_ledger, need, run_citeledger

SOURCES = {
    3: "Alpha density survey",
    12: "Bravo freezing record",
    25: "Charlie salinity atlas",
    107: "Delta glacier inventory",
}

DRAFT = """# Findings

Ice floats on water.[3][12] Water is densest at four degrees.[12]

Sea water freezes lower.[25] A remark of the author.[^own] Glaciers hold most fresh water.[107]

Ice is lighter again.[3]

[^own]: Authors own remark.
"""


def write_ledger(folder: Path) -> Path:
    entries = [
        (sid, f"https://example.org/source-{sid}", title, "2024-05-01")
        for sid, title in SOURCES.items()
    ]
    return make_ledger(folder / "ledger.json", entries)


def finished_docx(folder: Path, notes: str) -> Path:
    ledger = write_ledger(folder)
    out = folder / f"{notes}.docx"
    args = ["-f", "markdown", "-o", str(out), "--filter", "pandoc-citeledger"]
    args += ["-M", f"citeledger.ledger={ledger}", "-M", f"citeledger.notes={notes}"]
    args += ["-M", "citeledger.repeat-notes=cross-reference"]
    run_pandoc(args, stdin=DRAFT, cwd=folder)
    postprocess(out, ledger=load_ledger(ledger), options=Options(notes=notes))
    return out


def libreoffice_pdf_text(docx: Path, folder: Path) -> str:
    soffice = shutil.which("soffice")
    need(soffice is not None, "LibreOffice (soffice; Debian: libreoffice-writer-nogui)")
    assert soffice is not None
    outdir = folder / "pdf"
    subprocess.run(
        [
            soffice,
            f"-env:UserInstallation={(folder / 'lo-profile').as_uri()}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(outdir),
            str(docx),
        ],
        check=True,
        capture_output=True,
        timeout=240,
    )
    pdf = outdir / f"{docx.stem}.pdf"
    assert pdf.is_file(), f"LibreOffice wrote no {pdf.name}"
    return "\n".join(page.extract_text() for page in PdfReader(str(pdf)).pages)


def note_marks(text: str) -> dict[str, list[str]]:
    """What stands before each note's first words on its line, for every note found."""
    found: dict[str, list[str]] = {}
    for title in [*SOURCES.values(), "Authors own remark."]:
        found[title] = re.findall(rf"(?m)^(\S*)\s*{re.escape(title)}", text)
    return found


@pytest.mark.slow
@pytest.mark.libreoffice
@pytest.mark.parametrize("notes", ["footnotes", "endnotes"])
def test_libreoffice_shows_each_note_mark_once_as_the_ledger_id(notes: str, tmp_path: Path) -> None:
    text = libreoffice_pdf_text(finished_docx(tmp_path, notes), tmp_path)
    marks = note_marks(text)
    expected = {title: [str(sid)] for sid, title in SOURCES.items()}
    # The draft's own note is numbered in its own series (other-notes=letters): a.
    expected["Authors own remark."] = ["a"]
    assert marks == expected, text


def reference_with_fonts(folder: Path, fonts: dict[str, str]) -> Path:
    """The bundled reference.docx with ``w:rFonts w:ascii`` set on the named styles."""
    import zipfile

    from lxml import etree

    from citeledger.publish.convert.tools import REFERENCE_DOCS

    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    out = folder / "reference.docx"
    with zipfile.ZipFile(REFERENCE_DOCS["docx"]) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "word/styles.xml":
                root = etree.fromstring(data)
                for style in root.iter(f"{{{w}}}style"):
                    font = fonts.get(style.get(f"{{{w}}}styleId", ""))
                    if font is None:
                        continue
                    rpr = style.find(f"{{{w}}}rPr")
                    if rpr is None:
                        rpr = etree.SubElement(style, f"{{{w}}}rPr")
                    rfonts = etree.Element(f"{{{w}}}rFonts")
                    rfonts.set(f"{{{w}}}ascii", font)
                    rfonts.set(f"{{{w}}}hAnsi", font)
                    rpr.insert(0, rfonts)
                data = etree.tostring(root, xml_declaration=True, encoding="UTF-8")
            dst.writestr(item, data)
    return out


@pytest.mark.parametrize(
    ("fonts", "expected"),
    [
        ({}, "Cambria"),  # the bundled Normal style's font
        ({"FootnoteText": "Georgia"}, "Georgia"),  # the note paragraph's style
        ({"FootnoteText": "Georgia", "FootnoteReference": "Courier New"}, "Courier New"),
    ],
)
def test_note_mark_is_drawn_in_the_font_its_run_resolves_to(
    fonts: dict[str, str], expected: str, tmp_path: Path
) -> None:
    import zipfile

    write_ledger(tmp_path)
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    reference = reference_with_fonts(tmp_path, fonts)
    proc = run_citeledger(
        "convert", "draft.md", "-o", "out.docx", "--reference-doc", str(reference), cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(tmp_path / "out.docx") as zf:
        notes = zf.read("word/footnotes.xml").decode("utf-8")
    syms = re.findall(r'<w:sym w:font="([^"]*)" w:char="([0-9A-F]{4})"/>', notes)
    # A note per citation: [3] and [12] are cited twice, each repeat a short note of its own.
    assert "".join(chr(int(c, 16)) for _, c in syms) == "31212251073"
    assert {font for font, _ in syms} == {expected}
