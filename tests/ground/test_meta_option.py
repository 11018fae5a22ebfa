"""``-M KEY=VAL``: one reader (``options.meta_args.meta_entries``) for ``convert`` and
``finish``, by pandoc's own rules, so both commands accept and refuse the same forms in the
same words."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from citeledger.options.meta_args import meta_entries
from citeledger.pandoc import run_pandoc

LEDGER = {
    "version": 1,
    "sources": [
        {"id": 7, "url": "https://example.com/seven", "title": "Seven", "accessed": "2024-02-02"},
        {"id": 40, "url": "https://example.org/forty", "title": "Forty", "accessed": "2024-02-03"},
    ],
}
DRAFT = "Ice floats on water.[7][40] It floats again here.[40]\n"

ACCEPTED = [
    ["citeledger.notes=endnotes"],
    ["notes=endnotes"],
    ["citeledger.notes:endnotes"],
    ["notes:endnotes"],
    ["slide-notes"],
    ["citeledger.slide_notes=TRUE"],
    ["citeledger.numbering=sequential"],
    ["min_coverage=0.5"],
    ["title=A report: on ice"],
    ["author=A", "author=B"],
]
REFUSED = [
    ["=endnotes"],
    [":endnotes"],
    ["notes"],
    ["citeledger.notes"],
    ["notes=sidenotes"],
    ["numbering=true"],
    ["citeledger.min-coverage=2"],
    ["strict=maybe"],
    ["notes=endnotes", "citeledger.notes=footnotes"],
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A .docx the filter wrote, for ``finish`` to work on (copied into each case)."""
    folder = tmp_path_factory.mktemp("built")
    (folder / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    args = ["-f", "markdown", "-o", "out.docx", "--filter", "pandoc-citeledger"]
    run_pandoc([*args, "-M", "citeledger.ledger=ledger.json"], stdin=DRAFT, cwd=folder)
    return folder / "out.docx"


@pytest.fixture
def project(tmp_path: Path, built: Path) -> Path:
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    shutil.copy(built, tmp_path / "out.docx")
    return tmp_path


def _flags(items: list[str]) -> list[str]:
    return [arg for item in items for arg in ("-M", item)]


def _error(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("citeledger: error: ")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("items", ACCEPTED + REFUSED, ids=" ".join)
def test_convert_and_finish_accept_and_refuse_the_same_m_forms(
    items: list[str], project: Path, cli
) -> None:
    converted = cli("convert", "d.md", "-o", "d.html", *_flags(items))
    finished = cli("finish", "out.docx", *_flags(items))
    expected = 0 if items in ACCEPTED else 2
    assert (converted.code, finished.code) == (expected, expected), (converted, finished)
    if expected:
        assert _error(converted.err) == _error(finished.err)
        assert "Traceback" not in converted.err + finished.err


def test_a_bare_option_key_and_a_colon_set_the_option_in_both_commands(project: Path, cli) -> None:
    def endnotes(path: Path) -> int:
        with zipfile.ZipFile(path) as zf:
            return zf.read("word/document.xml").decode("utf-8").count("<w:endnoteReference")

    assert endnotes(project / "out.docx") == 0
    assert cli("finish", "out.docx", "-M", "notes:endnotes").code == 0
    # Built with a footnote per citation (the repeat a short note), finished as endnotes: each
    # note moves. A build asked for endnotes (below) writes one per source.
    assert endnotes(project / "out.docx") == 3
    assert cli("convert", "d.md", "-o", "d.docx", "-M", "notes:endnotes").code == 0
    assert endnotes(project / "d.docx") == 2


def test_a_key_alone_without_value_names_the_fix(project: Path, cli) -> None:
    line = _error(cli("finish", "out.docx", "-M", "notes").err)
    assert "KEY=VALUE" in line and "citeledger.notes" in line


def test_document_metadata_is_read_as_pandoc_reads_its_own_m(tmp_path: Path) -> None:
    forms = ["k1=b", "k2:b", "k3", "k4=True", "k5=tRuE", "k6=b:c", "k7:b=c", "k8=", "k9=FALSE"]
    forms += ["k10=x", "k10=y", "k10=z"]
    tree = json.loads(
        run_pandoc(["-t", "json", "-s", *_flags(forms)], stdin="x\n", cwd=tmp_path).decode()
    )
    assert meta_entries(forms) == tree["meta"]
