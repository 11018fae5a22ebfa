"""Which pandoc the commands run, and the version gate in front of it.

The commands run the pandoc embedded in the pypandoc-binary wheel, whatever else is on PATH;
``CITELEDGER_PANDOC`` names another, and a pandoc too old for what a command asks gets one line
naming its version, what needs what, and the fix. The old pandoc here is real (Debian's 2.17 in
CI, or ``$CITELEDGER_TEST_OLD_PANDOC``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from citeledger.pandoc import MINIMUM, Pandoc, gate_message, run_pandoc
from tests.helpers import pandoc_version_of, run_citeledger


def base_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("CITELEDGER_PANDOC", None)
    return env


def citeledger(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, env=env)


def with_old_pandoc_on_path(old: str, tmp_path: Path) -> dict[str, str]:
    folder = tmp_path / "old-bin"
    folder.mkdir(exist_ok=True)
    link = folder / "pandoc"
    if not link.exists():
        link.symlink_to(old)
    env = base_env()
    env["PATH"] = f"{folder}{os.pathsep}{env.get('PATH', '')}"
    return env


def with_pandoc(path: str) -> dict[str, str]:
    env = base_env()
    env["CITELEDGER_PANDOC"] = path
    return env


def one_line_refusal(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def pandoc_chosen(env: dict[str, str]) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", "from citeledger.pandoc import pandoc_path; print(pandoc_path())"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return proc.stdout.strip()


def test_embedded_pandoc_wins_over_an_old_pandoc_on_path(old_pandoc: str, tmp_path: Path):
    chosen = pandoc_chosen(with_old_pandoc_on_path(old_pandoc, tmp_path))
    assert os.path.realpath(chosen) != os.path.realpath(old_pandoc)
    assert "pypandoc" in chosen


def test_citeledger_pandoc_names_the_pandoc_to_run(old_pandoc: str) -> None:
    assert pandoc_chosen(with_pandoc(old_pandoc)) == old_pandoc


def pdf_text(path: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def test_an_old_pandoc_first_on_path_changes_nothing_convert_verify_and_wiki_do(
    old_pandoc: str, draft: Path, tmp_path: Path
) -> None:
    runs = {"plain": base_env(), "old-first": with_old_pandoc_on_path(old_pandoc, tmp_path)}
    seen: dict[str, list[object]] = {}
    for name, env in runs.items():
        out = draft.parent / name
        convert = citeledger(
            "convert",
            "input.md",
            "-o",
            f"{name}/r.html",
            "-o",
            f"{name}/r.pdf",
            cwd=out.parent,
            env=env,
        )
        assert convert.returncode == 0, convert.stderr
        verify = citeledger("verify", "input.md", cwd=draft.parent, env=env)
        wiki = citeledger(
            "wiki",
            "input.md",
            "-o",
            f"{name}/wiki",
            "--format",
            "mediawiki",
            cwd=draft.parent,
            env=env,
        )
        assert wiki.returncode == 0, wiki.stderr
        pages = {p.name: p.read_bytes() for p in sorted((out / "wiki").iterdir())}
        seen[name] = [
            convert.stderr,
            (out / "r.html").read_bytes(),
            pdf_text(out / "r.pdf"),
            verify.returncode,
            verify.stderr,
            wiki.stderr.replace(name, "OUT"),
            pages,
        ]
    assert seen["plain"] == seen["old-first"]


def test_too_old_pandoc_gets_one_line_for_typst_output(old_pandoc: str, draft: Path) -> None:
    for target in ("out.pdf", "out.typ"):
        line = one_line_refusal(
            citeledger(
                "convert", "input.md", "-o", target, cwd=draft.parent, env=with_pandoc(old_pandoc)
            )
        )
        assert "typst output" in line and "needs pandoc 3.1.2 or later" in line
        assert f"CITELEDGER_PANDOC={old_pandoc}" in line and "unset CITELEDGER_PANDOC" in line
        assert line.startswith(f"citeledger: error: pandoc {old_pandoc_version(old_pandoc)} (")


def test_gate_runs_before_any_output_is_written(old_pandoc: str, draft: Path) -> None:
    proc = citeledger(
        "convert",
        "input.md",
        "-o",
        "first.html",
        "-o",
        "second.pdf",
        cwd=draft.parent,
        env=with_pandoc(old_pandoc),
    )
    assert "typst output" in one_line_refusal(proc)
    assert not (draft.parent / "first.html").exists()


def test_too_old_pandoc_gets_one_line_for_chunkedhtml_output(old_pandoc: str, draft: Path) -> None:
    if pandoc_version_of(old_pandoc) >= (3, 0):
        pytest.skip("this old pandoc already writes chunkedhtml")
    line = one_line_refusal(
        citeledger(
            "convert",
            "input.md",
            "--to",
            "chunkedhtml",
            "-o",
            "site.zip",
            cwd=draft.parent,
            env=with_pandoc(old_pandoc),
        )
    )
    assert "chunkedhtml output needs pandoc 3.0 or later" in line


def old_pandoc_version(path: str) -> str:
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.split("\n", 1)[0].split()[-1]


def test_too_old_pandoc_gets_one_line_for_reading_pptx(old_pandoc: str, draft: Path) -> None:
    deck = draft.parent / "deck.pptx"
    run_pandoc(["-f", "markdown", "-t", "pptx", "-o", str(deck)], stdin="# Slide\n\nText.\n")
    for args in (["verify", "deck.pptx"], ["verify", "deck.pptx", "-f", "pptx"]):
        line = one_line_refusal(citeledger(*args, cwd=draft.parent, env=with_pandoc(old_pandoc)))
        assert "reading .pptx needs pandoc 3.8.3 or later" in line
        assert f"pandoc {old_pandoc_version(old_pandoc)} " in line


def test_the_embedded_pandoc_reads_pptx(draft: Path) -> None:
    deck = draft.parent / "deck.pptx"
    run_pandoc(["-f", "markdown", "-t", "pptx", "-o", str(deck)], stdin="# Slide\n\nText.\n")
    proc = citeledger("verify", "deck.pptx", cwd=draft.parent, env=base_env())
    assert proc.returncode == 0, proc.stderr


def test_a_pandoc_below_the_floor_is_named_with_what_it_lacks() -> None:
    message = gate_message((2, 10, 1), MINIMUM, Pandoc("/opt/pandoc", "env"))
    assert message == (
        "pandoc 2.10.1 (CITELEDGER_PANDOC=/opt/pandoc) is too old: citeledger's document tree "
        "(pandoc-types 1.22) needs pandoc 2.11 or later"
    )
    assert gate_message((2, 11), MINIMUM, Pandoc("/opt/pandoc", "env")) is None


def test_unknown_writer_is_one_line_naming_the_pandoc(draft: Path) -> None:
    """A format the gate has no version for fails in pandoc itself (after verification): still
    one line, naming the pandoc, instead of pandoc's bare "Unknown output format"."""
    proc = citeledger(
        "convert",
        "input.md",
        "--to",
        "nosuchformat",
        "-o",
        "x.out",
        cwd=draft.parent,
        env=base_env(),
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("citeledger: error: pandoc ")
    assert "(the embedded pandoc) has no nosuchformat writer" in last


def test_citeledger_pandoc_that_is_not_a_program_is_one_line(draft: Path) -> None:
    line = one_line_refusal(
        citeledger("verify", "input.md", cwd=draft.parent, env=with_pandoc(str(draft.parent)))
    )
    assert "is not an executable pandoc" in line


def test_citeledger_pandoc_that_is_not_pandoc_is_one_line(draft: Path) -> None:
    not_pandoc = shutil.which("true")
    assert not_pandoc is not None
    line = one_line_refusal(
        citeledger("verify", "input.md", cwd=draft.parent, env=with_pandoc(not_pandoc))
    )
    assert f"CITELEDGER_PANDOC={not_pandoc} does not answer --version as pandoc does" in line
