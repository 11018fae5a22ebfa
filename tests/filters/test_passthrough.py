"""A document without ledger markers comes out of the filter exactly as pandoc writes it.

Pandoc's own test documents (tests/fixtures/corpora, copied from pandoc's repository) hold
reference links ``[1]``, citeproc citations and every construct a reader knows; none of them is a
ledger citation, so the filter must not change a byte of native, html or latex output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path
from tests.helpers import FIXTURES, make_ledger

CORPORA = FIXTURES / "corpora"
DOCUMENTS = ["testsuite.txt", "markdown-reader-more.txt", "markdown-citations.txt", "tables.txt"]
WRITERS = ["native", "html", "latex"]


def filter_command() -> str:
    found = shutil.which("pandoc-citeledger")
    if found is None:
        pytest.fail("pandoc-citeledger is not on PATH: pip install -e . installs it")
    return found


@pytest.fixture(scope="module")
def empty_ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_ledger(tmp_path_factory.mktemp("ledger") / "ledger.json")


def run(args: list[str], ledger: Path, cwd: Path) -> tuple[bytes, bytes]:
    env = {**os.environ, "CITELEDGER_LEDGER": str(ledger)}
    proc = subprocess.run(
        [pandoc_path(), *args], capture_output=True, cwd=cwd, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout, proc.stderr


@pytest.mark.parametrize("document", DOCUMENTS)
@pytest.mark.parametrize("writer", WRITERS)
def test_document_without_markers_is_byte_identical_through_the_filter(
    document: str, writer: str, empty_ledger: Path, tmp_path: Path
) -> None:
    source = str(CORPORA / document)
    args = ["-f", "markdown", "-t", writer, "-s", source]
    plain = run(args, empty_ledger, tmp_path)
    filtered = run([*args, "--filter", filter_command()], empty_ledger, tmp_path)
    assert filtered[0] == plain[0]
    assert filtered[1] == plain[1]  # pandoc's own warnings only; the filter says nothing
