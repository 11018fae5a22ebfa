"""The default PDF as a reader sees its pages: a figure that does not fit where it stands floats
to the next page and the text goes on (no quarter of page 1 left blank), table cells read as
left-aligned ragged lines (no stretched gaps between words), and characters no font has
(typst prints them as empty boxes, silently) are named in a warning with the draft's line."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.helpers import make_ledger, need, require_writer, run_citeledger
from tests.helpers.pdf_marks import pieces

SOURCES = [(1, "https://example.org/one", "One", "2025-01-01")]
FILLER = "".join(
    f"Paragraph {i} of ordinary text in the report, long enough to take two lines on an A4 "
    "page in the report look, and it cites a source too.[1]\n\n"
    for i in range(12)
)
CELL = (
    "A cell holding a long description of the sample, its preparation, the pressure it was "
    "held at, the temperature of the bath and the instrument that measured its expansion"
)
DRAFT = (
    "---\ntitle: Ice\nlang: en\n---\n\n# Ice\n\n"
    + FILLER
    + "![A big figure that needs much of a page.](big.png)\n\n"
    + "Text after the figure goes on at once.[1]\n\n"
    + "| Name | Description |\n|---|---|\n"
    + f"| alpha | {CELL} |\n| beta | Short |\n\n"
    + "Closing words of the report, set as a short last paragraph.[1]\n"
)


def solid_png(width: int, height: int) -> bytes:
    """A one-colour PNG (no imaging library in the test extra)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes((120, 160, 200)) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def build(tmp_path: Path, draft: str) -> tuple[Path, str]:
    require_writer("typst")
    make_ledger(tmp_path / "ledger.json", SOURCES)
    (tmp_path / "big.png").write_bytes(solid_png(1200, 900))
    (tmp_path / "d.md").write_text(draft, encoding="utf-8")
    proc = run_citeledger("convert", "d.md", "-o", "d.pdf", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "d.pdf", proc.stderr


def page_of(pdf: Path, words: str) -> int:
    for number, page in enumerate(pieces(pdf), 1):
        if any(words in p.text for p in page):
            return number
    raise AssertionError(f"{words!r} is on no page")


def test_a_figure_that_does_not_fit_floats_and_the_text_fills_the_page(tmp_path: Path) -> None:
    pdf, _ = build(tmp_path, DRAFT)
    # The figure needs more than what is left of page 1: it moves on, the text does not.
    assert page_of(pdf, "Paragraph 11") == 1
    assert page_of(pdf, "Text after the figure") == 1


def word_boxes(pdf: Path) -> list[tuple[float, float, float, str]]:
    """Every word of page 1 with its line (yMin) and left and right edges, from poppler."""
    need(shutil.which("pdftotext") is not None, "pdftotext (Debian: poppler-utils)")
    out = subprocess.run(
        ["pdftotext", "-bbox", "-f", "1", "-l", "1", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    boxes = []
    for line in out.splitlines():
        line = line.strip()
        if not line.startswith("<word "):
            continue
        attrs = dict(part.split("=", 1) for part in line[6:].split(">")[0].split())
        word = line.split(">", 1)[1].rsplit("<", 1)[0]
        boxes.append(
            (
                round(float(attrs["yMin"].strip('"')), 1),
                float(attrs["xMin"].strip('"')),
                float(attrs["xMax"].strip('"')),
                word,
            )
        )
    return boxes


def gaps(boxes: list[tuple[float, float, float, str]], first: str) -> list[float]:
    """The spaces between the words of the line that starts with the word ``first``."""
    y = next(b[0] for b in boxes if b[3] == first)
    row = sorted((b for b in boxes if abs(b[0] - y) < 0.5), key=lambda b: b[1])
    start = next(k for k, b in enumerate(row) if b[3] == first)
    row = row[start:]
    return [b[1] - a[2] for a, b in zip(row, row[1:], strict=False)]


def test_table_cells_are_left_aligned_and_not_justified(tmp_path: Path) -> None:
    pdf, _ = build(
        tmp_path, DRAFT.replace("![A big figure that needs much of a page.](big.png)", "")
    )
    firsts = {
        p.text.strip(): p.x
        for page in pieces(pdf)[:1]
        for p in page
        if p.text.strip() in ("Name", "alpha", "beta")
    }
    assert len(firsts) == 3 and max(firsts.values()) - min(firsts.values()) < 0.5, firsts
    boxes = word_boxes(pdf)
    # A last line of a paragraph is never stretched: its spaces are the font's own.
    natural = max(gaps(boxes, "Closing"))
    cell = gaps(boxes, "A")
    assert len(cell) >= 5
    assert max(cell) < natural + 0.5, (cell, natural)


def test_characters_no_font_has_are_named_with_their_line(tmp_path: Path) -> None:
    draft = (
        "---\ntitle: Ice\nlang: en\n---\n\n# Ice\n\nPlain words come first.[1]\n\n"
        "A rocket \U0001f680 and a rocket again \U0001f680 launch.[1]\n"
    )
    pdf, stderr = build(tmp_path, draft)
    if "\U0001f680" in "".join(page.extract_text() for page in PdfReader(pdf).pages):
        pytest.skip("this machine has a font with the rocket emoji (typst drew it)")
    warned = [line for line in stderr.splitlines() if "empty boxes" in line]
    assert len(warned) == 1, stderr
    assert "d.md:10:" in warned[0] and "\U0001f680 (U+1F680)" in warned[0]
    assert "fonts-noto-color-emoji" in warned[0] and "mainfont" in warned[0]


def test_a_figure_inside_a_list_or_a_quote_stays_after_its_text(tmp_path: Path) -> None:
    draft = (
        "---\ntitle: Ice\nlang: en\n---\n\n# Ice\n\n- An item introducing its figure:\n\n"
        "  ![Figure in the list.](big.png){width=30%}\n\n"
        "> A quote introducing its figure:\n>\n> ![Figure in the quote.](big.png){width=30%}\n\n"
        "Closing words.[1]\n"
    )
    pdf, _ = build(tmp_path, draft)
    first = pieces(pdf)[0]

    def height(words: str) -> float:
        return next(p.y for p in first if words in p.text)

    # PDF heights grow upwards: the text that introduces a figure stands above it.
    assert height("An item introducing") > height("Figure in the list")
    assert height("Figure in the list") > height("A quote introducing")
    assert height("A quote introducing") > height("Figure in the quote")
