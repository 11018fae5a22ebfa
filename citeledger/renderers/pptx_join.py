"""Decks pandoc wrote from consecutive parts of one document, joined into the deck one run writes.

pandoc's pptx writer costs more than in proportion to the document (a 5 MB report's deck takes
five times a 1.8 MB one's), so ``publish/convert/deck_parts.py`` has it write a long deck in
parts, cut where a slide begins, and this module joins them: the first part's package, then
each later part's slides appended in order, with what they carry (their relationships, their
images, their speaker notes). Every part was written with the same options and reference
document, so every part they share (masters, layouts, themes, properties) is the same; that is
checked, and a part that holds anything else refuses the join (:class:`CannotJoin`), as does a
package this module does not recognise: the caller then has pandoc write the whole deck.

A slide's own XML is copied byte for byte, since its relationship ids are its own; what changes
is only where its relationships point (a slide's new name, an image's new name) and the
package's lists of slides, parts and content types.
"""

from __future__ import annotations

import hashlib
import io
import posixpath
import re
import zipfile
from collections.abc import Sequence

from lxml import etree

_PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_TYPES = "http://schemas.openxmlformats.org/package/2006/content-types"
_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_RT = _R + "/"
_SLIDE, _NOTES, _NOTES_MASTER = _RT + "slide", _RT + "notesSlide", _RT + "notesMaster"
_LAYOUT, _IMAGE, _MEDIA = _RT + "slideLayout", _RT + "image", _RT + "media"
_CT = "application/vnd.openxmlformats-officedocument.presentationml."
_SLIDE_CT, _NOTES_CT = _CT + "slide+xml", _CT + "notesSlide+xml"
_NOTES_MASTER_CT = _CT + "notesMaster+xml"
_THEME_CT = "application/vnd.openxmlformats-officedocument.theme+xml"

_PRESENTATION = "ppt/presentation.xml"
_PRESENTATION_RELS = "ppt/_rels/presentation.xml.rels"
_CONTENT_TYPES = "[Content_Types].xml"
# Written from the first part only: the document's properties come from its metadata, which
# only the first part is given whole.
_FIRST_ONLY = re.compile(r"^docProps/")
# Parts each deck numbers on its own, renamed as they are appended.
_PER_SLIDE = re.compile(r"^ppt/(slides|notesSlides|media)/")
_NOTES_MASTER_PART = re.compile(r"^ppt/notesMasters/")
_REL_ID = re.compile(r"^rId(\d+)$")
# Elements of the presentation's list that come after the notes masters' list, in schema order.
_AFTER_NOTES_MASTERS = ("handoutMasterIdLst", "sldIdLst", "sldSz", "notesSz")


class CannotJoin(Exception):
    """The parts are not decks this module joins; pandoc writes the whole deck instead."""


def join_decks(decks: Sequence[bytes]) -> bytes:
    """One deck of ``decks`` (each a pptx package pandoc wrote), their slides in order."""
    if not decks:
        raise CannotJoin("no deck")
    try:
        return _Joined(decks[0]).add_all(decks[1:])
    except (zipfile.BadZipFile, KeyError, ValueError, etree.XMLSyntaxError) as exc:
        raise CannotJoin(f"{type(exc).__name__}: {exc}") from None


def _parse(data: bytes) -> etree._Element:
    return etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))


def _xml(root: etree._Element) -> bytes:
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True))


def _rels_path(part: str) -> str:
    folder, name = posixpath.split(part)
    return posixpath.join(folder, "_rels", name + ".rels")


def _resolve(part: str, target: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(part), target))


def _relative(part: str, target: str) -> str:
    return posixpath.relpath(target, posixpath.dirname(part))


def _number(name: str) -> int:
    found = re.search(r"(\d+)\.\w+$", name)
    return int(found.group(1)) if found else 0


class _Joined:
    """The first deck's package, the later decks' slides appended to it."""

    def __init__(self, first: bytes) -> None:
        self.archive = zipfile.ZipFile(io.BytesIO(first))
        self.names = self.archive.namelist()
        self.files: dict[str, bytes] = {name: self.archive.read(name) for name in self.names}
        self.presentation = _parse(self.files[_PRESENTATION])
        self.pres_rels = _parse(self.files[_PRESENTATION_RELS])
        self.types = _parse(self.files[_CONTENT_TYPES])
        self.slide_list = self.presentation.find(f"{{{_P}}}sldIdLst")
        if self.slide_list is None:
            raise CannotJoin("the first deck has no slide list")
        ids = [int(el.get("id", "0")) for el in self.slide_list]
        self.next_slide_id = max([255, *ids]) + 1
        rel_ids = [
            int(m.group(1)) for el in self.pres_rels if (m := _REL_ID.match(el.get("Id", "")))
        ]
        self.next_rel = max([0, *rel_ids]) + 1
        self.count = {
            kind: max([0, *(_number(n) for n in self.names if n.startswith(f"ppt/{kind}/"))])
            for kind in ("slides", "notesSlides", "media")
        }
        self.defaults = {
            el.get("Extension", "").lower() for el in self.types if _tag(el) == "Default"
        }
        self.media_by_hash: dict[str, str] = {}
        for name in self.names:
            if name.startswith("ppt/media/"):
                self.media_by_hash.setdefault(hashlib.sha256(self.files[name]).hexdigest(), name)
        masters = [el for el in self.pres_rels if el.get("Type") == _NOTES_MASTER]
        self.notes_master: str | None = (
            _resolve(_PRESENTATION, masters[0].get("Target", "")) if masters else None
        )
        self.added: list[str] = []
        self.number = 0

    def add_all(self, decks: Sequence[bytes]) -> bytes:
        for deck in decks:
            self._add(zipfile.ZipFile(io.BytesIO(deck)))
        return self._write()

    def _add(self, deck: zipfile.ZipFile) -> None:
        files = {name: deck.read(name) for name in deck.namelist()}
        if self.notes_master is None and any(_NOTES_MASTER_PART.match(n) for n in files):
            self._take_notes_master(files)
        for el in _parse(files[_CONTENT_TYPES]):
            extension = el.get("Extension", "").lower()
            if _tag(el) == "Default" and extension not in self.defaults:
                self.types.insert(0, el)
                self.defaults.add(extension)
        shared = [n for n in files if not _PER_SLIDE.match(n) and not _FIRST_ONLY.match(n)]
        for name in shared:
            if name in (_PRESENTATION, _PRESENTATION_RELS, _CONTENT_TYPES):
                continue
            if name not in self.files:
                raise CannotJoin(f"a later deck holds {name}, the first does not")
            if files[name] != self.files[name]:
                raise CannotJoin(f"{name} differs between the decks")
        presentation = _parse(files[_PRESENTATION])
        rels = {el.get("Id"): el for el in _parse(files[_PRESENTATION_RELS])}
        slides = presentation.find(f"{{{_P}}}sldIdLst")
        order = []
        for el in slides if slides is not None else []:
            rel = rels[el.get(f"{{{_R}}}id")]
            if rel.get("Type") != _SLIDE:
                raise CannotJoin("a slide list entry that is no slide")
            order.append(_resolve(_PRESENTATION, rel.get("Target", "")))
        new_names = {old: self._next("slides", "slide", ".xml") for old in order}
        for old in order:
            self._add_slide(files, old, new_names)

    def _next(self, kind: str, stem: str, suffix: str) -> str:
        self.count[kind] += 1
        return f"ppt/{kind}/{stem}{self.count[kind]}{suffix}"

    def _add_slide(self, files: dict[str, bytes], old: str, new_names: dict[str, str]) -> None:
        new = new_names[old]
        self.number = len(self.slide_list) + 1  # the slide's number in the joined deck
        self.files[new] = _numbered(files[old], self.number)
        self.added.append(new)
        self._override(new, _SLIDE_CT)
        rels_name = _rels_path(old)
        if rels_name in files:
            rels = _parse(files[rels_name])
            for rel in rels:
                self._retarget(rel, old, new, files, new_names)
            self.files[_rels_path(new)] = _xml(rels)
            self.added.append(_rels_path(new))
        rel_id = self._relate(_SLIDE, new)
        entry = etree.SubElement(self.slide_list, f"{{{_P}}}sldId")
        entry.set("id", str(self.next_slide_id))
        entry.set(f"{{{_R}}}id", rel_id)
        self.next_slide_id += 1

    def _retarget(
        self,
        rel: etree._Element,
        old: str,
        new: str,
        files: dict[str, bytes],
        new_names: dict[str, str],
    ) -> None:
        """Point a relationship of the slide ``old`` (now ``new``) where its target now is."""
        kind = rel.get("Type")
        if rel.get("TargetMode") == "External":
            return
        target = _resolve(old, rel.get("Target", ""))
        if kind == _LAYOUT:
            if target not in self.files:
                raise CannotJoin(f"a slide's layout {target} is not in the first deck")
            return
        if kind == _SLIDE:  # a link to another slide of the same part
            if target not in new_names:
                raise CannotJoin(f"a slide links to {target}, not a slide of its part")
            rel.set("Target", _relative(new, new_names[target]))
            return
        if kind in (_IMAGE, _MEDIA):
            rel.set("Target", _relative(new, self._media(files[target], target)))
            return
        if kind == _NOTES:
            rel.set("Target", _relative(new, self._notes(files, target, new)))
            return
        raise CannotJoin(f"a slide's relationship of type {kind}")

    def _media(self, data: bytes, old: str) -> str:
        digest = hashlib.sha256(data).hexdigest()
        known = self.media_by_hash.get(digest)
        if known is not None and known.rsplit(".", 1)[-1] == old.rsplit(".", 1)[-1]:
            return known
        suffix = posixpath.splitext(old)[1]
        name = self._next("media", "image", suffix)
        self.files[name] = data
        self.added.append(name)
        self.media_by_hash.setdefault(digest, name)
        if suffix.lstrip(".").lower() not in self.defaults:
            raise CannotJoin(f"an image of type {suffix} without a content type")
        return name

    def _notes(self, files: dict[str, bytes], old: str, slide: str) -> str:
        """The notes slide ``old`` copied under a new name, pointing at ``slide``."""
        if self.notes_master is None:
            raise CannotJoin("notes without a notes master")
        new = self._next("notesSlides", "notesSlide", ".xml")
        self.files[new] = _numbered(files[old], self.number)
        self.added.append(new)
        self._override(new, _NOTES_CT)
        rels = _parse(files[_rels_path(old)])
        for rel in rels:
            target = _resolve(old, rel.get("Target", ""))
            if rel.get("Type") == _SLIDE:
                rel.set("Target", _relative(new, slide))
            elif rel.get("Type") == _NOTES_MASTER:
                if target != self.notes_master:
                    raise CannotJoin("notes of another notes master")
            elif rel.get("TargetMode") != "External":
                raise CannotJoin(f"a notes slide's relationship of type {rel.get('Type')}")
        self.files[_rels_path(new)] = _xml(rels)
        self.added.append(_rels_path(new))
        return new

    def _take_notes_master(self, files: dict[str, bytes]) -> None:
        """A later deck's notes master (and what it points to that the first deck lacks), where
        the first deck has none: pandoc writes one only into a deck with speaker notes."""
        rels = {el.get("Id"): el for el in _parse(files[_PRESENTATION_RELS])}
        presentation = _parse(files[_PRESENTATION])
        masters = presentation.find(f"{{{_P}}}notesMasterIdLst")
        if masters is None or len(masters) != 1:
            raise CannotJoin("a notes master outside the presentation's list")
        master = _resolve(_PRESENTATION, rels[masters[0].get(f"{{{_R}}}id")].get("Target", ""))
        for name in (master, _rels_path(master)):
            self.files[name] = files[name]
            self.added.append(name)
        for rel in _parse(files[_rels_path(master)]):
            if rel.get("TargetMode") == "External":
                continue
            target = _resolve(master, rel.get("Target", ""))
            if target not in self.files:  # its theme: copied, with its relationships if any
                if rel.get("Type") != _RT + "theme":
                    raise CannotJoin(f"the notes master's {target} is not in the first deck")
                for name in (target, _rels_path(target)):
                    if name in files:
                        self.files[name] = files[name]
                        self.added.append(name)
                self._override(target, _THEME_CT)
        self._override(master, _NOTES_MASTER_CT)
        rel_id = self._relate(_NOTES_MASTER, master)
        listed = etree.Element(f"{{{_P}}}notesMasterIdLst")
        etree.SubElement(listed, f"{{{_P}}}notesMasterId").set(f"{{{_R}}}id", rel_id)
        after = next((el for el in self.presentation if _tag(el) in _AFTER_NOTES_MASTERS), None)
        if after is None:
            raise CannotJoin("the presentation has no slide list")
        after.addprevious(listed)
        self.notes_master = master

    def _relate(self, kind: str, part: str) -> str:
        """A new relationship of the presentation to ``part``; its id."""
        rel_id = f"rId{self.next_rel}"
        self.next_rel += 1
        etree.SubElement(
            self.pres_rels,
            f"{{{_PKG_RELS}}}Relationship",
            Id=rel_id,
            Type=kind,
            Target=_relative(_PRESENTATION, part),
        )
        return rel_id

    def _override(self, part: str, content_type: str) -> None:
        etree.SubElement(
            self.types, f"{{{_TYPES}}}Override", PartName="/" + part, ContentType=content_type
        )

    def _renumber(self) -> None:
        """The presentation's relationship ids as pandoc gives them in one deck: the ones
        before the first slide's kept, then the slides in order, then the notes master, then
        the rest in their order; its relationships listed slides first, as pandoc lists them."""
        rels = list(self.pres_rels)
        by_id = {el.get("Id"): el for el in rels}
        slides = [by_id[el.get(f"{{{_R}}}id")] for el in self.slide_list]
        numbers = {id(el): int(m.group(1)) for el in rels if (m := _REL_ID.match(el.get("Id", "")))}
        if len(numbers) != len(rels):
            raise CannotJoin("a relationship id of the presentation pandoc does not write")
        first = min(numbers[id(el)] for el in slides) if slides else 1
        slide_set = {id(el) for el in slides}
        after = sorted(
            (el for el in rels if id(el) not in slide_set and numbers[id(el)] > first),
            key=lambda el: (el.get("Type") != _NOTES_MASTER, numbers[id(el)]),
        )
        new_ids: dict[str, str] = {}
        n = first
        for el in [*slides, *after]:
            new_ids[el.get("Id", "")] = f"rId{n}"
            n += 1
        for el in self.presentation.iter():
            old = el.get(f"{{{_R}}}id")
            if old in new_ids:
                el.set(f"{{{_R}}}id", new_ids[old])
        for el in rels:
            el.set("Id", new_ids.get(el.get("Id", ""), el.get("Id", "")))
        others = [el for el in rels if id(el) not in slide_set]
        notes = [el for el in others if el.get("Type") == _NOTES_MASTER]
        for el in rels:
            self.pres_rels.remove(el)
        for el in [*slides, *notes, *(el for el in others if el not in notes)]:
            self.pres_rels.append(el)

    def _write(self) -> bytes:
        self._renumber()
        self.files[_PRESENTATION] = _xml(self.presentation)
        self.files[_PRESENTATION_RELS] = _xml(self.pres_rels)
        self.files[_CONTENT_TYPES] = _xml(self.types)
        out = io.BytesIO()
        # Stored, not compressed: the renderer reads the deck at once and writes it compressed.
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
            for name in [_CONTENT_TYPES, *(n for n in self.names if n != _CONTENT_TYPES)]:
                archive.writestr(name, self.files[name])
            for name in self.added:
                archive.writestr(name, self.files[name])
        return out.getvalue()


# A slide number field and the number pandoc wrote into it, as a viewer that does not update
# fields shows it: the slide's number in its part's deck, made its number in the joined one.
_SLIDE_NUMBER = re.compile(
    rb'(<a:fld\b[^>]*\btype="slidenum"[^>]*>(?:(?!</a:fld>).)*?<a:t>)[0-9]*(</a:t>)', re.DOTALL
)


def _numbered(xml: bytes, number: int) -> bytes:
    if b'"slidenum"' not in xml:
        return xml
    return _SLIDE_NUMBER.sub(lambda m: m.group(1) + str(number).encode() + m.group(2), xml)


def _tag(el: etree._Element) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
