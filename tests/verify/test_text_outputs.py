"""Every text output the filter writes verifies back, seeing every citation, as docx and pptx
do: gfm, commonmark, markdown, html, latex and typst, built by ``convert`` and by a bare
``pandoc --filter pandoc-citeledger``. The citation links (``#src-N``, in HTML and in the raw
anchors of gfm and commonmark) read back as citations, so a mark edited after the build fails
instead of passing as "not cited"."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path

DRAFT = """# Heat

Ice floats on liquid water.[1] Sea water freezes at lower temperatures.[3]

Roofs store a great deal of heat by day.[10]

## Sources

[1] https://example.org/source-1 — Alpha survey
[3] https://example.org/source-3 — Bravo record of the cold northern seas and their ice
[10] https://example.org/source-10 — Gamma data
"""

# writer: the suffix of its output
FORMATS = {
    "gfm": "md",
    "commonmark": "md",
    "markdown": "md",
    "html": "html",
    "latex": "tex",
    "typst": "typ",
}


def env() -> dict[str, str]:
    out = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out.pop("CITELEDGER_LEDGER", None)
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    sources = [
        {"id": i, "url": f"https://example.org/source-{i}", "title": t, "accessed": "2024-05-01"}
        for i, t in (
            (1, "Alpha survey"),
            (3, "Bravo record of the cold northern seas and their ice"),
            (10, "Gamma data"),
        )
    ]
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}))
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    return tmp_path


def citeledger(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "citeledger", *args, "--ledger", "ledger.json"],
        cwd=cwd,
        env=env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def build(project: Path, writer: str, how: str) -> str:
    out = f"out-{how}.{FORMATS[writer]}"
    if how == "convert":
        done = citeledger(["convert", "draft.md", "-t", writer, "-o", out], project)
    else:
        done = subprocess.run(
            [pandoc_path(), "draft.md", "-s", "-t", writer, "--filter", "pandoc-citeledger"]
            + ["-M", "citeledger.ledger=ledger.json", "-o", out],
            cwd=project,
            env=env(),
            capture_output=True,
            text=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return out


def read_back(project: Path, out: str, writer: str) -> subprocess.CompletedProcess[str]:
    return citeledger(["verify", out, "--from", writer, "--format", "json"], project)


@pytest.mark.parametrize("how", ["convert", "filter"])
@pytest.mark.parametrize("writer", sorted(FORMATS))
def test_text_output_verifies_back_with_every_citation(
    project: Path, writer: str, how: str
) -> None:
    out = build(project, writer, how)
    done = read_back(project, out, writer)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert sorted(report["cited_ids"]) == [1, 3, 10]
    codes = {f["code"] for f in report["findings"]}
    assert not codes & {"uncited-ledger-source", "listed-not-cited", "sources-url-mismatch"}


@pytest.mark.parametrize("how", ["convert", "filter"])
@pytest.mark.parametrize("writer", ["html", "gfm", "commonmark"])
def test_an_edited_citation_link_fails(project: Path, writer: str, how: str) -> None:
    out = build(project, writer, how)
    page = project / out
    html = page.read_text(encoding="utf-8")
    link = re.compile(r'(class="citeledger-cite"[^>]*>)\[1\](</a>)')
    assert link.search(html)
    page.write_text(link.sub(r"\g<1>[9]\g<2>", html, count=1), encoding="utf-8")
    done = read_back(project, out, writer)
    assert done.returncode == 1
    assert "unknown-id" in {f["code"] for f in json.loads(done.stdout)["findings"]}
    # A mark edited to another id the ledger holds still links to the first one's entry.
    page.write_text(link.sub(r"\g<1>[3]\g<2>", html, count=1), encoding="utf-8")
    done = read_back(project, out, writer)
    assert done.returncode == 1
    assert "link-url-mismatch" in {f["code"] for f in json.loads(done.stdout)["findings"]}


@pytest.mark.parametrize("writer", ["latex", "typst"])
def test_an_edited_mark_in_latex_or_typst_fails(project: Path, writer: str) -> None:
    out = build(project, writer, "filter")
    page = project / out
    text = page.read_text(encoding="utf-8")
    if writer == "latex":
        old, new = "\\citeledgernote{1}{1}{1}", "\\citeledgernote{1}{9}{1}"
    else:
        old, new = "#link(<src-1>)[\\[1\\]]", "#link(<src-1>)[\\[9\\]]"
    assert old in text
    page.write_text(text.replace(old, new), encoding="utf-8")
    done = read_back(project, out, writer)
    assert done.returncode == 1
    assert "unknown-id" in {f["code"] for f in json.loads(done.stdout)["findings"]}
