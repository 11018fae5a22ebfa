"""``--version`` on both programs, the shell completion typer offers, and a start-up that stays
light: the habits of a ruff or uv user."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import citeledger
from citeledger.pandoc import pandoc_path, pandoc_version
from tests.helpers import ROOT, run_citeledger


def test_citeledger_version_names_the_package_and_the_pandoc_it_runs(tmp_path: Path) -> None:
    done = run_citeledger("--version", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first == f"citeledger {citeledger.__version__} ({citeledger.__date__})"
    version = ".".join(map(str, pandoc_version()))
    assert second == f"pandoc {version} ({pandoc_path()})"


def test_the_version_and_its_date_head_the_changelog() -> None:
    """The newest release of CHANGELOG.md is the version and date --version prints (and the
    manual's footer, through docs/hooks.py)."""
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## \[(\d[^\]]*)\] - (\d{4}-\d\d-\d\d)$", changelog, re.M)
    assert released, "CHANGELOG.md names no release as ## [X.Y.Z] - YYYY-MM-DD"
    assert released[0] == (citeledger.__version__, citeledger.__date__)
    assert f"[{citeledger.__version__}]: " in changelog  # its link at the foot


def test_pandoc_citeledger_version_names_the_package(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from citeledger.filters.main import main; main()", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"pandoc-citeledger {citeledger.__version__}\n"


def test_completion_prints_a_bash_script_for_citeledger(tmp_path: Path) -> None:
    """What ``--show-completion`` prints for bash (``--install-completion`` writes it to the
    shell's start-up file): the script asked for the way the shell asks."""
    env = {**os.environ, "_CITELEDGER_COMPLETE": "source_bash"}
    done = run_citeledger(cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "_CITELEDGER_COMPLETE=complete_bash" in done.stdout
    assert "complete " in done.stdout
    # typer's switch for naming the shell instead of detecting it from the parent process.
    named = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    shown = run_citeledger("--show-completion", "bash", cwd=tmp_path, env=named)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == done.stdout.strip()


def test_completion_offers_the_verbs(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "_CITELEDGER_COMPLETE": "complete_bash",
        "COMP_WORDS": "citeledger ver",
        "COMP_CWORD": "1",
    }
    done = run_citeledger(cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "verify" in done.stdout.split()


def test_startup_with_completion_loads_no_pandoc_rich_or_toml(tmp_path: Path) -> None:
    """``citeledger add`` runs at every retrieval: completion and the new options must not pull
    in pandoc, the filters, rich or a TOML reader before a command needs them."""
    probe = (
        "import sys, citeledger.cli; "
        "print(' '.join(m for m in ('citeledger.pandoc', 'citeledger.filters', 'rich', "
        "'tomllib', 'citeledger.verify') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
