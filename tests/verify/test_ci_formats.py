"""``citeledger verify`` for CI tools: GitHub Actions workflow commands, SARIF 2.1.0 validated
against the official schema, and several drafts in one run (what a pre-commit hook passes)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator

from citeledger import __version__
from citeledger.verify import Finding, Report
from citeledger.verify.ci_formats import github_commands, sarif_log
from citeledger.verify.rules import RULES
from tests.helpers import FIXTURES, make_ledger

SCHEMA = FIXTURES / "sarif" / "sarif-schema-2.1.0.json"

SOURCES = [
    {"id": 1, "url": "https://a.org/ice", "title": "Ice", "accessed": "2026-01-01"},
    {"id": 2, "url": "https://a.org/water", "title": "Water", "accessed": "2026-01-01"},
]
GOOD = "# Ice\n\nIce floats on water.[1] Water is dense.[2]\n\n## Sources\n\n" + (
    "[1] https://a.org/ice — Ice\n[2] https://a.org/water — Water\n"
)
# [7] is at line 3, column 36; the Sources block lacks it too.
BAD = GOOD.replace("Water is dense.[2]", "Bears hunt.[7] Water is dense.[2]")
# Two style warnings at line 3: a space before the marker, the marker before the full stop.
STYLE = GOOD.replace("Ice floats on water.[1]", "Ice floats on water [1].")
HTML = (
    "<html><body><h1>Floating ice</h1><p>Ice floats on water.[9]</p>"
    "<h2>Sources</h2><ul><li>[9] https://a.org/nine</li></ul></body></html>"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    make_ledger(tmp_path / "ledger.json", SOURCES)
    for name, text in (
        ("good.md", GOOD),
        ("bad.md", BAD),
        ("style.md", STYLE),
        ("page.html", HTML),
    ):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def sarif_errors(log: dict[str, Any]) -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = Draft4Validator(schema, format_checker=Draft4Validator.FORMAT_CHECKER)
    errors = validator.iter_errors(log)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors]


# GitHub Actions workflow commands ----------------------------------------------------------


def test_github_format_prints_an_error_at_each_failing_marker(cli, project: Path) -> None:
    result = cli("verify", "bad.md", "--format", "github")
    assert result.code == 1
    assert result.out.splitlines() == [
        "::error file=bad.md,line=3,col=36,title=citeledger unknown-id::"
        "citations not in the ledger (hallucinated or renumbered): [7] \u2014 fix: cite an id "
        "`citeledger list` shows, or `citeledger add URL` and cite the id it prints",
        "::error file=bad.md,line=3,col=36,title=citeledger missing-from-sources-block::"
        "cited but absent from the Sources block: [7] \u2014 fix: "
        "`citeledger render --replace-in bad.md`",
    ]
    assert result.err.strip() == "verification failed"


def test_github_format_warnings_are_warnings_and_errors_under_strict(cli, project: Path) -> None:
    relaxed = cli("verify", "style.md", "--format", "github")
    assert relaxed.code == 0 and relaxed.err.strip() == "citations OK"
    commands = relaxed.out.splitlines()
    # `water [1].` is one mistake: one annotation.
    assert [c.split(" ", 1)[0] for c in commands] == ["::warning"]
    assert all(",line=3,col=" in c for c in commands)
    strict = cli("verify", "style.md", "--format", "github", "--strict")
    assert strict.code == 1
    assert [c.split(" ", 1)[0] for c in strict.out.splitlines()] == ["::error"]


def test_github_format_a_finding_at_a_heading_names_the_file_and_the_heading(
    cli, project: Path
) -> None:
    result = cli("verify", "page.html", "--format", "github")
    assert result.code == 1
    failed = [c for c in result.out.splitlines() if c.startswith("::error")]
    assert failed[0] == (
        "::error file=page.html,title=citeledger unknown-id::"
        "citations not in the ledger (hallucinated or renumbered): [9] (§ Floating ice) "
        "\u2014 fix: cite an id `citeledger list` shows, or `citeledger add URL` and cite the id "
        "it prints"
    )


def test_github_commands_escape_messages_and_properties_as_github_does() -> None:
    name = "notes, draft: v2.md"
    finding = Finding("FAIL", "unknown-id", "100% sure\r\nor not: [7]", f"{name}:12:5", (7,))
    report = Report([finding], stats={}, cited_ids=[7], source_name=name)
    assert github_commands([report]) == [
        "::error file=notes%2C draft%3A v2.md,line=12,col=5,title=citeledger unknown-id::"
        "100%25 sure%0D%0Aor not: [7]"
    ]


# SARIF 2.1.0 -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["bad.md"],
        ["good.md"],
        ["page.html"],
        ["style.md", "--strict"],
        ["good.md", "bad.md", "style.md", "page.html"],
    ],
    ids=["failures", "clean", "heading-located", "strict", "several-files"],
)
def test_sarif_log_is_valid_against_the_official_schema(cli, project: Path, args) -> None:
    result = cli("verify", *args, "--format", "sarif")
    log = json.loads(result.out)
    assert sarif_errors(log) == []
    assert log["version"] == "2.1.0"
    assert result.err.strip() in ("citations OK", "verification failed")
    assert result.code == (0 if result.err.strip() == "citations OK" else 1)


def test_sarif_results_name_rule_level_file_line_and_column(cli, project: Path) -> None:
    log = json.loads(cli("verify", "bad.md", "style.md", "--format", "sarif").out)
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("citeledger", __version__)
    rules = [rule["id"] for rule in driver["rules"]]
    assert len(rules) == len(set(rules))
    assert run["columnKind"] == "unicodeCodePoints"
    got = []
    for result in run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        physical = result["locations"][0]["physicalLocation"]
        region = physical["region"]
        got.append(
            (
                result["ruleId"],
                result["level"],
                physical["artifactLocation"]["uri"],
                region["startLine"],
                region["startColumn"],
            )
        )
    assert ("unknown-id", "error", "bad.md", 3, 36) in got
    assert ("marker-before-punctuation", "warning", "style.md", 3, 21) in got
    assert {g[0] for g in got} == {
        "unknown-id",
        "missing-from-sources-block",
        "marker-before-punctuation",
    }


def test_sarif_a_finding_at_a_heading_has_the_file_and_the_heading_as_message(
    cli, project: Path
) -> None:
    log = json.loads(cli("verify", "page.html", "--format", "sarif").out)
    unknown = [r for r in log["runs"][0]["results"] if r["ruleId"] == "unknown-id"]
    location = unknown[0]["locations"][0]
    assert location["physicalLocation"] == {"artifactLocation": {"uri": "page.html"}}
    assert location["message"]["text"] == "§ Floating ice"


def test_paths_are_given_as_ci_tools_match_them(cli, project: Path) -> None:
    result = cli("verify", "./bad.md", str(project / "style.md"), "--format", "github")
    found = [re.search(r"file=([^,]+)", c) for c in result.out.splitlines()]
    assert {m.group(1) for m in found if m} == {"bad.md", "style.md"}


def test_sarif_file_names_are_uri_references() -> None:
    name = "drafts/état 2#1.md"
    report = Report([Finding("FAIL", "x-new-check", "m", f"{name}:1:1")], {}, [], source_name=name)
    log = sarif_log([report], __version__)
    assert sarif_errors(log) == []
    result = log["runs"][0]["results"][0]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "drafts/%C3%A9tat%202%231.md"
    assert log["runs"][0]["tool"]["driver"]["rules"][0]["shortDescription"]["text"] == "x-new-check"


def test_every_rule_of_the_table_is_a_sarif_rule_named_and_described_by_its_row() -> None:
    findings = [rule.finding(f"m {rule.code}", "d.md:1:1") for rule in RULES.values()]
    log = sarif_log([Report(findings, {}, [], source_name="d.md")], __version__)
    assert sarif_errors(log) == []
    got = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert set(got) == set(RULES)
    for code, rule in RULES.items():
        assert got[code]["name"] == rule.name
        assert (
            got[code]["shortDescription"] == got[code]["fullDescription"] == {"text": rule.summary}
        )
    assert got["unknown-id"]["name"] == "UnknownId"


# Several files, one run --------------------------------------------------------------------


def test_several_drafts_one_run_names_each_stats_line_and_gives_one_verdict(
    cli, project: Path
) -> None:
    result = cli("verify", "good.md", "bad.md")
    assert result.code == 1
    out = result.out.splitlines()
    assert out[0].startswith("info: good.md: stats: ")
    assert out[1].startswith("info: bad.md: stats: ")
    assert out[-1] == "verification failed"
    assert "FAIL: bad.md:3:36: citations not in the ledger" in result.err
    assert cli("verify", "good.md", "style.md").code == 0


def test_several_drafts_as_json_are_a_list_of_reports(cli, project: Path) -> None:
    result = cli("verify", "good.md", "bad.md", "--format", "json")
    reports = json.loads(result.out)
    assert [(r["source"], r["ok"]) for r in reports] == [("good.md", True), ("bad.md", False)]
    one = json.loads(cli("verify", "good.md", "--format", "json").out)
    assert one["source"] == "good.md"


def test_an_unknown_format_is_one_line(cli, project: Path) -> None:
    result = cli("verify", "good.md", "--format", "xml")
    assert result.code == 2
    assert result.err.strip().splitlines() == [
        "citeledger: error: --format xml: not one of text, json, github, sarif "
        "(choose text, json, github or sarif)"
    ]
    missing = cli("verify", "good.md", "gone.md", "--format", "sarif")
    assert missing.code == 2 and missing.out == ""
    assert "no such draft: gone.md" in missing.err
