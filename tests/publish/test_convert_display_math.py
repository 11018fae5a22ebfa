"""A draft's display math written as a LaTeX environment (R Markdown's, bookdown's, a
notebook's ``\\begin{equation}``) reaches the reader of every output: pandoc's markdown reader
keeps it as raw TeX, which every writer but LaTeX's and the markdown family's drops, so
``convert`` hands the others the math pandoc's LaTeX reader makes of it
(``publish/display_math.py``)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from citeledger.errors import BadInput
from citeledger.options import Options
from citeledger.publish.convert import ConvertRequest
from citeledger.publish.convert import convert as build
from citeledger.publish.display_math import drops_raw_tex
from tests.helpers import make_ledger

DRAFT = r"""# Energy

The energy is given by

\begin{equation}
E = mc^2
\end{equation}

and the forces by

\begin{align}
F &= ma \\
p &= mv
\end{align}

- and in a list:

  \begin{gather*}
  q = r
  \end{gather*}

That is all.[1]

## Sources

[1] https://example.org/a
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_ledger(tmp_path / "ledger.json", [(1, "https://example.org/a", "A", "2024-05-01")])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITELEDGER_LEDGER", str(tmp_path / "ledger.json"))
    return tmp_path


def _part(path: Path, name: str) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read(name).decode("utf-8")


def test_raw_tex_equations_reach_word_powerpoint_and_html(folder: Path) -> None:
    (folder / "draft.md").write_text(DRAFT, encoding="utf-8")
    outputs = [folder / n for n in ("r.docx", "r.pptx", "r.html", "r.tex", "r.md")]
    build(ConvertRequest(draft=Path("draft.md"), outputs=outputs))
    document = _part(folder / "r.docx", "word/document.xml")
    assert document.count("<m:oMathPara>") == 3  # each equation an Office equation
    assert "<m:t>E</m:t>" in document and "<m:t>q</m:t>" in document
    slides = "".join(
        _part(folder / "r.pptx", n)
        for n in zipfile.ZipFile(folder / "r.pptx").namelist()
        if n.startswith("ppt/slides/slide")
    )
    assert slides.count("<m:oMathPara>") + slides.count("<a14:m>") >= 3
    html = (folder / "r.html").read_text(encoding="utf-8")
    assert html.count('class="math display"') == 3
    assert "<em>E</em>\u2004=\u2004<em>m</em><em>c</em><sup>2</sup>" in html
    # The writers that keep raw TeX keep it as the draft wrote it.
    tex = (folder / "r.tex").read_text(encoding="utf-8")
    assert "\\begin{equation}\nE = mc^2\n\\end{equation}" in tex
    assert "\\begin{align}" in (folder / "r.md").read_text(encoding="utf-8")


def test_an_environment_that_is_not_mathematics_stays_out(folder: Path) -> None:
    """Raw TeX that names a file is no equation: an untrusted draft is refused (the trust
    model), and a trusted one's is left raw, which the writer drops; pandoc never reads it."""
    (folder / "draft.md").write_text(
        DRAFT.replace("E = mc^2", "E = \\input{/etc/hostname}"), encoding="utf-8"
    )
    with pytest.raises(BadInput, match="refused"):
        build(ConvertRequest(draft=Path("draft.md"), outputs=[folder / "r.docx"]))
    trusted = Options().updated({"trust-draft": True})
    build(ConvertRequest(draft=Path("draft.md"), outputs=[folder / "r.docx"], options=trusted))
    document = _part(folder / "r.docx", "word/document.xml")
    assert document.count("<m:oMathPara>") == 2 and "hostname" not in document


@pytest.mark.parametrize(
    ("fmt", "drops"),
    [
        ("html5", True),
        ("docx", True),
        ("pptx", True),
        ("typst", True),
        ("gfm", True),
        ("latex", False),
        ("beamer", False),
        ("markdown", False),
        ("markdown_strict+raw_tex", False),
        ("commonmark_x", False),
        ("rst", False),
        ("org", False),
    ],
)
def test_which_writers_drop_raw_tex(fmt: str, drops: bool) -> None:
    assert drops_raw_tex(fmt) is drops
