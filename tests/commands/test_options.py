"""One options table: the filter's manual, the manual's reference page, the flags of every
command and every entry point's range checks come from it, and files record the options they
were built with."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main
from docx import Document
from pptx import Presentation

from citeledger.cli import app
from citeledger.filters import main as filter_main
from citeledger.options import OPTIONS, Options, from_meta
from citeledger.options.manual import readme_table
from tests.helpers import OWN_VARS, ROOT, citeledger_env, make_ledger, run_citeledger

# The manual's table of options, written by docs/gen.py.
TABLE = ROOT / "docs" / "reference" / "options.md"
COMMAND_NAMES = ("convert", "wiki", "verify", "finish")


def _commands() -> dict[str, Any]:
    group: Any = typer.main.get_command(app)
    return {name: group.commands[name] for name in COMMAND_NAMES}


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: o.key)
def test_every_option_is_in_the_filters_manual_the_reference_and_its_flags(option) -> None:
    manual = filter_main.__doc__ or ""
    assert f"``{option.meta_key}``" in manual
    assert f"| `{option.meta_key}` |" in TABLE.read_text(encoding="utf-8")
    commands = _commands()
    for name, command in commands.items():
        flags = {opt for p in command.params for opt in p.opts}
        assert (option.flag in flags) == (name in option.commands), (name, option.key)


def test_the_reference_table_is_the_table_the_code_declares() -> None:
    table = TABLE.read_text(encoding="utf-8")
    assert readme_table() in table, "docs/reference/options.md is stale: run `python3 docs/gen.py`"


def test_filter_help_prints_the_manual() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from citeledger.filters.main import main; main()",
            "-h",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert "citeledger.min-coverage" in done.stdout


def test_options_remember_which_keys_were_given() -> None:
    meta = {
        "citeledger": {"t": "MetaMap", "c": {"sources-title": {"t": "MetaString", "c": "Sources"}}}
    }
    given = from_meta(meta, warn=lambda _l: None)
    assert given.sources_title == Options().sources_title
    assert given.is_set("sources-title") and not Options().is_set("sources-title")
    assert Options().merged(given).is_set("sources-title")


# Range checks at every entry point ---------------------------------------------------------

DRAFT = "Ice floats on water because it is less dense.[1]\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_ledger(tmp_path / "ledger.json", [(1, "https://a.org/ice", "Ice", "2026-01-01")])
    (tmp_path / "d.md").write_text(DRAFT)
    return tmp_path


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = citeledger_env(unset=OWN_VARS)
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def _citeledger(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, unset=OWN_VARS, timeout=120)


def _one_line_refusal(done: subprocess.CompletedProcess[str], what: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert lines and what in lines[-1], done.stderr


@pytest.mark.parametrize("value", ["nan", "-1", "1.5", "inf", "lots"])
def test_min_coverage_out_of_range_is_refused_by_convert(value: str, project: Path) -> None:
    cmd = ["convert", "d.md", "-o", "d.html"]
    done = _citeledger(*cmd, f"--min-coverage={value}", cwd=project)
    _one_line_refusal(done, "--min-coverage")
    assert not (project / "d.html").exists()
    # The draft's metadata goes through the same check.
    done = _citeledger(*cmd, "-M", f"citeledger.min-coverage={value}", cwd=project)
    _one_line_refusal(done, "citeledger.min-coverage")


@pytest.mark.parametrize("value", ["nan", "-1"])
def test_min_coverage_out_of_range_is_refused_by_wiki_and_verify(value: str, project: Path) -> None:
    wiki = ["wiki", "d.md", "-o", "site"]
    _one_line_refusal(_citeledger(*wiki, f"--min-coverage={value}", cwd=project), "--min-coverage")
    assert not (project / "site").exists()
    verify = ["verify", "d.md"]
    _one_line_refusal(
        _citeledger(*verify, f"--min-coverage={value}", cwd=project), "--min-coverage"
    )


@pytest.mark.parametrize("value", ["nan", "-1"])
def test_min_coverage_out_of_range_is_refused_by_the_filter(value: str, project: Path) -> None:
    from citeledger.pandoc import pandoc_path

    args = [pandoc_path(), "d.md", "--filter", "pandoc-citeledger", "-o", "d.html"]
    done = _run([*args, "-M", f"citeledger.min-coverage={value}"], project)
    assert done.returncode != 0
    assert "citeledger.min-coverage" in done.stderr and "Traceback" not in done.stderr
    assert not (project / "d.html").exists()


# finish repeats what the filter was told ----------------------------------------------------

DECK = (
    "## One\n\n- Ice floats on water.[1]\n\n## Two\n\n- Water is dense.[2]\n\n"
    "## Sources\n\n[1] https://a.org/ice — Ice\n[2] https://a.org/water — Water\n"
)


def _two_sources(folder: Path) -> None:
    sources = [
        (1, "https://a.org/ice", "Ice", "2026-01-01"),
        (2, "https://a.org/water", "Water", "2026-01-01"),
    ]
    make_ledger(folder / "ledger.json", sources)


def _pandoc_then_finish(folder: Path, draft: str, out: str, *meta: str) -> Path:
    from citeledger.pandoc import pandoc_path

    _two_sources(folder)
    (folder / "deck.md").write_text(draft)
    args = [pandoc_path(), "deck.md", "--filter", "pandoc-citeledger", "-o", out]
    for item in meta:
        args += ["-M", item]
    built = _run(args, folder)
    assert built.returncode == 0, built.stderr
    finished = _citeledger("finish", out, cwd=folder)
    assert finished.returncode == 0, finished.stderr
    return folder / out


LOCALIZED = DECK.replace("## Sources", "## Quellen")


@pytest.mark.parametrize("draft", [DECK, LOCALIZED], ids=["sources-block", "quellen-block"])
def test_finish_keeps_a_localized_sources_slide_title_on_pptx(draft: str, tmp_path: Path) -> None:
    deck = _pandoc_then_finish(tmp_path, draft, "deck.pptx", "citeledger.sources-title=Quellen")
    titles = [s.shapes.title.text for s in Presentation(str(deck)).slides]
    assert titles == ["One", "Two", "Quellen"]


@pytest.mark.parametrize("draft", [DECK, LOCALIZED], ids=["sources-block", "quellen-block"])
def test_finish_keeps_a_localized_sources_section_title_on_docx(draft: str, tmp_path: Path) -> None:
    report = _pandoc_then_finish(tmp_path, draft, "r.docx", "citeledger.sources-title=Quellen")
    texts = [p.text for p in Document(str(report)).paragraphs]
    assert texts.count("Quellen") == 1
    assert "Sources" not in texts
    assert sum(t.startswith("[1] Ice.") for t in texts) == 1


def test_a_built_file_records_its_options_and_never_the_ledger_path(tmp_path: Path) -> None:
    from citeledger.renderers import recorded_options

    report = _pandoc_then_finish(
        tmp_path, DECK, "r.docx", "citeledger.notes=endnotes", "citeledger.ledger=ledger.json"
    )
    recorded = recorded_options(report)
    assert (recorded.notes, recorded.sources_title) == ("endnotes", "Sources")
    props = Document(str(report)).core_properties
    assert "ledger.json" not in json.dumps([props.title, props.subject, props.keywords])
    import zipfile

    with zipfile.ZipFile(report) as zf:
        assert not any(b"ledger.json" in zf.read(name) for name in zf.namelist())
