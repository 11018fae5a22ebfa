"""An untrusted draft's math is TeX code in a TeX output: pandoc's LaTeX, Beamer and ConTeXt
writers copy it as written, so ``$\\input{/etc/passwd}$`` would put a private file into the PDF
its reader makes from the ``.tex``. Such math is refused in one line for those outputs
(citeledger/options/tex_math.py); every other output, and the author's own draft, builds."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from citeledger.options.tex_math import code_in
from citeledger.pandoc import pandoc_path
from tests.helpers import run_citeledger

LEDGER = {
    "version": 1,
    "sources": [
        {"id": 1, "url": "https://example.org/ice", "title": "Ice", "accessed": "2026-01-01"}
    ],
}
SOURCES = "\n\n## Sources\n\n[1] https://example.org/ice — Ice\n"

# Formulas as mathematicians and economists write them, in LaTeX and in plain TeX: none is code.
MATHEMATICS = [
    r"\frac{a}{b} + \alpha^2 \leq \sum_{i=1}^{n} x_i",
    r"\begin{aligned} a &= b \\ c &= \hat d \end{aligned}",
    r"\begin {pmatrix} 1 & 0 \\ 0 & 1 \end {pmatrix}",
    r"\begin{align*} f(x) &= \int_0^\infty e^{-t} \, dt \end{align*}",
    r"\begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}",
    r"\newcommand{\R}{\mathbb{R}} x \in \R^n",
    r"\def\E{\mathbb{E}} \E[X]",
    r"p = \left[\matrix{w_1 \cr b_1}\right], {\bf 1}_{x} \over 2, a \hskip.5cm b",
    r"\operatorname{sgn}(x) \mathrm{d}x \textrm{ if } x \biggm| y",
    r"\label{eq:1} \tag{1} \color{red}{x}",
    r"x_{\text{input}} + \mathit{url} + \mathrm{write}",
]

CODE = [
    (r"\input{/etc/hostname}", r"\input"),
    (r"\text{\input{/etc/hostname}}", r"\input"),
    (r"\immediate\write18{touch x}", r"\immediate"),
    (r"\href{run:/bin/sh}{x}", r"\href"),
    (r"\includegraphics{/home/someone/face.png}", r"\includegraphics"),
    (r"\text{\csname input\endcsname{/etc/hostname}}", r"\csname"),
    (r"\UseName{input}{/etc/hostname}", r"\UseName"),
    (r"\ExplSyntaxOn \use:c {input}", r"\ExplSyntaxOn"),
    (r"\catcode`\|=0 |input{/etc/hostname}", r"\catcode"),
    (r"\scantokens{x}", r"\scantokens"),
    (r"^^5cinput{/etc/hostname}", "^^"),
    (r"\begin{input}{/etc/hostname}", "environment input"),
    (r"\begin{filecontents*}{x.tex} y \end{filecontents*}", "environment filecontents*"),
    (r"\def\x{input}\begin\x{/etc/hostname}", "environment named by anything"),
    (r"\begin{\x}", r"environment \x"),
]


@pytest.mark.parametrize("tex", MATHEMATICS)
def test_mathematics_is_not_code(tex: str) -> None:
    assert code_in(tex) is None


@pytest.mark.parametrize(("tex", "named"), CODE)
def test_what_reaches_a_file_a_program_or_a_link_is_named(tex: str, named: str) -> None:
    why = code_in(tex)
    assert why is not None and named in why, why


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    body = "# Ice\n\nIce floats.[1]\n\nThe host is $\\text{\\input{/etc/hostname}}$ here.\n"
    (tmp_path / "d.md").write_text(body + SOURCES, encoding="utf-8")
    return tmp_path


def cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITELEDGER")}
    return run_citeledger("--ledger", "ledger.json", *args, cwd=folder, env=env)


@pytest.mark.parametrize(
    ("out", "to"),
    [("d.tex", None), ("s.tex", "beamer"), ("c.tex", "context"), ("t.texi", "texinfo")],
)
def test_a_tex_output_of_an_untrusted_draft_refuses_its_code_in_math(
    folder: Path, out: str, to: str | None
) -> None:
    done = cli(folder, "convert", "d.md", "-o", out, *(["-t", to] if to else []))
    assert done.returncode == 2, done.stderr
    errors = [ln for ln in done.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1 and "d.md:5: math" in errors[0] and "\\input" in errors[0]
    assert "--trust-draft" in errors[0] and "Traceback" not in done.stderr
    assert not (folder / out).exists()


def test_other_outputs_and_the_authors_own_draft_build(folder: Path) -> None:
    done = cli(folder, "convert", "d.md", "-o", "d.html", "-o", "d.docx")
    assert done.returncode == 0, done.stderr
    done = cli(folder, "convert", "--trust-draft", "d.md", "-o", "d.tex")
    assert done.returncode == 0, done.stderr
    assert "\\input{/etc/hostname}" in (folder / "d.tex").read_text("utf-8")


def test_mathematics_builds_to_tex(folder: Path) -> None:
    body = "# Ice\n\nIce floats.[1]\n\n" + "\n\n".join(f"$${tex}$$" for tex in MATHEMATICS)
    (folder / "m.md").write_text(body + SOURCES, encoding="utf-8")
    done = cli(folder, "convert", "m.md", "-o", "m.tex")
    assert done.returncode == 0, done.stderr
    assert "\\operatorname{sgn}" in (folder / "m.tex").read_text("utf-8")


def test_the_filter_refuses_it_for_latex_and_passes_it_for_html(folder: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITELEDGER")}
    env["CITELEDGER_LEDGER"] = "ledger.json"

    def run(to: str, **extra: str) -> subprocess.CompletedProcess[str]:
        cmd = [pandoc_path(), "d.md", "--filter", "pandoc-citeledger", "-t", to, "-o", "out"]
        return subprocess.run(
            cmd, cwd=folder, env={**env, **extra}, capture_output=True, text=True, check=False
        )

    refused = run("latex")
    assert refused.returncode != 0 and "math '\\text{\\input" in refused.stderr
    assert run("html").returncode == 0
    assert run("latex", CITELEDGER_TRUST_DRAFT="1").returncode == 0


def test_a_raw_math_environment_of_mathematics_builds_and_one_holding_code_is_refused(
    folder: Path,
) -> None:
    # R Markdown and bookdown write display math as raw TeX environments: refused as raw code
    # before, they are math by the same rule as $$...$$.
    equation = "\\begin{equation}\nf(k) = \\binom{n}{k} p^k \\label{eq:b}\n\\end{equation}\n"
    (folder / "e.md").write_text("# Ice\n\nIce floats.[1]\n\n" + equation + SOURCES, "utf-8")
    for out in ("e.tex", "e.html"):
        done = cli(folder, "convert", "e.md", "-o", out)
        assert done.returncode == 0, done.stderr
    assert "\\binom{n}{k}" in (folder / "e.tex").read_text("utf-8")
    code = "\\begin{align}\na &= \\input{/etc/hostname}\n\\end{align}\n"
    (folder / "c.md").write_text("# Ice\n\nIce floats.[1]\n\n" + code + SOURCES, "utf-8")
    done = cli(folder, "convert", "c.md", "-o", "c.html")
    assert done.returncode == 2 and "raw tex" in done.stderr and "refused" in done.stderr


@pytest.mark.parametrize(
    ("raw", "refused"),
    [
        ("\\begin{equation*}\n\\frac{d}{dx} x = 1\n\\end{equation*}", False),
        ("\\begin{equation}\\begin{split} a &= b \\\\ &= c \\end{split}\\end{equation}", False),
        ("\\index{knitr::include\\_graphics()}", False),  # an escaped _ is a character
        ("\\begin{equation}a\\end{equation}\\input{/etc/hostname}", True),
        ("\\begin{equation}a \\end{equation}\\end{document}", True),
        ("\\begin{input}{/etc/hostname}\\end{input}", True),
        ("\\index{a\\input{/etc/hostname}}", True),
        ("\\let\\ooldhref\\href\n\\let\\href\\oldhref", True),
    ],
)
def test_raw_tex_kept_is_mathematics_or_plain_commands_only(raw: str, refused: bool) -> None:
    from citeledger.options.trust import refused_raw

    assert refused_raw("tex", raw) is refused
