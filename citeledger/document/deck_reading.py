"""A delivered deck read back as a reader of its slides sees it.

Pandoc's pptx reader keeps a run's text but not its typeface, so code on a slide (pandoc's
writer sets it in Courier) came back as prose, and ``a[9]`` in a code block failed the verify of
a deck whose draft passed. Before pandoc reads the deck, each run set in a monospace typeface is
wrapped in two private-use characters, and after it, the text between them becomes Code, which
the marker finder never reads (:func:`read_deck`).

The same reader drops, without a word, every shape inside ``mc:AlternateContent``: a text box
holding an equation is written so, and its citations vanish from what verify checks.
:func:`unreadable_slides` names those slides, so verify can say so rather than say OK.
"""

from __future__ import annotations

import re
import tempfile
import zipfile
from pathlib import Path

from ..files import check_archive
from ..ledger.light import pattern  # compiled on first use: start-up time
from ..pandoc import read_json
from ..tree import Json, replace_elements

_OPEN, _CLOSE = "\ue000", "\ue001"
_SLIDE = pattern(r"ppt/slides/slide[0-9]+\.xml")
_RUN = pattern(r"(<a:r>(?:(?!</a:r>).)*?<a:t>)([^<]*)(</a:t>\s*</a:r>)", re.S)
_TYPEFACE = pattern(r'<a:(?:latin|cs|ea) typeface="([^"]*)"')
_MONOSPACE = frozenset(
    {"courier", "courier new", "consolas", "menlo", "monaco", "lucida console", "sf mono"}
)
_MARKED = pattern(f"{_OPEN}(.*?){_CLOSE}", re.S)


def _is_monospace(typeface: str) -> bool:
    face = typeface.lower()
    return face in _MONOSPACE or face.endswith((" mono", " code")) or " mono " in face


def _mark_code(xml: str) -> str:
    """``xml`` (a slide) with the text of each monospace run between the two marks."""

    def mark(m: re.Match[str]) -> str:
        faces = _TYPEFACE.findall(m.group(1))
        if m.group(2) and any(_is_monospace(face) for face in faces):
            return f"{m.group(1)}{_OPEN}{m.group(2)}{_CLOSE}{m.group(3)}"
        return m.group(0)

    return _RUN.sub(mark, xml)


def read_deck(path: Path, fmt: str, extra: list[str]) -> Json:
    """Pandoc's tree of the deck at ``path``, its code runs read back as Code."""
    check_archive(path)
    with zipfile.ZipFile(path) as deck:
        slides = {
            info.filename: _mark_code(deck.read(info).decode("utf-8", "replace"))
            for info in deck.infolist()
            if _SLIDE.fullmatch(info.filename)
        }
        if not any(_OPEN in xml for xml in slides.values()):
            return read_json(path, from_format=fmt, extra_args=extra)
        with tempfile.TemporaryDirectory(prefix="citeledger-deck-") as folder:
            copy = Path(folder) / "deck.pptx"
            with zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as out:
                for info in deck.infolist():
                    data = slides.get(info.filename)
                    out.writestr(info, deck.read(info) if data is None else data.encode("utf-8"))
            doc = read_json(copy, from_format=fmt, extra_args=extra)
    _marks_as_code(doc)
    return doc


def _marks_as_code(doc: Json) -> None:
    """In place: each Str holding marked text split into its prose and its Code."""

    def change(el: Json) -> list[Json] | None:
        if el.get("t") != "Str" or _OPEN not in el["c"]:
            return None
        parts = _MARKED.split(el["c"])
        out: list[Json] = []
        for i, part in enumerate(parts):
            part = part.replace(_OPEN, "").replace(_CLOSE, "")
            if part:
                out.append(
                    {"t": "Code", "c": [["", [], []], part]} if i % 2 else {"t": "Str", "c": part}
                )
        return out

    replace_elements(doc.get("blocks", []), change)


_TITLE_SHAPE = pattern(
    r"<p:sp>(?:(?!</p:sp>).)*?type=\"(?:ctrT|t)itle\"(?:(?!</p:sp>).)*</p:sp>", re.S
)
_ALTERNATE = pattern(r"<mc:AlternateContent\b.*?</mc:AlternateContent>", re.S)
_TEXT = pattern(r"<(?:a|m):t(?: [^>]*)?>([^<]*)</(?:a|m):t>")
_PRESENTATION_ID = pattern(r"<p:sldId\b[^>]*\br:id=\"([^\"]+)\"")
_RELATIONSHIP = pattern(r"<Relationship\b[^>]*>")


def _slide_order(deck: zipfile.ZipFile) -> list[str]:
    """The deck's slide parts in the order the presentation shows them."""
    try:
        presentation = deck.read("ppt/presentation.xml").decode("utf-8", "replace")
        rels = deck.read("ppt/_rels/presentation.xml.rels").decode("utf-8", "replace")
    except KeyError:
        return sorted((n for n in deck.namelist() if _SLIDE.fullmatch(n)), key=_slide_number)
    targets = {}
    for tag in _RELATIONSHIP.findall(rels):
        rid, target = re.search(r'Id="([^"]*)"', tag), re.search(r'Target="([^"]*)"', tag)
        if rid and target:
            targets[rid.group(1)] = "ppt/" + target.group(1).lstrip("/").removeprefix("ppt/")
    return [targets[rid] for rid in _PRESENTATION_ID.findall(presentation) if rid in targets]


def _slide_number(name: str) -> int:
    return int(re.sub(r"[^0-9]", "", name) or 0)


def unreadable_slides(path: Path) -> list[tuple[int, str]]:
    """(number, title) of each slide of the deck at ``path`` holding text that pandoc's reader
    drops (a shape inside ``mc:AlternateContent``, as an equation's text box is written)."""
    found = []
    with zipfile.ZipFile(path) as deck:
        names = set(deck.namelist())
        for number, name in enumerate(_slide_order(deck), 1):
            if name not in names:
                continue
            xml = deck.read(name).decode("utf-8", "replace")
            if any(_TEXT.search(box) for box in _ALTERNATE.findall(xml)):
                title = _TITLE_SHAPE.search(xml)
                text = "".join(_TEXT.findall(title.group(0))) if title else ""
                found.append((number, text.strip()))
    return found
