"""pptx: Sources slides that fit, with live links, and no "Notes" slide.

Pandoc writes the deck; python-pptx then rebuilds its Sources slides from the ledger, in the
order the filter listed them, as ``[n] Title — URL`` with every URL a live hyperlink, paginated
into "Sources (1/3)", "Sources (2/3)", ... by how many lines fit the body placeholder of the
deck's own layout at a readable size. Pandoc's "Notes" slide (where it puts every footnote of
a deck) is removed; the filter already moves footnotes into speaker notes.

Two ways to get there::

    citeledger convert deck.md -o deck.pptx        # filter, pandoc and this renderer in one go

    pandoc deck.md --filter pandoc-citeledger -o deck.pptx
    citeledger finish deck.pptx                     # this renderer on the written file

The pandoc-only path already ends with Sources slides: the filter writes a "Sources" heading at
the deck's slide level followed by one paragraph per cited source, paginated by the same
estimate for pandoc's default layout and body size. ``citeledger finish`` (``postprocess_pptx``)
repaginates them for the deck's real layout at :data:`SOURCES_FONT_PT` and checks every link.

How many lines fit is estimated by :mod:`citeledger.formats.slide_fit` (python-pptx cannot measure
rendered text); the filter paginates with the same estimate.

Autofit is switched off on the rebuilt slides so PowerPoint and LibreOffice do not shrink text
that the estimate says fits. Each entry hangs: ``[n]``, a tab to the hanging indent, then the
title and URL, its wrapped lines aligned under the title.

Before the list is rebuilt, every other slide is fitted (:mod:`.pptx_fit`: too long a slide
goes on on "(cont.)" slides, too tall a text is set smaller); after it, every ``[n]`` on those
slides becomes a jump to the Sources slide that lists entry n (:mod:`.pptx_marks`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..document.sources_titles import is_sources_title, own_titles
from ..formats.slide_fit import (
    INSET_LR,
    INSET_TB,
    PANDOC_DEFAULT_BODY,
    SOURCES_FONT_PT,
    SPACE_BEFORE,
    BodyBox,
    SlideEntry,
    entry_text,
    hanging_indent,
    paginate,
    sources_page_title,
)
from .office_file import save_in_place

if TYPE_CHECKING:
    from ..ledger import Ledger
    from ..options import Options

NOTES_TITLE = "Notes"
_ENTRY_NUMBER = re.compile(r"^\s*\[([0-9]{1,6})\]")


def postprocess_pptx(path: Path, *, ledger: Ledger, options: Options) -> None:
    """Rebuild the Sources slides of the deck at ``path`` in place (see the module docstring)."""
    from ._pptx_oxml import compiled_placeholder_lookup, direct_relationships_xml

    with compiled_placeholder_lookup(), direct_relationships_xml():
        _postprocess(path, ledger=ledger, options=options)


def _postprocess(path: Path, *, ledger: Ledger, options: Options) -> None:
    from pptx import Presentation
    from pptx.enum.text import MSO_AUTO_SIZE

    from ..errors import BadInput, PandocError
    from ._pptx_oxml import SlideAdder, delete_slides, entry_paragraph
    from .pptx_fit import fit_slides
    from .pptx_marks import link_marks

    try:
        prs = Presentation(str(path))
    except Exception as exc:  # python-pptx raises several types for a file that is no deck
        broken = _undeclared_prefix(path)
        if broken is not None:
            part, element = broken
            raise PandocError(
                f"{path}: pandoc wrote broken XML: {part} holds <{element}> without declaring "
                f"its namespace ({element.split(':')[0]}); pandoc's pptx writer does this for "
                "math inside a table cell",
                hint="move the math out of the table (into the slide's text), or write it as "
                "plain text in the cell, then build again",
            ) from None
        raise BadInput(
            f"{path}: not a PowerPoint file ({type(exc).__name__})",
            hint="give the .pptx that pandoc wrote",
        ) from None

    titles = own_titles(options.sources_title)
    slides = list(prs.slides)
    delete_slides(prs, list(_pandoc_notes_slides(slides)))
    slides = list(prs.slides)
    source_slides = [s for s in slides if is_sources_title(_title(s), titles)]
    body_slides = [s for s in slides if s not in source_slides]
    entries = _entries_from_sources_slides(source_slides, ledger)
    if not entries:
        entries = _entries_from_markers(body_slides, ledger)

    layout = _content_layout(prs, source_slides)
    delete_slides(prs, source_slides)
    fit_slides(prs, body_slides)
    body_slides = list(prs.slides)
    after = _after(slides, source_slides)
    position = next((k for k, s in enumerate(body_slides) if s in after), len(body_slides))
    if not entries:
        save_in_place(prs, path)
        return

    hang = hanging_indent(entries, _font_pt(layout))
    box = _body_box(layout, hang)
    pages = paginate(entries, box)
    targets: dict[int, Any] = {}
    adder = SlideAdder(prs)
    for k, page in enumerate(pages, 1):
        slide = adder.add(layout, position + k - 1)
        if slide.shapes.title is not None:
            slide.shapes.title.text = sources_page_title(options.sources_title, k, len(pages))
        body = _body_placeholder(slide)
        if body is None:
            continue
        frame = body.text_frame
        frame.clear()
        frame.word_wrap = True
        frame.auto_size = MSO_AUTO_SIZE.NONE
        frame.margin_left = frame.margin_right = INSET_LR
        frame.margin_top = frame.margin_bottom = INSET_TB
        for n, entry in enumerate(page):
            para = frame.paragraphs[0] if n == 0 else frame.add_paragraph()
            entry_paragraph(para, space_before_pt=SPACE_BEFORE * box.font_pt, hang=hang)
            _entry_runs(para, entry, box.font_pt)
            targets.setdefault(_number(entry), slide)
    link_marks(body_slides, targets, {_number(e): _tooltip(e) for e in entries})
    save_in_place(prs, path)


def _after(slides: list[Any], source_slides: list[Any]) -> list[Any]:
    """The slides that followed the first Sources slide (where the new ones go before)."""
    if not source_slides:
        return []
    return slides[slides.index(source_slides[0]) + 1 :]


def _number(entry: SlideEntry) -> int:
    match = _ENTRY_NUMBER.match(entry.text)
    return int(match.group(1)) if match else entry.source_id


def _tooltip(entry: SlideEntry) -> str:
    """The ScreenTip of a mark linked to this entry: what the mark is and which source."""
    title = _ENTRY_NUMBER.sub("", entry.text).strip().rstrip("\u2014").strip()
    name = title or entry.url
    if len(name) > 120:
        name = name[:119].rstrip() + "\u2026"
    return f"[{_number(entry)}] source: {name}"


def _entry_runs(para: Any, entry: SlideEntry, font_pt: float) -> None:
    """``[n]``, a tab to the hanging indent, ``Title — URL``, then `` (archived URL)`` when
    there is one: the URLs live links."""
    from pptx.util import Pt

    number = _ENTRY_NUMBER.match(entry.text)
    lead = number.group(0).strip() if number else ""
    rest = entry.text[number.end() :].lstrip() if number else entry.text
    parts = [(lead + "\t", None), (rest, None), (entry.url, entry.url)]
    if entry.archived:
        parts += [(" (archived ", None), (entry.archived, entry.archived), (")", None)]
    for text, address in parts:
        if not text:
            continue
        run = para.add_run()
        run.text = text
        run.font.size = Pt(font_pt)
        if address:
            run.hyperlink.address = address


_PREFIXED = re.compile(rb"<([A-Za-z][\w.-]*):([A-Za-z][\w.-]*)")


def _undeclared_prefix(path: Path) -> tuple[str, str] | None:
    """``(part, element)`` of the first element whose namespace prefix its part never declares
    (pandoc 3's ``<a14:m>`` around math in a table cell), or None: what makes a deck that
    python-pptx and PowerPoint refuse."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                if not name.endswith(".xml"):
                    continue
                data = archive.read(name)
                for m in _PREFIXED.finditer(data):
                    prefix = m.group(1)
                    if prefix != b"xml" and b"xmlns:" + prefix + b"=" not in data:
                        return name, m.group(0)[1:].decode("ascii", "replace")
    except (OSError, zipfile.BadZipFile):
        return None
    return None


def _title(slide: Any) -> str:
    shape = slide.shapes.title
    return shape.text_frame.text if shape is not None and shape.has_text_frame else ""


def _pandoc_notes_slides(slides: list[Any]) -> list[Any]:
    """Pandoc's footnote slide: the last slide, titled "Notes", holding numbered paragraphs."""
    if not slides or _title(slides[-1]).strip() != NOTES_TITLE:
        return []
    texts = [
        p.text
        for shape in slides[-1].shapes
        if shape.has_text_frame and shape != slides[-1].shapes.title
        for p in shape.text_frame.paragraphs
        if p.text.strip()
    ]
    if texts and all(re.match(r"^\d+\.\s", t) for t in texts):
        return [slides[-1]]
    return []


def _body_placeholder(slide: Any) -> Any:
    for shape in slide.placeholders:
        if shape.placeholder_format.idx == 1:
            return shape
    return None


def _content_layout(prs: Any, source_slides: list[Any]) -> Any:
    if source_slides:
        return source_slides[0].slide_layout
    for layout in prs.slide_layouts:
        if layout.name == "Title and Content":
            return layout
    return prs.slide_layouts[1 if len(prs.slide_layouts) > 1 else 0]


def _font_pt(layout: Any) -> float:
    return _body_box(layout, 0).font_pt


def _body_box(layout: Any, hang: int) -> BodyBox:
    """The body placeholder's box, less the hanging indent every wrapped line keeps."""
    for shape in layout.placeholders:
        if shape.placeholder_format.idx == 1 and shape.width and shape.height:
            return BodyBox(int(shape.width) - hang, int(shape.height))
    # No body placeholder: the area under a title on a 16:9 slide of pandoc's default size.
    width = PANDOC_DEFAULT_BODY.width - hang
    return replace(PANDOC_DEFAULT_BODY, width=width, font_pt=SOURCES_FONT_PT)


def _entries_from_sources_slides(slides: list[Any], ledger: Ledger) -> list[SlideEntry]:
    """The filter's list, read back: each paragraph's number and linked URL, titles from the
    ledger (the deck's own text may have been edited, the ledger is the record)."""
    entries: list[SlideEntry] = []
    seen: set[int] = set()
    for slide in slides:
        for shape in slide.shapes:
            if not shape.has_text_frame or shape == slide.shapes.title:
                continue
            for para in shape.text_frame.paragraphs:
                number = _ENTRY_NUMBER.match(para.text)
                url = next((r.hyperlink.address for r in para.runs if r.hyperlink.address), None)
                if number is None:
                    continue
                source = ledger.find_url(url) if url else ledger.get(int(number.group(1)))
                if source is None or source.id in seen:
                    continue
                seen.add(source.id)
                text = entry_text(number.group(1), source.display_lead)
                entries.append(SlideEntry(text, source.url, source.id, source.archived or ""))
    return entries


def _entries_from_markers(slides: list[Any], ledger: Ledger) -> list[SlideEntry]:
    """A deck made without the filter: the ids its slides cite, in ledger order."""
    from ..document.grammar import Marker, split_markers

    cited: set[int] = set()
    for slide in slides:
        for shape in slide.shapes:
            if shape.has_text_frame:
                for piece in split_markers(shape.text_frame.text):
                    if isinstance(piece, Marker):
                        cited.update(piece.ids)
    out: list[SlideEntry] = []
    for source in ledger.sources:
        if source.id in cited:
            text = entry_text(source.id, source.display_lead)
            out.append(SlideEntry(text, source.url, source.id, source.archived or ""))
    return out
