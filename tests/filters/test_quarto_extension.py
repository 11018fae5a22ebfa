"""The Quarto extension (_extensions/citeledger/ at the repository root, where ``quarto add
OWNER/REPO`` looks), run the way Quarto runs it, without Quarto (which cannot be installed
here): the Lua shim as a ``--lua-filter`` of the embedded pandoc, on markdown holding Quarto's
encodings of a callout (a Div of class ``callout-note``, and Quarto's custom-node Div), of a
figure (a Div ``#fig-x`` of class ``quarto-figure``), and the post-render step with the
environment Quarto gives it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from citeledger.errors import PandocError
from citeledger.pandoc import run_pandoc
from tests.helpers import ROOT

EXTENSION = ROOT / "_extensions" / "citeledger"
SHIM = EXTENSION / "citeledger.lua"
FINISH = EXTENSION / "finish.py"

DRAFT = """---
title: Ice
---

# Findings

Ice floats on water.[1] The sample was warm.^[Measured at noon.]

::: {.callout-note}
## Why it floats

Ice is lighter than the water around it.[3]
:::

::: {#fig-ice .quarto-figure .quarto-figure-center}
![Sea ice seen from above.[12]](ice.png)
:::

:::: {__quarto_custom="true" __quarto_custom_type="Callout" __quarto_custom_context="Block"}
::: {}
Careful
:::
::: {}
Salt water freezes at lower temperatures.[12]
:::
::::
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The shim runs the console script pip installed beside this interpreter.
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join([bin_dir, os.environ.get("PATH", "")]))
    monkeypatch.delenv("CITELEDGER_LEDGER", raising=False)
    sources = [
        {"id": i, "url": f"https://example.org/source-{i}", "title": t, "accessed": "2024-05-01"}
        for i, t in ((1, "Alpha survey"), (3, "Bravo record"), (12, "Charlie atlas"))
    ]
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}))
    (tmp_path / "draft.qmd").write_text(DRAFT, encoding="utf-8")
    return tmp_path


def shim(folder: Path, *args: str) -> bytes:
    return run_pandoc(["-f", "markdown", "draft.qmd", "--lua-filter", str(SHIM), *args], cwd=folder)


def test_extension_contributes_the_shim_as_its_filter() -> None:
    manifest = yaml.safe_load((EXTENSION / "_extension.yml").read_text(encoding="utf-8"))
    assert manifest["title"] == "citeledger"
    (listed,) = manifest["contributes"]["filters"]
    assert (EXTENSION / listed) == SHIM and SHIM.is_file()


def test_shim_places_citations_inside_callouts_and_figures(project: Path) -> None:
    html = shim(project, "-t", "html", "--wrap=none").decode("utf-8")
    callout = re.search(
        r'<section id="why-it-floats" class="callout-note">(.*?)</section>', html, re.S
    )
    assert callout and 'href="#src-3"' in callout.group(1)
    figure = re.search(r'<div id="fig-ice" class="quarto-figure[^"]*">(.*?)</div>', html, re.S)
    assert figure and re.search(r"<figcaption[^>]*>.*href=\"#src-12\"", figure.group(1), re.S)
    bound = r"(?:<span [^>]*>)?"  # the mark bound to the word before it
    custom = re.search(rf"Salt water freezes at lower {bound}temperatures\.(<a [^>]*>)", html)
    assert custom and 'href="#src-12"' in custom.group(1)
    for sid in (1, 3, 12):
        assert f'id="src-{sid}"' in html
    # Every marker became a link; none is left as bare text in the body.
    body = re.sub(r"<a [^>]*>\[\d+\]</a>", "", html.split('class="citeledger-sources"')[0])
    assert not re.search(r">[^<]*\[\d+\][^<]*<", body)


def test_shim_stops_the_render_on_an_unknown_id(project: Path) -> None:
    (project / "draft.qmd").write_text(DRAFT.replace("[3]", "[7]"), encoding="utf-8")
    with pytest.raises(PandocError, match=r"\[7\]"):
        shim(project, "-t", "html")


def test_post_render_finishes_the_word_files_quarto_lists(project: Path) -> None:
    shim(project, "-o", "draft.docx")
    shim(project, "-o", "draft.html")
    env = dict(os.environ, QUARTO_PROJECT_OUTPUT_FILES="draft.html\ndraft.docx\n")
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    done = subprocess.run(
        [sys.executable, str(FINISH)], cwd=project, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "finished draft.docx" in done.stdout
    with zipfile.ZipFile(project / "draft.docx") as zf:
        document = zf.read("word/document.xml").decode("utf-8")
    refs = re.findall(r"<w:footnoteReference ([^>]*)/>((?:<w:t>[^<]*</w:t>)*)", document)
    custom = ["".join(re.findall(r"<w:t>([^<]*)</w:t>", t)) for a, t in refs if "custom" in a]
    assert custom == ["1", "3", "12", "12"]  # a note per citation: [12] is cited twice
    assert '<w:numFmt w:val="lowerLetter"/>' in document  # the draft's own note: a


def test_post_render_with_no_office_outputs_does_nothing(project: Path) -> None:
    env = dict(os.environ, QUARTO_PROJECT_OUTPUT_FILES="draft.html\n")
    done = subprocess.run(
        [sys.executable, str(FINISH)], cwd=project, env=env, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (0, "")


def test_shim_failure_names_the_file_once_without_a_lua_traceback(project: Path) -> None:
    (project / "draft.qmd").write_text(DRAFT.replace("[3]", "[7]"), encoding="utf-8")
    with pytest.raises(PandocError) as failed:
        shim(project, "-t", "html")
    said = failed.value.message
    assert re.search(r"draft\.qmd:\d+:\d+: .*\[7\]", said), said
    assert "traceback" not in said.lower() and "input §" not in said
    assert said.count("verification failed") == 1


def test_quarto_cross_references_stay_for_quarto_to_resolve(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    draft = DRAFT.replace("Careful", "Careful, see @fig-ice")
    (project / "draft.qmd").write_text(draft, encoding="utf-8")
    # Outside Quarto, a typst reference to the figure's label.
    assert "#ref(<fig-ice>)" in shim(project, "-t", "typst").decode("utf-8")
    # Under Quarto (its pandoc sets QUARTO_FILTER_PARAMS), the Cite itself, for Quarto's
    # crossref filter, which runs after this one.
    monkeypatch.setenv("QUARTO_FILTER_PARAMS", "e30=")
    tree = json.loads(shim(project, "-t", "json"))
    cites = [c for c in _all(tree["blocks"]) if c.get("t") == "Cite"]
    assert [c["c"][0][0]["citationId"] for c in cites] == ["fig-ice"]


def _all(node: object) -> list[dict]:
    found: list[dict] = []
    if isinstance(node, dict):
        found.append(node)
        node = node.get("c")
    if isinstance(node, list):
        for item in node:
            found.extend(_all(item))
    return found


def test_post_render_runs_the_citeledger_on_path(project: Path, tmp_path: Path) -> None:
    """A pipx or uv tool install: citeledger on PATH, not in the python Quarto runs."""
    shim(project, "-o", "draft.docx")
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    python = bare / "bin" / "python"
    env = dict(os.environ, QUARTO_PROJECT_OUTPUT_FILES="draft.docx\n")
    env["PYTHONPATH"] = os.pathsep.join(sys.path)  # for the citeledger on PATH only
    check = subprocess.run(
        [str(python), "-I", "-c", "import citeledger"], capture_output=True, env=env
    )
    assert check.returncode != 0  # the python that runs finish.py has no citeledger
    done = subprocess.run(
        [str(python), "-I", str(FINISH)], cwd=project, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "finished draft.docx" in done.stdout


def test_note_style_csl_runs_before_the_marks_as_quarto_runs_citeproc_last(
    project: Path,
) -> None:
    """Quarto runs citeproc after every filter: here ``--citeproc`` after the shim. With a
    note style the shim runs citeproc first, so the note stands after the period and the
    ledger mark after the note, whole: never ``.[`` note ``1]``."""
    from tests.helpers import FIXTURES

    csl = (FIXTURES / "note-style.csl").read_text(encoding="utf-8")
    (project / "note.csl").write_text(csl, encoding="utf-8")
    (project / "refs.bib").write_text(
        "@book{oke1987,\n  author = {Oke, T. R.},\n  title = {Climates},\n  year = {1987}\n}\n",
        encoding="utf-8",
    )
    (project / "draft.qmd").write_text(
        "---\nbibliography: refs.bib\ncsl: note.csl\n---\n\n# Findings\n\n"
        "Cities are warmer than their fields [@oke1987].[1]\n",
        encoding="utf-8",
    )
    html = shim(project, "--citeproc", "-t", "html", "--wrap=none").decode("utf-8")
    para = re.search(r"Cities are warmer than their fields(.*?)</p>", html).group(1)
    assert re.match(r'\.<span class="citation"[^>]*><a href="#fn1"[^>]*><sup>1</sup></a>', para)
    # The mark after the note, whole (held to it by a word joiner in a no-wrap span).
    mark = r'<a href="#src-1"[^>]*>\[1\]</a>'
    assert re.search(
        rf'</span>(?:<span class="citeledger-nowrap">\u2060?{mark}</span>|{mark})$', para
    ), para
