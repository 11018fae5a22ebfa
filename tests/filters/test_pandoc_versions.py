"""The filter under the pandoc that calls it: it echoes the API version it received, and it cites
inside figure captions whichever tree shape that pandoc uses.

pandoc-types 1.22 (pandoc 2.11 to 2.19) has no Figure block: a figure is a paragraph holding one
Image whose target title starts with ``fig:``, and its caption is that image's alt text
(tests/fixtures/pandoc-types-1.22/figure.json, written by pandoc 2.19.2 and 2.17.1.1 alike from
figure.md beside it). pandoc-types 1.23 (pandoc 3.0 on) has ``Figure attr caption body`` and keeps
a copy of the caption as the image's alt text, which is not a citation site (the MediaWiki
placement copies the cited caption back into it: pandoc 3's writer prints only the alt text).
The marker finder reads a 1.22 figure's alt text as its caption (``tree.is_old_figure_image``);
the end-to-end tests run under whatever pandoc the run uses (``.ci/run`` repeats this file under
older pandocs).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from citeledger.document.markers import scan
from citeledger.filters.run import apply
from citeledger.ledger import Ledger
from citeledger.options import Options
from citeledger.pandoc import pandoc_path, run_pandoc
from citeledger.tree import elements
from citeledger.verify import verify
from tests.helpers import FIXTURES, ledger_of, make_ledger

FIXTURES = FIXTURES / "pandoc-types-1.22"
FIGURE_122 = FIXTURES / "figure.json"
FIGURE_MD = FIXTURES / "figure.md"


SOURCES = [
    (1, "https://example.org/one", "One", "2024-01-01"),
    (2, "https://example.org/two", "Two", "2024-01-02"),
]


def ledger_in(tmp_path: Path) -> Ledger:
    return ledger_of(tmp_path / "ledger.json", SOURCES)


def write_ledger(tmp_path: Path) -> Path:
    return make_ledger(tmp_path / "ledger.json", SOURCES)


def figure_122() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(FIGURE_122.read_text(encoding="utf-8"))
    return doc


def caption_122(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The caption of the fixture's figure: the alt inlines of the lone ``fig:`` image (inside
    the html page's main landmark once the filter ran)."""
    blocks = doc["blocks"]
    if len(blocks) == 1 and blocks[0]["t"] == "Div":
        blocks = blocks[0]["c"][1]
    para = blocks[1]
    assert para["t"] == "Para" and len(para["c"]) == 1
    image = para["c"][0]
    assert image["t"] == "Image" and image["c"][2][1].startswith("fig:")
    inlines: list[dict[str, Any]] = image["c"][1]
    return inlines


def text_of(inlines: list[dict[str, Any]]) -> str:
    return "".join(i.get("c", " ") if i["t"] == "Str" else " " for i in inlines)


def run_filter(doc: dict[str, Any], fmt: str, ledger: Path) -> dict[str, Any]:
    command = shutil.which("pandoc-citeledger")
    assert command, "pandoc-citeledger is not on PATH: pip install -e ."
    proc = subprocess.run(
        [command, fmt],
        input=json.dumps(doc).encode("utf-8"),
        capture_output=True,
        env={**os.environ, "CITELEDGER_LEDGER": str(ledger)},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


# --- the API version --------------------------------------------------------------------------


def test_filter_echoes_the_api_version_of_a_pandoc_types_1_22_tree(tmp_path: Path) -> None:
    out = run_filter(figure_122(), "html", write_ledger(tmp_path))
    assert out["pandoc-api-version"] == [1, 22, 2, 1]


def test_filter_echoes_the_api_version_of_the_running_pandoc(tmp_path: Path) -> None:
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=FIGURE_MD.read_text()))
    out = run_filter(doc, "html", write_ledger(tmp_path))
    assert out["pandoc-api-version"] == doc["pandoc-api-version"]


# --- pandoc-types 1.22 figure captions, in-process on the recorded tree ------------------------


def test_pandoc_types_1_22_figure_fixture_is_what_old_pandocs_write() -> None:
    doc = figure_122()
    assert text_of(caption_122(doc)).endswith("roofs.[2]")
    assert doc["blocks"][1]["c"][0]["c"][2] == ["figure.png", "fig:"]


def test_marker_in_a_pandoc_types_1_22_figure_caption_is_found() -> None:
    assert scan(figure_122()).cited_ids() == [1, 2]


def test_unknown_id_in_a_pandoc_types_1_22_figure_caption_fails_verification(
    tmp_path: Path,
) -> None:
    doc = figure_122()
    for inline in caption_122(doc):
        if inline["t"] == "Str" and inline["c"] == "roofs.[2]":
            inline["c"] = "roofs.[99]"
    report = verify(doc, ledger_in(tmp_path), build=True)
    assert report.failed
    assert any(99 in finding.ids for finding in report.findings)


def test_citation_in_a_pandoc_types_1_22_figure_caption_is_placed(tmp_path: Path) -> None:
    doc = figure_122()
    apply(doc, "html", options=Options(), ledger=ledger_in(tmp_path))
    caption = caption_122(doc)
    assert "[2]" not in text_of(caption)
    links = [i["c"][2][0] for i in elements(caption) if i["t"] == "Link"]
    assert links == ["#src-2"]


# --- end to end, under the running pandoc -----------------------------------------------------


def pandoc_with_filter(tmp_path: Path, draft: str, writer: str) -> subprocess.CompletedProcess:
    (tmp_path / "figure.md").write_text(draft, encoding="utf-8")
    ledger = write_ledger(tmp_path)
    command = shutil.which("pandoc-citeledger")
    assert command, "pandoc-citeledger is not on PATH: pip install -e ."
    return subprocess.run(
        [pandoc_path(), "figure.md", "-t", writer, "--filter", command],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "CITELEDGER_LEDGER": str(ledger)},
        check=False,
    )


def test_figure_caption_citation_is_linked_in_html(tmp_path: Path) -> None:
    proc = pandoc_with_filter(tmp_path, FIGURE_MD.read_text(encoding="utf-8"), "html5")
    assert proc.returncode == 0, proc.stderr
    caption = proc.stdout.split("<figcaption", 1)[1].split("</figcaption>", 1)[0]
    assert 'href="#src-2"' in caption and "roofs.[2]" not in caption


def test_unknown_id_in_a_figure_caption_stops_the_build(tmp_path: Path) -> None:
    draft = FIGURE_MD.read_text(encoding="utf-8").replace("roofs.[2]", "roofs.[99]")
    proc = pandoc_with_filter(tmp_path, draft, "html5")
    assert proc.returncode != 0 and "[99]" in proc.stderr


def test_figure_caption_citation_is_linked_in_mediawiki(tmp_path: Path) -> None:
    proc = pandoc_with_filter(tmp_path, FIGURE_MD.read_text(encoding="utf-8"), "mediawiki")
    assert proc.returncode == 0, proc.stderr
    figure = proc.stdout.split("[[File:", 1)[1].split("\n", 1)[0]
    assert "[[#src-2|[2]]]" in figure and "roofs.[2]" not in figure
