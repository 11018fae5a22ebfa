"""Word placement: one real footnote per citation, so every mark has its note on its page.

What a Word reader expects is a note mark, not a bracket, and the note at the foot of the page
that carries the mark. Pandoc writes a ``Note`` as a real footnote (``w:footnoteReference`` into
footnotes.xml, the URL a live hyperlink), so the first citation of a source becomes a Note
holding ``Title. URL (accessed DATE)`` inside a bookmark named ``_clsrc<id>``.

``citeledger.repeat-notes`` says what a later citation of the same source gets:

- ``short`` (default): a note of its own holding the title alone, linked to the source (as
  Chicago shortens a repeated note), inside a bookmark ``_clrep<id>_<k>`` so the renderer
  gives it the same mark.
- ``cross-reference`` (and always with ``notes: endnotes``): a field
  ``NOTEREF _clsrc<id> \\f \\h``: the same mark, formatted as a note mark, linked to the
  first citation, and no note of its own (pandoc cannot point two marks at one note).

Adjacent citations (``water.[1][2]``) get a superscript comma between the marks so they do not
read as one number. Word has no note inside a note: a citation inside one of the draft's own
footnotes is a ``NOTEREF`` to the source's note, or, when the source is cited nowhere else,
``[Title. URL (accessed DATE)]`` written out in place.

``citeledger.notes``

- ``footnotes`` (default): as above.
- ``endnotes``: the filter writes the same footnotes (pandoc has no endnotes) and
  ``citeledger finish`` moves them to real Word endnotes; bare pandoc keeps footnotes and the
  filter, when pandoc runs it (``$PANDOC_VERSION`` set), says so in one warning line;
  ``citeledger convert`` runs the renderer itself and gets no warning. ``$CITELEDGER_FINISH``
  silences it for a build script that always finishes (the entry pandoc starts reads both
  and hands them in as :class:`~citeledger.filters.base.Caller`).
- ``list``: no notes. ``[n]`` links to its entry (bookmark ``src-<id>``) in a Sources section.

``citeledger.numbering``: Word numbers footnotes itself, so bare pandoc shows Word's sequential
numbers (the fields' cached results are those numbers, counting any footnotes the draft has of
its own, in document order). ``citeledger finish`` (and ``citeledger convert``) makes each mark
the ledger id when numbering is ``ledger``, and then numbers the notes that cite no ledger
source (the draft's own, a note-style CSL's) in a series of their own, ``citeledger.other-notes``
(letters by default), so no two notes show the same mark. In ``list`` mode the filter writes the
marks itself.

The Sources section: always with ``notes=list``. With notes it is added when the draft has a
Sources block of its own (the list is then rendered from the ledger in its place at the end) or
when ``citeledger.sources-title`` is set; ``-M citeledger.sources-title=`` (empty) leaves it
out. Each entry starts with the source's mark (a ``NOTEREF`` field, so it matches the notes).

The filter records the options it was built with in the file's custom properties
(``citeledger-options``, see ``filters/run.py``) for ``citeledger finish`` to read.
"""

from __future__ import annotations

from ..document.grammar import Marker
from ..formats.docx_marks import (
    bookmark_end,
    bookmark_start,
    noteref_field,
    repeat_bookmark_end,
    repeat_bookmark_start,
)
from ..ledger import Source
from ..tree import (
    INLINES_AT_1,
    INLINES_AT_C,
    Block,
    Inline,
    Inlines,
    Walk,
    link,
    para,
    span,
    str_,
    text_to_inlines,
)
from . import base
from .base import entry_inlines

# The character style of a provenance label, defined in templates/reference.docx.
LABEL_STYLE = "Citeledger Label"


def raw(xml: str) -> Inline:
    return {"t": "RawInline", "c": ["openxml", xml]}


class DocxPlacement(base.BasePlacement):
    records_options = True
    joins_marks = True

    def __init__(self, state: base.State) -> None:
        super().__init__(state)
        opts = state.options
        self.notes = opts.notes
        # Sources cited in the body anywhere in the draft: a citation in one of the draft's
        # footnotes can point at their note, wherever that note stands.
        self._body_ids = {
            sid for hit in state.scan.hits if not hit.in_note for m in hit.markers for sid in m.ids
        }
        self._noted: set[int] = set()
        # Endnotes gather at the end, where one note per source is what a reader looks up.
        self._short = opts.repeat_notes == "short" and opts.notes == "footnotes"
        self._repeats = 0
        # Each source's note's rank among the notes placed, in the order placed (the document's
        # order): Word's number of it when the draft has no note of its own.
        self._ranks: dict[int, int] = {}
        self._placed = 0
        self._titles: dict[int, str] = {}  # each repeated source's title, made once
        self._refs: list[tuple[Inline, int, bool]] = []  # (RawInline, source id, as_mark)
        self._list = opts.notes == "list" or (
            bool(opts.sources_title.strip())
            and (state.scan.sources is not None or opts.is_set("sources-title"))
        )
        caller = state.caller
        if (
            opts.notes == "endnotes"
            and state.scan.hits
            and caller.under_pandoc
            and not caller.finished
        ):
            state.say(
                "warn: citeledger.notes=endnotes: pandoc writes footnotes; run "
                "`citeledger finish OUT.docx` to turn them into Word endnotes"
            )

    # Inline side -------------------------------------------------------------------------
    def cite(self, source: Source, number: int, at: base.CiteContext) -> Inlines:
        if self.notes == "list":
            return [link([str_(f"[{number}]")], f"#src-{source.id}")]
        sid = source.id
        if at.in_note:
            if sid in self._body_ids:
                return [self._noteref(sid, as_mark=True)]
            # Cited only inside the draft's own footnotes: Word has no note in a note.
            return [str_("["), *_entry(source), str_("]")]
        if sid not in self._noted:
            self._noted.add(sid)
            self._placed += 1
            self._ranks[sid] = self._placed
            note = {
                "t": "Note",
                "c": [para(unbroken_date(_entry(source), source))],
            }
            return [raw(bookmark_start(sid)), note, raw(bookmark_end(sid))]
        if self._short:
            self._repeats += 1
            self._placed += 1
            k = self._repeats
            title = self._titles.get(sid)
            if title is None:
                title = self._titles[sid] = source.lead_sentence
            note = {"t": "Note", "c": [para(short_entry_inlines(source, title))]}
            return [raw(repeat_bookmark_start(sid, k)), note, raw(repeat_bookmark_end(k))]
        return [self._noteref(sid, as_mark=True)]

    def _noteref(self, source_id: int, *, as_mark: bool) -> Inline:
        element = raw("")
        self._refs.append((element, source_id, as_mark))
        return element

    def provenance(self, marker: Marker) -> Inlines:
        """The label in the reference document's ``Citeledger Label`` character style (small,
        grey), through pandoc's ``custom-style``, after a thin no-break space."""
        if self.state.options.provenance == "drop":
            return []
        _kind, text = base.label_text(marker)
        attrs = ["", [], [["custom-style", LABEL_STYLE]]]
        return [str_("\u202f"), {"t": "Span", "c": [attrs, [str_(text)]]}]

    def separator(self) -> Inlines:
        if self.notes == "list":
            return []
        return [{"t": "Superscript", "c": [str_(",")]}]

    # Block side --------------------------------------------------------------------------
    def entry(self, source: Source, number: int) -> Inlines:
        if self.notes == "list":
            label = span([str_(f"[{number}]")], f"src-{source.id}")
            return [
                label,
                {"t": "Space"},
                *unbroken_date(_entry(source), source),
            ]
        if source.id in self._noted:
            label = self._noteref(source.id, as_mark=False)
            entry = unbroken_date(_entry(source), source)
            return [str_("["), label, str_("]"), {"t": "Space"}, *entry]
        return unbroken_date(_entry(source), source)

    def sources_blocks(self) -> list[Block]:
        return super().sources_blocks() if self._list else []

    def finalize(self) -> None:
        self.state.doc["blocks"].extend(self.sources_blocks())
        if self._refs:
            numbers = self._note_numbers()
            for element, sid, as_mark in self._refs:
                element["c"][1] = noteref_field(sid, str(numbers.get(sid, "")), as_mark=as_mark)

    def _note_numbers(self) -> dict[int, int]:
        """Word's sequential number of each source's note: its rank among all notes of the
        document (the draft's own included), in document order; without a walk when the draft
        holds no note of its own (its scan knows): the notes are then those placed, each placed
        where its marker was found, in the document's order."""
        kinds = self.state.scan.kinds
        if kinds is not None and "Note" not in kinds:
            return dict(self._ranks)
        counter = _NoteCounter({bookmark_start(sid): sid for sid in self._noted})
        counter.blocks(self.state.doc["blocks"])
        return counter.numbers


def unbroken_date(inlines: Inlines, source: Source) -> Inlines:
    """The access date as Word keeps it on one line: non-breaking hyphens (U+2011) in the date
    and a no-break space after "(accessed", so "(accessed 2025-02-" / "10)" cannot happen."""
    date = source.display_accessed
    if not date:
        return inlines
    out: Inlines = []
    for el in inlines:
        if el["t"] == "Str" and el["c"].startswith(date):
            if out and out[-1]["t"] == "Space" and len(out) > 1 and out[-2].get("c") == "(accessed":
                out.pop()
                out[-1] = str_("(accessed\u00a0")
            el = str_(el["c"].replace("-", "\u2011"))
        out.append(el)
    return out


def _entry(source: Source) -> Inlines:
    """A note's or an entry's text; its URL breaks at zero-width spaces after its slashes,
    dots and hyphens, where Word and LibreOffice break a line, never inside a word."""
    return entry_inlines(source, breaks="zwsp")


def short_entry_inlines(source: Source, title: str | None = None) -> Inlines:
    """A repeated source's shortened note: its title (the URL when it has none), linked to the
    source, so the note still names what it cites and a reader can follow it. ``title``: the
    source's :attr:`~citeledger.ledger.model.Source.lead_sentence`, when the caller has it."""
    title = source.lead_sentence if title is None else title
    text = text_to_inlines(title) if title else [str_(source.url)]
    if not title or title.rstrip()[-1:] in ".?!…":
        return [link(text, source.href)]
    return [link(text, source.href), str_(".")]


class _NoteCounter(Walk):
    """Counts Note elements in reading order, descending only where a note can be. A source's
    note is the one :meth:`DocxPlacement.cite` wrapped in the source's bookmark: the Note right
    after the bookmark's start."""

    def __init__(self, starts: dict[str, int]) -> None:
        super().__init__()
        self.starts = starts  # bookmark start markup -> source id
        self.numbers: dict[int, int] = {}
        self.count = 0

    def inlines(self, inlines: Inlines) -> None:
        before: Inline | None = None
        for el in inlines:
            t = el["t"]
            if t == "Note":
                self.count += 1
                sid = self._bookmarked(before)
                if sid is not None:
                    self.numbers[sid] = self.count
            elif t in INLINES_AT_C:
                self.inlines(el["c"])
            elif t in INLINES_AT_1:
                self.inlines(el["c"][1])
            before = el

    def _bookmarked(self, el: Inline | None) -> int | None:
        if el is None or el["t"] != "RawInline" or el["c"][0] != "openxml":
            return None
        return self.starts.get(el["c"][1])
