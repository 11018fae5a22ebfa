"""Fixtures and pytest hooks; what tests share besides lives in tests/helpers.

``--update-golden`` rewrites golden files from what the code produces now, instead of comparing;
read the diff before committing it. The ``golden`` fixture is the one place that decides which.

``--slow`` (or CI=true, as .ci/run sets) also runs the tests marked ``slow``; without it
``pytest -q`` is the quick loop of editing.
"""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import (
    GOLDEN_ROOT,
    LEDGER_VARS,
    Result,
    call_main,
    find_old_pandoc,
    in_ci,
)


@pytest.fixture(autouse=True)
def _no_hermes_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``$HERMES_HOME`` set (any shell inside a Hermes agent) citeledger keeps its ledger
    under it: no test may read or write the developer's own ledger there. Tests that want the
    variable set it themselves."""
    monkeypatch.delenv("HERMES_HOME", raising=False)


@pytest.fixture(autouse=True)
def _own_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """citeledger records the ledger texts it proved in the user's cache folder
    (``ledger/checked_texts.py``): each test gets a cache of its own, never the developer's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("CITELEDGER_NO_CACHE", raising=False)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files with the current output instead of comparing",
    )
    parser.addoption(
        "--slow",
        action="store_true",
        default=False,
        help="also run the tests marked slow (CI=true runs them too)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The quick loop leaves out what is marked slow, with a reason that says how to run it."""
    if config.getoption("--slow") or in_ci():
        return
    skip = pytest.mark.skip(reason="slow: run with --slow, or CI=true, to include it")
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)


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


@pytest.fixture
def old_pandoc() -> str:
    """A real pandoc older than the typst writer (3.1.2); see ``find_old_pandoc``."""
    return find_old_pandoc()


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The console entry point in this process, in ``tmp_path``, with no ledger variables set
    (a test file may define its own ``cli`` for another working folder)."""
    monkeypatch.chdir(tmp_path)
    for var in LEDGER_VARS:
        monkeypatch.delenv(var, raising=False)

    def call(*args: str) -> Result:
        return call_main(capsys, *args)

    return call


@pytest.fixture
def draft(tmp_path: Path) -> Path:
    """The golden report draft and its ledger, copied into ``tmp_path`` (a test file may define
    its own ``draft``, which wins there)."""
    case = GOLDEN_ROOT / "filter" / "report"
    for name in ("input.md", "ledger.json"):
        shutil.copy(case / name, tmp_path / name)
    return tmp_path / "input.md"
