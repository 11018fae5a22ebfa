"""A sentence citing the bibliography (pandoc's ``[@key]``) declares its provenance as a ledger
id does: a draft whose every sentence cites one or the other passes ``--min-coverage 0.9``,
read by ``citeledger verify`` and by the filter after ``--citeproc`` resolved the keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.errors import PandocError
from citeledger.pandoc import run_pandoc

DRAFT = """# Findings

Ice floats on water.[1] Cities are warmer than their surrounding fields [@oke1987].

Sea water freezes at lower temperatures.[3] Heat islands were measured in many towns
[@oke1987, p. 280].

Both effects are well documented by now [@oke1987; @akbari2009].

## Sources

[1] https://example.org/source-1 — Alpha survey
[3] https://example.org/source-3 — Bravo record
"""

BIB = """@book{oke1987, author = {Oke, T. R.}, title = {Boundary Layer Climates}, year = {1987}}
@article{akbari2009, author = {Akbari, H.}, title = {Global Cooling}, year = {2009}}
"""

UNCITED = "\nThis last sentence cites nothing at all here.\n"


def project(folder: Path, draft: str) -> None:
    sources = [
        {"id": i, "url": f"https://example.org/source-{i}", "title": t, "accessed": "2024-05-01"}
        for i, t in ((1, "Alpha survey"), (3, "Bravo record"))
    ]
    (folder / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}))
    (folder / "refs.bib").write_text(BIB, encoding="utf-8")
    (folder / "draft.md").write_text(draft, encoding="utf-8")


def verify(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "citeledger", "verify", "draft.md", "--min-coverage", "0.9"]
        + ["--ledger", "ledger.json"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )


def test_bibliography_citations_count_as_provenance_in_verify(tmp_path: Path) -> None:
    project(tmp_path, DRAFT)
    done = verify(tmp_path)
    assert done.returncode == 0, done.stderr
    stats = "5 prose sentence(s), 5 with declared provenance (100%) \u2014 5 cited"
    assert stats in done.stdout + done.stderr


def test_a_sentence_citing_nothing_still_lowers_coverage(tmp_path: Path) -> None:
    project(tmp_path, DRAFT.replace("\n## Sources", UNCITED + "\n## Sources"))
    done = verify(tmp_path)
    assert done.returncode == 1
    assert "citation coverage 83% is below the required 90%" in done.stdout + done.stderr


def test_the_filter_after_citeproc_counts_resolved_citations(tmp_path: Path) -> None:
    project(tmp_path, DRAFT)
    args = ["draft.md", "-t", "html", "--citeproc", "--bibliography", "refs.bib"]
    args += ["--filter", "pandoc-citeledger", "-M", "citeledger.ledger=ledger.json"]
    html = run_pandoc([*args, "-M", "citeledger.min-coverage=0.9"], cwd=tmp_path).decode()
    assert "Oke" in html and 'href="#src-1"' in html
    (tmp_path / "draft.md").write_text(
        DRAFT.replace("\n## Sources", UNCITED + "\n## Sources"), encoding="utf-8"
    )
    with pytest.raises(PandocError, match="coverage"):
        run_pandoc([*args, "-M", "citeledger.min-coverage=0.9"], cwd=tmp_path)
