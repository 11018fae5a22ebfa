"""The mistakes a research agent makes that every other check lets pass, found in the draft and
the ledger: a URL typed into the prose, a paragraph's ids piled after its last sentence, and a
quote attached to the wrong source. :class:`~.checks.Checker` turns each into its finding.

Each is held narrow on purpose, since a warning fails the agent's ``--strict`` gate: a URL only
where a reader sees a URL (a bare address or a link whose text is its address, not a link with
words); a pile only of two ids or more after three sentences or more, where no earlier sentence
cites anything (one id after a paragraph is a paragraph from one source); a quote only when it
is missing from every page its own source was quoted from and found in another source's page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..document.sentences import Sentence
from ..document.sources_lines import fenced_lines, find_sources_lines
from ..ledger import Ledger, normalize_for_match
from ..ledger.evidence_store import StoredTexts, evidence_dir, is_digest
from ..ledger.model import Quote, Source
from ..tree import Blocks, Inlines, Walk, stringify

# An address as a reader sees it in prose; what ends a sentence is not part of it.
_URL = re.compile(r"https?://[^\s<>\"]+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}'\u2019\u201d"
# Sentences of four words or more, as coverage counts them.
_PROSE_WORDS = 4
_PILE_SENTENCES = 3
_PILE_IDS = 2


@dataclass(frozen=True)
class TypedUrl:
    """A URL written into the prose: the address, the heading it is under, and its
    ``LINE:COL`` in the draft when the draft's text is at hand."""

    url: str
    heading: str
    position: str | None = None


class _ProseUrls(Walk):
    """Bare addresses in Str runs, and links whose text is their own address (``<url>``, a
    GitHub-style autolink). Code, math, raw inlines, images and links with words are skipped."""

    def __init__(self, code: set[int]) -> None:
        super().__init__()
        self.code = code
        self.found: list[TypedUrl] = []

    def inlines(self, inlines: Inlines) -> None:
        if id(inlines) in self.code:
            return
        for el in inlines:
            t = el.get("t")
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
    blocks: Blocks, exclude: range, code: set[int], text: str | None, titles: Sequence[str]
) -> list[TypedUrl]:
    """The URLs typed into the prose of ``blocks`` (outside the top-level blocks ``exclude``,
    the Sources block), each placed at its own ``LINE:COL`` of ``text`` when given: the n-th
    time an address is found in the tree is its n-th occurrence in the text, outside fenced
    code and the Sources block."""
    walk = _ProseUrls(code)
    walk.top(blocks, exclude)
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


@dataclass(frozen=True)
class Misplaced:
    """A quote of ``source`` found only in pages kept for the sources ``others``."""

    source: Source
    quote: Quote
    others: list[int]


def quotes_elsewhere(ledger: Ledger, cited: Iterable[int]) -> list[Misplaced]:
    """The quotes of the cited sources that are in no page of their own source's and in a
    page another source was quoted from. A page is a kept evidence text, named by the digest
    its quotes carry. A source's own pages are those only its quotes carry; a source with no
    such page owns the pages it shares (which of two sources a shared page is, nothing says:
    then neither is flagged)."""
    texts = StoredTexts(evidence_dir(ledger.path))
    owners: dict[str, set[int]] = {}
    for source in ledger.sources:
        for q in source.quotes:
            if q.text_sha256 and is_digest(q.text_sha256):
                owners.setdefault(q.text_sha256, set()).add(source.id)
    pages: dict[str, str] = {}
    for digest in owners:
        normal = texts.get(digest)[1]
        if normal is not None:
            pages[digest] = normal
    out: list[Misplaced] = []
    for i in cited:
        cited_source = ledger.get(i)
        if cited_source is None:
            continue
        own = [pages[d] for d, ids in owners.items() if ids == {i} and d in pages]
        if not own:
            own = [pages[d] for d, ids in owners.items() if i in ids and d in pages]
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
