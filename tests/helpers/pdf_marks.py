"""A PDF read as a reader sees it: text pieces with their place and size on each page, lines
rebuilt from them, note marks told apart from the text by their size. For the acceptance tests
of where marks fall: no line starts with a mark; every mark's note on the mark's page."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .tools import need


@dataclass(frozen=True)
class Piece:
    """A run of text as the PDF draws it: its baseline ``y`` (from the foot of the page), its
    left edge ``x`` and its size in points."""

    y: float
    x: float
    size: float
    text: str


def pieces(pdf: Path) -> list[list[Piece]]:
    """Each page's text pieces, in the order the PDF draws them."""
    from pypdf import PdfReader

    pages: list[list[Piece]] = []
    for page in PdfReader(str(pdf)).pages:
        found: list[Piece] = []

        def visit(
            text: str,
            cm: list[float],
            tm: list[float],
            font: object,
            size: float,
            found: list[Piece] = found,
        ) -> None:
            if not text.strip():
                return
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            scaled = round(size * abs(tm[3] * cm[3]), 1)
            found.append(Piece(round(y, 1), round(x, 1), scaled, text))

        page.extract_text(visitor_text=visit)
        pages.append(found)
    return pages


def body_size(pages: list[list[Piece]]) -> float:
    """The size most of the text is set in."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for p in page:
            sizes[p.size] += len(p.text)
    return sizes.most_common(1)[0][0]


def libreoffice_pdf(docx: Path, folder: Path) -> Path:
    """The .docx as LibreOffice lays it out, printed to PDF."""
    soffice = shutil.which("soffice")
    need(soffice is not None, "LibreOffice (soffice; Debian: libreoffice-writer-nogui)")
    assert soffice is not None
    outdir = folder / "lo-pdf"
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
        timeout=300,
    )
    pdf = outdir / f"{docx.stem}.pdf"
    assert pdf.is_file(), f"LibreOffice wrote no {pdf.name}"
    return pdf


_DIGITS = re.compile(r"^\d+$")


@dataclass
class WordMarks:
    """One page of a Word document's PDF: the raised marks in the text and the notes' labels
    at the foot. A mark is a small raised run of digits; a note's label is smaller still (note
    text is set smaller than body text) and starts its note's line."""

    in_text: list[str]
    in_notes: list[str]


def word_marks(pdf: Path) -> list[WordMarks]:
    pages = pieces(pdf)
    body = body_size(pages)
    out: list[WordMarks] = []
    for page in pages:
        marks = WordMarks([], [])
        for p in page:
            text = p.text.strip()
            if not _DIGITS.match(text) or p.size > 0.7 * body:
                continue
            # Body marks are about 0.58 of the body size, note labels 0.58 of the note size.
            (marks.in_notes if p.size < 0.53 * body else marks.in_text).append(text)
        out.append(marks)
    return out


def lines(page: list[Piece], body: float) -> list[list[Piece]]:
    """The page's lines, left to right: each piece on the line of the nearest baseline at or
    below it (a raised mark belongs to the line it is raised from)."""
    full = sorted({p.y for p in page if p.size >= 0.7 * body})
    rows: dict[float, list[Piece]] = {}
    for p in page:
        below = [y for y in full if y <= p.y + 0.5 and p.y - y < 0.6 * body]
        y = max(below) if below else p.y
        rows.setdefault(y, []).append(p)
    return [sorted(row, key=lambda p: p.x) for _, row in sorted(rows.items(), reverse=True)]


_BRACKETED = re.compile(r"^\[\d+\]")


def stranded_marks(pdf: Path, *, until: str = "Sources") -> list[str]:
    """Each line, up to the heading ``until``, that starts with a citation mark (a raised run
    of digits smaller than the text, or a bracketed ``[n]``), with the line before it: what a
    reader sees as a mark torn from its word. Note labels at a page's foot (smaller than a mark
    in the text) are not marks in the text."""
    found = pieces(pdf)
    body = body_size(found)
    out: list[str] = []
    for number, page in enumerate(found, 1):
        rows = lines(page, body)
        for k, row in enumerate(rows):
            if any(p.text.strip() == until and p.size > body for p in row):
                return out
            first = row[0]
            text = first.text.strip()
            raised = text[:1].isdigit() and 0.53 * body <= first.size < 0.7 * body
            if raised or (_BRACKETED.match(text) and first.size >= 0.7 * body):
                before = " ".join(p.text.strip() for p in rows[k - 1]) if k else ""
                line = " ".join(p.text.strip() for p in row)
                out.append(f"page {number}: {before[-30:]!r} / {line[:30]!r}")
    return out
