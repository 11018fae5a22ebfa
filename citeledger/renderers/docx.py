"""The Word renderer: what pandoc cannot write into a .docx, done on the file it wrote.

The filter (``filters/docx.py``) leaves one footnote per source inside a bookmark named
``_clsrc<id>`` and a ``NOTEREF`` field at each later citation. This module reads those back with
python-docx (raw XML through the ``_oxml*`` modules) and:

- checks each note against the ledger: the bookmark names the source, the note's hyperlink
  must be that source's URL (a different ledger than the build's is refused, not "fixed");
- ``notes=endnotes``: moves those footnotes to real Word endnotes (endnotes.xml with its
  separator endnotes, relationship and content type, ``w:endnoteReference``, the Endnote Text
  and Endnote Reference styles, decimal endnote numbers in settings.xml). The draft's own
  footnotes stay footnotes;
- ``numbering=ledger``: the visible mark becomes the ledger id. Each first reference gets
  ``w:customMarkFollows="1"`` and the id as a run in the note-reference style after it, and the
  note shows the same id, as ``w:sym`` characters, in place of Word's automatic number (why
  ``w:sym``: ``_oxml_notes.set_note_mark``). Each ``NOTEREF`` field becomes an
  internal hyperlink to the bookmark showing the id: the id never changes, so there is nothing
  for a field update to compute, and Word, LibreOffice and pandoc's reader all show a link as
  written, where a field would be recomputed (to Word's own number) by each in its own way;
- ``numbering=sequential``: the fields stay, their cached results set to the numbers Word will
  show (footnotes and endnotes are numbered apart, custom marks take no number).
- the page size from the draft's ``papersize`` (pandoc leaves it in the custom properties), so
  Word's pages match the PDFs' (the bundled reference document is A4);
- the notes that cite no ledger source (the draft's own, a note-style CSL's) get a number
  format of their own (``other-notes``: letters, roman, symbols) in the section's
  ``w:footnotePr``/``w:endnotePr`` wherever they would otherwise repeat a citation's mark: beside
  ledger-id marks, or as footnotes beside citation endnotes.

Running it twice changes nothing the second time.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from ..errors import BadInput
from ..files import check_archive
from ..formats.docx_marks import ENDNOTE_REFERENCE, FOOTNOTE_REFERENCE
from ..ledger import Ledger
from ..options import Options
from ..tree import no_gc
from ._oxml import RT, W_FOOTNOTEREFERENCE, XMLSyntaxError, parse_xml
from ._oxml_endnotes import (
    Relations,
    drop_unused_rels,
    ensure_endnote_section_format,
    ensure_endnote_settings,
    ensure_endnote_styles,
    footnote_to_endnote,
    new_endnotes_part,
    next_note_id,
)
from ._oxml_fields import field_to_link, noteref_fields, set_field_result, set_field_style
from ._oxml_fonts import MarkFont
from ._oxml_notes import (
    NOTE_NUMBER_FORMATS,
    CitationRef,
    citation_refs,
    note_link_targets,
    notes_by_id,
    other_note_kinds,
    repeat_refs,
    sequential_numbers,
    set_custom_mark,
    set_note_mark,
    set_note_number_format,
)
from ._oxml_page import paper_size, set_page_size
from .office_file import save_in_place

_HINT_REBUILD = "rebuild it with pandoc --filter pandoc-citeledger"


def _open(path: Path) -> Any:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    if not path.is_file():
        raise BadInput(f"{path}: no such file", hint="give the .docx that pandoc wrote")
    check_archive(path)
    try:
        return docx.Document(str(path))
    except (zipfile.BadZipFile, PackageNotFoundError, KeyError, ValueError) as exc:
        raise BadInput(
            f"{path}: not a Word document ({exc.__class__.__name__}: {exc})",
            hint="give the .docx that pandoc wrote",
        ) from None
    except XMLSyntaxError as exc:
        raise BadInput(f"{path}: broken XML inside ({exc})", hint=_HINT_REBUILD) from None


def _related(part: Any, reltype: str) -> Any | None:
    try:
        return part.part_related_by(reltype)
    except KeyError:
        return None


def _check_note(path: Path, source_id: int, note: Any, part: Any, ledger: Ledger) -> None:
    source = ledger.get(source_id)
    if source is None:
        raise BadInput(
            f"{path}: the note of [{source_id}] cites an id that ledger {ledger.path} lacks",
            hint="finish with the ledger the build used: --ledger PATH",
        )
    urls = note_link_targets(note, part)
    if urls and not any(ledger.find_url(u) is source for u in urls):
        raise BadInput(
            f"{path}: the note of [{source_id}] links {urls[0]}, but [{source_id}] in "
            f"{ledger.path} is {source.url}",
            hint="finish with the ledger the build used: --ledger PATH",
        )


def _mark_font(document: Any) -> MarkFont:
    theme_part = _related(document.part, RT.THEME)
    theme = None
    if theme_part is not None:
        try:
            theme = parse_xml(theme_part.blob)
        except XMLSyntaxError:
            theme = None
    return MarkFont(document.styles.element, theme)


def postprocess_docx(path: Path, *, ledger: Ledger, options: Options) -> None:
    """Post-process the .docx at ``path`` in place (see the module docstring)."""
    # The work makes hundreds of thousands of short-lived element proxies and leaves no garbage
    # cycle but the document itself: collection passes on the way find nothing to free and,
    # on a report with 12,000 citations, cost a tenth of the renderer's time.
    with no_gc():
        _postprocess(Path(path), ledger, options)


def _postprocess(path: Path, ledger: Ledger, options: Options) -> None:
    document = _open(path)
    body = document.element.body
    parts = {
        "footnote": _related(document.part, RT.FOOTNOTES),
        "endnote": _related(document.part, RT.ENDNOTES),
    }
    refs = citation_refs(body)
    # Every citation with a note of its own: each source's first, then its shortened repeats.
    cites = [*refs.values(), *repeat_refs(body)]
    by_id = {k: notes_by_id(p.element, k) for k, p in parts.items() if p is not None}
    notes: dict[int, Any] = {}  # id() of a CitationRef -> its note
    for ref in cites:
        part = parts[ref.kind]
        note = by_id[ref.kind].get(ref.note_id) if part else None
        if note is None:
            raise BadInput(
                f"{path}: the {ref.kind} of source [{ref.source_id}] is missing",
                hint=_HINT_REBUILD,
            )
        _check_note(path, ref.source_id, note, part, ledger)
        notes[id(ref)] = note

    moving = [ref for ref in cites if ref.kind == "footnote"]
    if options.notes == "endnotes" and moving:
        notes.update(_move_to_endnotes(document, parts, notes, moving))

    roots = [body, *(p.element for p in parts.values() if p is not None)]
    fields = [f for root in roots for f in noteref_fields(root) if f.source_id in refs]
    for fld in fields:
        if refs[fld.source_id].kind == "endnote":
            set_field_style(fld, FOOTNOTE_REFERENCE, ENDNOTE_REFERENCE)
    if options.numbering == "ledger":
        fonts = _mark_font(document)
        for ref in cites:
            set_custom_mark(ref, str(ref.source_id))
            set_note_mark(notes[id(ref)], ref.kind, str(ref.source_id), fonts)
        # Each field is let go as soon as it is a link, so the runs it held (out of the document
        # by then) are freed while still fresh: freeing the 60,000 runs of 12,000 fields when
        # the function returns took 0.07 s longer.
        fields.reverse()
        while fields:
            fld = fields.pop()
            field_to_link(fld, str(fld.source_id))
    else:
        numbers = sequential_numbers(body)
        for fld in fields:
            ref = refs[fld.source_id]
            number = numbers.get((ref.kind, ref.note_id))
            if number is not None:
                set_field_result(fld, str(number))
    _separate_other_notes(body, cites, options)
    size = paper_size(path)
    if size is not None:
        set_page_size(body, size)
    save_in_place(document, path)


def _separate_other_notes(body: Any, refs: list[CitationRef], options: Options) -> None:
    """Give the notes that cite no ledger source a series of their own wherever Word would
    otherwise show a mark twice: next to ledger-id marks, or as footnotes beside citation
    endnotes (footnotes and endnotes are numbered apart). Citation notes numbered in Word's own
    series with the rest (``sequential`` footnotes) share one series and need nothing."""
    if not refs:
        return
    cited = {ref.kind for ref in refs}
    for kind in sorted(other_note_kinds(body, (r.reference for r in refs))):
        if options.numbering == "ledger" or kind not in cited:
            fmt = NOTE_NUMBER_FORMATS[options.other_notes]
            set_note_number_format(body, kind, fmt)


def _move_to_endnotes(
    document: Any,
    parts: dict[str, Any],
    notes: dict[int, Any],
    moving: list[CitationRef],
) -> dict[int, Any]:
    footnotes = parts["footnote"]
    endnotes = parts["endnote"]
    if endnotes is None:
        endnotes = new_endnotes_part(document.part.package)
        document.part.relate_to(endnotes, RT.ENDNOTES)
        parts["endnote"] = endnotes
    ensure_endnote_styles(document.styles.element)
    ensure_endnote_settings(document.settings.element)
    ensure_endnote_section_format(document.element.body)
    next_id = next_note_id(endnotes.element, "endnote")
    relations = Relations(endnotes)
    moved: dict[int, Any] = {}
    # The endnotes part lists them as a reader meets them.
    moving = sorted(moving, key=_document_order(document.element.body))
    for ref in moving:
        moved[id(ref)] = footnote_to_endnote(
            ref, notes[id(ref)], next_id, footnotes, endnotes, relations
        )
        next_id += 1
    drop_unused_rels(footnotes, [RT.HYPERLINK])
    return moved


def _document_order(body: Any) -> Any:
    # The elements are held in ``seen`` while the ids key them: a freed proxy's id is reused.
    seen = list(body.iter(W_FOOTNOTEREFERENCE))
    order = {id(el): n for n, el in enumerate(seen)}

    def key(ref: CitationRef) -> int:
        return order.get(id(ref.reference), len(seen))

    return key
