"""``render --style csljson`` and ``bibtex`` export the ledger for pandoc's citeproc and Zotero;
read back by ``ingest``, the export gives the same ledger (CSL-JSON) or the same URLs (BibTeX)."""

from __future__ import annotations

import json
from pathlib import Path

from citeledger.ledger import load_ledger
from citeledger.pandoc import pandoc_path, run_pandoc

URLS = [
    "https://en.wikipedia.org/wiki/Python_(programming_language)",
    "https://example.org/search?q=a_b&n=100%25",
    "https://example.org/page#section-2",
    "https://doi.org/10.1371/journal.pcbi.1007128",
    "https://example.org/a--b/",
]


def _library_ledger(cli) -> None:
    assert cli("--ledger", "L.json", "add", *URLS[:3]).code == 0
    added = cli(
        "--ledger", "L.json", "add", URLS[3], "--title", "Open collaborative writing",
        "--author", "Himmelstein, Daniel S.; Rubinetti, Vincent", "--issued", "2019-06-24",
        "--site", "PLOS Computational Biology", "--key", "himmelstein2019",
    )  # fmt: skip
    assert added.code == 0, added.err
    titled = cli("--ledger", "L.json", "add", URLS[4], "--title", "Dashes", "--issued", "2001")
    assert titled.code == 0


def test_csljson_export_is_read_by_pandoc_citeproc(cli, tmp_path: Path) -> None:
    _library_ledger(cli)
    exported = cli("--ledger", "L.json", "render", "--style", "csljson")
    assert exported.code == 0, exported.err
    (tmp_path / "refs.json").write_text(exported.out, encoding="utf-8")
    (tmp_path / "draft.md").write_text(
        "Python is a language [@source1]. Writing is open [@himmelstein2019].\n",
        encoding="utf-8",
    )
    import subprocess

    done = subprocess.run(
        [
            pandoc_path(),
            "--citeproc",
            "--bibliography",
            "refs.json",
            "-t",
            "plain",
            "--wrap=none",
            "draft.md",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "not found" not in done.stderr
    assert "(Himmelstein and Rubinetti 2019)" in done.stdout
    assert "Open Collaborative Writing" in done.stdout
    assert "https://en.wikipedia.org/wiki/Python_(programming_language)" in done.stdout


def test_ledger_to_csljson_to_ingest_gives_the_same_ledger(cli, tmp_path: Path) -> None:
    _library_ledger(cli)
    exported = cli("--ledger", "L.json", "render", "--style", "csljson")
    (tmp_path / "refs.json").write_text(exported.out, encoding="utf-8")
    again = cli("--ledger", "copy.json", "ingest", "refs.json")
    assert again.code == 0, again.err
    assert (tmp_path / "copy.json").read_bytes() == (tmp_path / "L.json").read_bytes()
    # Into the ledger it came from: every id kept, nothing written.
    before = (tmp_path / "L.json").read_bytes()
    assert cli("--ledger", "L.json", "ingest", "refs.json").code == 0
    assert (tmp_path / "L.json").read_bytes() == before


def test_bibtex_export_ingests_back_to_the_same_urls(cli, tmp_path: Path) -> None:
    _library_ledger(cli)
    exported = cli("--ledger", "L.json", "render", "--style", "bibtex")
    assert exported.code == 0
    (tmp_path / "refs.bib").write_text(exported.out, encoding="utf-8")
    again = cli("--ledger", "copy.json", "ingest", "refs.bib")
    assert again.code == 0, again.err
    original = load_ledger(tmp_path / "L.json")
    copy = load_ledger(tmp_path / "copy.json")
    assert [s.url for s in copy.sources] == [s.url for s in original.sources]
    paper = copy.source(4)
    assert paper.key == "himmelstein2019"
    assert [a["family"] for a in paper.author or []] == ["Himmelstein", "Rubinetti"]
    assert paper.issued == "2019"


def test_bibtex_entry_of_a_library_source_names_its_key_author_and_year(cli) -> None:
    _library_ledger(cli)
    block = cli("--ledger", "L.json", "render", "--style", "bibtex", "--only", "1,4").out
    assert block.startswith("@misc{source1,\n  title = ")
    assert "@misc{himmelstein2019,\n" in block
    assert "  author = {{Himmelstein}, Daniel S. and {Rubinetti}, Vincent},\n" in block
    assert "  year = {2019},\n" in block
    assert "  organization = {PLOS Computational Biology},\n" in block
    items = json.loads(run_pandoc(["-f", "bibtex", "-t", "csljson"], stdin=block))
    assert items[1]["URL"] == URLS[3]
