"""The Quarto extension (quarto/_extensions/citeledger/), run the way Quarto runs it, without
Quarto (which cannot be installed here): the Lua shim as a ``--lua-filter`` of the embedded
pandoc, on markdown holding Quarto's encodings of a callout (a Div of class ``callout-note``,
and Quarto's custom-node Div), of a figure (a Div ``#fig-x`` of class ``quarto-figure``), and
the post-render step with the environment Quarto gives it."""

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

EXTENSION = ROOT / "quarto" / "_extensions" / "citeledger"
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
    assert custom == ["1", "3", "12"]
    assert '<w:numFmt w:val="lowerLetter"/>' in document  # the draft's own note: a


def test_post_render_with_no_office_outputs_does_nothing(project: Path) -> None:
    env = dict(os.environ, QUARTO_PROJECT_OUTPUT_FILES="draft.html\n")
    done = subprocess.run(
        [sys.executable, str(FINISH)], cwd=project, env=env, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (0, "")
