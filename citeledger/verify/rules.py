"""The verifier's findings, one row each: the only place a finding's code is spelled.

The checks emit a finding through its row (a constant here), so a mistyped code is a
``NameError`` or a mypy error, never a silent new code; SARIF names its rules from the rows, the
verifier's manual points here, and the README's table of findings is :func:`readme_table`
(a test holds the two equal). Rows are in the order the verifier reports them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .report import Finding, Level


@dataclass(frozen=True)
class Rule:
    """One kind of finding: its code, how bad it is, what it checks in one line, and ``when``
    the check runs if not on every run (the flag or the input that asks for it)."""

    code: str
    level: Level
    summary: str
    when: str = ""

    @property
    def name(self) -> str:
        return rule_name(self.code)

    @property
    def anchor(self) -> str:
        """The README anchor of the rule's row, for a link to its help."""
        return f"finding-{self.code}"

    def finding(self, message: str, location: str, ids: tuple[int, ...] = ()) -> Finding:
        return Finding(self.level, self.code, message, location, ids)


def rule_name(code: str) -> str:
    """A code in CamelCase, as SARIF names a rule (``unknown-id`` is ``UnknownId``)."""
    return "".join(word.capitalize() for word in code.split("-"))


RULES: dict[str, Rule] = {}


def _rule(code: str, level: Level, summary: str, when: str = "") -> Rule:
    if code in RULES:
        raise ValueError(f"finding code {code} declared twice")
    RULES[code] = Rule(code, level, summary, when)
    return RULES[code]


# The ids cited, the Sources block, links, coverage, evidence.
UNKNOWN_ID = _rule(
    "unknown-id", "FAIL", "A cited id is not in the ledger (hallucinated or renumbered)."
)
NOT_A_URL = _rule(
    "not-a-url", "FAIL", "A cited ledger entry is no URL a reader can open (a sources.py entry)."
)
MISSING_SOURCES_BLOCK = _rule(
    "missing-sources-block",
    "FAIL",
    "The draft cites sources but has no Sources block.",
    "unless a build writes the list",
)
SECOND_SOURCES_BLOCK = _rule(
    "second-sources-block",
    "FAIL",
    "The draft holds more than one Sources block (their entries read as citations).",
)
MISSING_FROM_SOURCES_BLOCK = _rule(
    "missing-from-sources-block", "FAIL", "A cited id is absent from the draft's Sources block."
)
SOURCES_ENTRY_NOT_IN_LEDGER = _rule(
    "sources-entry-not-in-ledger",
    "FAIL",
    "The Sources block lists an id that is not in the ledger.",
)
SOURCES_URL_MISMATCH = _rule(
    "sources-url-mismatch", "FAIL", "A Sources block entry's URL differs from the ledger's."
)
LINK_URL_MISMATCH = _rule(
    "link-url-mismatch",
    "FAIL",
    "A marker written as a link points at another URL than the ledger's.",
)
LOW_COVERAGE = _rule(
    "low-coverage",
    "FAIL",
    "Fewer sentences declare their provenance than the required share.",
    "--min-coverage",
)
MISSING_EVIDENCE = _rule(
    "missing-evidence", "FAIL", "A cited source carries no verbatim evidence quote.", "--evidence"
)
# The evidence trail (``recheck``).
EVIDENCE_FILE_MISSING = _rule(
    "evidence-file-missing",
    "FAIL",
    "The evidence text a quote was checked against is missing.",
    "--recheck",
)
EVIDENCE_FILE_ALTERED = _rule(
    "evidence-file-altered",
    "FAIL",
    "The evidence text a quote was checked against has changed.",
    "--recheck",
)
QUOTE_NOT_IN_EVIDENCE = _rule(
    "quote-not-in-evidence", "FAIL", "A quote is not in the evidence text kept for it.", "--recheck"
)
EVIDENCE_NOT_STORED = _rule(
    "evidence-not-stored",
    "warn",
    "A quote has no evidence text kept beside the ledger.",
    "--recheck",
)
# The seed's warnings, then the convention's style.
LISTED_NOT_CITED = _rule(
    "listed-not-cited", "warn", "The Sources block lists a source the text never cites."
)
UNCITED_LEDGER_SOURCE = _rule(
    "uncited-ledger-source", "warn", "A ledger source is not cited in this draft."
)
TOO_MANY_IDS = _rule(
    "too-many-ids", "warn", "A sentence carries more citations than the convention allows."
)
REPEATED_ID = _rule("repeated-id", "warn", "A sentence cites the same id twice.")
SPACE_BEFORE_MARKER = _rule(
    "space-before-marker", "warn", "A space stands between the text and its marker."
)
GROUP_MARKER = _rule("group-marker", "warn", "Several ids share one bracket; give each its own.")
MARKER_BEFORE_PUNCTUATION = _rule(
    "marker-before-punctuation",
    "warn",
    "A marker stands before the sentence's closing punctuation.",
)
UNSUPPORTED_FIGURE = _rule(
    "unsupported-figure",
    "warn",
    "A number in a cited sentence appears in none of its sources' quotes.",
    "--figures",
)
FOOTNOTE_URL_NOT_IN_LEDGER = _rule(
    "footnote-url-not-in-ledger",
    "warn",
    "A footnote links to a URL that is not in the ledger.",
    "docx, odt and org files",
)

UNREADABLE_SLIDE = _rule(
    "unreadable-slide",
    "FAIL",
    "A slide holds text pandoc cannot read back (an equation's box): its citations go unchecked.",
    "pptx files",
)


def readme_table() -> str:
    """The README's table of findings, row for row; each row carries the rule's anchor."""
    rows = ["| finding | level | what it means | checked |", "|---|---|---|---|"]
    for rule in RULES.values():
        when = f"`{rule.when}`" if rule.when.startswith("--") else rule.when or "always"
        anchored = f'<a id="{rule.anchor}"></a>`{rule.code}`'
        rows.append(f"| {anchored} | {rule.level} | {rule.summary} | {when} |")
    return "\n".join(rows)
