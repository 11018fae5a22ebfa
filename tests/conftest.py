"""Shared test helpers.

``--update-golden`` rewrites golden files from what the code produces now, instead of comparing;
read the diff before committing it. The ``golden`` fixture is the one place that decides which.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

GOLDEN_ROOT = Path(__file__).parent / "golden"


@pytest.fixture(autouse=True)
def _no_hermes_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``$HERMES_HOME`` set (any shell inside a Hermes agent) citeledger keeps its ledger
    under it: no test may read or write the developer's own ledger there. Tests that want the
    variable set it themselves."""
    monkeypatch.delenv("HERMES_HOME", raising=False)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files with the current output instead of comparing",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str | Path, str], None]:
    """``golden(path, actual_text)``: compare ``actual_text`` with the golden file ``path``
    (relative paths are under tests/golden/), or rewrite it under ``--update-golden``. Bytes are
    compared exactly: no newline translation, so CRLF and trailing newlines count."""
    update = bool(request.config.getoption("--update-golden"))

    def check(path: str | Path, actual: str) -> None:
        target = Path(path)
        if not target.is_absolute():
            target = GOLDEN_ROOT / target
        if update:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(actual.encode("utf-8"))
            return
        if not target.exists():
            pytest.fail(f"no golden file {target}; run pytest --update-golden and review it")
        expected = target.read_bytes().decode("utf-8")
        if actual != expected:
            diff = "".join(
                difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    actual.splitlines(keepends=True),
                    fromfile=f"{target} (golden)",
                    tofile="actual",
                )
            )
            pytest.fail(f"output differs from {target}:\n{diff}", pytrace=False)

    return check


def in_ci() -> bool:
    return os.environ.get("CI") == "true"


def need(present: bool, what: str) -> None:
    """Skip when ``what`` is missing, except in CI (CI=true), where .ci/run installs it and a
    missing one fails."""
    if present:
        return
    if in_ci():
        pytest.fail(f"{what} is missing, and CI=true requires it (install it in .ci/run)")
    pytest.skip(f"{what} is not installed")


def has_font_for(lang: str) -> bool:
    """Whether fontconfig knows a font for ``lang`` (``fc-list :lang=ja``): typst and xelatex
    draw CJK text only with such a font on the machine."""
    if shutil.which("fc-list") is None:
        return False
    proc = subprocess.run(
        ["fc-list", f":lang={lang}", "family"], capture_output=True, text=True, check=False
    )
    return proc.returncode == 0 and bool(proc.stdout.strip())


def require_cjk_font() -> None:
    """For a test whose document holds Chinese or Japanese text: Debian's fonts-noto-cjk."""
    need(has_font_for("ja") and has_font_for("zh-cn"), "a CJK font (Debian: fonts-noto-cjk)")


def pandoc_version_of(path: str) -> tuple[int, ...]:
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    first = out.stdout.split("\n", 1)[0].split()
    try:
        return tuple(int(p) for p in first[-1].split("."))
    except (IndexError, ValueError):
        return (0,)


OLD_PANDOC_ENV = "CITELEDGER_TEST_OLD_PANDOC"


@pytest.fixture
def old_pandoc() -> str:
    """A real pandoc older than the typst writer (3.1.2): ``$CITELEDGER_TEST_OLD_PANDOC``, else
    a ``pandoc`` on PATH that old (CI installs Debian's 2.17 there)."""
    named = os.environ.get(OLD_PANDOC_ENV)
    candidates = [named] if named else []
    on_path = shutil.which("pandoc")
    if on_path:
        candidates.append(on_path)
    for candidate in candidates:
        found = shutil.which(candidate) if candidate else None
        if found and (0,) < pandoc_version_of(found) < (3, 1, 2):
            return found
    need(False, f"a pandoc older than 3.1.2 (Debian's pandoc, or set {OLD_PANDOC_ENV})")
    raise AssertionError("unreachable")


def running_pandoc_version() -> tuple[int, ...]:
    from citeledger.pandoc import pandoc_version

    return pandoc_version()


def require_writer(fmt: str) -> None:
    """Skip a test of ``fmt`` output under a pandoc whose writer predates it (the side runs of
    .ci/run test the filter under older pandocs): that is the pandoc under test, not a missing
    tool."""
    from citeledger.pandoc import writing

    capability = writing(fmt)
    version = running_pandoc_version()
    if capability is not None and version < capability.since:
        since = ".".join(map(str, capability.since))
        pytest.skip(f"pandoc {'.'.join(map(str, version))} has no {fmt} writer ({since}+)")


@dataclass
class Result:
    """What one citeledger command did: exit code and what it printed."""

    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The console entry point in this process, in ``tmp_path``, with no ledger variables set
    (a test file may define its own ``cli`` for another working folder)."""
    from citeledger.cli import main

    monkeypatch.chdir(tmp_path)
    for var in ("CITELEDGER_LEDGER", "HERMES_CITATION_LEDGER"):
        monkeypatch.delenv(var, raising=False)

    def call(*args: str) -> Result:
        try:
            main(list(args))
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return call


def run_citeledger(
    *args: str,
    cwd: Path,
    ledger: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    text: bool = True,
    timeout: float | None = None,
) -> subprocess.CompletedProcess:
    """``python -m citeledger ARGS`` in its own process, as a user runs it: in ``cwd``, with
    ``env`` (default: this environment, which ``_no_hermes_home`` keeps free of HERMES_HOME) and
    ``ledger`` as $CITELEDGER_LEDGER; never raises on a non-zero exit."""
    env = {**(os.environ if env is None else env)}
    if ledger is not None:
        env["CITELEDGER_LEDGER"] = str(ledger)
    return subprocess.run(
        [sys.executable, "-m", "citeledger", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=text,
        timeout=timeout,
        check=False,
    )


def run_filter(*args: str, cwd: Path, ledger: Path) -> subprocess.CompletedProcess[str]:
    """``pandoc ARGS --filter pandoc-citeledger`` with the embedded pandoc (or
    $CITELEDGER_PANDOC) and ``ledger`` as $CITELEDGER_LEDGER."""
    from citeledger.pandoc import pandoc_path

    return subprocess.run(
        [pandoc_path(), *args, "--filter", "pandoc-citeledger"],
        cwd=cwd,
        env={**os.environ, "CITELEDGER_LEDGER": str(ledger)},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    """The golden report draft and its ledger, copied into ``tmp_path`` (a test file may define
    its own ``draft``, which wins there)."""
    case = GOLDEN_ROOT / "filter" / "report"
    for name in ("input.md", "ledger.json"):
        shutil.copy(case / name, tmp_path / name)
    return tmp_path / "input.md"
