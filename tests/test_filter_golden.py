"""Golden outputs of real pandoc builds with the filter: one case per folder under
tests/golden/filter/ (input.md, ledger.json, options.yaml with ``key: value`` lines that become
``-M citeledger.key=value``, expected.<format>). ``pytest --update-golden`` rewrites them; read
the diff before committing it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path

CASES = Path(__file__).parent / "golden" / "filter"
FORMATS = {"latex": "latex", "typst": "typst", "html": "html5", "gfm": "gfm"}


def options(case: Path) -> list[str]:
    args: list[str] = []
    for line in (case / "options.yaml").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition(":")
            args += ["-M", f"citeledger.{key.strip()}={value.strip()}"]
    return args


def build(case: Path, writer: str) -> str:
    pandoc_filter = shutil.which("pandoc-citeledger")
    assert pandoc_filter, "pandoc-citeledger is not on PATH: pip install -e ."
    env = {**os.environ, "CITELEDGER_LEDGER": str(case / "ledger.json")}
    proc = subprocess.run(
        [pandoc_path(), "input.md", "-t", writer, "--filter", pandoc_filter, *options(case)],
        cwd=case,
        env=env,
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode("utf-8")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_filter_output_matches_golden(case: str, fmt: str, golden) -> None:
    golden(CASES / case / f"expected.{fmt}", build(CASES / case, FORMATS[fmt]))
