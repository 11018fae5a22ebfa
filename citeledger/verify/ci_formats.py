"""Findings as CI tools read them: GitHub Actions workflow commands and SARIF 2.1.0.

``citeledger verify --format github`` prints one workflow command per finding
(``::error file=draft.md,line=4,col=80,title=citeledger unknown-id::...``): GitHub shows it on
the line of the diff it names. ``--format sarif`` writes one SARIF log for code-scanning
dashboards. Both read a finding's location as the verifier wrote it: ``FILE:LINE:COL`` in
markdown, ``FILE § Heading`` in other formats (the heading then goes with the message, since
neither form has a place for it), or another file (the ledger, for evidence-trail findings).

A warning that fails the run (``--strict``) is an error in both forms, so what the dashboard
calls an error is exactly what failed the gate.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .report import Finding, Report

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
# What each finding code checks: the rule a SARIF result points at. Codes missing here (a newer
# check) still get a rule, described by the code alone.
RULES: dict[str, str] = {
    "unknown-id": "A cited id is not in the ledger (hallucinated or renumbered).",
    "not-a-url": "A cited ledger entry is no URL a reader can open (a sources.py entry).",
    "missing-sources-block": "The draft cites sources but has no Sources block.",
    "missing-from-sources-block": "A cited id is absent from the draft's Sources block.",
    "sources-entry-not-in-ledger": "The Sources block lists an id that is not in the ledger.",
    "sources-url-mismatch": "A Sources block entry's URL differs from the ledger's.",
    "link-url-mismatch": "A marker written as a link points at another URL than the ledger's.",
    "low-coverage": "Fewer sentences declare their provenance than the required share.",
    "missing-evidence": "A cited source carries no verbatim evidence quote.",
    "listed-not-cited": "The Sources block lists a source the text never cites.",
    "uncited-ledger-source": "A ledger source is not cited in this draft.",
    "too-many-ids": "A sentence carries more citations than the convention allows.",
    "repeated-id": "A sentence cites the same id twice.",
    "space-before-marker": "A space stands between the text and its marker.",
    "group-marker": "Several ids share one bracket; give each its own.",
    "marker-before-punctuation": "A marker stands before the sentence's closing punctuation.",
    "unsupported-figure": "A number in a cited sentence appears in none of its sources' quotes.",
    "footnote-url-not-in-ledger": "A footnote links to a URL that is not in the ledger.",
    "evidence-file-missing": "The evidence text a quote was checked against is missing.",
    "evidence-file-altered": "The evidence text a quote was checked against has changed.",
    "quote-not-in-evidence": "A quote is not in the evidence text kept for it.",
    "evidence-not-stored": "A quote has no evidence text kept beside the ledger.",
}
_POSITION = re.compile(r":(\d+):(\d+)\Z")


@dataclass(frozen=True)
class Place:
    """Where a finding points: a file, and a line and column (1-based) or a heading."""

    path: str
    line: int | None = None
    col: int | None = None
    heading: str = ""


def place(finding: Finding, source_name: str) -> Place:
    location = finding.location
    if location.startswith(source_name):
        rest = location[len(source_name) :]
        found = _POSITION.fullmatch(rest)
        if found:
            return Place(_relative(source_name), int(found.group(1)), int(found.group(2)))
        if rest.startswith(" \u00a7 "):
            return Place(_relative(source_name), heading=rest[3:])
        if not rest:
            return Place(_relative(source_name))
    return Place(_relative(location))


def _relative(path: str) -> str:
    """A path as CI tools match it against the repository: relative to the working folder
    when it lies below it, without ``./``; any other as given."""
    if os.path.isabs(path):
        try:
            inside = os.path.relpath(path)
        except ValueError:  # another drive
            return path
        return path if inside.startswith("..") else Path(inside).as_posix()
    return Path(os.path.normpath(path)).as_posix()


def _fails(finding: Finding, report: Report) -> bool:
    return finding.level == "FAIL" or (report.strict and finding.level == "warn")


# GitHub Actions ---------------------------------------------------------------------------


def _escape_data(text: str) -> str:
    """GitHub's rule for a command's message (``escapeData`` in actions/toolkit)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """GitHub's rule for a command's property values (``escapeProperty``): also ``:`` and ``,``."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_commands(reports: Sequence[Report]) -> list[str]:
    """One workflow command per finding, in the order of the text report."""
    out: list[str] = []
    for report in reports:
        for finding in _ordered(report.findings):
            where = place(finding, report.source_name)
            if _fails(finding, report):
                command = "error"
            else:
                command = "warning" if finding.level == "warn" else "notice"
            props = [f"file={_escape_property(where.path)}"]
            if where.line is not None:
                props += [f"line={where.line}", f"col={where.col}"]
            props.append(f"title={_escape_property(f'citeledger {finding.code}')}")
            message = finding.message
            if where.heading:
                message += f" (\u00a7 {where.heading})"
            out.append(f"::{command} {','.join(props)}::{_escape_data(message)}")
    return out


def _ordered(findings: Sequence[Finding]) -> list[Finding]:
    order = {"info": 0, "warn": 1, "FAIL": 2}
    return sorted(findings, key=lambda f: order.get(f.level, 0))


# SARIF 2.1.0 ------------------------------------------------------------------------------


def sarif_log(reports: Sequence[Report], version: str) -> dict[str, Any]:
    """One SARIF log, one run, a rule per finding code that occurs and a result per finding.

    Columns count Unicode code points, as the text report's do (``columnKind``), so a column
    after a CJK sentence or an emoji means the same in both.
    """
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    for report in reports:
        for finding in _ordered(report.findings):
            if finding.code not in index:
                index[finding.code] = len(rules)
                rules.append(_rule(finding.code))
            results.append(_result(finding, report, index[finding.code]))
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "citeledger", "version": version, "rules": rules}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def _rule(code: str) -> dict[str, Any]:
    text = RULES.get(code, code)
    return {
        "id": code,
        "name": "".join(word.capitalize() for word in code.split("-")),
        "shortDescription": {"text": text},
        "fullDescription": {"text": text},
    }


def _result(finding: Finding, report: Report, rule_index: int) -> dict[str, Any]:
    where = place(finding, report.source_name)
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(where.path)}}
    if where.line is not None:
        physical["region"] = {"startLine": where.line, "startColumn": where.col}
    location: dict[str, Any] = {"physicalLocation": physical}
    if where.heading:
        location["message"] = {"text": f"\u00a7 {where.heading}"}
    level = "error" if _fails(finding, report) else "warning" if finding.level == "warn" else "note"
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": level,
        "message": {"text": finding.message},
        "locations": [location],
    }
    if finding.ids:
        result["properties"] = {"ids": list(finding.ids)}
    return result


def _uri(path: str) -> str:
    """A file's path as a SARIF URI reference: relative ones percent-encoded, absolute ones as
    ``file://`` URIs."""
    from urllib.parse import quote

    if os.path.isabs(path):
        return Path(path).as_uri()
    return quote(Path(path).as_posix(), safe="/")
