"""How much the command line says and how it looks: ``-q``, ``-v``, colour on a terminal only
(``NO_COLOR``, ``FORCE_COLOR``), convert naming each output as it lands, and a reader that goes
away (``| head -1``) ending the run without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_citeledger

ESC = "\x1b"

DRAFT = """\
---
title: Ice
---

Sea ice floats because it is less dense than sea water.[1]
Thin ice melts faster in summer.[2]

## Sources

[1] https://example.org/1
[2] https://example.org/2
"""

MATH_TABLE = """\
## Results

| quantity | value |
|---|---|
| $x^2$ | 4 |

Ice floats on water for days.[1]
"""


def _ledger(folder: Path, count: int, *, title: str = "Source") -> Path:
    sources = [
        {
            "id": i,
            "url": f"https://example.org/{i}",
            "title": f"{title} {i}",
            "accessed": "2026-01-01",
            "quotes": [],
        }
        for i in range(1, count + 1)
    ]
    path = folder / "ledger.json"
    path.write_text(json.dumps({"version": 1, "sources": sources}), encoding="utf-8")
    return path


def _project(tmp_path: Path, sources: int = 4) -> Path:
    _ledger(tmp_path, sources)
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    return tmp_path


def _quote_uncited(folder: Path) -> None:
    """Source 3, which the draft does not cite, gets a quote: a warning (a claim lost its
    source?), where an uncited source without quotes is only counted."""
    ledger = json.loads((folder / "ledger.json").read_text(encoding="utf-8"))
    ledger["sources"][2]["quotes"] = [{"text": "Ice shelves calve.", "added": "2026-01-02"}]
    (folder / "ledger.json").write_text(json.dumps(ledger), encoding="utf-8")


def _env(**set_: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(set_)
    return env


def test_quiet_keeps_only_the_verdict_of_a_passing_verify(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    done = run_citeledger("-q", "verify", "draft.md", cwd=folder, ledger=folder / "ledger.json")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "citations OK\n"
    assert done.stderr == ""


def test_quiet_after_the_verb_keeps_the_failures_and_the_verdict(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    done = run_citeledger(
        "verify", "draft.md", "--quiet", "--evidence", cwd=folder, ledger=folder / "ledger.json"
    )
    assert done.returncode == 1
    assert "info:" not in done.stdout and "warn:" not in done.stdout
    assert done.stdout.strip() == "verification failed"
    assert done.stderr.count("FAIL:") == 2


def test_quiet_keeps_a_warning_that_fails_under_strict(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    _quote_uncited(folder)
    done = run_citeledger(
        "-q", "verify", "draft.md", "--strict", cwd=folder, ledger=folder / "ledger.json"
    )
    assert done.returncode == 1
    assert "[3] carries evidence quotes" in done.stdout
    assert "info:" not in done.stdout


def test_verbose_lists_each_uncited_search_result_on_its_own_line(tmp_path: Path) -> None:
    folder = _project(tmp_path, sources=5)
    plain = run_citeledger("verify", "draft.md", cwd=folder, ledger=folder / "ledger.json")
    assert "not cited in this draft" not in plain.stdout  # counted on the stats line only
    assert "3 registered without evidence and not cited" in plain.stdout.splitlines()[0]
    loud = run_citeledger("verify", "-v", "draft.md", cwd=folder, ledger=folder / "ledger.json")
    lines = [ln for ln in loud.stdout.splitlines() if "not cited in this draft" in ln]
    assert lines == [
        f"info: draft.md: registered in the ledger but not cited in this draft: [{i}] \u2014 "
        "fix: nothing to do; cite it where a sentence rests on it"
        for i in (3, 4, 5)
    ]


def test_quiet_and_verbose_together_are_refused(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    done = run_citeledger("-q", "verify", "-v", "draft.md", cwd=folder)
    assert done.returncode == 2
    assert done.stderr.startswith("citeledger: error: -q and -v")


def test_quiet_convert_prints_no_stats_and_no_wrote_lines(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    done = run_citeledger(
        "convert", "-q", "draft.md", "-o", "out.html", cwd=folder, ledger=folder / "ledger.json"
    )
    assert done.returncode == 0, done.stderr
    assert (folder / "out.html").is_file()
    assert "info:" not in done.stderr and "warn:" not in done.stderr
    assert "wrote" not in done.stdout


def test_quiet_wiki_prints_no_stats(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    done = run_citeledger(
        "--quiet", "wiki", "draft.md", "-o", "site", cwd=folder, ledger=folder / "ledger.json"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and "info:" not in done.stderr and "warn:" not in done.stderr
    assert any((folder / "site").iterdir())


def test_convert_names_each_output_as_it_is_written(tmp_path: Path) -> None:
    """The html output is announced before the pptx after it fails: old convert said nothing
    until every output was done, and nothing at all when one failed."""
    _ledger(tmp_path, 1)
    (tmp_path / "m.md").write_text(MATH_TABLE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "citeledger", "convert", "m.md", "-o", "m.html", "-o", "m.pptx"],
        cwd=tmp_path,
        env={**os.environ, "CITELEDGER_LEDGER": str(tmp_path / "ledger.json")},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stdout.splitlines()
    assert "wrote m.html" in lines
    failure = next(k for k, ln in enumerate(lines) if ln.startswith("citeledger: error: m.pptx"))
    assert lines.index("wrote m.html") < failure
    assert "wrote m.pptx" not in lines


# Colour ---------------------------------------------------------------------------------------


def test_force_color_colours_fail_warn_and_the_verdict(tmp_path: Path) -> None:
    folder = _project(tmp_path)
    _quote_uncited(folder)
    done = run_citeledger(
        "verify",
        "draft.md",
        "--evidence",
        cwd=folder,
        ledger=folder / "ledger.json",
        env=_env(FORCE_COLOR="1"),
    )
    assert done.returncode == 1
    assert "\x1b[1;31mFAIL\x1b[0m: draft.md:" in done.stderr
    assert "\x1b[33mwarn\x1b[0m: draft.md:" in done.stdout
    assert done.stdout.endswith("\x1b[1;31mverification failed\x1b[0m\n")
    ok = run_citeledger(
        "verify", "draft.md", cwd=folder, ledger=folder / "ledger.json", env=_env(FORCE_COLOR="1")
    )
    assert ok.stdout.endswith("\x1b[32mcitations OK\x1b[0m\n")


@pytest.mark.parametrize("env", [{"NO_COLOR": "1", "FORCE_COLOR": "1"}, {}], ids=["no", "pipe"])
def test_no_color_wins_and_a_pipe_gets_no_escape_codes(tmp_path: Path, env) -> None:
    folder = _project(tmp_path)
    done = run_citeledger(
        "verify",
        "draft.md",
        "--evidence",
        cwd=folder,
        ledger=folder / "ledger.json",
        env=_env(**env),
    )
    assert done.returncode == 1
    assert ESC not in done.stdout + done.stderr


def test_colour_never_lets_web_content_write_an_escape_sequence(tmp_path: Path) -> None:
    """A title that holds ESC sequences is printed inert even with colour on: the only escape
    codes on the terminal are citeledger's own, around its fixed words."""
    hostile = "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ \x1b[2J\x9b31m"
    _ledger(tmp_path, 1, title=hostile)
    done = run_citeledger(
        "list", cwd=tmp_path, ledger=tmp_path / "ledger.json", env=_env(FORCE_COLOR="1")
    )
    assert done.returncode == 0, done.stderr
    assert ESC not in done.stdout and "\x9b" not in done.stdout
    assert "evil.example" in done.stdout


# A reader that goes away -----------------------------------------------------------------------


def _closed_early(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run ``args`` with stdout a pipe whose reader is closed before the program writes (what
    ``| head -1`` does to a long output); the exit code and stderr."""
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode("utf-8", "replace")
    return proc.wait(timeout=120), err


@pytest.mark.parametrize(
    "args",
    [["--help"], ["list"], ["verify", "draft.md"], ["--version"]],
    ids=["help", "list", "verify", "version"],
)
def test_a_closed_pipe_ends_citeledger_quietly(tmp_path: Path, args: list[str]) -> None:
    _ledger(tmp_path, 3000)
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    env = {**os.environ, "CITELEDGER_LEDGER": str(tmp_path / "ledger.json")}
    code, err = _closed_early([sys.executable, "-m", "citeledger", *args], tmp_path, env)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert code in (0, 141), (code, err)  # 141: ended as SIGPIPE ends a C program


def test_a_closed_pipe_ends_the_filter_help_quietly(tmp_path: Path) -> None:
    code, err = _closed_early(
        [sys.executable, "-c", "from citeledger.filters.main import main; main()", "--help"],
        tmp_path,
    )
    assert "Traceback" not in err, err
    assert code in (0, 141)
