"""Warnings at scale (issue 20, section 8): past three of one rule the text report prints a
count with the first locations and how to see all; ``--format json`` keeps every finding; a
source whose title is its URL shows the URL once."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from citeledger.verify.report import Finding, Report
from tests.helpers import run_citeledger


def citeledger(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, ledger=cwd / "ledger.json")


def spaced_draft(folder: Path, count: int) -> None:
    assert citeledger("add", "https://example.com/a", "--title", "A", cwd=folder).returncode == 0
    prose = "".join(f"Claim number {k} holds here [1]\n\n" for k in range(count))
    (folder / "d.md").write_text(prose + "## Sources\n\n[1] https://example.com/a — A\n")


def test_past_three_warnings_of_one_rule_the_report_prints_a_count(tmp_path: Path) -> None:
    spaced_draft(tmp_path, 8)
    done = citeledger("verify", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    warns = [line for line in done.stdout.splitlines() if line.startswith("warn:")]
    assert [w.split(": ")[1] for w in warns[:3]] == ["d.md:1:27", "d.md:3:27", "d.md:5:27"]
    # The count line names what it folds: each finding's ids and line.
    assert warns[3:] == [
        "warn: 5 more space-before-marker in d.md: [1] at 7:27, [1] at 9:27, [1] at 11:27, "
        "[1] at 13:27, [1] at 15:27; `--format json` lists every finding"
    ]
    as_json = citeledger("verify", "d.md", "--format", "json", cwd=tmp_path)
    codes = [f["code"] for f in json.loads(as_json.stdout)["findings"]]
    assert codes.count("space-before-marker") == 8


def test_the_count_line_names_the_ids_of_findings_about_the_whole_file(tmp_path: Path) -> None:
    # Quoted sources the draft does not cite are findings of the file, not of a line: the
    # count line names their ids, not the file name again and again.
    (tmp_path / "p.txt").write_text("Sea ice has a high albedo, reflecting sunlight.\n")
    urls = [f"https://example.com/{n}" for n in range(1, 8)]
    assert citeledger("add", *urls, cwd=tmp_path).returncode == 0
    for n in range(1, 8):
        quoted = citeledger(
            "quote", str(n), "--text", "a high albedo", "--from", "p.txt", cwd=tmp_path
        )
        assert quoted.returncode == 0, quoted.stderr
    (tmp_path / "d.md").write_text("Sea ice has a high albedo.[1]\n\n## Sources\n\n[1] " + urls[0])
    done = citeledger("verify", "d.md", cwd=tmp_path)
    warns = [line for line in done.stdout.splitlines() if line.startswith("warn:")]
    assert warns[-1] == (
        "warn: 3 more quoted-source-not-cited in d.md: [5], [6], [7]; "
        "`--format json` lists every finding"
    )


def test_past_a_dozen_the_count_line_says_how_many_it_does_not_name() -> None:
    findings = [
        Finding("warn", "space-before-marker", "space before the marker", f"d.md:{k}:1", (k,))
        for k in range(1, 21)
    ]
    stats = {
        "sentences": 1,
        "covered": 1,
        "coverage": 1.0,
        "cited_sentences": 1,
        "unverified_sentences": 0,
        "tool_sentences": 0,
        "policy_sentences": 0,
        "distinct_cited": 1,
        "ledger_sources": 1,
        "sources_with_quotes": 0,
    }
    line = Report(findings, stats, [1]).lines()[-2]
    named = ", ".join(f"[{k}] at {k}:1" for k in range(4, 16))
    assert line == (
        f"warn: 17 more space-before-marker in d.md: {named}, and 5 more; "
        "`--format json` lists every finding"
    )


def test_three_warnings_of_one_rule_print_in_full(tmp_path: Path) -> None:
    spaced_draft(tmp_path, 3)
    done = citeledger("verify", "d.md", cwd=tmp_path)
    warns = [line for line in done.stdout.splitlines() if line.startswith("warn:")]
    assert len(warns) == 3 and not any("more" in w for w in warns)


def test_the_report_lines_take_a_limit_and_none_shows_all() -> None:
    findings = [
        Finding("warn", "space-before-marker", "space before the marker [1]", f"d.md:{k}:1")
        for k in range(1, 11)
    ]
    findings.append(Finding("FAIL", "unknown-id", "citations not in the ledger: [9]", "d.md:2:1"))
    stats = {
        "sentences": 1,
        "covered": 1,
        "coverage": 1.0,
        "cited_sentences": 1,
        "unverified_sentences": 0,
        "tool_sentences": 0,
        "policy_sentences": 0,
        "distinct_cited": 1,
        "ledger_sources": 1,
        "sources_with_quotes": 0,
    }
    report = Report(findings, stats, [1])
    every = report.lines(limit=None)
    assert sum(line.startswith("warn:") for line in every) == 10
    short = report.lines(limit=2)
    assert sum(line.startswith("warn:") for line in short) == 3
    assert any(line.startswith("FAIL:") for line in short)


def test_a_title_that_is_its_url_shows_the_url_once(tmp_path: Path) -> None:
    url = "https://example.com/a"
    assert citeledger("add", url, "--title", url, cwd=tmp_path).returncode == 0
    done = citeledger("render", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"## Sources\n\n[1] {url}\n"
    (tmp_path / "d.md").write_text("Ice floats on water.[1]\n", encoding="utf-8")
    built = citeledger("convert", "d.md", "-o", "d.html", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    html = (tmp_path / "d.html").read_text(encoding="utf-8")
    entry = html[html.index('id="src-1"') :]
    entry = entry[: entry.index("</div>")].replace("<wbr>", "")  # the URL's break points
    assert entry.count("example.com/a") == 2  # the link's target and its text
