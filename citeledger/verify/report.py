"""What a verification run hands back: findings and stats.

The text form keeps the grounded-citations ``sources.py verify`` lines (``info: stats: ...``,
``warn: ...``, ``FAIL: ...``, then ``citations OK`` or ``verification failed``) so agents and
scripts written for the seed keep working; each finding now also says where it is. Past
:data:`SHOWN_PER_RULE` warnings (or infos) of one rule, the text form prints the first ones and
then one line with the count and the ids and lines it folds: a long report's 270 style warnings
would bury the few findings that matter. Every FAIL is printed. ``info`` findings (a search result
registered and never cited) are counted in the stats line and listed only with ``-v``. Each
finding ends with its fix (`` — fix: ...``), the edit or command that clears it, in the
text form and as the JSON's ``fix``. The JSON form carries every finding
for CI tools (:mod:`.ci_formats` writes them as GitHub Actions commands and SARIF).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..ledger.light import field, pattern, record

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from ..document.note_citations import NoteCitations
    from .support.verdict import ClaimVerdict

    # How bad a finding is, as the text report prints it (the seed's spelling).
    Level = Literal["info", "warn", "FAIL"]
else:
    Level = str  # a name to import at run time; its values are the checkers' Literal
LEVELS: tuple[Level, ...] = ("info", "warn", "FAIL")
# Findings of one rule the text report prints in full before it counts the rest.
SHOWN_PER_RULE = 3
# Findings the count line names (ids and line), after the findings shown.
_MORE_LOCATIONS = 12
# What joins a finding's message and its fix on the finding's one line.
FIX_MARK = "\u2014 fix: "


@record
class Finding:
    level: Level
    code: str
    message: str
    location: str
    ids: tuple[int, ...] = ()
    fix: str = ""

    def line(self) -> str:
        fix = f" {FIX_MARK}{self.fix}" if self.fix else ""
        return one_line(f"{self.level}: {self.location}: {self.message}{fix}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "code": self.code,
            "message": self.message,
            "location": self.location,
            "ids": list(self.ids),
            "fix": self.fix,
        }


@record
class Report:
    findings: list[Finding]
    stats: dict[str, Any]
    cited_ids: list[int]
    strict: bool = False
    source_name: str = "-"
    # The support check's verdict on each cited sentence (empty when it did not run).
    claims: list[ClaimVerdict] = field(default_factory=list)
    # The footnotes read as citations: a build places them without walking the tree again.
    notes: NoteCitations | None = None

    @property
    def failed(self) -> bool:
        """Any FAIL, or any warning under ``--strict``."""
        return any(f.level == "FAIL" or (self.strict and f.level == "warn") for f in self.findings)

    def by_code(self, code: str) -> list[Finding]:
        return [f for f in self.findings if f.code == code]

    def lines(
        self, *, named: bool = False, limit: int | None = SHOWN_PER_RULE, verbose: bool = False
    ) -> list[str]:
        """The text report; ``named``: the stats line says which file it counts (a run over
        several files). ``limit``: warnings and infos of one rule printed in full before one
        line counts the rest (None: all of them). ``verbose``: the info findings too."""
        where = f"{one_line(self.source_name)}: " if named else ""
        out = [f"info: {where}stats: {stats_line(self.stats)}"]
        kinds = evidence_line(self.stats.get("evidence"))
        if kinds:
            out.append(kinds)
        for level in LEVELS if verbose else LEVELS[1:]:
            found = [f for f in self.findings if f.level == level]
            out.extend(grouped_lines(found, None if level == "FAIL" else limit))
        out.append("verification failed" if self.failed else "citations OK")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source_name,
            "ok": not self.failed,
            "strict": self.strict,
            "stats": self.stats,
            "cited_ids": self.cited_ids,
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)


def grouped_lines(findings: list[Finding], limit: int | None) -> list[str]:
    """``findings`` (of one level) as lines, in order, the first ``limit`` of each rule in
    full; then, per rule with more, one line: how many more, where the next ones are, and how
    to see them all."""
    if limit is None:
        return [f.line() for f in findings]
    out: list[str] = []
    rest: dict[str, list[Finding]] = {}
    seen: dict[str, int] = {}
    for f in findings:
        seen[f.code] = seen.get(f.code, 0) + 1
        if seen[f.code] <= limit:
            out.append(f.line())
        else:
            rest.setdefault(f.code, []).append(f)
    for code, more in rest.items():
        out.append(
            f"{more[0].level}: {len(more)} more {code}{folded(more)}; "
            "`--format json` lists every finding"
        )
    return out


# ``FILE:LINE:COL`` or ``FILE:LINE``, as a finding's location gives a place in a file.
_PLACE = pattern(r"(.*?):([0-9]+(?::[0-9]+)?)")


def folded(findings: list[Finding]) -> str:
    """What a count line names of the findings it folds: each one's ids and line, under its
    file (`` in d.md: [1] at 7:27, [4] at 9:1``; `` in d.md: [5], [6]`` for findings of the
    whole file), the first :data:`_MORE_LOCATIONS` of them."""
    files: dict[str, list[str]] = {}
    for f in findings[:_MORE_LOCATIONS]:
        place = _PLACE.fullmatch(f.location)
        where, at = (place.group(1), place.group(2)) if place else (f.location, "")
        ids = "".join(f"[{i}]" for i in f.ids)
        item = f"{ids} at {at}" if ids and at else ids or at
        files.setdefault(one_line(where), []).append(item)
    parts = []
    for where, items in files.items():
        named = ", ".join(i for i in items if i)
        parts.append(f"{where}: {named}" if named else where)
    rest = len(findings) - _MORE_LOCATIONS
    tail = f", and {rest} more" if rest > 0 else ""
    if len(parts) == 1:
        return f" in {parts[0]}{tail}"
    return f": {'; '.join(parts)}{tail}"


# C0 and C1 controls (newline, ESC, NEL...) and Unicode's line and paragraph separators.
_BREAKS = pattern("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` on one line whatever a file name in it holds: each control character (a
    newline, a carriage return, ESC...) and each line or paragraph separator written as an
    escape (``\\n``, ``\\x1b``), as Python's repr writes it. A draft named
    ``"a\\n::error::x.md"`` would otherwise start a line of the report with ``::``, which
    GitHub Actions runs as a workflow command."""
    if not _BREAKS.search(text):
        return text
    return _BREAKS.sub(lambda m: repr(m.group())[1:-1], text)


def stats_line(s: dict[str, Any]) -> str:
    """The seed's stats sentence, with the tool and policy counts its later version reports."""
    return (
        f"{s['sentences']} prose sentence(s), {s['covered']} with declared provenance "
        f"({s['coverage']:.0%}) \u2014 {s['cited_sentences']} cited, "
        f"{s['unverified_sentences']} marked [unverified], {s['tool_sentences']} [tool:...], "
        f"{s['policy_sentences']} [policy] (a sentence may be several); "
        f"{s['distinct_cited']} distinct source(s) cited, "
        f"{s['ledger_sources']} in ledger ({s['sources_with_quotes']} with evidence quotes)"
        + _uncited(s.get("uncited_unquoted", 0))
        + _claims(s)
    )


def _claims(s: dict[str, Any]) -> str:
    """What the support check found, when it ran."""
    if "claims_checked" not in s:
        return ""
    return (
        f"; {s['claims_checked']} cited sentence(s) checked against their evidence, "
        f"{s['claims_to_look_at']} to look at"
    )


def evidence_line(kinds: dict[str, list[int]] | None) -> str:
    """Under ``--evidence``, the line after the stats line: which kind of evidence each cited
    source carries (a quote matched against a saved page, only a provider's quote, none).
    Printed when a provider's quotes are in play: a ledger without them gets sources.py's lines
    exactly (the JSON report's stats carry the kinds always)."""
    if not kinds or not kinds.get("provider"):
        return ""
    names = {
        "page-checked": "page-checked quotes",
        "provider": "provider quotes only (not page-checked)",
        "none": "no quote",
    }
    parts = [f"{names[k]} {id_list(ids)}" for k, ids in kinds.items() if ids]
    return "info: evidence: " + "; ".join(parts) if parts else ""


def _uncited(count: int) -> str:
    """The search results registered and never cited, which are no finding a reader sees."""
    if not count:
        return ""
    return f"; {count} registered without evidence and not cited (`-v` lists them)"


def id_list(ids: Iterable[int]) -> str:
    """Ids as a finding names them: ``[3], [7]``."""
    shown = "], [".join(map(str, ids))
    return f"[{shown}]" if shown else ""


def snippet(text: str, width: int = 60) -> str:
    """A sentence or quote on one line, clipped to ``width``, in quotation marks."""
    text = " ".join(text.split())
    if len(text) > width:
        text = text[: width - 1] + "\u2026"
    return f"\u201c{text}\u201d"
