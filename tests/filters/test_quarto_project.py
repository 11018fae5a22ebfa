"""A Quarto project (a website, a book): several pages share one ledger, each page cites a part
of it. Run as ``quarto render`` runs it (Quarto cannot be installed here, see docs/quarto.md):
each page by its own pandoc process, in the page's folder, with the extension's Lua shim as a
``--lua-filter``, the project's ``_quarto.yml`` as metadata and the environment Quarto's render
gives pandoc (``QUARTO_FILTER_PARAMS``, ``QUARTO_PROJECT_DIR``: quarto-cli
``src/command/render/render-shared.ts`` and ``filters.ts``); then the post-render step in the
project folder with the environment Quarto gives it after a full render
(``QUARTO_PROJECT_RENDER_ALL``, ``QUARTO_PROJECT_OUTPUT_FILES``: ``project.ts``).

No page's run speaks of the sources other pages cite; the post-render step names, once, the
source no page cites."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from citeledger.pandoc import pandoc_path
from tests.helpers import ROOT

SHIM = ROOT / "_extensions" / "citeledger" / "citeledger.lua"
FINISH = ROOT / "_extensions" / "citeledger" / "finish.py"

PROJECT = """project:
  type: website
  post-render: _extensions/citeledger/finish.py
filters:
  - citeledger
citeledger:
  ledger: ledger.json
"""

# Three pages, one of them in a folder of its own (a blog post), each citing another source.
PAGES = {
    "index.qmd": "---\ntitle: Home\n---\n\n# Ice\n\nIce floats on water.[1]\n",
    "posts/salt.qmd": "---\ntitle: Salt\n---\n\n# Salt\n\nSalt water freezes lower.[2]\n",
    "about.qmd": "---\ntitle: About\n---\n\n# About\n\nSea ice covers the pole.[3]\n",
}
SOURCES = {1: "Alpha survey", 2: "Bravo record", 3: "Charlie atlas", 4: "Delta notes"}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The shim runs the console scripts pip installed beside this interpreter.
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join([bin_dir, os.environ.get("PATH", "")]))
    monkeypatch.delenv("CITELEDGER_LEDGER", raising=False)
    monkeypatch.delenv("HERMES_HOME", raising=False)
    monkeypatch.delenv("HERMES_CITATION_LEDGER", raising=False)
    folder = tmp_path / "site"
    folder.mkdir()
    sources = [
        {
            "id": i,
            "url": f"https://example.org/source-{i}",
            "title": title,
            "accessed": "2024-05-01",
            # Every source was read for a claim: one a page does not cite is worth a warning.
            "quotes": [{"text": f"{title} says what the page says.", "added": "2024-05-01"}],
        }
        for i, title in SOURCES.items()
    ]
    (folder / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}))
    (folder / "_quarto.yml").write_text(PROJECT, encoding="utf-8")
    for name, text in PAGES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def render_page(project: Path, page: str) -> subprocess.CompletedProcess[str]:
    """One page as Quarto renders it: pandoc in the page's folder, the project's metadata
    merged in, the variables Quarto's pandoc carries."""
    path = project / page
    params = {"quarto-source": str(path), "project-offset": ".", "project-output-dir": "_site"}
    env = dict(
        os.environ,
        QUARTO_FILTER_PARAMS=base64.b64encode(json.dumps(params).encode()).decode(),
        QUARTO_PROJECT_DIR=str(project),
        PYTHONPATH=os.pathsep.join(sys.path),
    )
    # Quarto keeps `project` and `filters` for itself and hands the rest to pandoc as the
    # document's metadata, with the format's defaults (lang: en).
    config = yaml.safe_load((project / "_quarto.yml").read_text(encoding="utf-8"))
    meta = {k: v for k, v in config.items() if k not in ("project", "filters")}
    meta_file = project.parent / "quarto-metadata.yml"
    meta_file.write_text(yaml.safe_dump({"lang": "en", **meta}), encoding="utf-8")
    args = ["-f", "markdown", path.name, "--metadata-file", str(meta_file)]
    args += ["--lua-filter", str(SHIM), "-t", "html", "-o", path.with_suffix(".html").name]
    return subprocess.run(
        [pandoc_path(), *args], cwd=path.parent, env=env, capture_output=True, text=True
    )


def post_render(project: Path, *, render_all: bool = True) -> subprocess.CompletedProcess[str]:
    outputs = "\n".join(f"_site/{Path(p).with_suffix('.html').as_posix()}" for p in PAGES)
    env = dict(os.environ, QUARTO_PROJECT_OUTPUT_DIR="_site", QUARTO_PROJECT_OUTPUT_FILES=outputs)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    if render_all:
        env["QUARTO_PROJECT_RENDER_ALL"] = "1"
    return subprocess.run(
        [sys.executable, str(FINISH)], cwd=project, env=env, capture_output=True, text=True
    )


def test_no_page_warns_of_sources_other_pages_cite_and_the_end_names_the_uncited(
    project: Path,
) -> None:
    for page in PAGES:
        done = render_page(project, page)
        assert done.returncode == 0, done.stderr
        assert "not cited" not in done.stderr and "warn" not in done.stderr, (page, done.stderr)
        assert (project / page).with_suffix(".html").is_file()
    done = post_render(project)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith(("warn", "info"))]
    (line,) = lines
    assert line.startswith("warn: ledger.json: [4] carries evidence quotes")
    assert "no page of the project cites it" in line
    assert "3 pages: about.qmd, index.qmd, posts/salt.qmd" in line
    for cited in ("[1]", "[2]", "[3]"):
        assert cited not in line
    assert "1 ledger source(s) cited by no page" in done.stdout
    # The records were read once: a second post-render has nothing to say.
    assert not post_render(project).stdout


def test_a_page_in_a_folder_names_its_file_from_the_project_when_it_fails(project: Path) -> None:
    (project / "posts" / "salt.qmd").write_text(PAGES["posts/salt.qmd"].replace("[2]", "[9]"))
    done = render_page(project, "posts/salt.qmd")
    assert done.returncode != 0
    assert "FAIL: posts/salt.qmd:7:" in done.stderr and "[9]" in done.stderr
    assert "traceback" not in done.stderr.lower()


def test_an_incremental_render_runs_no_project_check(project: Path) -> None:
    """``quarto render about.qmd`` inside a project runs the post-render step without
    ``QUARTO_PROJECT_RENDER_ALL``: the other pages' records may be old, nothing is said."""
    assert render_page(project, "about.qmd").returncode == 0
    done = post_render(project, render_all=False)
    assert (done.returncode, done.stdout) == (0, "")


def test_a_deleted_page_no_longer_counts_as_citing(project: Path) -> None:
    for page in PAGES:
        assert render_page(project, page).returncode == 0
    (project / "about.qmd").unlink()  # its record stays behind, its [3] is cited by no page
    done = post_render(project)
    assert "[3] carries evidence quotes" in done.stdout
    assert "2 pages: index.qmd, posts/salt.qmd" in done.stdout


def test_a_lone_document_still_hears_of_the_sources_it_does_not_cite(project: Path) -> None:
    """Outside a project Quarto's project folder is the document's own, with no _quarto.yml:
    the document is the whole set, so its run names what it leaves out, as any build does."""
    lone = project / "lone"
    lone.mkdir()
    (lone / "ledger.json").write_text((project / "ledger.json").read_text())
    (lone / "note.qmd").write_text(PAGES["index.qmd"])
    (lone / "meta.yml").write_text("lang: en\nciteledger:\n  ledger: ledger.json\n")
    params = {"quarto-source": "note.qmd"}
    env = dict(
        os.environ,
        QUARTO_FILTER_PARAMS=base64.b64encode(json.dumps(params).encode()).decode(),
        QUARTO_PROJECT_DIR=str(lone),
        PYTHONPATH=os.pathsep.join(sys.path),
    )
    args = ["note.qmd", "--metadata-file", "meta.yml", "--lua-filter", str(SHIM), "-t", "html"]
    done = subprocess.run([pandoc_path(), *args], cwd=lone, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for sid in (2, 3, 4):
        assert f"warn: note.qmd: [{sid}] carries evidence quotes" in done.stderr
    assert not (lone / ".quarto").exists()


def test_a_project_folder_that_cannot_be_written_costs_the_check_not_the_page(
    project: Path,
) -> None:
    (project / ".quarto").write_text("not a folder")  # where the records would go
    done = render_page(project, "index.qmd")
    assert done.returncode == 0, done.stderr
    assert (project / "index.html").is_file()
    assert "warn: index.qmd: cannot keep what it cites" in done.stderr
    assert "Traceback" not in done.stderr


def test_finish_with_neither_a_file_nor_a_project_says_what_to_give(tmp_path: Path) -> None:
    from tests.helpers.run import run_citeledger

    done = run_citeledger("finish", cwd=tmp_path, ledger=tmp_path / "l.json")
    assert done.returncode == 2
    assert "no file given" in done.stderr and "--project DIR" in done.stderr
    assert "Traceback" not in done.stderr
