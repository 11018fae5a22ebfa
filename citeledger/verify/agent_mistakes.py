"""The mistakes a research agent makes that every other check lets pass, found in the draft and
the ledger: a URL typed into the prose, a paragraph's ids piled after its last sentence, a
quote attached to the wrong source, a search tool's result number cited for a ledger id, and a
draft whose claims were all re-marked ``[unverified]``. :class:`AgentChecks` turns each into
its finding, as a part of :class:`~.checks.Checker`, which keeps checks.py to the seed's checks
and the convention's style.

Each is held narrow on purpose, since a warning fails the agent's ``--strict`` gate: a URL only
where a reader sees a URL (a bare address or a link whose text is its address, not a link with
words); a pile only of two ids or more after three sentences or more, where no earlier sentence
cites anything (one id after a paragraph is a paragraph from one source); a quote only when it
is missing from every page its own source was quoted from and found in another source's page.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Sequence

from ..document.locate import heading_location
from ..document.markers import Scan
from ..document.sentences import Sentence
from ..document.sources_lines import fenced_lines, find_sources_lines
from ..ledger import Ledger, normalize_for_match
from ..ledger.display import display_text
from ..ledger.light import pattern, record
from ..ledger.model import Quote, Source
from ..ledger.noise import expires
from ..tree import Blocks, Inlines, Walk, stringify
from .report import id_list, snippet
from .rules import (
    ALL_CLAIMS_UNVERIFIED,
    EXPIRING_SOURCE_CITED,
    IDS_AT_PARAGRAPH_END,
    QUOTE_FROM_OTHER_SOURCE,
    RAW_URL_IN_PROSE,
    SEARCH_RESULT_NUMBER,
    Rule,
)

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# An address as a reader sees it in prose; what ends a sentence is not part of it.
_URL = pattern(r"https?://[^\s<>\"]+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}'\u2019\u201d"
# Sentences of four words or more, as coverage counts them.
_PROSE_WORDS = 4
_PLAIN = frozenset({"Str", "Space", "SoftBreak", "LineBreak"})
_PILE_SENTENCES = 3
_PILE_IDS = 2


@record(frozen=True)
class TypedUrl:
    """A URL written into the prose: the address, the heading it is under, and its
    ``LINE:COL`` in the draft when the draft's text is at hand."""

    url: str
    heading: str
    position: str | None = None


class _ProseUrls(Walk):
    """Bare addresses in Str runs, and links whose text is their own address (``<url>``, a
    GitHub-style autolink). Code, math, raw inlines, images and links with words are skipped."""

    def __init__(
        self, code: set[int], skip: Container[int], nested: frozenset[int] = frozenset()
    ) -> None:
        super().__init__()
        self.code = code
        self.left_out = skip
        self.nested = nested
        self.found: list[TypedUrl] = []

    def blocks(self, blocks: Blocks) -> None:
        if self.nested:  # a list a Div holds: its entries' addresses are no prose
            blocks = [b for b in blocks if id(b) not in self.nested]
        super().blocks(blocks)

    def inlines(self, inlines: Inlines) -> None:
        if id(inlines) in self.code or self.index in self.left_out:
            return
        # Most elements are words and spaces without an address: one comprehension passes
        # them by, and only the rest are looked at one by one.
        hot = [
            el
            for el in inlines
            if (t := el["t"]) not in _PLAIN or (t == "Str" and "://" in el["c"])
        ]
        for el in hot:
            t = el["t"]
            if t == "Str":
                for m in _URL.finditer(el["c"]):
                    self.found.append(TypedUrl(m.group(0).rstrip(_TRAILING), self.heading))
            elif t == "Link":
                target = el["c"][2][0]
                text = stringify(el["c"][1])
                if _URL.fullmatch(target) and text.strip() in (target, _no_scheme(target)):
                    self.found.append(TypedUrl(target, self.heading))
            elif t in ("Emph", "Strong", "Underline", "Strikeout", "SmallCaps", "Superscript"):
                self.inlines(el["c"])
            elif t in ("Span", "Quoted"):
                self.inlines(el["c"][1])


def _no_scheme(url: str) -> str:
    return url.split("://", 1)[-1]


def typed_urls(
    blocks: Blocks,
    exclude: Container[int],
    code: set[int],
    text: str | None,
    titles: Sequence[str],
    nested: frozenset[int] = frozenset(),
) -> list[TypedUrl]:
    """The URLs typed into the prose of ``blocks`` (outside the Sources blocks: the top-level
    blocks ``exclude``, and the blocks whose ``id()`` is in ``nested`` where a Div holds a
    list), each placed at its own ``LINE:COL`` of ``text`` when given: the n-th time an address
    is found in the tree is its n-th occurrence in the text, outside fenced code and the
    Sources block."""
    walk = _ProseUrls(code, exclude, nested)
    walk.top(blocks)
    if text is None or not walk.found:
        return walk.found
    places = _occurrences(text, titles)
    taken: dict[str, int] = {}
    out: list[TypedUrl] = []
    for found in walk.found:
        seen = places.get(found.url, [])
        n = taken.get(found.url, 0)
        taken[found.url] = n + 1
        out.append(TypedUrl(found.url, found.heading, seen[n] if n < len(seen) else None))
    return out


def _occurrences(text: str, titles: Sequence[str]) -> dict[str, list[str]]:
    """Each address of ``text`` mapped to its ``LINE:COL`` places, in order, outside fenced
    code and the Sources block."""
    lines = text.splitlines()
    fenced = fenced_lines(lines)
    block = find_sources_lines(lines, titles, fenced)
    skip = range(block.start, block.end) if block is not None else range(0)
    out: dict[str, list[str]] = {}
    for number, line in enumerate(lines):
        if fenced[number] or number in skip:
            continue
        for m in _URL.finditer(line):
            url = m.group(0).rstrip(_TRAILING)
            out.setdefault(url, []).append(f"{number + 1}:{m.start() + 1}")
    return out


def piled_ids(blocks: Blocks, sentences: Sequence[Sentence]) -> list[tuple[Sentence, list[int]]]:
    """Paragraphs whose ids all stand after the last sentence: the sentence that carries them
    and the ids. Only top-level paragraphs, where the sentences of one block are one
    paragraph (a list's items share a block)."""
    paragraphs: dict[int, list[Sentence]] = {}
    for s in sentences:
        if blocks[s.block].get("t") == "Para":
            paragraphs.setdefault(s.block, []).append(s)
    out: list[tuple[Sentence, list[int]]] = []
    for group in paragraphs.values():
        prose = [k for k, s in enumerate(group) if s.words >= _PROSE_WORDS]
        if len(prose) < _PILE_SENTENCES:
            continue
        last = prose[-1]
        if any(group[k].kinds() for k in range(last)):
            continue
        tail = group[last:]
        ids = list(dict.fromkeys(i for s in tail for i in s.ids))
        if len(ids) >= _PILE_IDS:
            out.append((next(s for s in tail if s.ids), ids))
    return out


@record(frozen=True)
class Misplaced:
    """A quote of ``source`` found only in pages kept for the sources ``others``."""

    source: Source
    quote: Quote
    others: list[int]

    @property
    def number(self) -> int:
        """The quote's number under its source, as ``quote N --drop K`` takes it."""
        return next(k for k, q in enumerate(self.source.quotes, 1) if q is self.quote)


def quotes_elsewhere(ledger: Ledger, cited: Iterable[int]) -> list[Misplaced]:
    """The quotes of the cited sources that are in no page of their own source's and in a
    page another source was quoted from. A page is a kept evidence text, named by the digest
    its quotes carry. A source's own pages are the page ingest kept from its search result and
    those only its quotes carry; a page ingest kept for another source is never its own; a
    source with no such page owns the pages it shares (which of two sources a shared page is,
    nothing says: then neither is flagged)."""
    if not ledger.holds_pages():
        return []  # no kept page: the page store is not even loaded
    from ..ledger.evidence_store import StoredTexts, evidence_dir, is_digest

    owners: dict[str, set[int]] = {}
    # A page ingest kept from a search result is that result's page, whoever quoted it since.
    kept: dict[str, int] = {}
    for source in ledger.sources:
        if source.page_sha256 and is_digest(source.page_sha256):
            kept.setdefault(source.page_sha256, source.id)
            owners.setdefault(source.page_sha256, set()).add(source.id)
        for q in source.quotes:
            if q.text_sha256 and is_digest(q.text_sha256):
                owners.setdefault(q.text_sha256, set()).add(source.id)
    pages: dict[str, str] = {}
    texts = StoredTexts(evidence_dir(ledger.path))
    for digest in owners:
        normal = texts.get(digest)[1]
        if normal is not None:
            pages[digest] = normal
    out: list[Misplaced] = []
    for i in cited:
        cited_source = ledger.get(i)
        if cited_source is None:
            continue
        own = [
            pages[d]
            for d, ids in owners.items()
            if d in pages and (kept.get(d) == i or (d not in kept and ids == {i}))
        ]
        if not own:
            own = [
                pages[d]
                for d, ids in owners.items()
                if i in ids and d in pages and kept.get(d, i) == i
            ]
        for q in cited_source.quotes:
            needle = normalize_for_match(q.text)
            if not needle or any(needle in page for page in own):
                continue
            others = {
                other
                for d, ids in owners.items()
                if d in pages and needle in pages[d]
                for other in ids - {i}
            }
            if others:
                out.append(Misplaced(cited_source, q, sorted(others)))
    return out


class AgentChecks:
    """The checks of the agent's mistakes, as methods of :class:`~.checks.Checker`, which
    holds what they read (declared here for the type checker) and says where a finding is."""

    ledger: Ledger
    name: str
    found: Scan
    sentences: list[Sentence]
    blocks: Blocks
    text: str | None
    titles: Sequence[str]

    @property
    def draft(self) -> str:
        """The draft as a fix names it: its file, or ``DRAFT`` when it came on stdin."""
        return "DRAFT" if self.name == "-" else self.name

    def add(
        self, rule: Rule, message: str, location: str, ids: Iterable[int] = (), fix: str = ""
    ) -> None:
        raise NotImplementedError

    def sentence_location(self, s: Sentence) -> str:
        raise NotImplementedError

    def search_number(self, cited: int, url: str, where: str) -> bool:
        """Whether the URL the draft gives ``[cited]`` (its Sources entry, its link) is the
        ledger's URL of another id: then ``cited`` is a search tool's own result number, not
        the id the ledger gave that page. Said as such, with the id to cite instead."""
        owner = self.ledger.find_url(url)
        if owner is None or owner.id == cited:
            return False
        self.add(
            SEARCH_RESULT_NUMBER,
            f"[{cited}] is given the URL {owner.url}, which the ledger numbers [{owner.id}]: "
            f"[{cited}] looks like a search tool's own result number",
            where,
            (cited,),
            f"write [{owner.id}] where the draft cites [{cited}] for this page, then "
            f"`citeledger render --replace-in {self.draft}`",
        )
        return True

    def all_unverified(self, stats: dict[str, Any]) -> None:
        """A draft that cites nothing, though the ledger holds sources and its sentences are
        marked ``[unverified]``, passes the coverage gate with no claim checked: the claims
        were re-marked rather than cited."""
        if stats["cited_sentences"] or not stats["unverified_sentences"]:
            return
        if not self.ledger.sources:
            return
        self.add(
            ALL_CLAIMS_UNVERIFIED,
            f"no sentence cites a source, {stats['unverified_sentences']} marked [unverified], "
            f"though the ledger holds {len(self.ledger.sources)} source(s)",
            self.name,
        )

    def piled(self) -> None:
        """A paragraph's ids piled after its last sentence hide which claim each supports."""
        for s, ids in piled_ids(self.blocks, self.sentences):
            self.add(
                IDS_AT_PARAGRAPH_END,
                f"the paragraph's ids {id_list(ids)} all follow its last sentence, the sentences "
                f"before it cite nothing: {snippet(s.text)}",
                self.sentence_location(s),
                ids,
                f"move each of {id_list(ids)} after the sentence it supports",
            )

    def typed_urls(self) -> None:
        """A URL in the prose of a draft that cites is a citation no reader can check against
        the ledger; said at the URL's own place, with the ledger's id when it knows the page.
        A document that cites nothing is no research draft, and its links are its own."""
        # Every citation list is skipped, a stale one too: it is named as a second Sources
        # block (one finding, with its fix), not read as prose whose addresses were typed.
        lists = [*self.found.others, self.found.listing] if self.found.listing else []
        skip = {index for block in lists for index in block.top_range()}
        nested = frozenset().union(*(block.nested_ids(self.blocks) for block in lists))
        for typed in typed_urls(self.blocks, skip, self.found.code, self.text, self.titles, nested):
            where = (
                f"{self.name}:{typed.position}"
                if typed.position
                else heading_location(self.name, typed.heading)
            )
            known = self.ledger.find_url(typed.url)
            fix = (
                f"replace the URL with [{known.id}] after the sentence it supports"
                if known is not None
                else f"`citeledger add {typed.url}`, then replace the URL with the id it prints"
            )
            self.add(
                RAW_URL_IN_PROSE,
                f"a URL typed into the prose: {typed.url}",
                where,
                (known.id,) if known is not None else (),
                fix,
            )

    def expiring(self, first: dict[int, str]) -> None:
        """A cited source whose URL is a redirect that expires (ingest registered it with a
        warning, as the only handle an answer gave): every build would publish a dead link."""
        for sid, where in first.items():
            source = self.ledger.get(sid)
            if source is None or not expires(source.url):
                continue
            self.add(
                EXPIRING_SOURCE_CITED,
                f"[{sid}] is {source.url}, a redirect that expires within days",
                where,
                (sid,),
                f"open [{sid}]'s URL, `citeledger add` the address it lands on, and cite the id "
                f"it prints in place of [{sid}]",
            )

    def misplaced_quotes(self, first: dict[int, str]) -> None:
        """A cited source's quote found only in another source's kept page: the quote, and
        perhaps the claim, belongs to that other source."""
        for wrong in quotes_elsewhere(self.ledger, first):
            sid = wrong.source.id
            owner = wrong.others[0]
            short = display_text(wrong.quote.text, 300).replace('"', "'")
            self.add(
                QUOTE_FROM_OTHER_SOURCE,
                f"[{sid}]'s quote {snippet(wrong.quote.text)} is in the page kept for "
                f"{id_list(wrong.others)}, not in a page of [{sid}]'s own: attached to the wrong "
                "source?",
                first[sid],
                (sid,),
                f"cite [{owner}] for that claim, attach the quote to it (`citeledger quote "
                f'{owner} --text "{short}" --from PAGE`), then take it back from [{sid}] '
                f"(`citeledger quote {sid} --drop {wrong.number}`)",
            )
