"""``citeledger pandoc ARGS...``: the embedded pandoc, argument for argument, on a machine whose
PATH has no pandoc; and the children of every pandoc citeledger runs find that same pandoc.

The machine under test has Debian's pandoc in /usr/bin, so "no pandoc on PATH" is a PATH made
of a folder holding only ``python3`` and ``sh``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path, pandoc_version, run_pandoc

# A JSON filter that runs `pandoc --version` itself (as pandoc-include does to convert what it
# includes) and fails without one; it adds the version it found as the last paragraph.
FILTER = """#!/usr/bin/env python3
import json, subprocess, sys
doc = json.load(sys.stdin)
try:
    out = subprocess.run(["pandoc", "--version"], capture_output=True, text=True, check=True)
except (OSError, subprocess.CalledProcessError) as exc:
    sys.exit(f"f.py: no pandoc: {exc}")
first = out.stdout.splitlines()[0]
doc["blocks"].append({"t": "Para", "c": [{"t": "Str", "c": "found:" + first.replace(" ", "_")}]})
json.dump(doc, sys.stdout)
"""


def bare_path(folder: Path) -> str:
    """A PATH with python3 and sh and nothing else (no pandoc)."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    (bin_dir / "sh").symlink_to("/bin/sh")
    return str(bin_dir)


def citeledger(
    args: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "citeledger", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=False,
        timeout=120,
    )


@pytest.fixture
def pip_only(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, PATH=bare_path(tmp_path))
    env.pop("CITELEDGER_PANDOC", None)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    probe = subprocess.run(
        ["/bin/sh", "-c", "command -v pandoc"], env=env, capture_output=True, check=False
    )
    assert probe.returncode != 0, "the test PATH still finds a pandoc"
    script = tmp_path / "f.py"
    script.write_text(FILTER, encoding="utf-8")
    script.chmod(0o755)
    (tmp_path / "in.md").write_text("Ice floats.\n", encoding="utf-8")
    return env


def embedded_version_word() -> str:
    return "found:pandoc_" + ".".join(map(str, pandoc_version()))


def test_citeledger_pandoc_version_runs_without_pandoc_on_path(
    pip_only: dict[str, str], tmp_path: Path
) -> None:
    proc = citeledger(["pandoc", "--version"], tmp_path, pip_only)
    assert proc.returncode == 0, proc.stderr
    direct = subprocess.run([pandoc_path(), "--version"], capture_output=True, check=True)
    assert proc.stdout == direct.stdout


def test_a_json_filter_that_runs_pandoc_finds_the_embedded_one(
    pip_only: dict[str, str], tmp_path: Path
) -> None:
    proc = citeledger(["pandoc", "in.md", "-t", "plain", "--filter", "./f.py"], tmp_path, pip_only)
    assert proc.returncode == 0, proc.stderr.decode()
    assert embedded_version_word() in proc.stdout.decode()


def test_pandoc_started_by_citeledger_gives_its_filters_the_same_pandoc(
    pip_only: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # run_pandoc is what convert, wiki and verify start pandoc with.
    monkeypatch.setenv("PATH", pip_only["PATH"])
    out = run_pandoc(["in.md", "-t", "plain", "--filter", "./f.py"], cwd=tmp_path)
    assert embedded_version_word() in out.decode()


def test_arguments_streams_and_exit_code_are_pandocs(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("CITELEDGER_PANDOC", None)
    text = "# Eis\n\nÆble *ok* \x1b[31m red\n"
    for args in (["-t", "html"], ["-t", "json"], ["--help"], ["--", "-"]):
        ours = subprocess.run(
            [sys.executable, "-m", "citeledger", "pandoc", *args],
            input=text.encode(),
            env=env,
            capture_output=True,
            check=False,
            cwd=tmp_path,
        )
        theirs = subprocess.run(
            [pandoc_path(), *args], input=text.encode(), capture_output=True, check=False
        )
        assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout), args
    bad = citeledger(["pandoc", "--no-such-option"], tmp_path, env)
    direct = subprocess.run([pandoc_path(), "--no-such-option"], capture_output=True, check=False)
    assert bad.returncode == direct.returncode != 0
    assert bad.stderr == direct.stderr
