"""Shared test helpers.

``--update-golden`` rewrites golden files from what the code produces now, instead of comparing;
read the diff before committing it. The ``golden`` fixture is the one place that decides which.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
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
