"""Note-style citeproc and the filter, in either order, lose no citation.

citeproc moves a note after the punctuation that follows its citation, and the opening bracket
of a marker is punctuation to it: ``[@akbari2009, p. 280].[10]`` became ``.[`` Note ``10]``,
which no longer read as a marker, and the build passed with one source fewer. The outputs are
read back with ``citeledger verify`` (a .docx after ``citeledger finish``, as the README builds
one), which must see every id the draft cites.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path
from tests.helpers import FIXTURES

CSL = FIXTURES / "note-style.csl"

DRAFT = """# Heat

Roofs store heat in their tiles [@akbari2009, p. 280].[10] Cities stay warm at night
[@oke1987].[1]

Sea water freezes at lower temperatures.[3]

## Sources

[1] https://example.org/source-1 — Alpha survey
[3] https://example.org/source-3 — Bravo record
[10] https://example.org/source-10 — Gamma data
"""

BIB = """@book{oke1987, author = {Oke, T. R.}, title = {Boundary Layer Climates}, year = {1987}}
@article{akbari2009, author = {Akbari, H.}, title = {Global Cooling}, year = {2009}}
"""

ORDERS = {
    "citeproc-first": ["--citeproc", "--filter", "pandoc-citeledger"],
    "citeproc-last": ["--filter", "pandoc-citeledger", "--citeproc"],
}


def project(folder: Path) -> dict[str, str]:
    sources = [
        {"id": i, "url": f"https://example.org/source-{i}", "title": t, "accessed": "2024-05-01"}
        for i, t in ((1, "Alpha survey"), (3, "Bravo record"), (10, "Gamma data"))
    ]
    (folder / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}))
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    (folder / "draft.md").write_text(DRAFT, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("CITELEDGER_LEDGER", None)
    return env


def citeledger(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "citeledger", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.mark.parametrize("suffix", ["html", "docx"])
@pytest.mark.parametrize("order", sorted(ORDERS))
def test_note_style_citeproc_loses_no_citation(tmp_path: Path, order: str, suffix: str) -> None:
    env = project(tmp_path)
    out = f"out.{suffix}"
    build = subprocess.run(
        [pandoc_path(), "draft.md", "-s", "--bibliography", "refs.bib", "--csl", str(CSL)]
        + ORDERS[order]
        + ["-M", "citeledger.ledger=ledger.json", "-o", out],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    assert "never cited inline" not in build.stderr
    if suffix == "docx":
        done = citeledger(["finish", out, "--ledger", "ledger.json"], tmp_path, env)
        assert done.returncode == 0, done.stderr
    else:
        html = (tmp_path / out).read_text(encoding="utf-8")
        assert "Akbari" in html and "Oke" in html  # citeproc ran
    read = citeledger(["verify", out, "--ledger", "ledger.json", "--format", "json"], tmp_path, env)
    assert read.returncode == 0, read.stdout + read.stderr
    report = json.loads(read.stdout)
    assert sorted(report["cited_ids"]) == [1, 3, 10]
    assert not [f for f in report["findings"] if f["code"] == "uncited-ledger-source"]


@pytest.mark.parametrize("suffix", ["html", "docx"])
def test_convert_with_a_note_style_loses_no_citation(tmp_path: Path, suffix: str) -> None:
    env = project(tmp_path)
    out = f"out.{suffix}"
    done = citeledger(
        ["convert", "draft.md", "-o", out, "-C", "--bibliography", "refs.bib", "--csl", str(CSL)]
        + ["--ledger", "ledger.json"],
        tmp_path,
        env,
    )
    assert done.returncode == 0, done.stderr
    assert "never cited inline" not in done.stdout + done.stderr
    read = citeledger(["verify", out, "--ledger", "ledger.json", "--format", "json"], tmp_path, env)
    assert read.returncode == 0, read.stdout + read.stderr
    assert sorted(json.loads(read.stdout)["cited_ids"]) == [1, 3, 10]
