"""The default PDF (typst) builds the markdown people write: pandoc citations with no
bibliography, links to anchors a README's table of contents promises, bookdown chapters with
determinants, front matter written for R Markdown. Each case once failed the whole build."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.helpers import require_writer, run_citeledger

LEDGER = {
    "version": 1,
    "sources": [{"id": 1, "url": "https://example.com/a", "title": "A", "accessed": "2026-01-01"}],
}
SOURCES = "\n\n## Sources\n\n[1] https://example.com/a — A\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    require_writer("typst")
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    return tmp_path


def build(folder: Path, name: str, text: str, *args: str):
    (folder / name).write_text(text, encoding="utf-8")
    out = Path(name).with_suffix(".pdf").name
    done = run_citeledger("convert", name, "-o", out, *args, cwd=folder, timeout=300)
    return done, folder / out


def pdf_text(path: Path) -> str:
    text = "".join(page.extract_text() or "" for page in PdfReader(path).pages)
    return " ".join(unicodedata.normalize("NFKC", text).split())


def test_pandoc_citations_without_a_bibliography_stay_their_text(folder: Path) -> None:
    draft = "# R\n\nAs @drob put it, plots matter [@wickham2016].[1]" + SOURCES
    done, pdf = build(folder, "a.md", draft)
    assert done.returncode == 0, done.stderr
    text = pdf_text(pdf)
    assert "@drob put it" in text
    assert "@wickham2016" in text


def test_links_to_undefined_anchors_become_text_with_one_warning(folder: Path) -> None:
    draft = "# R\n\nSee [the list](#0---language-agnostic) and [intro](#r). Text.[1]" + SOURCES
    done, pdf = build(folder, "b.md", draft)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "0---language-agnostic" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warn:"), done.stderr
    assert "#r" not in warnings[0].replace("#0---", "")  # the heading's own anchor resolves
    assert "See the list and intro." in pdf_text(pdf)


CHAPTER = r"""---
title: "Linear algebra"
output: bookdown::pdf_book
linkcolor: blue
keywords: [matrices, determinants]
---

# Determinants {#det}

```{r setup, include=FALSE}
knitr::opts_chunk$set(echo = TRUE)
```

The determinant of a square matrix, $\begin{vmatrix}a & b\\ c & d\end{vmatrix} = ad - bc$, and
the norm $\begin{Vmatrix}x\\ y\end{Vmatrix}$ appear in Figure \@ref(fig:plot) and in
Equation \@ref(eq:det).[1]

(ref:plot-cap) The determinant as an area.

```{r plot, fig.cap="(ref:plot-cap)", echo=FALSE, out.width="80%"}
plot(1:10)
```

$$\det(A) = \begin{vmatrix}1 & 2\\ 3 & 4\end{vmatrix} (\#eq:det)$$

<div class="rmdnote">
Chapter \@ref(det) comes back to this.
</div>
"""
BOOKDOWN = CHAPTER + SOURCES


def test_a_bookdown_chapter_with_determinants_builds(folder: Path) -> None:
    done, pdf = build(folder, "chapter.Rmd", BOOKDOWN, "--trust-draft")  # its raw TeX equations
    assert done.returncode == 0, done.stderr
    text = pdf_text(pdf)
    assert "The determinant of a square matrix" in text
    assert "comes back to this" in text


def test_a_typst_error_names_the_drafts_line_and_cause(folder: Path) -> None:
    # Raw typst that reads a file the folder lacks (a markdown image that is missing is
    # written as its alt text instead: tests/publish/test_missing_images.py).
    draft = (
        "# R\n\nIntro text.[1]\n\nThe lighthouse keeper's diagram:\n\n"
        '`#image("missing.png")`{=typst}\n'
    )
    draft += SOURCES
    # The author's own raw typst (an untrusted draft's is refused sooner: test_trust_draft.py).
    done, _pdf = build(folder, "e.md", draft, "--trust-draft")
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("citeledger: error: e.md:7: ")
    assert "file not found" in lines[0] and "check the draft's images and raw typst" not in lines[0]
    assert not (folder / "e.pdf").exists()
