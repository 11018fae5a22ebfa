"""A LaTeX PDF that cannot be built says why in one line: the script no installed font holds
(not every script of the draft), the LaTeX file pandoc's template needs and TeX Live lacks
(found on the real-documents corpus: the Persian Rich README, the Manubot page)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citeledger.errors import CiteledgerError
from citeledger.renderers import latex as scripts
from tests.helpers import need, run_citeledger

DEVANAGARI = "हिन्दी"


def test_refusal_names_only_the_script_no_installed_font_holds() -> None:
    font = scripts.best_font(set(DEVANAGARI))
    if font is not None and scripts.covers(font, DEVANAGARI):
        pytest.skip("a Devanagari font is installed here")
    text = f"Русский текст. Текст на العربية هنا. Hindi: {DEVANAGARI}."
    with pytest.raises(CiteledgerError) as refused:
        scripts.plan("xelatex", text, {}, Path("d.md"))
    message = refused.value.message
    assert "Devanagari" in message
    assert "Cyrillic" not in message and "Arabic" not in message


@pytest.mark.latex
def test_a_latex_file_tex_lacks_is_one_line_not_tex_prompt(tmp_path: Path) -> None:
    """A package TeX Live lacks (here one no TeX Live has, so the test holds on every machine;
    on the Manubot page it was soul.sty, for strikeout) stops TeX at its interactive prompt:
    the user gets one line naming the file and how to install it, not the prompt."""
    need(shutil.which("xelatex") is not None, "xelatex (Debian: texlive-xetex)")
    ledger = tmp_path / "ledger.json"
    run_citeledger("add", "https://example.com/a", "--title", "A", cwd=tmp_path, ledger=ledger)
    (tmp_path / "s.md").write_text(
        "---\nheader-includes: \\usepackage{citeledgernosuchpackage}\n---\n\n"
        "# T\n\nSome text.[1]\n\n## Sources\n\n[1] https://example.com/a — A\n"
    )
    run = run_citeledger(
        "convert",
        "s.md",
        "--pdf-engine",
        "xelatex",
        "-o",
        "s.pdf",
        "--trust-draft",  # its own header-includes: an untrusted draft's are refused sooner
        cwd=tmp_path,
        ledger=ledger,
    )
    assert run.returncode != 0 and not (tmp_path / "s.pdf").exists()
    errors = [ln for ln in run.stderr.splitlines() if "error:" in ln]
    assert len(errors) == 1, run.stderr
    assert "citeledgernosuchpackage.sty is not installed" in errors[0]
    assert "Enter file name" not in run.stderr
