"""SARIF as code scanning keeps it over time: each rule links its help (its row of the manual's
table of findings) and each result carries a fingerprint of what it is about, so an edit that
moves a paragraph keeps the alert it had rather than opening a new one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator

from citeledger import __version__
from citeledger.verify import Finding, Report
from citeledger.verify.ci_formats import FINGERPRINT_KEY, RULES_URL, sarif_log
from citeledger.verify.rules import RULES
from tests.helpers import ROOT

SCHEMA = ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"
SOURCES = [{"id": 1, "url": "https://a.org/ice", "title": "Ice", "accessed": "2026-01-01"}]
DRAFT = (
    "# Ice\n\n{above}Ice floats on water.[1] Bears hunt on it.[7]\n\n"
    "Seals rest on it.[7] Ice melts in spring [1].\n\n"
    "## Sources\n\n[1] https://a.org/ice — Ice\n"
)


def schema_errors(log: dict[str, Any]) -> list[str]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = Draft4Validator(schema, format_checker=Draft4Validator.FORMAT_CHECKER)
    return [e.message for e in validator.iter_errors(log)]


def test_every_rule_links_its_row_of_the_manuals_table() -> None:
    findings = [rule.finding("m", "d.md:1:1") for rule in RULES.values()]
    log = sarif_log([Report(findings, {}, [], source_name="d.md")], __version__)
    assert schema_errors(log) == []
    assert RULES_URL.endswith("/blob/main/docs/reference/rules.md")
    table = (ROOT / "docs" / "reference" / "rules.md").read_text(encoding="utf-8")
    for rule in log["runs"][0]["tool"]["driver"]["rules"]:
        anchor = RULES[rule["id"]].anchor
        assert rule["helpUri"] == f"{RULES_URL}#{anchor}"
        assert f'<a id="{anchor}"></a>' in table


def test_a_code_without_a_row_has_no_help_link_and_still_validates() -> None:
    report = Report([Finding("FAIL", "x-new-check", "m", "d.md:1:1")], {}, [], source_name="d.md")
    log = sarif_log([report], __version__)
    assert schema_errors(log) == []
    assert "helpUri" not in log["runs"][0]["tool"]["driver"]["rules"][0]


def fingerprints(cli, above: str) -> list[tuple[str, int, str]]:
    Path("d.md").write_text(DRAFT.format(above=above), encoding="utf-8")
    log = json.loads(cli("verify", "d.md", "--format", "sarif").out)
    assert schema_errors(log) == []
    out = []
    for result in log["runs"][0]["results"]:
        line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
        out.append((result["ruleId"], line, result["partialFingerprints"][FINGERPRINT_KEY]))
    return out


def test_moving_a_paragraph_keeps_every_fingerprint(cli, tmp_path: Path) -> None:
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": SOURCES}))
    before = fingerprints(cli, "")
    after = fingerprints(cli, "A new opening paragraph.\n\nAnd a second one.\n\n")
    assert [r[1] + 4 for r in before] == [r[1] for r in after]  # the findings moved down...
    assert [r[2] for r in before] == [r[2] for r in after]  # ...and kept their identity
    unknown = [r[2] for r in before if r[0] == "unknown-id"]
    assert len(unknown) == len(set(unknown)) >= 1
    assert len({r[2] for r in before}) == len(before)  # two findings never share one


def test_a_finding_about_another_id_or_file_has_another_fingerprint() -> None:
    def key(code: str, location: str, ids: tuple[int, ...]) -> str:
        report = Report([Finding("FAIL", code, "m", location, ids)], {}, [], source_name="a.md")
        (result,) = sarif_log([report], __version__)["runs"][0]["results"]
        return str(result["partialFingerprints"][FINGERPRINT_KEY])

    base = key("unknown-id", "a.md:3:4", (7,))
    assert key("unknown-id", "a.md:9:1", (7,)) == base
    assert key("unknown-id", "a.md:3:4", (8,)) != base
    assert key("unknown-id", "b.md:3:4", (7,)) != base
    assert key("missing-from-sources-block", "a.md:3:4", (7,)) != base
