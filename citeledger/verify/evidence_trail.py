"""``recheck``: every cited quote, re-checked against the text the ledger kept when it was added.

A reviewer can then confirm the chain from sentence to quote to page text without fetching
anything. The findings:

- FAIL ``evidence-file-missing``: the quote names a text (by sha256) that the evidence folder
  does not hold (deleted, never copied along with the ledger, or a name that is no digest);
- FAIL ``evidence-file-altered``: the file under that name no longer hashes to it;
- FAIL ``quote-not-in-evidence``: the text is intact but the quote is not in it (the quote was
  edited in the ledger after it was checked);
- warn ``evidence-not-stored``: the quote names no kept text (quotes from sources.py, or from
  before the evidence trail), so there is nothing to re-check it against.

A file problem is reported once per source and digest, however many quotes share the file.
"""

from __future__ import annotations

from ..ledger import Ledger
from ..ledger.evidence_store import QuoteCheck, evidence_dir, recheck_stored
from .report import Finding


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return "\u201c" + (text if len(text) <= width else text[: width - 1] + "\u2026") + "\u201d"


def describe(check: QuoteCheck, folder: str) -> tuple[str, str, str]:
    """``(level, code, message)`` for a check that is not ok: shared by ``verify --recheck``
    and ``citeledger recheck``."""
    sid = check.source.id
    digest = check.quote.text_sha256 or ""
    stored = check.stored
    if check.status == "not-stored":
        return (
            "warn",
            "evidence-not-stored",
            f"[{sid}] quote {_short(check.quote.text)} has no kept evidence text to re-check "
            "(run `quote` again with the page to keep it)",
        )
    if check.status == "not-found":
        return (
            "FAIL",
            "quote-not-in-evidence",
            f"[{sid}] quote {_short(check.quote.text)} is not in its evidence text sha256 "
            f"{digest} (was the quote edited in the ledger?)",
        )
    if check.status == "altered":
        detail = stored.detail if stored is not None else ""
        return (
            "FAIL",
            "evidence-file-altered",
            f"[{sid}] evidence file sha256 {digest} in {folder} was altered ({detail}); "
            "restore it from a copy of the evidence folder",
        )
    if check.status == "invalid":
        return (
            "FAIL",
            "evidence-file-missing",
            f"[{sid}] quote {_short(check.quote.text)} names evidence {digest[:80]!r}, "
            "which is not a sha256 digest",
        )
    why = f" ({stored.detail})" if stored is not None and stored.detail else ""
    return (
        "FAIL",
        "evidence-file-missing",
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
        level, code, message = describe(check, folder)
        if code.startswith("evidence-file"):
            key = (check.source.id, code, check.quote.text_sha256 or "")
            if key in reported:
                continue
            reported.add(key)
        sid = check.source.id
        out.append(Finding(level, code, message, where.get(sid, str(ledger.path)), (sid,)))
    return out
