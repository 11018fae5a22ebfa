"""A draft built to exhaust the machine (a list nested 3,000 deep runs pandoc past 300 s and
2 GB) is stopped by pandoc's time and memory bounds in one line."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import one_error_line, run_citeledger

NESTED = "# Deep\n\n" + "\n".join("  " * i + "- x" for i in range(3000)) + "\n"


def cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    return run_citeledger(*args, cwd=cwd, env={**base, **env}, timeout=120)


@pytest.fixture
def deep(tmp_path: Path) -> Path:
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": []}))
    (tmp_path / "d.md").write_text(NESTED)
    return tmp_path


def test_a_3000_level_nested_list_is_stopped_by_the_time_bound(deep: Path) -> None:
    start = time.monotonic()
    done = cli("convert", "d.md", "-o", "d.html", cwd=deep, CITELEDGER_PANDOC_TIMEOUT="3")
    assert time.monotonic() - start < 60
    one_error_line(done, "longer than 3 s", "CITELEDGER_PANDOC_TIMEOUT")
    assert not (deep / "d.html").exists()


def test_a_3000_level_nested_list_is_stopped_by_the_memory_bound(deep: Path) -> None:
    from citeledger.pandoc import _takes_rts, pandoc_path

    if not _takes_rts(pandoc_path(), "30m"):
        pytest.skip("this pandoc takes no runtime options")
    done = cli(
        "convert",
        "d.md",
        "-o",
        "d.html",
        cwd=deep,
        CITELEDGER_PANDOC_MEMORY="30m",
        CITELEDGER_PANDOC_TIMEOUT="100",
    )
    one_error_line(done, "more than 30m of memory", "CITELEDGER_PANDOC_MEMORY")
