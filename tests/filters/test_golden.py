"""Golden outputs of real pandoc builds with the filter: one case per folder under
tests/golden/filter/ (input.md, ledger.json, options.yaml with ``key: value`` lines that become
``-M citeledger.key=value``, expected.<format>). ``pytest --update-golden`` rewrites them; read
the diff before committing it.

The goldens are the embedded pandoc's. ``.ci/run`` repeats these tests under older pandocs
(``CITELEDGER_PANDOC``); where an older pandoc's *writer* prints the same tree differently, the
case holds a variant ``expected@<version prefix>.<format>`` and the longest prefix of the running
pandoc's version wins (``expected@2.latex`` for every 2.x, ``expected@2.17.gfm`` for 2.17 only).
tests/golden/filter/README.md says where and why they differ. Under ``CITELEDGER_PANDOC``,
``--update-golden`` writes a variant, never the embedded pandoc's file."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path, pandoc_version
from tests.helpers import GOLDEN_ROOT, require_writer

CASES = GOLDEN_ROOT / "filter"
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


def expected_file(case: Path, fmt: str, version: tuple[int, ...]) -> Path:
    """The golden this pandoc is compared with: the most specific variant, else the default."""
    for n in range(len(version), 0, -1):
        prefix = ".".join(map(str, version[:n]))
        variant = case / f"expected@{prefix}.{fmt}"
        if variant.is_file():
            return variant
    return case / f"expected.{fmt}"


def update_target(case: Path, fmt: str, version: tuple[int, ...], actual: str) -> Path | None:
    """Where ``--update-golden`` writes under a pandoc other than the embedded one: nothing when
    the output matches its golden, else a variant for the major version (or major.minor when
    the major already has one), so the embedded pandoc's goldens stay its own."""
    current = expected_file(case, fmt, version)
    if current.is_file() and current.read_text(encoding="utf-8") == actual:
        return None
    major = f"expected@{version[0]}.{fmt}"
    if not (case / major).is_file():
        return case / major
    return case / f"expected@{'.'.join(map(str, version[:2]))}.{fmt}"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_filter_output_matches_golden(case: str, fmt: str, golden, request) -> None:
    require_writer(FORMATS[fmt])
    folder = CASES / case
    actual = build(folder, FORMATS[fmt])
    version = pandoc_version()
    if request.config.getoption("--update-golden") and os.environ.get("CITELEDGER_PANDOC"):
        target = update_target(folder, fmt, version, actual)
        if target is not None:
            golden(target, actual)
        return
    golden(expected_file(folder, fmt, version), actual)
