"""Citations a Word file carries as footnotes.

``convert`` turns ``[n]`` into real Word footnotes holding "Title. URL (accessed DATE)", and a
reviewer may edit the file after that; no bracket survives in the text. Read back through pandoc,
each footnote is a Note element, so a note whose text or link targets hold a URL the ledger knows
cites that source where it stands. The footnotes are then the list of sources, which is why the
verifier requires no Sources block from such a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..ledger import Ledger
from ..ledger.urls import url_key
from ..tree import Json, elements, stringify

_URL = re.compile(r"https?://[^\s\"'<>)\]}]+")
_TRAILING = ".,;:!?"


@dataclass(slots=True)
class NoteCitations:
    """``ids`` maps ``id()`` of each citing Note element, and of each internal Link back to
    such a note (a later citation of the same source), to the ledger ids it names;
    ``unknown`` lists (heading, url) of note URLs the ledger does not hold."""

    ids: dict[int, tuple[int, ...]] = field(default_factory=dict)
    unknown: list[tuple[str, str]] = field(default_factory=list)
    order: list[int] = field(default_factory=list)


def note_citations(doc: Json, ledger: Ledger, *, skip: range = range(0)) -> NoteCitations:
    """Walk every footnote of ``doc`` (top-level blocks in ``skip`` excepted)."""
    found = NoteCitations()
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
            for url in _urls(note["c"]):
                source = ledger.find_url(url)
                if source is None:
                    found.unknown.append((heading, url))
                elif source.id not in ids:
                    ids.append(source.id)
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
            for el in cur:
                if isinstance(el, dict) and el.get("t") == "Note":
                    out.append((el, anchor))
                    anchor = ""
                    continue
                anchor = _bookmark(el)
            stack.extend(reversed([el for el in cur if not _is_note(el)]))
    return out


def _is_note(el: Json) -> bool:
    return isinstance(el, dict) and el.get("t") == "Note"


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
    for m in _URL.finditer(stringify(blocks)):
        targets.append(m.group(0).rstrip(_TRAILING))
    return list(dict.fromkeys(url_key(t) for t in targets))
