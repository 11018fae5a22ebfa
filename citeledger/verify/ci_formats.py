"""Findings as CI tools read them: GitHub Actions workflow commands and SARIF 2.1.0.

``citeledger verify --format github`` prints one workflow command per finding
(``::error file=draft.md,line=4,col=80,title=citeledger unknown-id::...``): GitHub shows it on
the line of the diff it names. ``--format sarif`` writes one SARIF log for code-scanning
dashboards. Both read a finding's location as the verifier wrote it: ``FILE:LINE:COL`` in
markdown, ``FILE § Heading`` in other formats (the heading then goes with the message, since
neither form has a place for it), or another file (the ledger, for evidence-trail findings).

Each finding's fix goes with it: after the message of a workflow command, as the ``fix``
property of a SARIF result (SARIF's own ``fixes`` are edits of bytes, which a fix such as
``citeledger render --replace-in`` is not), and as the help of its SARIF rule.

A warning that fails the run (``--strict``) is an error in both forms, so what the dashboard
calls an error is exactly what failed the gate.

In SARIF each rule links its row of the manual's table of findings (``helpUri``), and each
result carries a fingerprint of what it is about, not of where it is (``partialFingerprints``):
code scanning then keeps one alert for a finding whose paragraph moved.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..ledger.light import pattern, record
from .report import FIX_MARK, LEVELS, Finding, Report
from .rules import RULES, rule_name

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
# The project's README as users read it (the package's Documentation URL).
README_URL = "https://github.com/citeledger/citeledger/blob/main/README.md"
# The manual's table of findings (docs/reference/rules.md, written by docs/gen.py); each rule's
# help is its row there.
RULES_URL = "https://github.com/citeledger/citeledger/blob/main/docs/reference/rules.md"
# A key of our own: GitHub recomputes its ``primaryLocationLineHash`` from the file's lines.
FINGERPRINT_KEY = "citeledgerFinding/v1"
_POSITION = pattern(r":(\d+):(\d+)\Z")


@record(frozen=True)
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
            if finding.fix:
                message += f" {FIX_MARK}{finding.fix}"
            out.append(f"::{command} {','.join(props)}::{_escape_data(message)}")
    return out


def _ordered(findings: Sequence[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: LEVELS.index(f.level))


# SARIF 2.1.0 ------------------------------------------------------------------------------


def sarif_log(reports: Sequence[Report], version: str) -> dict[str, Any]:
    """One SARIF log, one run, a rule per finding code that occurs and a result per finding.

    Columns count Unicode code points, as the text report's do (``columnKind``), so a column
    after a CJK sentence or an emoji means the same in both.
    """
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for report in reports:
        for finding in _ordered(report.findings):
            if finding.code not in index:
                index[finding.code] = len(rules)
                rules.append(_rule(finding.code))
            result = _result(finding, report, index[finding.code])
            key = _fingerprint(finding, place(finding, report.source_name))
            seen[key] = seen.get(key, 0) + 1
            result["partialFingerprints"] = {FINGERPRINT_KEY: f"{key}:{seen[key]}"}
            results.append(result)
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
    """The SARIF rule of a finding code, from its row of :mod:`.rules`. A Finding made by hand
    with a code no row holds still gets a rule, described by the code alone."""
    row = RULES.get(code)
    text = row.summary if row else code
    rule: dict[str, Any] = {
        "id": code,
        "name": row.name if row else rule_name(code),
        "shortDescription": {"text": text},
        "fullDescription": {"text": text},
    }
    if row:
        rule["helpUri"] = f"{RULES_URL}#{row.anchor}"
        rule["help"] = {"text": row.fix.replace("{ids}", "[n]")}
    return rule


def _fingerprint(finding: Finding, where: Place) -> str:
    """What a finding is about: its rule, its file and the ids of its marker or Sources entry
    (with the heading where a format has no lines). Not the line, which an edit above moves,
    nor the message, which may carry a ratio that any edit changes. The caller numbers findings
    that share it, as code scanning's own fingerprints do."""
    parts = [finding.code, where.path, ",".join(map(str, finding.ids)), where.heading]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:32]


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
    properties: dict[str, Any] = {}
    if finding.ids:
        properties["ids"] = list(finding.ids)
    if finding.fix:
        properties["fix"] = finding.fix
    if properties:
        result["properties"] = properties
    return result


def _uri(path: str) -> str:
    """A file's path as a SARIF URI reference: relative ones percent-encoded, absolute ones as
    ``file://`` URIs."""
    from urllib.parse import quote

    if os.path.isabs(path):
        return Path(path).as_uri()
    return quote(Path(path).as_posix(), safe="/")
