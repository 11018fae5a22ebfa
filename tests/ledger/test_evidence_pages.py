"""Evidence files read as the text a reader sees, chosen by content, not by file name."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
import typst

from citeledger.errors import EvidenceError
from citeledger.ledger import quote_in_text
from citeledger.ledger.evidence_pages import MAX_BYTES, html_to_text, read_evidence

PAGE = """<!DOCTYPE html>
<html><head><title>Ice</title>
<style>p { color: red } .secret-style-rule {}</style>
<script>var claim = "the moon is made of cheese";</script>
</head><body>
<noscript>Enable JavaScript to see hidden words</noscript>
<template><p>template words never shown</p></template>
<p>Sea ice <b>floats</b> because it is &lt;less&gt; dense&nbsp;than water &amp; brine.</p>
<ul><li>first item</li><li>second item</li></ul>
<table><tr><td>cell one</td><td>cell two</td></tr></table>
<!-- a comment the reader never sees -->
</body></html>
"""


def _write(tmp_path: Path, name: str, data: bytes | str) -> str:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return str(path)


def test_html_visible_text_is_matched(tmp_path: Path) -> None:
    evidence = read_evidence(_write(tmp_path, "page.html", PAGE))
    assert evidence.kind == "html"
    assert quote_in_text(
        "Sea ice floats because it is <less> dense than water & brine", evidence.text
    )


@pytest.mark.parametrize(
    "hidden",
    [
        "the moon is made of cheese",
        "secret-style-rule",
        "Enable JavaScript to see hidden words",
        "template words never shown",
        "a comment the reader never sees",
    ],
)
def test_html_script_style_and_hidden_text_is_not_evidence(tmp_path: Path, hidden: str) -> None:
    evidence = read_evidence(_write(tmp_path, "page.html", PAGE))
    assert not quote_in_text(hidden, evidence.text)


def test_html_blocks_and_cells_do_not_run_together() -> None:
    text = html_to_text(PAGE)
    assert not quote_in_text("first itemsecond item", text)
    assert quote_in_text("first item second item", text)
    assert quote_in_text("cell one cell two", text)


def test_html_is_recognised_by_content_under_any_name(tmp_path: Path) -> None:
    evidence = read_evidence(_write(tmp_path, "saved-page.txt", PAGE))
    assert evidence.kind == "html"
    assert not quote_in_text("the moon is made of cheese", evidence.text)


def test_markdown_with_an_angle_bracket_stays_text(tmp_path: Path) -> None:
    evidence = read_evidence(_write(tmp_path, "page.md", "# Title\n\nwhen a < b holds, *then* c\n"))
    assert evidence.kind == "text"
    assert quote_in_text("when a < b holds, then c", evidence.text)


def test_pdf_text_layer_is_read_whatever_the_name(tmp_path: Path) -> None:
    source = tmp_path / "doc.typ"
    source.write_text(
        "#set page(width: 12cm, height: auto)\n"
        "Sea ice \u201cfloats\u201d because it is less dense than liquid water at 0 \u00b0C.\n",
        encoding="utf-8",
    )
    pdf = typst.compile(str(source))
    assert isinstance(pdf, bytes)
    evidence = read_evidence(_write(tmp_path, "download", pdf))
    assert evidence.kind == "pdf"
    assert quote_in_text('Sea ice "floats" because it is less dense', evidence.text)
    assert not quote_in_text("Sea ice sinks because", evidence.text)


def test_pdf_without_text_layer_says_so(tmp_path: Path) -> None:
    source = tmp_path / "empty.typ"
    source.write_text("#set page(width: 5cm, height: 5cm)\n#rect(width: 1cm)\n", encoding="utf-8")
    pdf = typst.compile(str(source))
    assert isinstance(pdf, bytes)
    with pytest.raises(EvidenceError, match="without a text layer"):
        read_evidence(_write(tmp_path, "scan.pdf", pdf))


def test_damaged_pdf_is_one_error_line(tmp_path: Path) -> None:
    with pytest.raises(EvidenceError, match="cannot be read"):
        read_evidence(_write(tmp_path, "broken.pdf", b"%PDF-1.7\n garbage garbage"))


def test_sha256_and_origin_describe_the_bytes_read(tmp_path: Path) -> None:
    name = _write(tmp_path, "page.txt", "some page text\n")
    evidence = read_evidence(name)
    assert evidence.origin == name
    assert evidence.sha256 == hashlib.sha256(b"some page text\n").hexdigest()


def test_stdin_origin_is_a_dash() -> None:
    evidence = read_evidence("-", stdin=io.BytesIO(b"piped page text here"))
    assert evidence.origin == "-"
    assert evidence.text == "piped page text here"


def test_utf16_and_cp1252_pages_decode(tmp_path: Path) -> None:
    utf16 = read_evidence(_write(tmp_path, "a.txt", "caf\u00e9 au lait".encode("utf-16")))
    cp1252 = read_evidence(
        _write(tmp_path, "b.txt", "caf\u00e9 \u201cau\u201d lait".encode("cp1252"))
    )
    assert utf16.text == "caf\u00e9 au lait"
    assert quote_in_text('caf\u00e9 "au" lait', cp1252.text)


def test_binary_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EvidenceError, match="binary"):
        read_evidence(_write(tmp_path, "img.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))


def test_missing_file_and_folder_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(EvidenceError, match="no evidence file"):
        read_evidence(str(tmp_path / "nope.txt"))
    with pytest.raises(EvidenceError, match="is a folder"):
        read_evidence(str(tmp_path))


def test_oversized_evidence_is_refused_before_reading(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: no disk used
    with pytest.raises(EvidenceError, match="larger than"):
        read_evidence(str(huge))


def test_oversized_stdin_is_refused() -> None:
    with pytest.raises(EvidenceError, match="larger than"):
        read_evidence("-", stdin=io.BytesIO(b"x" * 2048), max_bytes=1024)
    assert read_evidence("-", stdin=io.BytesIO(b"x" * 1024), max_bytes=1024).text == "x" * 1024


def test_ten_megabyte_html_page_is_read(tmp_path: Path) -> None:
    block = "<div><p>Lorem ipsum <a href='x'>dolor</a> sit amet &amp; more.</p></div>\n"
    page = (
        "<html><body>" + block * (10_000_000 // len(block)) + "<p>needle here now</p></body></html>"
    )
    evidence = read_evidence(_write(tmp_path, "big.html", page))
    assert quote_in_text("needle here now", evidence.text)
