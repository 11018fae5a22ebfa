"""One rules table for the verifier's findings: the checks emit through it, and the manual, the
verifier's manual and the CLI's flags agree with it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import typer.main

import citeledger.verify
from citeledger.cli import app
from citeledger.verify import rules
from citeledger.verify.report import LEVELS
from citeledger.verify.rules import RULES, Rule, readme_table
from tests.helpers import ROOT

PACKAGE = ROOT / "citeledger"
VERIFY = PACKAGE / "verify"
# The manual's table of findings, written by docs/gen.py.
TABLE = ROOT / "docs" / "reference" / "rules.md"
EMITTERS = (
    "checks.py",
    "evidence_trail.py",
    "agent_mistakes.py",
    "marker_style.py",
    "support/check.py",
)


def _constants() -> dict[str, Rule]:
    return {name: value for name, value in vars(rules).items() if isinstance(value, Rule)}


def test_the_manual_lists_exactly_the_tables_codes_each_with_its_anchor() -> None:
    readme = TABLE.read_text(encoding="utf-8")
    assert readme_table() in readme, "docs/reference/rules.md is stale: run `python3 docs/gen.py`"
    rows = re.findall(r'^\| <a id="([^"]+)"></a>`([^`]+)` \|', readme, re.MULTILINE)
    assert rows == [(rule.anchor, rule.code) for rule in RULES.values()]
    assert len({anchor for anchor, _ in rows}) == len(rows)


def test_every_rule_is_a_constant_named_for_its_code_and_emitted_by_a_check() -> None:
    constants = _constants()
    assert sorted(constants.values(), key=lambda r: r.code) == sorted(
        RULES.values(), key=lambda r: r.code
    )
    source = "\n".join((VERIFY / name).read_text(encoding="utf-8") for name in EMITTERS)
    used = set(re.findall(r"\b[A-Z][A-Z_]+\b", source))
    for name, rule in constants.items():
        assert name == rule.code.upper().replace("-", "_")
        assert name in used, f"no check emits {rule.code}"


def test_a_finding_code_is_spelled_only_in_the_rules_table() -> None:
    spelled: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == VERIFY / "rules.py":
            continue
        text = path.read_text(encoding="utf-8")
        spelled += [f"{path.name}: {code}" for code in RULES if f'"{code}"' in text]
    assert spelled == []


def test_the_checks_make_findings_only_through_a_rule() -> None:
    for name in EMITTERS:
        tree = ast.parse((VERIFY / name).read_text(encoding="utf-8"))
        calls = [
            node.func.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        ]
        assert "Finding" not in calls, name


def test_the_verifiers_manual_points_at_the_table_and_keeps_no_list_of_its_own() -> None:
    manual = citeledger.verify.__doc__ or ""
    assert ":mod:`.rules`" in manual
    assert [code for code in RULES if code in manual] == []


def test_every_flag_a_rule_names_is_a_flag_of_verify() -> None:
    group: Any = typer.main.get_command(app)
    flags = {opt for p in group.commands["verify"].params for opt in p.opts}
    named = {rule.when for rule in RULES.values() if rule.when.startswith("--")}
    assert named and named <= flags
    assert {rule.level for rule in RULES.values()} <= set(LEVELS)


def test_a_verify_run_reports_each_finding_at_its_rules_level(cli, tmp_path: Path) -> None:
    sources = [{"id": 1, "url": "https://a.org/ice", "title": "Ice", "accessed": "2026-01-01"}]
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}))
    draft = tmp_path / "d.md"
    draft.write_text(
        "# Ice\n\nIce floats on water [1] and melts. Bears hunt seals on it.[7]\n\n## Sources\n\n"
        "[1] https://a.org/ice — Ice\n[3] https://a.org/three — Three\n",
        encoding="utf-8",
    )
    args = ["--ledger", str(tmp_path / "ledger.json"), "--format", "json"]
    report = json.loads(cli("verify", str(draft), *args).out)
    found = {(f["code"], f["level"]) for f in report["findings"]}
    assert {code for code, _ in found} >= {"unknown-id", "space-before-marker"}
    assert found == {(code, RULES[code].level) for code, _ in found}


def test_no_function_in_the_verifier_is_longer_than_eighty_lines() -> None:
    long: list[str] = []
    for path in sorted(VERIFY.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 80:
                    long.append(f"{path.name}:{node.name} ({length} lines)")
    assert long == []
