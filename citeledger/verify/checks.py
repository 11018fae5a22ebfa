"""The checks. Failures first, in the grounded-citations order, then its warnings, then the
style rules of the convention and the optional figures check.

A finding names one id where it has one place (the first citation of an id, the line of a
Sources entry) so an editor or CI annotation can jump to it; findings without a place in the
draft (ledger sources nobody cites) keep the seed's grouped form. Each finding is made by its
row of :mod:`.rules`, which holds its code, level and fix; the agent's mistakes that pass every
other check are found by :mod:`.agent_mistakes`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..document.grammar import Marker
from ..document.locate import heading_location, hit_location
from ..document.markers import Scan
from ..document.note_citations import NoteCitations
from ..document.sentences import BIBLIOGRAPHY, Sentence
from ..document.sources_block import DraftEntry
from ..ledger import Ledger
from ..ledger.light import field, record
from ..ledger.urls import is_legacy, same_url
from ..options import Options
from ..tree import Blocks
from .agent_mistakes import AgentChecks
from .marker_style import style_issues
from .report import Finding, id_list, snippet
from .rules import (
    FOOTNOTE_URL_NOT_IN_LEDGER,
    FOREIGN_CITATIONS,
    LEDGER_NOT_FOUND,
    LINK_URL_MISMATCH,
    LISTED_NOT_CITED,
    LOW_COVERAGE,
    MISSING_EVIDENCE,
    MISSING_FROM_SOURCES_BLOCK,
    MISSING_SOURCES_BLOCK,
    NOT_A_URL,
    QUOTED_SOURCE_NOT_CITED,
    RAW_CODE_UNTRUSTED,
    REPEATED_ID,
    SECOND_SOURCES_BLOCK,
    SOURCES_ENTRY_NOT_IN_LEDGER,
    SOURCES_URL_MISMATCH,
    TOO_MANY_IDS,
    UNCITED_LEDGER_SOURCE,
    UNKNOWN_ID,
    UNREADABLE_SLIDE,
    Rule,
)

# Read by type checkers only: the support check loads when a run asks for it (``--support``,
# ``--figures``), and ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from .report import Report
    from .support.judge import Judge, Progress
    from .support.verdict import ClaimVerdict

MAX_IDS_PER_SENTENCE = 3


def unreadable_slide_findings(slides: Iterable[tuple[int, str]], name: str) -> list[Finding]:
    """A finding for each (number, title) of a deck's slides whose text pandoc's reader drops
    (:func:`citeledger.document.deck_reading.unreadable_slides`): what verify could not see is
    said, never passed over."""
    return [
        UNREADABLE_SLIDE.finding(
            "text pandoc cannot read back (an equation's box), so its citations are unchecked",
            f"{name} § slide {number}{f' ({title})' if title else ''}",
        )
        for number, title in slides
    ]


def no_ledger(report: Report, path: Path, name: str) -> None:
    """In place: a draft citing ids against a ledger that does not exist (a typed path,
    another working folder) is one finding naming the path, in place of a finding per id and
    per Sources entry (whose fixes would call the ids made up, or rewrite the Sources block
    from no ledger)."""
    unknown = {UNKNOWN_ID.code, SOURCES_ENTRY_NOT_IN_LEDGER.code}
    report.findings[:] = [f for f in report.findings if f.code not in unknown]
    ids = tuple(report.cited_ids)
    message = f"no ledger at {path}: none of the {len(ids)} id(s) the draft cites can be checked"
    report.findings.insert(0, LEDGER_NOT_FOUND.finding(message, name, ids))


@record
class Checker(AgentChecks):
    """One verification run over one document: what the caller read from it (markers,
    sentences, Sources entries, footnote citations, marker positions) in, findings out.

    Each check is a method that appends its findings; :meth:`run` calls them in the order the
    findings are reported, which the golden reports pin.
    """

    ledger: Ledger
    options: Options
    require_sources_block: bool
    found: Scan
    sentences: list[Sentence]
    entries: list[DraftEntry]
    notes: NoteCitations
    name: str
    positions: list[list[str | None]] | None
    entry_positions: dict[int, str] = field(default_factory=dict)
    blocks: Blocks = field(default_factory=list)
    text: str | None = None
    titles: Sequence[str] = ()
    edited_links: set[int] = field(default_factory=set)
    # The first line of each citation list in the draft's text (markdown), when read.
    list_lines: list[int] = field(default_factory=list)
    # The support check's judge (None: the model-free check alone), its progress, verdicts.
    judge: Judge | None = None
    progress: Progress | None = None
    claims: list[ClaimVerdict] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # One page of a set sharing the ledger (a Quarto website's or book's): a ledger source this
    # page does not cite is the set's question, asked once for all pages (:mod:`.pages`).
    page_of_set: bool = False
    # Whether the blocks may hold a raw element (false: the caller knows they hold none).
    raws: bool = True

    def raw_code(self) -> None:
        """An untrusted draft's raw code, which every build refuses (``options/trust.py``):
        verify runs none of it and keeps reading, and says so as a finding, so the gate fails
        where the build would."""
        if self.options.effective().trust_draft or not self.raws:
            return
        from ..errors import BadInput
        from ..options.trust import check_raw

        try:
            check_raw(
                {"pandoc-api-version": [], "blocks": self.blocks, "meta": {}}, self.name, self.text
            )
        except BadInput as exc:
            where, _, what = exc.message.partition(": raw ")
            self.findings.append(RAW_CODE_UNTRUSTED.finding(f"raw {what}", where))

    # -- places ------------------------------------------------------------------------------

    def marker_location(self, hit_index: int, ordinal: int) -> str:
        hit = self.found.hits[hit_index]
        pos = None
        if self.positions is not None:
            row = self.positions[hit_index]
            pos = row[ordinal] if ordinal < len(row) else None
        return hit_location(self.name, hit, pos)

    def sentence_location(self, s: Sentence) -> str:
        for ref in s.refs:
            if ref.hit is not None:
                return self.marker_location(ref.hit, ref.ordinal)
        return heading_location(self.name, s.heading)

    def entry_location(self, entry: DraftEntry) -> str:
        pos = self.entry_positions.get(entry.id)
        if pos:
            return f"{self.name}:{pos}"
        title = self.found.sources.title if self.found.sources else "Sources"
        return heading_location(self.name, title)

    def note_location(self, source_id: int) -> str:
        if source_id in self.notes.places:
            return f"{self.name}:{self.notes.places[source_id]}"
        for s in self.sentences:
            if source_id in s.ids:
                return heading_location(self.name, s.heading)
        return self.name

    def add(
        self, rule: Rule, message: str, location: str, ids: Iterable[int] = (), fix: str = ""
    ) -> None:
        if not fix:
            fix = rule.fix.replace("DRAFT", self.draft)
        self.findings.append(rule.finding(message, location, tuple(ids), fix))

    # -- the run -------------------------------------------------------------------------------

    def run(self) -> tuple[list[int], dict[str, Any]]:
        """All checks, in report order; the ids cited (first citation first) and the stats."""
        first = self.marker_places()
        marker_cited = list(first)
        # A footnote holding a ledger URL cites it too (Word files read back), placed after
        # the markers: the markers' places are more precise.
        for i in self.notes.order:
            first.setdefault(i, self.note_location(i))
        cited = list(first)
        listed = {entry.id: entry for entry in self.entries}
        self.cited_in_ledger(first)
        self.one_block()
        self.sources_block(listed, cited, marker_cited, first)
        self.linked(listed)
        stats = self.coverage()
        if self.options.evidence:
            stats["evidence"] = self.evidence(first)
        if self.options.recheck:
            from .evidence_trail import recheck_findings  # only a run that asks for it

            self.findings.extend(recheck_findings(self.ledger, cited, first))
        self.unused(listed, set(cited))
        self.all_unverified(stats)
        self.piled()
        if self.text is not None and cited:
            self.typed_urls()
        self.expiring(first)
        self.crowded_sentences()
        self.style()
        if self.options.support or self.options.figures:
            self.support()
        if cited:
            self.unknown_footnotes()
        else:
            from .foreign import foreign_anchors, foreign_findings, foreign_notes

            # A draft citing nothing: does it cite in a form that names no ledger id?
            fix = FOREIGN_CITATIONS.fix.replace("DRAFT", self.draft)
            if self.text is not None:
                foreign = foreign_findings(self.text, self.name, fix)
            else:
                foreign = foreign_notes(self.blocks, self.name, fix)
            self.findings.extend(foreign or foreign_anchors(self.blocks, self.name, fix))
        self.raw_code()
        stats.update(self.counts(cited))
        if self.options.support or self.options.figures:
            stats["claims_checked"] = len(self.claims)
            stats["claims_to_look_at"] = sum(1 for c in self.claims if c.needs_look)
        stats["uncited_unquoted"] = sum(len(f.ids) for f in self.findings if f.level == "info")
        return cited, stats

    def marker_places(self) -> dict[int, str]:
        """Each id cited by a marker, mapped to its first citation: the one place a finding
        about the id points at, so an editor or a CI annotation can jump to it."""
        first: dict[int, str] = {}
        for k, hit in enumerate(self.found.hits):
            ordinal = 0
            for piece in hit.pieces:
                if isinstance(piece, Marker):
                    for i in piece.ids:
                        if i not in first:
                            first[i] = self.marker_location(k, ordinal)
                    ordinal += 1
        return first

    def cited_in_ledger(self, first: dict[int, str]) -> None:
        """Every cited id must be a ledger source a reader can open: an id the ledger lacks
        was made up or renumbered, and a sources.py entry without a scheme is no link."""
        for i, where in first.items():
            source = self.ledger.get(i)
            if source is None:
                self.add(
                    UNKNOWN_ID,
                    f"citations not in the ledger (hallucinated or renumbered): [{i}]",
                    where,
                    (i,),
                )
            elif is_legacy(source.url):
                self.add(
                    NOT_A_URL,
                    f"[{i}] is {source.url}, which is not a URL a reader can open (a sources.py "
                    "entry)",
                    where,
                    (i,),
                    f"`citeledger add https://{source.url}` and cite the id it prints in place "
                    f"of [{i}]",
                )

    def one_block(self) -> None:
        """A document holds one Sources block: the last is the list a build replaces; the
        entries of any other read as citations, and a reader meets two lists."""
        lists = [*self.found.others, self.found.listing] if self.found.listing else []
        if len(lists) < 2:
            return
        if len(self.list_lines) == len(lists):
            places = [f"{self.name}:{line}" for line in self.list_lines]
        else:
            places = [heading_location(self.name, block.title) for block in lists]
        for place, block in zip(places[:-1], lists[:-1], strict=True):
            self.add(
                SECOND_SOURCES_BLOCK,
                f"a second Sources block: {block.title!r} at {place}, and {lists[-1].title!r} "
                f"at {places[-1]}",
                place,
            )

    def sources_block(
        self,
        listed: dict[int, DraftEntry],
        cited: list[int],
        marker_cited: list[int],
        first: dict[int, str],
    ) -> None:
        """The Sources block is the reader's way from a marker to its page: it must exist
        (unless the build renders it), list every id a marker cites, and give each id the
        ledger's own URL. Footnote citations are their own list."""
        has_list = bool(listed) or bool(self.notes.ids)
        if cited and not has_list and self.require_sources_block:
            self.add(
                MISSING_SOURCES_BLOCK,
                "draft cites sources but has no `Sources:` block",
                self.name,
                sorted(cited),
            )
        if listed:
            in_list = set(listed) | set(self.notes.order)
            for i in marker_cited:
                if i not in in_list:
                    self.add(
                        MISSING_FROM_SOURCES_BLOCK,
                        f"cited but absent from the Sources block: [{i}]",
                        first[i],
                        (i,),
                    )
        for sid in sorted(listed):
            entry = listed[sid]
            source = self.ledger.get(sid)
            if source is None:
                self.add(
                    SOURCES_ENTRY_NOT_IN_LEDGER,
                    f"Sources block lists [{sid}], which is not in the ledger",
                    self.entry_location(entry),
                    (sid,),
                )
            elif not same_url(entry.url, source.url) and not self.search_number(
                sid, entry.url, self.entry_location(entry)
            ):
                self.add(
                    SOURCES_URL_MISMATCH,
                    f"Sources block URL for [{sid}] does not match the ledger "
                    f"(block: {entry.url} / ledger: {source.url})",
                    self.entry_location(entry),
                    (sid,),
                )

    def linked(self, listed: dict[int, DraftEntry]) -> None:
        """A marker written as a link (``[7]`` with a ``[7]: url`` definition, ``[7](url)``)
        promises that URL for the source: it must be the ledger's. Once per id and URL; a
        link whose URL is the Sources entry's own is the entry's finding, not a second one."""
        reported: set[tuple[int, str]] = set()
        for k, hit in enumerate(self.found.hits):
            if hit.url is None:
                continue
            for marker in hit.markers:
                for i in marker.ids:
                    source = self.ledger.get(i)
                    if source is None or same_url(hit.url, source.url):
                        continue
                    entry = listed.get(i)
                    if (i, hit.url) in reported or (entry and entry.url == hit.url):
                        continue
                    reported.add((i, hit.url))
                    if k not in self.edited_links and self.search_number(
                        i, hit.url, self.marker_location(k, 0)
                    ):
                        continue
                    self.add(
                        LINK_URL_MISMATCH,
                        f"[{i}] links to {hit.url}, not to the ledger's URL for [{i}] "
                        f"({source.url})",
                        self.marker_location(k, 0),
                        (i,),
                    )

    def coverage(self) -> dict[str, Any]:
        """The share of sentences of four words or more that declare where they come from (an
        id, a bibliography citation ``[@key]``, ``[unverified]``, ``[tool:...]`` or
        ``[policy]``): the stats line reports it on every run, and below ``min_coverage`` the
        run fails. "cited" counts sentences citing the ledger or the bibliography."""
        prose = [s for s in self.sentences if s.words >= 4]
        count = {"id": 0, "unverified": 0, "tool": 0, "policy": 0}
        covered = 0
        for s in prose:
            kinds = s.kinds()
            if not kinds:
                continue
            covered += 1
            if s.ids or BIBLIOGRAPHY in kinds:
                count["id"] += 1
            for kind in ("unverified", "tool", "policy"):
                if kind in kinds:
                    count[kind] += 1
        ratio = covered / len(prose) if prose else 0.0
        wanted = self.options.min_coverage
        if wanted is not None and prose and ratio < wanted:
            self.add(
                LOW_COVERAGE,
                f"citation coverage {ratio:.0%} is below the required {wanted:.0%} "
                f"({covered}/{len(prose)} sentences cited or marked [unverified])",
                self.name,
            )
        return {
            "sentences": len(prose),
            "covered": covered,
            "coverage": round(ratio, 4),
            "cited_sentences": count["id"],
            "unverified_sentences": count["unverified"],
            "tool_sentences": count["tool"],
            "policy_sentences": count["policy"],
        }

    def evidence(self, first: dict[int, str]) -> dict[str, list[int]]:
        """With ``evidence``, a cited source must carry a verbatim quote: the proof that the
        page was read, not only found. A provider's quote (``ledger/provided.py``) is another
        kind, which passes only with ``provider-quotes: accept``. Returned: the cited ids by
        the kind of evidence each carries, for the stats line."""
        kinds: dict[str, list[int]] = {"page-checked": [], "provider": [], "none": []}
        accept = self.options.provider_quotes == "accept"
        for i, where in first.items():
            source = self.ledger.get(i)
            if source is None:
                continue
            kind = (
                "page-checked"
                if source.quotes
                else "provider"
                if source.provider_quotes
                else "none"
            )
            kinds[kind].append(i)
            if kind == "none":
                self.add(
                    MISSING_EVIDENCE,
                    f"cited sources carry no verbatim evidence quote: [{i}]",
                    where,
                    (i,),
                )
            elif kind == "provider" and not accept:
                who = ", ".join(
                    sorted({q.provider or "a provider" for q in source.provider_quotes})
                )
                self.add(
                    MISSING_EVIDENCE,
                    f"[{i}] carries only provider quotes ({who}), never matched against a saved "
                    "page",
                    where,
                    (i,),
                    f'`citeledger quote {i} --text "…" --from PAGE` with the words of the '
                    "fetched page, or `--provider-quotes accept` to take the provider's word",
                )
        self.misplaced_quotes(first)
        return kinds

    def unused(self, listed: dict[int, DraftEntry], cited: set[int]) -> None:
        """Sources nobody cites are warnings, not failures: a Sources entry the text never
        cites misleads a reader; a ledger source that carries evidence quotes was read for a
        claim, so leaving it out asks whether the claim lost its source. A search result
        registered and never quoted is no finding a reader sees (an agent registers every
        result at retrieval time): an info, counted on the stats line, in the seed's one
        grouped line under ``-v``."""
        for sid in sorted(set(listed) - cited):
            self.add(
                LISTED_NOT_CITED,
                f"listed in Sources but never cited inline: [{sid}]",
                self.entry_location(listed[sid]),
                (sid,),
            )
        if self.page_of_set:
            return
        uncited = sorted(set(self.ledger.ids()) - cited)
        quoted = self.ledger.quoted_ids()
        quiet = []
        for sid in uncited:
            if sid not in quoted:
                quiet.append(sid)
                continue
            source = self.ledger.source(sid)
            self.add(
                QUOTED_SOURCE_NOT_CITED,
                f"[{sid}] carries evidence quotes ({snippet(source.quotes[0].text)}) but is not "
                "cited in this draft: a claim lost its source?",
                self.name,
                (sid,),
            )
        if quiet:
            self.add(
                UNCITED_LEDGER_SOURCE,
                f"registered in the ledger but not cited in this draft: {id_list(quiet)}",
                self.name,
                quiet,
            )

    def crowded_sentences(self) -> None:
        """The convention: at most three citations a sentence, each source once, so a claim
        names the few sources that carry it."""
        for s in self.sentences:
            # The seed counts markers: [1][2][3][1] is four citations, whatever the ids.
            cites = [i for r in s.refs for i in r.marker.ids]
            if len(cites) > MAX_IDS_PER_SENTENCE:
                self.add(
                    TOO_MANY_IDS,
                    f"sentence carries more than {MAX_IDS_PER_SENTENCE} citations "
                    f"({id_list(cites)}): {snippet(s.text)}",
                    self.sentence_location(s),
                    s.ids,
                )
            repeated = [i for i in s.ids if cites.count(i) > 1]
            if repeated:
                self.add(
                    REPEATED_ID,
                    f"sentence cites {id_list(repeated)} more than once: {snippet(s.text)}",
                    self.sentence_location(s),
                    repeated,
                )

    def unknown_footnotes(self) -> None:
        """A footnote linking a URL the ledger lacks, in a document that cites, is a citation
        nobody can check; a warning, since footnotes also hold plain remarks with links. A
        document that cites nothing (pandoc's own test suite, a README) is not held to them."""
        for heading, url, pos in self.notes.unknown:
            self.add(
                FOOTNOTE_URL_NOT_IN_LEDGER,
                f"a footnote links to {url}, which is not in the ledger",
                f"{self.name}:{pos}" if pos else heading_location(self.name, heading),
            )

    def counts(self, cited: list[int]) -> dict[str, int]:
        """The stats beside coverage's: what the seed's stats line counts."""
        return {
            "distinct_cited": len(set(cited)),
            "ledger_sources": len(self.ledger.ids()),
            "sources_with_quotes": len(self.ledger.quoted_ids()),
            "markers": sum(len(h.markers) for h in self.found.hits),
            "footnote_citations": len(self.notes.ids),
        }

    # -- the convention's style rules --------------------------------------------------------

    def style(self) -> None:
        """The convention's marker style (:mod:`.marker_style`), each a warning."""
        for issue in style_issues(self.found.hits):
            location = self.marker_location(issue.hit, issue.ordinal)
            self.add(issue.rule, issue.message, location, issue.ids, issue.fix)

    def support(self) -> None:
        """Each cited sentence against its sources' evidence (:mod:`.support`): its details
        (figures, dates, names, negations) and, with a judge, the whole claim."""
        from .support.check import SupportCheck
        from .support.evidence import EvidenceShelf

        check = SupportCheck(
            EvidenceShelf(self.ledger, pages=self.options.support_pages),
            self.judge,
            self.options.support_threshold,
            self.progress,
        )
        self.claims = check.run([(s, self.sentence_location(s)) for s in self.sentences if s.ids])
        self.findings.extend(check.findings(lambda fix: fix.replace("DRAFT", self.draft)))
