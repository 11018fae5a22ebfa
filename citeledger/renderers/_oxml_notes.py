"""The citation notes in WordprocessingML: each source's first citation (the note reference in
its ``_clsrc<id>`` bookmark), the notes by id, the marks a reference and its note show, and the
number Word gives each note. The docx renderer reads and marks notes only through these."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..formats.docx_marks import BOOKMARK_RE, REPEAT_RE
from ._oxml import (
    W_BOOKMARKEND,
    W_BOOKMARKSTART,
    W_ENDNOTEREFERENCE,
    W_FOOTNOTEREFERENCE,
    W_ID,
    W_SECTPR,
    Element,
    OxmlElement,
    attr,
    qn,
    xpath,
)
from ._oxml_fonts import MarkFont


@dataclass
class CitationRef:
    """The first citation of a source: the note reference inside the ``_clsrc<id>`` bookmark."""

    source_id: int
    bookmark: str
    reference: Element  # w:footnoteReference or w:endnoteReference
    kind: str  # "footnote" | "endnote"

    @property
    def note_id(self) -> str:
        return attr(self.reference, "w:id") or ""

    @property
    def run(self) -> Element:
        return self.reference.getparent()


def citation_refs(body: Element) -> dict[int, CitationRef]:
    """Each source's first citation, found by the bookmark the filter put around its note
    (the first bookmark wins if a copy-paste duplicated one)."""
    found: dict[int, CitationRef] = {}
    for ref in _bookmarked_refs(body, BOOKMARK_RE):
        found.setdefault(ref.source_id, ref)
    return found


def repeat_refs(body: Element) -> list[CitationRef]:
    """The later citations that have a note of their own (``repeat-notes: short``), in
    document order, found by their ``_clrep<id>_<k>`` bookmarks."""
    return list(_bookmarked_refs(body, REPEAT_RE))


def _bookmarked_refs(body: Element, pattern: re.Pattern[str]) -> Iterator[CitationRef]:
    for start in body.iter(W_BOOKMARKSTART):
        name = attr(start, "w:name") or ""
        match = pattern.match(name)
        if match is None:
            continue
        bid = start.get(W_ID)
        for sibling in start.itersiblings():
            if sibling.tag == W_BOOKMARKEND and sibling.get(W_ID) == bid:
                break
            ref = next(sibling.iter(W_FOOTNOTEREFERENCE), None)
            if ref is None:
                ref = next(sibling.iter(W_ENDNOTEREFERENCE), None)
            if ref is not None:
                kind = "endnote" if ref.tag == W_ENDNOTEREFERENCE else "footnote"
                yield CitationRef(int(match.group(1)), name, ref, kind)
                break


def notes_by_id(notes_root: Element, kind: str) -> dict[str, Element]:
    """The ``w:footnote``/``w:endnote`` children of a notes part by ``w:id``, the first of a
    duplicated id winning: one pass, where a search per note went over all the notes again."""
    notes: dict[str, Element] = {}
    for note in notes_root.iterchildren(qn(f"w:{kind}")):
        note_id = note.get(W_ID)
        if note_id is not None:
            notes.setdefault(note_id, note)
    return notes


def note_link_targets(note: Element, part: Any) -> list[str]:
    """The external hyperlink targets inside one note."""
    urls: list[str] = []
    for link in xpath(note, ".//w:hyperlink[@r:id]"):
        rel = part.rels.get(link.get(qn("r:id")))
        if rel is not None and rel.is_external:
            urls.append(rel.target_ref)
    return urls


def is_custom_marked(reference: Element) -> bool:
    return reference.get(_W_CUSTOM) in ("1", "true", "on")


_W_CUSTOM = qn("w:customMarkFollows")
_T = OxmlElement("w:t")


def set_custom_mark(ref: CitationRef, mark: str) -> None:
    """Show ``mark`` instead of Word's number at the reference: ``w:customMarkFollows`` on the
    reference and the mark as text right after it in the same run (in the note-reference
    style), which is how Word and LibreOffice write a custom mark.

    One ``w:t`` per character: LibreOffice (7.4) turns the text after the reference into the
    note's label and, when that text is longer than one character, also keeps it as body
    text ("1212"); single characters it consumes. Word shows the run's text either way.
    """
    if is_custom_marked(ref.reference):
        return
    ref.reference.set(_W_CUSTOM, "1")
    anchor = ref.reference
    for char in mark:
        t = _made(_T)
        t.text = char
        anchor.addnext(t)
        anchor = t


def _note_references(body: Element) -> Iterator[Element]:
    """Every ``w:footnoteReference`` and ``w:endnoteReference`` under ``body``, in document
    order (a union XPath sorts the two lists it finds; one walk finds both in order)."""
    refs: Iterator[Element] = body.iter(W_FOOTNOTEREFERENCE, W_ENDNOTEREFERENCE)
    return refs


def sequential_numbers(body: Element) -> dict[tuple[str, str], int]:
    """The number Word shows for each note, keyed by (kind, note id): footnotes and endnotes
    count apart, in document order, and a custom-marked reference takes no number."""
    numbers: dict[tuple[str, str], int] = {}
    counts = {"footnote": 0, "endnote": 0}
    for ref in _note_references(body):
        if is_custom_marked(ref):
            continue
        kind = "endnote" if ref.tag == qn("w:endnoteReference") else "footnote"
        counts[kind] += 1
        numbers[(kind, attr(ref, "w:id") or "")] = counts[kind]
    return numbers


def other_note_kinds(body: Element, citations: Iterable[Element]) -> set[str]:
    """The kinds ("footnote", "endnote") of the note references in ``body`` that are not
    among ``citations`` (the draft's own notes, a note-style CSL's)."""
    skip = {id(ref) for ref in citations}
    kinds: set[str] = set()
    for ref in _note_references(body):
        if id(ref) not in skip:
            kinds.add("endnote" if ref.tag == qn("w:endnoteReference") else "footnote")
    return kinds


# Word's number formats (ST_NumberFormat) for a series of notes.
NOTE_NUMBER_FORMATS = {"letters": "lowerLetter", "roman": "lowerRoman", "symbols": "chicago"}


def set_note_number_format(body: Element, kind: str, number_format: str) -> None:
    """Number the automatic ``kind`` notes of every section in ``number_format``: the
    ``w:numFmt`` of the section's ``w:footnotePr``/``w:endnotePr``, which Word and LibreOffice
    both read (CT_FtnProps: pos, numFmt, numStart, numRestart, in that order)."""
    for sect in body.iter(W_SECTPR):
        props = xpath(sect, f"w:{kind}Pr")
        if props:
            pr = props[0]
        else:
            # CT_SectPr: headerReference*, footerReference*, footnotePr, endnotePr, ...
            pr = OxmlElement(f"w:{kind}Pr")
            before = "w:headerReference | w:footerReference"
            if kind == "endnote":
                before += " | w:footnotePr"
            after = xpath(sect, before)
            if after:
                after[-1].addnext(pr)
            else:
                sect.insert(0, pr)
        for old in xpath(pr, "w:numFmt"):
            pr.remove(old)
        fmt = OxmlElement("w:numFmt")
        fmt.set(qn("w:val"), number_format)
        pos = xpath(pr, "w:pos")
        if pos:
            pos[0].addnext(fmt)
        else:
            pr.insert(0, fmt)


def set_note_mark(note: Element, kind: str, mark: str, fonts: MarkFont) -> None:
    """Inside the note, the same mark in place of the automatic ``w:footnoteRef`` number: one
    ``w:sym`` per character, in the run that held the automatic number (so the FootnoteReference
    or EndnoteReference style, superscript, still applies), ``w:font`` the font that run
    resolves to.

    Why ``w:sym``: the reference carries ``w:customMarkFollows`` (ECMA-376 part 1, 17.11.14), so
    the note has no automatic number to show and its first run is the mark as ordinary run
    content. Word draws a ``w:sym`` as the character ``w:char`` in ``w:font`` (17.3.3.30), which
    is the id in the run's own font: what Word shows for ``w:t`` too. LibreOffice (7.4, 25.2)
    takes the note's label from the custom mark at the reference and also shows a ``w:t`` mark
    as body text ("22 Measured ...", "1010 ..."); a ``w:sym`` mark it shows once. A
    ``w:footnoteRef`` would be wrong for Word, which draws the next automatic number there.
    """
    for auto in list(note.iter(_AUTO_MARK.get(kind) or qn(f"w:{kind}Ref"))):
        font = fonts.of(auto.getparent())
        for char in mark:
            sym = _made(_SYM)  # python-docx makes each anew: a parse of its tag
            sym.set(_W_FONT, font)
            sym.set(_W_CHAR, f"{ord(char):04X}")
            auto.addprevious(sym)
        auto.getparent().remove(auto)


_SYM = OxmlElement("w:sym")

_W_FONT, _W_CHAR = qn("w:font"), qn("w:char")
_AUTO_MARK = {kind: qn(f"w:{kind}Ref") for kind in ("footnote", "endnote")}


def _made(template: Element) -> Element:
    """A copy of ``template``: lxml's own deep copy, without ``copy.deepcopy``'s bookkeeping
    around it (its memo), which cost more than the copy itself, once per character of every
    mark of a long report (76,000 on 13,600 citations)."""
    made: Element = template.__deepcopy__(None)
    return made
