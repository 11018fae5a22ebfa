"""One cited sentence's verdict: what it was checked against and what was found."""

from __future__ import annotations

from typing import Literal

from ...ledger.light import field, record
from .details import Detail

# ``supported``: no detail missing (and, with a judge, scored at or over the threshold);
# ``unsupported-detail`` / ``unsupported-claim``: the finding it made; ``no-evidence``: the
# cited sources hold nothing to check it against (never "supported").
Outcome = Literal["supported", "missing-detail", "low-score", "no-evidence"]


@record
class ClaimVerdict:
    """A cited sentence (as written, and its claim: the text without markers), where it is,
    the ids it cites, the evidence read per id (quotes, then the page chunk taken), the
    details missing, the judge's score when one ran, and the outcome."""

    sentence: str
    claim: str
    location: str
    ids: list[int]
    evidence: dict[int, list[str]] = field(default_factory=dict)
    chunks: dict[int, list[str]] = field(default_factory=dict)
    missing: list[Detail] = field(default_factory=list)
    score: float | None = None
    outcome: Outcome = "supported"
    pages_missing: list[int] = field(default_factory=list)

    @property
    def needs_look(self) -> bool:
        return self.outcome != "supported"

    def to_dict(self) -> dict[str, object]:
        return {
            "sentence": self.sentence,
            "location": self.location,
            "ids": self.ids,
            "outcome": self.outcome,
            "missing": [{"kind": d.kind, "text": d.shown, "way": d.way} for d in self.missing],
            "score": self.score,
        }
