"""Prose sentences of a document tree, with the markers each one carries.

Coverage is "sentences with declared provenance / prose sentences", so what counts as a prose
sentence decides the number. The rules follow the grounded-citations seed, moved from lines of
raw markdown onto the tree: headings, tables, code (and code cells pandoc read as text), raw
blocks and the Sources block are not prose; block quotes, list items, definition lists and
footnote text are; a pandoc citation (``[@key]``, a Cite element) is a marker of kind
``bibliography``, provenance as a ledger id is; a sentence counts when it has 4 or more words
(2 CJK characters count as one, as for quotes).

The text of a block is its inlines stringified with every marker replaced by one private-use
character. The splitter then sees a marker as part of the word it touches, so ``floats.[1][2]``
and ``floats. [1] [2]`` both end the sentence after the whole marker run, and nothing inside a
marker can look like a sentence end. It does not break after ``e.g.``, ``i.e.``, ``Dr.``,
``U.S.``, initials, in decimals (``3.5``) or at ellipses; CJK text ends at 。！？；.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ledger.light import field, pattern, record
from ..ledger.quotes import word_count
from ..tree import INLINES_AT_C, OPAQUE_BLOCKS, Json, Walk, stringify
from .grammar import Marker
from .markers import Hit, Scan

# The kind of marker a pandoc citation ([@key], resolved by --citeproc or not) makes.
BIBLIOGRAPHY = "bibliography"

# One private-use character per marker of a block (plane 15: nothing real ever uses it).
_PH_BASE = 0xF0000
_PH_MAX = 0xFFFD
_PH_CLASS = "\U000f0000-\U000ffffd"
_PH_RE = pattern(f"[{_PH_CLASS}]")

# A sentence ends at . ! ? (not in a run of dots: an ellipsis, nor in 3.5: whitespace must
# follow; a no-break space, which pandoc puts after "e.g.", does not count) or at CJK 。！？；
# (nothing need follow); closing quotes or brackets and the marker run after it belong to it.
# Characters above U+00FF stand apart from the classes, in classes of two (see ledger/light.py).
_BOUNDARY = pattern(
    r"(?:(?<!\.)[.!?](?!\.)|(?P<cjk>[\u3002\uff01]{1}|[\uff1b\uff1f]{1}))"
    r"(?:[\"')\]\u00bb]|[\u2019\u201d]{1})*"
    rf"(?:[ \t\r\n]*[{_PH_CLASS}])*"
    r"(?(cjk)|(?=[ \t\r\n]|\Z))"
)
_ABBREVIATIONS = [
    *("e.g", "i.e", "cf", "vs", "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "mt", "no"),
    *("nos", "fig", "figs", "eq", "eqs", "al", "approx", "ca", "vol", "vols", "pp", "ed", "eds"),
    *("op", "ch", "sec", "resp", "viz"),
]
# The word before a full stop is an abbreviation or an initialism (U.S, J, e.g): no break.
# The word opens the text or follows a space, an opening bracket or quote, and starts at most
# _ABBR_WINDOW characters before the stop. Letters and the abbreviations are compared ignoring
# case as a regular expression does: the letters of [A-Za-z] with re.IGNORECASE are those and
# İ ı ſ K (the Kelvin sign), which fold to i, i, s, k. Written out rather than as a pattern:
# the one pattern it was cost more to compile than the rest of a one-page verify's checks.
_OPENERS = frozenset("([\"'\u201c\u2018\u00ab\u00a0")
_FOLDED = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}
_ABBREVIATED = frozenset(_ABBREVIATIONS)
_ABBR_WINDOW = 12
# The same test as one pattern (2 is re.IGNORECASE), compiled when a document has more full
# stops than a page: then its C-level search pays for the compile many times over.
_ABBR_TAIL = pattern(
    "(?<![^\\s(\\[\"'\u201c\u2018\u00ab\u00a0])(?:(?:[A-Za-z]\\.)*[A-Za-z]|"
    + "|".join(a.replace(".", "\\.") for a in sorted(_ABBREVIATIONS, key=len, reverse=True))
    + ")\\Z",
    2,
)
_QUICK_STOPS = [256]  # the full stops tested in Python before the pattern takes over
_SPACES = {"Space": " ", "SoftBreak": " ", "LineBreak": " "}
# Stands for an element that needs a closer look; U+FFFF is a noncharacter, never in text.
_SLOW = "\uffff"


@record(frozen=True)
class MarkerRef:
    """A marker in a sentence and where it came from: ``hit`` indexes ``Scan.hits`` and
    ``ordinal`` the marker within that hit; both are None for a footnote citation."""

    marker: Marker
    hit: int | None = None
    ordinal: int = 0


@record
class Sentence:
    """``raw`` holds one private-use character per marker; ``text`` shows the markers as
    written, ``plain`` leaves them out (both made on demand: most sentences never need them)."""

    raw: str
    refs: list[MarkerRef]
    block: int
    heading: str
    words: int
    ids: list[int]  # distinct cited ids, in order

    @property
    def text(self) -> str:
        if not self.refs:
            return self.raw.strip()
        # A sentence's placeholders are consecutive: the first one stands for refs[0].
        refs = self.refs
        marks = _PH_RE.findall(self.raw)
        first = ord(marks[0]) if marks else 0
        return _PH_RE.sub(lambda m: refs[ord(m.group()) - first].marker.text, self.raw).strip()

    @property
    def plain(self) -> str:
        return _PH_RE.sub("", self.raw).strip() if self.refs else self.raw.strip()

    def kinds(self) -> set[str]:
        return {r.marker.kind for r in self.refs}


@record
class _Unit:
    """The text of one paragraph-like block, markers as placeholders."""

    block: int
    heading: str
    refs: list[MarkerRef] = field(default_factory=list)

    def add_marker(self, ref: MarkerRef) -> str:
        """The placeholder that stands for ``ref`` in the text."""
        if len(self.refs) > _PH_MAX:
            return ""
        self.refs.append(ref)
        return chr(_PH_BASE + len(self.refs) - 1)


def split_text(text: str) -> list[str]:
    """Split plain text (markers as placeholders or as written) into sentences."""
    return [text[a:b].strip() for a, b in _spans(text) if text[a:b].strip()]


def _abbreviated(text: str, dot: int) -> bool:
    """Whether the word before the full stop at ``dot`` is an abbreviation or an initialism
    (see :data:`_OPENERS`)."""
    # Called at every full stop of a document: the word is found by C-level string methods
    # (a character-by-character walk was a tenth of a 2 MB report's verify).
    low = max(0, dot - _ABBR_WINDOW)
    seg = text[low:dot]
    if not seg or seg[-1].isspace() or seg[-1] in _OPENERS:
        return False
    token = seg.rsplit(None, 1)[-1]
    word = token[max([token.rfind(c) for c in _OPENERS]) + 1 :]
    start = dot - len(word)
    if (
        start == low
        and start > 0
        and not (text[start - 1].isspace() or text[start - 1] in _OPENERS)
    ):
        return False  # longer than the window: no abbreviation
    if word.isascii():
        folded = word.lower()
    else:
        folded = "".join(_FOLDED.get(c) or (c.lower() if c.isascii() else c) for c in word)
    if folded in _ABBREVIATED:
        return True
    letters, dots = folded[0::2], folded[1::2]
    return (
        len(word) % 2 == 1 and letters.isascii() and letters.isalpha() and dots == "." * len(dots)
    )


def _is_abbreviated(text: str, dot: int) -> bool:
    if _QUICK_STOPS[0]:
        _QUICK_STOPS[0] -= 1
        return _abbreviated(text, dot)
    return _ABBR_TAIL.search(text, max(0, dot - _ABBR_WINDOW), dot) is not None


def _spans(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in _BOUNDARY.finditer(text):
        dot = m.start()
        if text[dot] == "." and m.group("cjk") is None and _is_abbreviated(text, dot):
            continue
        cut = m.end()
        if cut > start:
            yield start, cut
            start = cut
    if start < len(text):
        yield start, len(text)


def sentences(
    doc: Json,
    found: Scan,
    *,
    note_ids: dict[int, tuple[int, ...]] | None = None,
) -> list[Sentence]:
    """Every sentence of the document's prose, in order, each with its markers.

    ``note_ids`` maps ``id()`` of a Note element to the ledger ids it cites (footnotes of a Word
    file); such a note counts as a citation where it stands and is not prose itself."""
    walker = _Walker(found, note_ids or {})
    listing = found.listing
    if listing is not None:
        walker.excluded = listing.nested_ids(doc["blocks"])
    walker.top(doc["blocks"], listing.top_range() if listing else range(0))
    return walker.out


def _is_bibliography(block: Json) -> bool:
    """citeproc's bibliography (the Div ``#refs``, class ``csl-bib-body`` or ``references``):
    its entries are a list of works, not prose. It follows a Sources block's entries when a
    draft has both, and stays after them in every build."""
    if block.get("t") != "Div":
        return False
    ident, classes, _attrs = block["c"][0]
    return ident == "refs" or "csl-bib-body" in classes or "references" in classes


class _Walker(Walk):
    # Headings, tables and figures are not prose: their words do not count toward coverage.
    skip = OPAQUE_BLOCKS | {"Header", "Table", "Figure"}

    def __init__(self, found: Scan, note_ids: dict[int, tuple[int, ...]]) -> None:
        super().__init__()
        self.hits_in: dict[int, list[int]] = {}
        for k, h in enumerate(found.hits):
            self.hits_in.setdefault(id(h.container), []).append(k)
        self.hits: list[Hit] = found.hits
        self.note_ids = note_ids
        self.code = found.code
        self.out: list[Sentence] = []
        self.notes: list[list[Json]] = []
        # ``id()`` of the Sources block's blocks when a Div holds it.
        self.excluded: frozenset[int] = frozenset()

    def blocks(self, blocks: list[Json]) -> None:
        if self.excluded:
            blocks = [b for b in blocks if id(b) not in self.excluded]
        super().blocks([b for b in blocks if not _is_bibliography(b)])

    def after_top(self) -> None:
        """A footnote's sentences follow the block that holds its mark."""
        while self.notes:
            pending, self.notes = self.notes, []
            for blocks in pending:
                self.blocks(blocks)

    def inlines(self, inlines: list[Json]) -> None:
        if self.code and id(inlines) in self.code:
            return  # a code cell pandoc read as text is code, not prose
        self.prose(inlines)

    def line_block(self, lines: list[list[Json]]) -> None:
        joined: list[Json] = []
        for line in lines:
            joined.extend(line)
            joined.append({"t": "Space"})
        self.prose(joined)

    def prose(self, inlines: list[Json]) -> None:
        unit = _Unit(self.index, self.heading)
        self.emit(self.text_of(inlines, unit), unit)

    def text_of(self, inlines: list[Json], unit: _Unit) -> str:
        """The text of an inline list, markers as placeholders (appended to ``unit.refs`` in
        document order). Most elements are Str and Space: one comprehension handles those,
        and only the few others, and the Str runs holding markers, are visited one by one."""
        vals = [el["c"] if el["t"] == "Str" else _SPACES.get(el["t"], _SLOW) for el in inlines]
        hits = self.hits_in.get(id(inlines))
        if hits is None and _SLOW not in vals:
            return "".join(vals)
        special: dict[int, int | None] = {}
        if _SLOW in vals:
            special = {i: None for i, v in enumerate(vals) if v is _SLOW}
        for h in hits or ():
            special[self.hits[h].start] = h
        for i in sorted(special):
            k = special[i]
            if k is None:
                vals[i] = self.element(inlines[i], unit)
                continue
            hit = self.hits[k]
            ordinal = 0
            pieces: list[str] = []
            for piece in hit.pieces:
                if isinstance(piece, str):
                    pieces.append(piece)
                else:
                    pieces.append(unit.add_marker(MarkerRef(piece, k, ordinal)))
                    ordinal += 1
            vals[i] = "".join(pieces)
            for j in range(i + 1, hit.end + 1):
                vals[j] = ""
        return "".join(vals)

    def element(self, el: Json, unit: _Unit) -> str:
        t = el["t"]
        if t in INLINES_AT_C:
            return self.text_of(el["c"], unit)
        if t == "Span":
            return self.text_of(el["c"][1], unit)
        if t == "Quoted":
            inner = self.text_of(el["c"][1], unit)
            if el["c"][0]["t"] == "DoubleQuote":
                return f"\u201c{inner}\u201d"
            return f"\u2018{inner}\u2019"
        if t == "Cite":
            # pandoc's [@key]: a citation of the bibliography is declared provenance too.
            keys = ";".join(c.get("citationId", "") for c in el["c"][0])
            cite = Marker(BIBLIOGRAPHY, stringify(el["c"][1]), name=keys)
            return unit.add_marker(MarkerRef(cite))
        if t == "Link":
            ids = self.note_ids.get(id(el))
            if ids:
                # A Word file's later citation of a source: a link to its first footnote.
                text = "".join(f"[{i}]" for i in ids)
                return unit.add_marker(MarkerRef(Marker("note", text, ids)))
            # No markers in there (the finder skips them), but the words are prose.
            return stringify(el["c"][1])
        if t in ("Code", "Math"):
            return str(el["c"][-1])
        if t == "Note":
            ids = self.note_ids.get(id(el))
            if ids:
                text = "".join(f"[{i}]" for i in ids)
                return unit.add_marker(MarkerRef(Marker("note", text, ids)))
            self.notes.append(el["c"])
        return ""

    def emit(self, text: str, unit: _Unit) -> None:
        if not text or text.isspace():
            return
        refs = unit.refs
        out = self.out
        for a, b in _spans(text):
            chunk = text[a:b]
            if refs and (found := _PH_RE.findall(chunk)):
                used = [refs[ord(ch) - _PH_BASE] for ch in found]
                plain = _PH_RE.sub("", chunk)
            else:
                used = []
                plain = chunk
                if plain.isspace():
                    continue
            ids = list(dict.fromkeys(i for r in used for i in r.marker.ids)) if used else []
            out.append(Sentence(chunk, used, unit.block, unit.heading, word_count(plain), ids))
