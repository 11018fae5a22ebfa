"""Saying the input dialect (issue 20, section 6): GitHub READMEs and LLM reports are gfm, and
read as pandoc markdown a list right after a paragraph line collapses into that paragraph.
``-f/--from`` names the reader for convert, wiki and render as it does for verify."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import make_ledger, run_citeledger

# A list straight after a paragraph line: a list in gfm, one paragraph in pandoc's markdown.
DRAFT = (
    "# Findings\n\n"
    "The measurements show:\n"
    "- ice floats on water.[1]\n"
    "- sea ice covers the poles.[2]\n\n"
    "## Sources\n\n"
    "[1] https://example.org/a — A\n"
    "[2] https://example.org/b — B\n"
)


def project(tmp_path: Path) -> Path:
    make_ledger(
        tmp_path / "ledger.json",
        [
            (1, "https://example.org/a", "A", "2024-01-01"),
            (2, "https://example.org/b", "B", "2024-01-01"),
        ],
    )
    (tmp_path / "report.md").write_text(DRAFT, encoding="utf-8")
    return tmp_path


def test_convert_from_gfm_keeps_a_list_that_follows_a_paragraph_line(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = run_citeledger("convert", "report.md", "-f", "gfm", "-o", "gfm.html", cwd=root)
    assert done.returncode == 0, done.stderr
    page = (root / "gfm.html").read_text(encoding="utf-8")
    assert re.search(r"<li>ice floats on (<span [^>]*>)?water\.", page)  # the mark bound to it
    # Read as pandoc's markdown the same lines are one paragraph: the flag is what changed it.
    done = run_citeledger("convert", "report.md", "-o", "markdown.html", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "<li>" not in (root / "markdown.html").read_text(encoding="utf-8").split("Sources")[0]


def test_wiki_from_gfm_keeps_the_list(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = run_citeledger("wiki", "report.md", "-f", "gfm", "-o", "site", "-t", "html", cwd=root)
    assert done.returncode == 0, done.stderr
    pages = "".join(p.read_text(encoding="utf-8") for p in (root / "site").rglob("*.html"))
    assert re.search(r"<li>ice floats on (<span [^>]*>)?water\.", pages)


def test_render_cited_in_reads_the_draft_as_gfm(tmp_path: Path) -> None:
    root = project(tmp_path)
    done = run_citeledger("render", "--cited-in", "report.md", "-f", "gfm", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "https://example.org/a" in done.stdout and "https://example.org/b" in done.stdout
