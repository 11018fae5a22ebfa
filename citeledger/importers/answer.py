"""What every importer hands on: the answer's text without its provider's citation syntax, and
where each citation stood in it, with the sources it named.

Importers read a provider's shape (``openai.py``, ``anthropic.py``, ...) and return an
:class:`Answer`; ``draft.py`` registers the sources and writes the markers. Between the two,
:func:`cut` takes citation syntax out of a text (an inline ``([site](url))``, a ``[^3]``, a
``[12]``) and remembers where each stood, so that a citation points at the place it had.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Cited:
    """One source a citation names: the URL as the answer gave it, its title, and the words
    the provider said the source holds (``quotes``), with who said so and where (``origin``)."""

    url: str
    title: str = ""
    quotes: tuple[str, ...] = ()
    provider: str = ""
    origin: str = ""


# What a citation names when the answer's number names no page: the claim is marked
# ``[unverified]`` where it stood.
UNVERIFIED = Cited("")


@dataclass
class Citation:
    """A citation at offset ``at`` of :attr:`Answer.text` naming ``sources``."""

    at: int
    sources: list[Cited]
    # The citation was a paragraph of its own (a report's ``([Site](url))`` under a table): its
    # marker stays there, a paragraph of its own, not moved onto the next block's text.
    alone: bool = False


@dataclass
class Answer:
    """The answer as markdown text, its citations, and what the reading wants said."""

    text: str
    citations: list[Citation]
    kind: str
    warnings: list[str] = field(default_factory=list)
    # Sources the report lists and its text does not cite (GPT Researcher's list of the pages it
    # read): registered in the ledger after the cited ones, cited nowhere in the draft.
    listed: list[Cited] = field(default_factory=list)


@dataclass(frozen=True)
class Cut:
    """Text from ``start`` to ``end`` of a text to replace with ``keep`` (often nothing), and
    the sources cited where it stood."""

    start: int
    end: int
    sources: tuple[Cited, ...] = ()
    keep: str = ""


_SPACE = " \t"
# After a cut, a space before it goes too when what follows closes or ends the phrase.
_CLOSING = ".,;:!?)]}\u3002\uff0c"


def cut(text: str, cuts: list[Cut]) -> tuple[str, list[Citation]]:
    """``text`` with every cut applied, and a citation where each stood (one with sources).
    Overlapping cuts: the first wins and takes the later one's sources. A space before a cut
    is taken out with it when the cut is followed by punctuation, a line's end or another
    space (``claim ([a](u)).`` reads ``claim.``)."""
    ordered = sorted(cuts, key=lambda c: (c.start, -c.end))
    kept: list[Cut] = []
    extra: dict[int, list[Cited]] = {}
    for c in ordered:
        if kept and c.start < kept[-1].end:
            extra.setdefault(len(kept) - 1, []).extend(c.sources)
            continue
        last = kept[-1] if kept else None
        if last and not last.keep and not c.keep and not text[last.end : c.start].strip(" \t"):
            # Touching cuts ([2][3], a link and its footnote) are one: its spaces go with it.
            kept[-1] = Cut(last.start, c.end, (*last.sources, *c.sources))
            continue
        kept.append(c)
    out: list[str] = []
    citations: list[Citation] = []
    pos = 0
    length = 0
    for k, c in enumerate(kept):
        start = c.start
        after = text[c.end : c.end + 1]
        if not c.keep and (not after or after in _CLOSING or after in _SPACE + "\n"):
            while start > pos and text[start - 1] in _SPACE:
                start -= 1
        piece = text[pos:start] + c.keep
        out.append(piece)
        length += len(piece)
        sources = [*c.sources, *extra.get(k, [])]
        if sources:
            citations.append(Citation(length, sources))
        pos = c.end
    out.append(text[pos:])
    return "".join(out), citations
