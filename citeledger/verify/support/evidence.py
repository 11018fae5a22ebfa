"""What a cited sentence is checked against: the evidence of the sources it cites.

A source's evidence is its quotes, each verbatim on the page it was read from. With pages
(``--support-pages``), it is also the page itself as kept in the ledger's evidence folder
(:mod:`citeledger.ledger.evidence_store`: the text each quote was checked against), split into
chunks at sentence ends; the chunk that shares the most words with the sentence is taken (a
page of 5,000 words holds figures about everything, and a figure found anywhere in it proves
nothing). A page the folder does not hold (a quote from before the trail, a ledger copied
without its folder) leaves the source with its quotes, which the verdict says.

Chunks are split at sentence ends (:func:`citeledger.document.sentences.split_text`), never
inside a sentence unless the sentence alone is longer than the chunk may be; then at words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

from ...document.sentences import split_text
from ...ledger import Ledger
from ...ledger.evidence_store import StoredTexts, evidence_dir
from ...ledger.light import field, record
from .details import overlap

# A chunk of a page for the model-free check: a few sentences, about a paragraph.
CHUNK_WORDS = 120
# Chunks of a page the judge reads: the best by words in common (the judge costs time).
JUDGED_CHUNKS = 3


def chunks(text: str, fits: Callable[[str], bool]) -> list[str]:
    """``text`` in consecutive chunks of whole sentences, each as long as ``fits`` allows;
    a sentence too long alone is cut at words."""
    out: list[str] = []
    current = ""
    for sentence in split_text(text):
        joined = f"{current} {sentence}".strip()
        if fits(joined):
            current = joined
            continue
        if current:
            out.append(current)
        if fits(sentence):
            current = sentence
            continue
        current = ""
        for word in sentence.split():
            longer = f"{current} {word}".strip()
            if fits(longer) or not current:
                current = longer
            else:
                out.append(current)
                current = word
    if current:
        out.append(current)
    return out


def words_fit(limit: int) -> Callable[[str], bool]:
    return lambda text: len(text.split()) <= limit


@record
class SourceEvidence:
    """One source's evidence: its quotes, the pages kept for them, and whether every quote
    had its page (``pages_missing`` counts those that had none)."""

    source_id: int
    quotes: list[str]
    pages: list[str] = field(default_factory=list)
    # What the source calls itself: its title, site and host (names a claim may cite it by).
    names: list[str] = field(default_factory=list)
    pages_missing: int = 0
    _page_chunks: list[str] | None = None

    def page_chunks(self) -> list[str]:
        if self._page_chunks is None:
            self._page_chunks = [
                c for page in self.pages for c in chunks(page, words_fit(CHUNK_WORDS))
            ]
        return self._page_chunks

    def best_chunks(self, claim: str, count: int = 1) -> list[str]:
        """The page chunks sharing the most words with ``claim``, best first."""
        scored = [(overlap(claim, c), -k, c) for k, c in enumerate(self.page_chunks())]
        scored = [row for row in scored if row[0] > 0]
        return [c for _, _, c in sorted(scored, reverse=True)[:count]]


def _host(url: str) -> str:
    """The host's labels as words (``www.carbon-brief.org``: ``carbon brief``), without the
    ``www`` and the top-level domain, which name nothing."""
    host = (urlsplit(url).hostname or "") if "://" in url else ""
    labels = host.split(".")[:-1] if "." in host else []
    return " ".join(label.replace("-", " ") for label in labels if label != "www")


class EvidenceShelf:
    """Each cited source's evidence, read once per run (a page quoted ten times is one read);
    ``pages``: read the kept pages too."""

    def __init__(self, ledger: Ledger, *, pages: bool = False) -> None:
        self.ledger = ledger
        self.pages = pages
        self._texts: StoredTexts | None = None
        if pages and getattr(ledger, "path", None) is not None:
            self._texts = StoredTexts(evidence_dir(Path(ledger.path)))
        self._seen: dict[int, SourceEvidence] = {}

    def of(self, source_id: int) -> SourceEvidence:
        if source_id not in self._seen:
            self._seen[source_id] = self._read(source_id)
        return self._seen[source_id]

    def _read(self, source_id: int) -> SourceEvidence:
        source = self.ledger.get(source_id)
        if source is None:
            return SourceEvidence(source_id, [])
        found = SourceEvidence(source_id, [q.text for q in source.quotes if q.text.strip()])
        found.names = [n for n in (source.title, source.site, _host(source.url)) if n]
        if not self.pages:
            return found
        digests: list[str] = []
        for quote in source.quotes:
            digest = quote.text_sha256
            if digest is None or self._texts is None:
                found.pages_missing += 1
            elif digest not in digests:
                digests.append(digest)
        for digest in digests:
            assert self._texts is not None
            stored, _normal = self._texts.get(digest)
            if stored.text is None:
                found.pages_missing += 1
            else:
                found.pages.append(stored.text)
        return found

    def texts_for(self, claim: str, ids: Iterable[int]) -> list[str]:
        """The texts the model-free check reads for ``claim``: each source's quotes, and its
        best page chunk."""
        out: list[str] = []
        for i in ids:
            source = self.of(i)
            out.extend(source.quotes)
            if self.pages:
                out.extend(source.best_chunks(claim))
        return out
