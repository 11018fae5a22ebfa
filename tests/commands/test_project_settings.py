"""Project settings: ``citeledger.toml`` or ``[tool.citeledger]``, found walking up from the
working directory, under the draft's front matter and the flags. Each layer of the precedence
is pinned by what ``verify`` decides, and ``citeledger config`` says where each value came
from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_citeledger

# Two of three sentences cited: coverage 67 %.
DRAFT = """\
{front}
Sea ice floats because it is less dense than sea water.[1]
Thin ice melts faster in summer.[2]
Nobody has measured the colour of this particular ice sheet yet.

## Sources

[1] https://example.org/1
[2] https://example.org/2
"""


ENV_LEDGERS = ("CITELEDGER_LEDGER", "HERMES_CITATION_LEDGER")


def _ledger(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    sources = [
        {"id": i, "url": f"https://example.org/{i}", "title": f"S{i}", "accessed": "2026-01-01"}
        for i in (1, 2)
    ]
    path.write_text(json.dumps({"version": 1, "sources": sources}), encoding="utf-8")
    return path


def _draft(folder: Path, front_coverage: str | None = None, name: str = "draft.md") -> Path:
    front = ""
    if front_coverage is not None:
        front = f"---\nciteledger:\n  min-coverage: {front_coverage}\n---\n"
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DRAFT.format(front=front), encoding="utf-8")
    return path


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ENV_LEDGERS}
    return run_citeledger(*args, cwd=cwd, env=env)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    _ledger(tmp_path / "ledger.json")
    return tmp_path


# The precedence, layer by layer ----------------------------------------------------------------


def test_default_layer_has_no_coverage_floor(project: Path) -> None:
    _draft(project)
    done = _run("verify", "draft.md", cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr


def test_project_file_layer_beats_the_default(project: Path) -> None:
    _draft(project)
    (project / "citeledger.toml").write_text("min-coverage = 0.9\n", encoding="utf-8")
    done = _run("verify", "draft.md", cwd=project)
    assert done.returncode == 1
    assert "coverage" in done.stderr


def test_front_matter_layer_beats_the_project_file_only_to_tighten_the_gate(
    project: Path,
) -> None:
    # Issue 35: a draft cannot pass the project's gate by lowering it in its front matter,
    # trusted or not; it may raise it.
    _draft(project, front_coverage="0.5")
    (project / "citeledger.toml").write_text("min-coverage = 0.9\n", encoding="utf-8")
    done = _run("verify", "draft.md", cwd=project)
    assert done.returncode == 1, done.stdout + done.stderr
    assert _run("verify", "draft.md", "--trust-draft", cwd=project).returncode == 1
    (project / "citeledger.toml").write_text("min-coverage = 0.4\n", encoding="utf-8")
    assert _run("verify", "draft.md", cwd=project).returncode == 0


def test_flag_layer_beats_the_front_matter(project: Path) -> None:
    _draft(project, front_coverage="0.5")
    (project / "citeledger.toml").write_text("min-coverage = 0.5\n", encoding="utf-8")
    done = _run("verify", "draft.md", "--min-coverage", "0.9", cwd=project)
    assert done.returncode == 1


def test_config_names_the_layer_of_every_value(project: Path) -> None:
    _draft(project, front_coverage="0.5")
    toml = project / "citeledger.toml"
    toml.write_text(
        'min-coverage = 0.4\nevidence = true\nsources-title = "Quellen"\nnotes = "endnotes"\n',
        encoding="utf-8",
    )
    done = _run("config", "draft.md", "--notes", "list", cwd=project)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"# project file: {toml}"
    assert 'notes = "list"  # flag --notes' in lines
    assert "min-coverage = 0.5  # front matter of draft.md" in lines
    assert f"evidence = true  # project file {toml}" in lines
    assert f'sources-title = "Quellen"  # project file {toml}' in lines
    assert "strict = false  # default" in lines
    assert 'pdf-engine = "typst"  # default' in lines


def test_config_without_a_project_file_says_so(tmp_path: Path) -> None:
    done = _run("config", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# no project file")
    assert "# min-coverage: not set  # default" in done.stdout.splitlines()


# Finding the file -------------------------------------------------------------------------------


def test_pyproject_tool_table_is_read_and_its_ledger_is_relative_to_it(tmp_path: Path) -> None:
    _ledger(tmp_path / "research" / "sources.json")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.citeledger]\nledger = "research/sources.json"\n',
        encoding="utf-8",
    )
    deep = tmp_path / "drafts" / "chapter"
    deep.mkdir(parents=True)
    done = _run("list", cwd=deep)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "[1] https://example.org/1  S1"
    config = _run("config", cwd=deep)
    ledger = tmp_path / "research" / "sources.json"
    assert f'ledger = "{ledger}"  # project file {tmp_path / "pyproject.toml"}' in config.stdout


def test_the_nearest_project_file_wins_and_a_pyproject_without_the_table_is_passed(
    tmp_path: Path,
) -> None:
    (tmp_path / "citeledger.toml").write_text("evidence = true\n", encoding="utf-8")
    inner = tmp_path / "book"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "book"\n', encoding="utf-8")
    done = _run("config", cwd=inner)
    assert done.stdout.splitlines()[0] == f"# project file: {tmp_path / 'citeledger.toml'}"
    (inner / "citeledger.toml").write_text("figures = true\n", encoding="utf-8")
    nearer = _run("config", cwd=inner)
    assert nearer.stdout.splitlines()[0] == f"# project file: {inner / 'citeledger.toml'}"
    assert "evidence = false  # default" in nearer.stdout.splitlines()


def test_verify_with_no_file_checks_the_project_drafts(project: Path) -> None:
    _draft(project, name="drafts/a.md")
    _draft(project, name="drafts/b.md")
    (project / "notes.md").write_text("Not a draft.[9]\n", encoding="utf-8")
    (project / "citeledger.toml").write_text(
        'ledger = "ledger.json"\ndrafts = ["drafts/*.md"]\n', encoding="utf-8"
    )
    sub = project / "drafts"
    done = _run("verify", cwd=sub)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "info: a.md: stats:" in done.stdout and "info: b.md: stats:" in done.stdout


def test_verify_with_no_file_and_no_drafts_says_how_to_name_them(tmp_path: Path) -> None:
    done = _run("verify", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("citeledger: error: no FILE given")
    assert "drafts = " in done.stderr


# A bad file --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ("colour = true\n", ["unknown key 'colour'", "min-coverage"]),
        ('notes = "sidenotes"\n', ["notes: 'sidenotes' is not one of", 'notes = "footnotes"']),
        ("min-coverage = 2\n", ["min-coverage: 2 is not a number from 0 to 1", "0.6"]),
        ("drafts = 3\n", ["drafts: 3 is not a list of globs", 'drafts = ["drafts/*.md"]']),
        ("evidence = \n", ["not readable TOML"]),
    ],
    ids=["key", "choice", "fraction", "drafts", "toml"],
)
def test_a_bad_project_file_is_one_line_naming_file_key_and_fix(
    project: Path, text: str, needles: list[str]
) -> None:
    _draft(project)
    toml = project / "citeledger.toml"
    toml.write_text(text, encoding="utf-8")
    done = _run("verify", "draft.md", cwd=project)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"citeledger: error: {toml}: ")
    for needle in needles:
        assert needle in line, line


def test_front_matter_pdf_engine_beats_the_project_files(project: Path) -> None:
    """pdf-engine is an option of the table like any other: a trusted draft's front matter
    names the engine over the project file (here one not installed, so the build says which);
    an untrusted draft's is dropped (tests/hostile/test_trust_draft.py)."""
    (project / "draft.md").write_text(
        "---\nciteledger:\n  pdf-engine: lualatex\n---\n" + DRAFT.format(front=""),
        encoding="utf-8",
    )
    (project / "citeledger.toml").write_text('pdf-engine = "typst"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ENV_LEDGERS}
    env["PATH"] = str(Path(sys.executable).parent)
    args = ("convert", "draft.md", "-o", "out.pdf", "--trust-draft")
    done = run_citeledger(*args, cwd=project, env=env)
    assert done.returncode == 2, done.stderr
    assert "lualatex not found on PATH" in done.stderr
    assert not (project / "out.pdf").exists()
