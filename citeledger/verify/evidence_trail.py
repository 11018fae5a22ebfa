"""``recheck``: every cited quote, re-checked against the text the ledger kept when it was added.

A reviewer can then confirm the chain from sentence to quote to page text without fetching
anything. The findings, rows of :mod:`.rules`:

- ``EVIDENCE_FILE_MISSING``: the quote names a text (by sha256) that the evidence folder does
  not hold (deleted, never copied along with the ledger, or a name that is no digest);
- ``EVIDENCE_FILE_ALTERED``: the file under that name no longer hashes to it;
- ``QUOTE_NOT_IN_EVIDENCE``: the text is intact but the quote is not in it (the quote was
  edited in the ledger after it was checked);
- ``EVIDENCE_NOT_STORED``: the quote names no kept text (quotes from sources.py, or from
  before the evidence trail), so there is nothing to re-check it against.

A file problem is reported once per source and digest, however many quotes share the file.
"""

from __future__ import annotations

from ..ledger import Ledger
from ..ledger.evidence_store import QuoteCheck, evidence_dir, recheck_stored
from .report import Finding, Level
from .rules import (
    EVIDENCE_FILE_ALTERED,
    EVIDENCE_FILE_MISSING,
    EVIDENCE_NOT_STORED,
    QUOTE_NOT_IN_EVIDENCE,
    Rule,
)

# Problems of a file, not of a quote: said once per source and file.
_FILE_RULES = (EVIDENCE_FILE_MISSING, EVIDENCE_FILE_ALTERED)


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return "\u201c" + (text if len(text) <= width else text[: width - 1] + "\u2026") + "\u201d"


def describe(check: QuoteCheck, folder: str) -> tuple[Level, str, str]:
    """``(level, code, message)`` for a check that is not ok: shared by ``verify --recheck``
    and ``citeledger recheck``."""
    rule, message = _judge(check, folder)
    return rule.level, rule.code, message


def _judge(check: QuoteCheck, folder: str) -> tuple[Rule, str]:
    sid = check.source.id
    digest = check.quote.text_sha256 or ""
    stored = check.stored
    if check.status == "not-stored":
        return (
            EVIDENCE_NOT_STORED,
            f"[{sid}] quote {_short(check.quote.text)} has no kept evidence text to re-check "
            "(run `quote` again with the page to keep it)",
        )
    if check.status == "not-found":
        return (
            QUOTE_NOT_IN_EVIDENCE,
            f"[{sid}] quote {_short(check.quote.text)} is not in its evidence text sha256 "
            f"{digest} (was the quote edited in the ledger?)",
        )
    if check.status == "altered":
        detail = stored.detail if stored is not None else ""
        return (
            EVIDENCE_FILE_ALTERED,
            f"[{sid}] evidence file sha256 {digest} in {folder} was altered ({detail}); "
            "restore it from a copy of the evidence folder",
        )
    if check.status == "invalid":
        return (
            EVIDENCE_FILE_MISSING,
            f"[{sid}] quote {_short(check.quote.text)} names evidence {digest[:80]!r}, "
            "which is not a sha256 digest",
        )
    why = f" ({stored.detail})" if stored is not None and stored.detail else ""
    return (
        EVIDENCE_FILE_MISSING,
        f"[{sid}] evidence file sha256 {digest} is missing from {folder}{why}; restore it "
        "from a copy of the evidence folder, or run `quote` again with the page",
    )


def recheck_findings(ledger: Ledger, cited: list[int], where: dict[int, str]) -> list[Finding]:
    """Findings for the quotes of the cited sources; ``where`` maps an id to its first place."""
    folder = str(evidence_dir(ledger.path))
    out: list[Finding] = []
    reported: set[tuple[int, str, str]] = set()
    known = [i for i in cited if ledger.get(i) is not None]
    for check in recheck_stored(ledger, known):
        if check.ok:
            continue
        rule, message = _judge(check, folder)
        if rule in _FILE_RULES:
            key = (check.source.id, rule.code, check.quote.text_sha256 or "")
            if key in reported:
                continue
            reported.add(key)
        sid = check.source.id
        out.append(rule.finding(message, where.get(sid, str(ledger.path)), (sid,)))
    return out
