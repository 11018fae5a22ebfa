"""The support check over a draft: each sentence that cites a ledger source, its evidence,
its missing details, the judge's score, its verdict and its finding.

Findings (rows of :mod:`citeledger.verify.rules`, each with its fix), at the sentence's first
marker: ``unsupported-detail`` when a figure, date, name or negation of the sentence is in
none of its evidence; ``unsupported-claim`` when its sources hold no evidence at all (empty
evidence is never support) or when the judge scores it under the threshold.

The judge reads, per sentence, the quotes of the sources it cites (joined in the order cited,
cut into chunks at sentence ends where they outrun the model's window) and, with pages, the
best few chunks of each page; the sentence's score is the best chunk's. Every pair of the draft
goes to the judge in one run (batched, with progress).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...document.sentences import Sentence
from ...ledger.light import field, record
from ..report import Finding, id_list, snippet
from ..rules import UNSUPPORTED_CLAIM, UNSUPPORTED_DETAIL
from .details import ClaimEvidence, missing_details
from .evidence import JUDGED_CHUNKS, EvidenceShelf, chunks
from .judge import Judge, Progress
from .verdict import ClaimVerdict

DEFAULT_THRESHOLD = 0.5


@record
class SupportCheck:
    """One run of the check: the evidence shelf, the judge (or None) and its threshold."""

    shelf: EvidenceShelf
    judge: Judge | None = None
    threshold: float = DEFAULT_THRESHOLD
    progress: Progress | None = None
    verdicts: list[ClaimVerdict] = field(default_factory=list)

    def run(self, sentences: Sequence[tuple[Sentence, str]]) -> list[ClaimVerdict]:
        """Verdicts for ``sentences`` (each with its location) that cite a ledger source."""
        ledger = self.shelf.ledger
        pairs: list[tuple[str, str]] = []
        owners: list[int] = []
        for s, location in sentences:
            ids = [i for i in s.ids if ledger.get(i) is not None]
            if not ids:
                continue
            claim = s.plain
            verdict = ClaimVerdict(s.text, claim, location, ids)
            texts: list[str] = []
            own: list[str] = []
            for i in ids:
                source = self.shelf.of(i)
                verdict.evidence[i] = list(source.quotes)
                texts.extend(source.quotes)
                own.extend(source.names)
                if self.shelf.pages:
                    best = source.best_chunks(claim)
                    if best:
                        verdict.chunks[i] = best
                        texts.extend(best)
                    if source.pages_missing:
                        verdict.pages_missing.append(i)
            if not texts:
                verdict.outcome = "no-evidence"
            else:
                verdict.missing = missing_details(claim, ClaimEvidence(tuple(texts), tuple(own)))
                if verdict.missing:
                    verdict.outcome = "missing-detail"
                if self.judge is not None:
                    for text in self._judged(claim, ids):
                        pairs.append((claim, text))
                        owners.append(len(self.verdicts))
            self.verdicts.append(verdict)
        if self.judge is not None and pairs:
            for owner, score in zip(owners, self.judge.scores(pairs, self.progress), strict=True):
                verdict = self.verdicts[owner]
                verdict.score = score if verdict.score is None else max(verdict.score, score)
            for verdict in self.verdicts:
                low = verdict.score is not None and verdict.score < self.threshold
                if low and verdict.outcome == "supported":
                    verdict.outcome = "low-score"
        return self.verdicts

    def _judged(self, claim: str, ids: list[int]) -> list[str]:
        """The texts the judge scores the claim against: the quotes, cut to its window, and
        the best page chunks."""
        assert self.judge is not None
        judge = self.judge
        quotes = " ".join(q for i in ids for q in self.shelf.of(i).quotes)
        out = chunks(quotes, lambda text: judge.fits(claim, text)) if quotes else []
        if self.shelf.pages:
            for i in ids:
                out.extend(self.shelf.of(i).best_chunks(claim, JUDGED_CHUNKS))
        return out

    def findings(self, fix_for: Callable[[str], str] = lambda fix: fix) -> list[Finding]:
        """One finding per verdict that needs a look (``fix_for`` fills in the draft's name)."""
        out: list[Finding] = []
        for v in self.verdicts:
            shown = snippet(v.sentence)
            first = v.ids[0]
            if v.outcome == "no-evidence":
                out.append(
                    UNSUPPORTED_CLAIM.finding(
                        f"{id_list(v.ids)} hold(s) no evidence to check the sentence against: "
                        f"{shown}",
                        v.location,
                        tuple(v.ids),
                        f'`citeledger quote {first} --text "…" --from PAGE` with the words of '
                        "the page that state the claim",
                    )
                )
                continue
            if v.missing:
                out.append(self._detail_finding(v, shown, fix_for))
            if v.score is not None and v.score < self.threshold:
                out.append(
                    UNSUPPORTED_CLAIM.finding(
                        f"the judge scores the support of {id_list(v.ids)} at {v.score:.2f} "
                        f"(under {self.threshold:.2f}): {shown}",
                        v.location,
                        tuple(v.ids),
                        fix_for(UNSUPPORTED_CLAIM.fix),
                    )
                )
        return out

    def _detail_finding(
        self, v: ClaimVerdict, shown: str, fix_for: Callable[[str], str]
    ) -> Finding:
        plain = [d for d in v.missing if d.kind != "negation"]
        parts = []
        if plain:
            parts.append(
                f"{', '.join(d.described() for d in plain)} not in the evidence of {id_list(v.ids)}"
            )
        parts += [d.described() for d in v.missing if d.kind == "negation"]
        first = v.ids[0]
        named = plain[0].shown if plain else v.missing[0].shown
        fix = (
            f"correct \u201c{named}\u201d to what the evidence of {id_list(v.ids)} says, or "
            f'`citeledger quote {first} --text "…" --from PAGE` the passage that states it'
        )
        return UNSUPPORTED_DETAIL.finding(
            f"{'; '.join(parts)}: {shown}", v.location, tuple(v.ids), fix_for(fix)
        )
