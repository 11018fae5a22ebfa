"""An id the draft gives twice (a heading's ``{#type-chunk}`` and a span's, as pandoc's own
lua-filters.md does) labels its first element only in the typst PDF: typst refuses a label that
occurs twice."""

from __future__ import annotations

from pathlib import Path

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
