"""The verifier's public API (what the filter calls) and the ``citeledger verify`` command's
streams, exit codes and one-line errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import panflute
import pytest

from citeledger.document.markers import Scan, scan
from citeledger.ledger import Ledger, Quote, Source
from citeledger.options import Options
from citeledger.pandoc import run_pandoc
from citeledger.verify import Finding, Report, verify
from tests.helpers import make_ledger, run_citeledger

DRAFT = """# Ice

Ice floats because it is less dense than water.[1] Lakes freeze from the top down [2].

## Sources

[1] https://example.org/ice — Ice
[2] https://example.org/lakes — Lakes
"""


def ledger(*ids: int, quotes: bool = False) -> Ledger:
    names = {1: "ice", 2: "lakes", 3: "sea"}
    sources = [
        Source(
            id=i,
            url=f"https://example.org/{names[i]}",
            title=names[i].title(),
            accessed="2025-01-01",
            quotes=[Quote(text="ice is less dense", added="2025-01-01")] if quotes else [],
        )
        for i in ids
    ]
    return Ledger(Path("ledger.json"), sources)


def tree(markdown: str) -> dict[str, Any]:
    return json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=markdown))


def test_report_lines_follow_the_seed_shape() -> None:
    report = verify(tree(DRAFT), ledger(1, 2, 3), source_name="d.md", source_text=DRAFT)
    lines = report.lines()
    assert lines[0].startswith("info: stats: 2 prose sentence(s), 2 with declared provenance")
    assert lines[-1] == "citations OK"
    assert "warn: d.md:3:83: space before the marker [2]" in "\n".join(lines)
    uncited = "info: d.md: registered in the ledger but not cited in this draft: [3]"
    assert not any(line.startswith(uncited) for line in lines)  # listed with -v only
    assert any(line.startswith(uncited) for line in report.lines(verbose=True))
    assert lines[0].endswith("; 1 registered without evidence and not cited (`-v` lists them)")


def test_failures_come_after_warnings_and_fail_the_report() -> None:
    report = verify(tree(DRAFT), ledger(1, 3), source_name="d.md", source_text=DRAFT)
    lines = report.lines()
    levels = [line.split(":", 1)[0] for line in lines[1:-1]]
    assert levels == sorted(levels, key=["warn", "FAIL"].index)
    assert report.failed and lines[-1] == "verification failed"


def test_strict_report_fails_on_a_warning_alone() -> None:
    lenient = verify(tree(DRAFT), ledger(1, 2))
    strict = verify(tree(DRAFT), ledger(1, 2), Options(strict=True))
    assert not lenient.failed and strict.failed
    assert {f.level for f in strict.findings} == {"warn"}


def test_panflute_doc_gives_the_same_report_as_json() -> None:
    data = tree(DRAFT)
    doc = panflute.load(io.StringIO(json.dumps(data)))
    assert verify(doc, ledger(1, 2)).to_json() == verify(data, ledger(1, 2)).to_json()


def test_a_scan_passed_in_is_used_not_redone() -> None:
    data = tree(DRAFT)
    report = verify(data, ledger(1, 2), scan=Scan(sources=scan(data).sources))
    assert report.cited_ids == [] and report.stats["markers"] == 0


def test_filter_mode_needs_no_sources_block() -> None:
    data = tree("Ice floats because it is less dense than water.[1]\n")
    assert verify(data, ledger(1), build=True).findings == []
    codes = [f.code for f in verify(data, ledger(1)).findings]
    assert codes == ["missing-sources-block"]


def test_without_source_text_locations_name_the_heading() -> None:
    report = verify(tree(DRAFT), ledger(1, 2), source_name="d.md")
    assert {f.location for f in report.findings} == {"d.md \u00a7 Ice"}


def test_markers_in_footnote_definitions_are_located_where_written() -> None:
    text = "# T\n\nFirst claim here.[^a] Second claim.[1]\n\n[^a]: The note cites.[2]\n"
    report = verify(tree(text), ledger(), source_name="n.md", source_text=text)
    where = {f.ids: f.location for f in report.findings if f.code == "unknown-id"}
    assert where == {(2,): "n.md:5:22", (1,): "n.md:3:36"}


def test_to_json_round_trips_findings() -> None:
    report = verify(tree(DRAFT), ledger(1), source_name="d.md", source_text=DRAFT)
    data = json.loads(report.to_json())
    assert data["ok"] is False and data["cited_ids"] == [1, 2]
    rebuilt = [
        Finding(f["level"], f["code"], f["message"], f["location"], tuple(f["ids"]), f["fix"])
        for f in data["findings"]
    ]
    assert rebuilt == report.findings


def test_report_is_the_documented_dataclass() -> None:
    report = Report(findings=[Finding("warn", "x", "m", "here")], stats={}, cited_ids=[])
    assert not report.failed


# -- the command line: real processes, so streams and exit codes are what users see ---------


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    make_ledger(tmp_path / "ledger.json", ledger(1, 2).sources)
    return tmp_path


def test_cli_text_lines_go_to_stdout_as_sources_py_and_exit_zero(workdir: Path) -> None:
    proc = run("verify", "draft.md", cwd=workdir)
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("info: stats: ") and lines[-1] == "citations OK"


def test_cli_json_goes_to_stdout(workdir: Path) -> None:
    proc = run("--ledger", "ledger.json", "verify", "draft.md", "--format", "json", cwd=workdir)
    report = json.loads(proc.stdout)
    codes = [f["code"] for f in report["findings"]]
    # `down [2].`: one mistake, one finding, whose fix writes the corrected text.
    assert report["ok"] and codes == ["marker-before-punctuation"]
    assert report["findings"][0]["fix"] == "write `down.[2]`"
    assert proc.stderr.strip() == "citations OK"


def test_cli_strict_exits_one(workdir: Path) -> None:
    proc = run("verify", "draft.md", "--strict", cwd=workdir)
    assert proc.returncode == 1 and proc.stdout.splitlines()[-1] == "verification failed"


@pytest.mark.parametrize(
    ("args", "setup", "needle"),
    [
        (["verify", "missing.md"], None, "no such draft: missing.md"),
        (["verify", "draft.md"], "broken-ledger", "ledger.json"),
        (["verify", "draft.md", "--from", "docx"], None, "pandoc could not convert"),
        (["verify", "draft.md", "--min-coverage", "7"], None, "--min-coverage"),
    ],
)
def test_cli_bad_input_exits_two_with_one_line(
    workdir: Path, args: list[str], setup: str | None, needle: str
) -> None:
    if setup == "broken-ledger":
        (workdir / "ledger.json").write_text("{not json")
    proc = run(*args, cwd=workdir)
    assert proc.returncode == 2
    assert needle in proc.stderr and "Traceback" not in proc.stderr


def test_verify_command_module_imports_no_pandoc_machinery() -> None:
    code = (
        "import sys, citeledger.commands.verify_cmd; "
        "bad = [m for m in ('panflute', 'pypandoc', 'docx', 'pptx', 'citeledger.pandoc', "
        "'citeledger.verify') if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_verify_reads_a_large_ledger_without_building_every_source(tmp_path: Path) -> None:
    """Verify asks a ledger its ids, which sources carry quotes and whether a page is kept: a
    ledger read in one pass answers from its text, and only the cited and quoted sources are
    built (a 50,000-source ledger took half a second building the rest)."""
    from citeledger.ledger import load_ledger, transaction
    from citeledger.ledger.layout import TextLedger

    path = tmp_path / "ledger.json"
    with transaction(path) as book:
        for i in range(1, 201):
            source = book.add(f"https://example.org/s/{i}", title=f"S {i}")[0]
            if i in (2, 150):
                book.add_quote(source, Quote(text="ice is less dense", added="2025-01-01"))
    big = load_ledger(path)
    assert isinstance(big, TextLedger)
    draft = "# Ice\n\nIce floats.[1] Lakes freeze.[2]\n"
    report = verify(tree(draft), big, source_name="d.md", source_text=draft)
    assert not big.whole
    assert set(big.built) <= {1, 2, 150}
    whole = load_ledger(path)
    assert isinstance(whole, TextLedger)
    assert len(whole.sources) == 200  # built first: the base class's answers
    again = verify(tree(draft), whole, source_name="d.md", source_text=draft)
    assert report.lines() == again.lines()
    assert [f.code for f in report.findings] == [f.code for f in again.findings]
    assert any(f.ids == (150,) for f in report.findings)  # the quoted one, not cited: a warning
