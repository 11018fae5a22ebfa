"""An id the draft gives twice (a heading's ``{#type-chunk}`` and a span's, as pandoc's own
lua-filters.md does) labels its first element only in the typst PDF: typst refuses a label that
occurs twice."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader

from tests.helpers import run_citeledger


def test_default_pdf_of_a_draft_that_repeats_an_id(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    run_citeledger("add", "https://example.com/a", "--title", "A", cwd=tmp_path, ledger=ledger)
    (tmp_path / "d.md").write_text(
        "# Chunk {#type-chunk}\n\nA document divided into [Chunks]{#type-chunk}.[1]\n\n"
        "See [the chunk](#type-chunk).\n\n## Sources\n\n[1] https://example.com/a — A\n"
    )
    run = run_citeledger("convert", "d.md", "-o", "d.pdf", cwd=tmp_path, ledger=ledger)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "d.pdf").read_bytes().startswith(b"%PDF")


def test_default_pdf_of_a_latex_reference_to_an_unnumbered_heading(tmp_path: Path) -> None:
    """``Section~\\ref{intro}`` is ``@intro`` to pandoc's typst writer, which typst refuses for a
    heading without a number: the reference becomes a link to the heading, its text kept."""
    ledger = tmp_path / "ledger.json"
    ledger.write_text('{"version": 1, "sources": []}')
    (tmp_path / "d.tex").write_text(
        "\\section{Intro}\\label{intro}\nSee Section~\\ref{intro} for the setting.\n"
    )
    run = run_citeledger("convert", "d.tex", "-o", "d.pdf", cwd=tmp_path, ledger=ledger)
    assert run.returncode == 0, run.stderr
    text = PdfReader(tmp_path / "d.pdf").pages[0].extract_text().replace("\xa0", " ")
    assert "Section 1 for the setting" in text


def test_default_pdf_of_an_empty_anchor_that_a_link_points_at(tmp_path: Path) -> None:
    """AsciiDoc's ``[[name]]`` opening a list item is an empty Span: pandoc writes a bare label
    with nothing before it, and the link to it fails to compile unless the anchor is an element."""
    ledger = tmp_path / "ledger.json"
    ledger.write_text('{"version": 1, "sources": []}')
    (tmp_path / "d.adoc").write_text(
        "- [[first-step]]Remove the references.\n\nSee <<first-step,the first step>>.\n"
    )
    run = run_citeledger("convert", "d.adoc", "-o", "d.pdf", cwd=tmp_path, ledger=ledger)
    assert run.returncode == 0, run.stderr
    text = PdfReader(tmp_path / "d.pdf").pages[0].extract_text()
    assert "Remove the references." in text and "the first step" in text
