"""What verify reads a file as, and what it says of a file it cannot read (issue 32, items 5, 7
and 9): the reader comes from the formats table by suffix, a suffix no reader takes and a PDF
are one line each, and a delivered deck or LaTeX file is read back as its reader sees it (code
is code, a slide pandoc drops is said)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from citeledger import formats
from tests.helpers.ledgers import make_ledger
from tests.helpers.run import one_error_line, run_citeledger, run_filter

URL = "https://example.org/a"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    make_ledger(tmp_path / "ledger.json", [(1, URL, "A", "2025-01-01")])
    return tmp_path


def _verify(folder: Path, *args: str) -> tuple[int, str, str]:
    done = run_citeledger("verify", *args, cwd=folder, ledger=folder / "ledger.json")
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


def _convert(folder: Path, draft: str, out: str) -> None:
    done = run_citeledger(
        "convert", "-q", draft, "-o", out, cwd=folder, ledger=folder / "ledger.json"
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("suffix", "reader"),
    [
        (".adoc", "asciidoc"),
        (".asciidoc", "asciidoc"),
        (".asc", "asciidoc"),
        (".dj", "djot"),
        (".djot", "djot"),
        (".typ", "typst"),
        (".ltx", "latex"),
        (".xhtml", "html"),
        (".rtf", "rtf"),
        (".mkd", "markdown"),
    ],
)
def test_a_suffix_names_its_reader_from_the_formats_table(suffix: str, reader: str) -> None:
    assert formats.reader_named(f"draft{suffix}") == reader
    assert formats.reader_named("draft") == "markdown"
    assert formats.reader_named("draft.xyz") is None


def test_an_asciidoc_draft_is_read_as_asciidoc_not_markdown(folder: Path) -> None:
    # Read as markdown, ``== Sources`` is no heading and the block is missing: verify failed.
    (folder / "draft.adoc").write_text(
        f"= Title\n\nIce floats on liquid water at sea level.[1]\n\n== Sources\n\n[1] {URL}\n"
    )
    code, out, err = _verify(folder, "draft.adoc")
    assert (code, err) == (0, ""), err
    assert "1 cited" in out and out.rstrip().endswith("citations OK")


def test_a_djot_file_is_read_by_the_djot_reader(folder: Path) -> None:
    # djot's ``_x_`` is emphasis and ``{-x-}`` a deletion; markdown reads both as text.
    (folder / "draft.dj").write_text(f"Ice {{-floats-}} sinks.[1]\n\n## Sources\n\n[1] {URL}\n")
    _convert(folder, "draft.dj", "page.html")
    page = (folder / "page.html").read_text()
    assert ">floats</" in page and "{-" not in page


def test_an_unknown_suffix_is_one_line_naming_from(folder: Path) -> None:
    (folder / "draft.xyz").write_text(f"Ice floats.[1]\n\n## Sources\n\n[1] {URL}\n")
    done = run_citeledger("verify", "draft.xyz", cwd=folder, ledger=folder / "ledger.json")
    one_error_line(done, "draft.xyz", ".xyz", "--from")
    code, out, _err = _verify(folder, "--from", "markdown", "draft.xyz")
    assert code == 0 and "citations OK" in out


def test_verify_of_a_pdf_is_one_line_naming_what_to_verify_instead(folder: Path) -> None:
    (folder / "draft.md").write_text(f"Ice floats.[1]\n\n## Sources\n\n[1] {URL}\n")
    _convert(folder, "draft.md", "report.pdf")
    done = run_citeledger("verify", "report.pdf", cwd=folder, ledger=folder / "ledger.json")
    one_error_line(done, "report.pdf", "PDF", "the draft", ".tex", ".typ")
    # Renamed, it is still a PDF.
    (folder / "report.pdf").rename(folder / "report.md")
    done = run_citeledger("verify", "report.md", cwd=folder, ledger=folder / "ledger.json")
    one_error_line(done, "report.md", "PDF")


def test_a_binary_pandoc_cannot_read_is_one_line(folder: Path) -> None:
    legacy = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    (folder / "paper.doc").write_bytes(legacy)
    done = run_citeledger("verify", "paper.doc", cwd=folder, ledger=folder / "ledger.json")
    one_error_line(done, "paper.doc", "legacy Office", ".docx")
    with zipfile.ZipFile(folder / "slides.odp", "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.presentation")
    done = run_citeledger("verify", "slides.odp", cwd=folder, ledger=folder / "ledger.json")
    one_error_line(done, "slides.odp", "zip", "--from")


CODE_DRAFT = f"""Ice floats on liquid water at sea level.[1]

# Code

```python
x = f[9]
y = "see[9]"
# note[9]
```

Inline `b[9]` is code too.

## Sources

[1] {URL}
"""


@pytest.mark.parametrize("out", ["deck.pptx", "paper.tex"])
def test_code_in_a_delivered_deck_or_latex_file_is_never_a_citation(folder: Path, out: str) -> None:
    # The draft passes; its deck (code in Courier runs) and its LaTeX (highlighted Shaded
    # blocks, \texttt) failed with [9] "not in the ledger".
    (folder / "draft.md").write_text(CODE_DRAFT)
    assert _verify(folder, "draft.md")[0] == 0
    _convert(folder, "draft.md", out)
    code, out_text, err = _verify(folder, out)
    assert "[9]" not in err
    assert code == 0 and "1 distinct source(s) cited" in out_text


def test_listings_and_texttt_in_a_latex_draft_are_never_citations(folder: Path) -> None:
    (folder / "paper.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n"
        "Ice floats on liquid water at sea level.[1]\n\n"
        "\\begin{lstlisting}\nx = a[9]\n\\end{lstlisting}\n\n"
        "Use \\texttt{b[9]} or \\texttt{\\textbf{c[9]}}.\n\n"
        f"\\section*{{Sources}}\n\n[1] \\url{{{URL}}}\n\\end{{document}}\n"
    )
    code, _out, err = _verify(folder, "paper.tex")
    assert (code, "[9]" in err) == (0, False), err


def test_a_slide_pandoc_cannot_read_back_is_a_finding_naming_it(folder: Path) -> None:
    # The equation's text box is written inside mc:AlternateContent, which pandoc's reader
    # drops: the slide's citation vanished and verify said OK.
    (folder / "draft.md").write_text(
        "Ice floats on liquid water at sea level.[1]\n\n# Energy\n\n"
        f"Energy $E=mc^2$ is conserved in the melt.[1]\n\n## Sources\n\n[1] {URL}\n"
    )
    _convert(folder, "draft.md", "deck.pptx")
    code, _out, err = _verify(folder, "deck.pptx")
    assert code == 1
    [line] = [ln for ln in err.splitlines() if "unreadable-slide" in ln or "slide 2" in ln]
    assert "deck.pptx § slide 2 (Energy)" in line and "verify the draft" in line
    code, out, _err = _verify(folder, "--format", "json", "deck.pptx")
    assert '"code": "unreadable-slide"' in out


def test_highlighted_latex_code_is_no_citation_to_the_filter_either(folder: Path) -> None:
    # The filter is handed the LaTeX reader's tree and failed the build on [9].
    (folder / "draft.md").write_text(CODE_DRAFT)
    _convert(folder, "draft.md", "paper.tex")
    done = run_filter("paper.tex", "-o", "page.html", cwd=folder, ledger=folder / "ledger.json")
    assert done.returncode == 0, done.stderr
    assert "[9]" not in done.stderr
