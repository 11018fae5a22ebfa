"""Citations a document carries as footnotes, in every format pandoc reads.

``convert`` turns ``[n]`` into real Word footnotes holding "Title. URL (accessed DATE)", and a
reviewer may edit the file after that; no bracket survives in the text. Drafts are written so
too: a research agent's markdown export cites ``[^1]`` with ``[^1]: https://...``, a PEP cites
URL footnotes in reStructuredText, and Org reads ``[1] url`` at the start of a line as the
definition of footnote 1. Read through pandoc, each footnote is a Note element, so a note whose
text or link targets hold a URL the ledger knows cites that source where it stands. The
footnotes are then the list of sources, which is why the verifier requires no Sources block
from such a file.

A build places what the verifier counted: :func:`place_note_citations` makes each such note
the citation of its sources (a note that is only the source's entry, its URL with the title,
site or access date, becomes the marker; a note that says more keeps its words after the
marker), so the outputs link the ledger ids instead of numbering footnotes 1..k.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ledger import Ledger, Source
from ..ledger.light import field, pattern, record
from ..ledger.urls import url_key
from ..tree import Inline, Inlines, Json, elements, replace_elements, str_, stringify
from ..tree import link as link_to
from .markers import Scan, scan
from .sources_lines import fenced_lines

_LEAVES = frozenset({"Str", "Space", "SoftBreak", "LineBreak", "Code", "Math", "RawInline"})
_URL = pattern(r"https?://[^\s\"'<>)\]}]+")
_TRAILING = ".,;:!?"


@record
class NoteCitations:
    """``ids`` maps ``id()`` of each citing Note element, and of each internal Link back to
    such a note (a later citation of the same source), to the ledger ids it names;
    ``unknown`` lists (heading, url, LINE:COL or None) of note URLs the ledger does not hold;
    ``places`` the LINE:COL of each source's first citing note, where the text says;
    ``skip`` the top-level blocks the walk left out (the draft's own Sources block)."""

    ids: dict[int, tuple[int, ...]] = field(default_factory=dict)
    unknown: list[tuple[str, str, str | None]] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    places: dict[int, str] = field(default_factory=dict)
    skip: range = range(0)


def note_citations(
    doc: Json, ledger: Ledger, *, skip: range = range(0), text: str | None = None
) -> NoteCitations:
    """Walk every footnote of ``doc`` (top-level blocks in ``skip`` excepted); ``text``, the
    markdown the tree was read from, places each note at its reference
    (:func:`note_positions`)."""
    found = NoteCitations(skip=skip)
    where: dict[int, str] | None = None if text is not None else {}
    heading = ""
    anchors: dict[str, tuple[int, ...]] = {}
    links: list[Json] = []
    for index, block in enumerate(doc["blocks"]):
        if block.get("t") == "Header":
            heading = stringify(block["c"][2])
        if index in skip:
            continue
        for note, anchor in _notes(block, links):
            ids: list[int] = []
            if where is None:  # the text's references, read once a note is found
                where = _placed(doc, text or "")
            pos = where.get(id(note))
            for url in _urls(note["c"]):
                source = ledger.find_url(url)
                if source is None:
                    found.unknown.append((heading, url, pos))
                elif source.id not in ids:
                    ids.append(source.id)
                    if pos is not None:
                        found.places.setdefault(source.id, pos)
            if ids:
                found.ids[id(note)] = tuple(ids)
                if anchor:
                    anchors[anchor] = tuple(ids)
                for i in ids:
                    if i not in found.order:
                        found.order.append(i)
    for link in links:
        ids_of = anchors.get(link["c"][2][0][1:])
        if ids_of:
            found.ids[id(link)] = ids_of
    return found


# A footnote reference ``[^label]`` (not its definition) or an inline note ``^[...]``; code spans
# are blanked first, as the reader leaves them out.
_NOTE_REF = pattern(r"\[\^([^\]\s]+)\](?!:)|\^\[")
_NOTE_LABEL = pattern(r"^ {0,3}\[\^([^\]\s]+)\]:")
_CODE_SPAN = pattern(r"(`+)(?:(?!\1).)+?\1")


def note_positions(text: str) -> list[tuple[int, int]]:
    """``(line, col)`` of each footnote reference of a markdown text, in order: each is a Note
    in pandoc's tree, in the same order (a reference to no definition is text, and left out)."""
    lines = text.split("\n")
    fenced = fenced_lines(lines)
    labels = {m.group(1) for ln in lines if (m := _NOTE_LABEL.match(ln))}
    out: list[tuple[int, int]] = []
    for number, line in enumerate(lines):
        if fenced[number] or ("[^" not in line and "^[" not in line):
            continue
        label = _NOTE_LABEL.match(line)
        start = label.end() if label else 0
        masked = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for m in _NOTE_REF.finditer(masked, start):
            if m.group(1) is None or m.group(1) in labels:
                out.append((number + 1, m.start() + 1))
    return out


def _placed(doc: Json, text: str) -> dict[int, str]:
    """``id()`` of each Note of ``doc`` to the ``LINE:COL`` of its reference in ``text``; none
    when the two do not count the same notes (a form the light pass does not know)."""
    notes = [el for el in elements(doc["blocks"]) if el.get("t") == "Note"]
    refs = note_positions(text)
    if len(notes) != len(refs):
        return {}
    return {id(note): f"{line}:{col}" for note, (line, col) in zip(notes, refs, strict=True)}


def place_note_citations(
    doc: Json,
    found: Scan,
    ledger: Ledger,
    titles: Sequence[str],
    read: NoteCitations | None = None,
) -> bool:
    """In place: every footnote that cites ledger sources (as :func:`note_citations` reads it;
    the draft's own Sources block excepted) becomes a citation of each, a marker link ``[n]`` to
    the ledger's URL, which every placement turns into the format's citation; ``found`` is
    scanned again (updated in place, as :func:`~.locate.drop_escaped` does). A note that says
    more than its sources' entries stays, after the markers. True when a note was placed.
    ``read``: the verifier's reading of this same, unchanged ``doc``, used when it left out the
    same blocks (the walk over every footnote is not made twice in one build)."""
    listing = found.listing
    skip = listing.top_range() if listing else range(0)
    if read is None or read.skip != skip:
        read = note_citations(doc, ledger, skip=skip)
    notes = read.ids
    if not notes:
        return False

    def change(el: Inline) -> Inlines | None:
        ids = notes.get(id(el))
        if not ids:
            return None
        sources = [s for s in (ledger.get(i) for i in ids) if s is not None]
        markers: Inlines = [link_to([str_(f"[{s.id}]")], s.url) for s in sources]
        # A Word file's later citation of a source is a link back to its first note.
        keep = el.get("t") == "Note" and not _only_entries(el["c"], sources)
        return [*markers, el] if keep else markers

    for index, block in enumerate(doc["blocks"]):
        if index not in skip:
            replace_elements(block, change)
    again = scan(doc, titles, found.known)
    found.hits[:] = again.hits
    found.ordinary[:] = again.ordinary
    found.sources, found.listing, found.code = again.sources, again.listing, again.code
    return True


# What a note that is a source's entry holds besides the entry's own fields.
_ENTRY_WORDS = frozenset(
    {"accessed", "retrieved", "available", "at", "from", "online", "archived", "see"}
    | {"source", "url", "link", "via", "on", "in", "and", "of", "the"}
)

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
_WORD = pattern(r"\w+")


def _only_entries(blocks: list[Json], sources: list[Source]) -> bool:
    """Whether the note ``blocks`` holds nothing but its sources' entries: their URLs, ids,
    titles, authors, sites, numbers (the dates a citation style writes) and the words an entry
    is written with."""
    text = _URL.sub(" ", stringify(blocks))
    known = set(_ENTRY_WORDS)
    for s in sources:
        fields = [s.display_lead, s.title, s.site or "", s.accessed, s.issued or "", str(s.id)]
        for name in s.author or []:
            fields.extend(str(v) for v in name.values())
        for value in fields:
            known.update(w.lower() for w in _WORD.findall(value))
    return all(w.isdigit() or w.lower() in known for w in _WORD.findall(text))


def _notes(node: Json, links: list[Json]) -> list[tuple[Json, str]]:
    """Note elements below ``node`` (not descending into a note), each with the bookmark that
    stands right before it, if any: a later citation of the same source is an internal link to
    that bookmark (``NOTEREF`` or a hyperlink), collected into ``links``."""
    out: list[tuple[Json, str]] = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            c: Any = cur.get("c")
            if cur.get("t") == "Link" and c[2][0].startswith("#"):
                links.append(cur)
            elif isinstance(c, list):
                stack.append(c)
        elif isinstance(cur, list):
            anchor = ""
            below: list[Json] = []
            for el in cur:
                if isinstance(el, dict):
                    t = el.get("t")
                    if t == "Note":
                        out.append((el, anchor))
                        anchor = ""
                        continue
                    anchor = _bookmark(el) if t == "Span" else ""
                    if t in _LEAVES:  # most of a tree: nothing below them to walk
                        continue
                below.append(el)
            stack.extend(reversed(below))
    return out


def _bookmark(el: Json) -> str:
    """The id of an empty Span (how pandoc reads a Word bookmark), else ""."""
    if isinstance(el, dict) and el.get("t") == "Span" and not el["c"][1]:
        return str(el["c"][0][0])
    return ""


def _urls(blocks: list[Json]) -> list[str]:
    """Link targets first, then URLs written out in the text, each once."""
    targets = [
        el["c"][2][0]
        for el in elements(blocks)
        if el["t"] == "Link" and el["c"][2][0].startswith(("http://", "https://"))
    ]
    # A shown URL's zero-width spaces are its line breaks (filters/base.url_label), not part of it.
    for m in _URL.finditer(stringify(blocks).replace("\u200b", "")):
        targets.append(m.group(0).rstrip(_TRAILING))
    return list(dict.fromkeys(url_key(t) for t in targets))
