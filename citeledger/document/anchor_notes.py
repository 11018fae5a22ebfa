"""Citations that are numbered links to the draft's own list of references.

An HTML report (a research agent's page, a Google Docs or Wikipedia export) cites as
``floats.<sup><a href="#ref-1">[1]</a></sup>`` and lists ``<li id="ref-1"><a
href="https://...">Title</a></li>`` at its end; pandoc reads the citation as a Link to
``#ref-1`` and the entry as the paragraph holding the element whose id that is. Such a draft
cites by no ledger id, so verify must not call it "citations OK" (``verify/foreign.py`` counts
them), and ``import`` turns each into a footnote holding its entry (:func:`as_footnotes`),
which the report reader then registers as it registers any footnote citation.

Held narrow, as the footnote rule is: the link's text is a number (``1``, ``[1]``, ``(1)``),
its target is further on and its paragraph is a source's entry (a URL, and at most a
reference's words beside it), and it takes two such links for a draft to cite this way.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ledger.light import pattern
from ..tree import Blocks, Json, elements, replace_elements, stringify

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NUMBER = pattern(r"[\[(]?[0-9]{1,4}[\])]?")
_URL = pattern(r"https?://\S+")
_WORD = pattern(r"\w+")
# An entry is a URL with at most a reference's words beside it: an encyclopedia's cites its
# authors, title, work, date, an archived copy and when it was retrieved.
_ENTRY_WORDS = 80


@dataclass
class AnchorCitation:
    """A numbered link (``link``) to the paragraph or Div (``entry``) that lists its source."""

    link: Json
    entry: Json


def anchor_citations(blocks: Blocks, *, notes: bool = False) -> list[AnchorCitation]:
    """The numbered links of ``blocks`` to one of its own source entries further on, in
    document order (a note's link back to the text is none); ``notes``: also those to a note
    that links back to them (a Google Docs export's note naming a printed book), which are
    footnotes as well, though they name no page."""
    walk = _Walk()
    walk.walk(blocks, None)
    found: list[AnchorCitation] = []
    verdicts: dict[int, bool] = {}
    for link, block in walk.links:
        entry = walk.targets.get(link["c"][2][0][1:])
        if (
            entry is None
            or walk.order.get(id(entry), -1) <= walk.order.get(id(block), -1)
            or not _NUMBER.fullmatch(stringify(link["c"][1]))
        ):
            continue
        if id(entry) not in verdicts:
            verdicts[id(entry)] = is_entry(entry)
        if verdicts[id(entry)] or (notes and _links_back(entry, link)):
            found.append(AnchorCitation(link, entry))
    return found


_WITH_ATTR = frozenset({"Div", "Span", "Link", "Image", "Code", "CodeBlock", "Figure", "Table"})
# A link's label that is a note's number or letter (``[1]``, ``[b]``).
_LABEL = pattern(r"[\[(]?\w{1,3}[\])]?")


class _Walk:
    """Every element id mapped to the paragraph (or Div) that holds it, every link to an id
    in the document with the paragraph it stands in, and the paragraphs' document order."""

    def __init__(self) -> None:
        self.targets: dict[str, Json] = {}
        self.links: list[tuple[Json, Json | None]] = []
        self.order: dict[int, int] = {}
        self.ids: set[str] = set()  # every element's id, headings' too

    def walk(self, node: object, block: Json | None) -> None:
        if isinstance(node, list):
            for item in node:
                self.walk(item, block)
            return
        if not isinstance(node, dict):
            return
        t = node.get("t")
        c: Any = node.get("c")
        if t in ("Para", "Plain", "Div"):
            self.order[id(node)] = len(self.order)
        attr = c[1] if t == "Header" else c[0] if t in _WITH_ATTR else None
        if attr and attr[0]:
            self.ids.add(attr[0])
        if t in ("Para", "Plain"):
            block = node
        elif t == "Div" and c[0][0]:
            self.targets.setdefault(c[0][0], node)
        elif t in ("Span", "Link") and c[0][0] and block is not None:
            self.targets.setdefault(c[0][0], block)
        if t == "Link" and c[2][0].startswith("#") and len(c[2][0]) > 1:
            self.links.append((node, block))
        if isinstance(c, list):
            self.walk(c, block)


def _links_back(entry: Json, link: Json) -> bool:
    """Whether ``entry`` holds a link back to ``link`` (by the link's own id)."""
    own = link["c"][0][0]
    return bool(own) and any(
        el.get("t") == "Link" and el["c"][2][0] == "#" + own for el in elements(entry)
    )


def is_entry(entry: Json) -> bool:
    """Whether ``entry`` lists a source: a web address, with at most a reference's words
    beside it (its links back into the text, images and raw markup aside)."""
    text = stringify(_clean(_inlines_of(entry)))
    urls = [
        el
        for el in elements(entry)
        if el.get("t") == "Link" and el["c"][2][0].startswith(("http://", "https://"))
    ]
    if not urls and not _URL.search(text):
        return False
    return len(_WORD.findall(_URL.sub(" ", text))) <= _ENTRY_WORDS


def as_footnotes(doc: Json) -> int:
    """Each numbered link to a source entry in ``doc`` made a footnote holding the entry's
    text and links (links back into the text dropped), the entries taken out of their lists,
    and a heading left with nothing under it taken out too. Returns how many there were."""
    blocks: Blocks = doc.get("blocks", [])
    walk = _Walk()
    walk.walk(blocks, None)
    found = anchor_citations(blocks, notes=True)
    if not any(is_entry(a.entry) for a in found):
        return 0
    notes = {id(a.link): _note(a.entry) for a in found}
    entries = {id(a.entry) for a in found}

    def change(el: Json) -> list[Json] | None:
        if id(el) in notes:
            return [notes[id(el)]]
        if el.get("t") == "Link" and _dead_label(el, walk.ids):
            return []  # a Google Docs comment's [a]: its comment is not in the export
        if el.get("t") == "Superscript" and el["c"] and all(x.get("t") == "Note" for x in el["c"]):
            return list(el["c"])
        return None

    replace_elements(blocks, change)
    doc["blocks"] = _without_entries(blocks, entries)
    return len(found)


def _dead_label(link: Json, ids: set[str]) -> bool:
    """Whether ``link`` is a note's label (``[b]``) pointing at no element of the document."""
    target = link["c"][2][0]
    return (
        target.startswith("#")
        and target[1:] not in ids
        and _LABEL.fullmatch(stringify(link["c"][1])) is not None
    )


def _note(entry: Json) -> Json:
    return {"t": "Note", "c": [{"t": "Para", "c": _clean(_inlines_of(entry))}]}


def _inlines_of(entry: Json) -> list[Json]:
    """The text of an entry: a paragraph's inlines, or those of a Div's paragraphs."""
    inlines: list[Json] = []
    for block in [entry] if entry.get("t") != "Div" else entry["c"][1]:
        if block.get("t") in ("Para", "Plain"):
            inlines += [{"t": "Space"}] if inlines else []
            inlines += block["c"]
    return inlines


_MARKUP = frozenset(
    {"Strong", "Emph", "Underline", "Strikeout", "Superscript", "Subscript", "SmallCaps"}
)
_LEAD = frozenset({"^", "↑", "*"})


def _clean(inlines: list[Json]) -> list[Json]:
    """An entry's words and links: without its links back into the text (an encyclopedia's
    ``^ a b``), images, raw markup (a page's ``<style>``), the ids and classes of its spans
    and links, and the entry's own number (``1.``, ``[1]``) at its start."""
    out: list[Json] = []
    for el in inlines:
        t = el.get("t")
        c = el.get("c")
        if t in ("RawInline", "Image", "Note") or (t == "Link" and c[2][0].startswith("#")):
            continue
        if t == "Span":
            out += _clean(c[1])
            continue
        if t == "Link":
            el = {"t": "Link", "c": [["", [], []], _clean(c[1]), c[2]]}
        elif t in _MARKUP:
            inner = _clean(c)
            if not stringify(inner).strip():
                continue
            el = {"t": t, "c": inner}
        elif t == "Quoted":
            el = {"t": t, "c": [c[0], _clean(c[1])]}
        out.append(el)
    while out and (
        out[0].get("t") in ("Space", "SoftBreak", "LineBreak")
        or (out[0].get("t") == "Str" and _lead(stringify([out[0]])))
    ):
        out.pop(0)
    return out


def _lead(word: str) -> bool:
    word = word.strip()
    return word in _LEAD or word.strip("[]().:").isdigit()


def _without_entries(blocks: Blocks, entries: set[int]) -> Blocks:
    """``blocks`` with the entries taken out (list items that held only an entry, and the
    lists and Divs that held nothing else), and a heading or rule over nothing but what was
    taken out (a "References" heading, a Google Docs export's rule over its notes)."""
    gone = [_holds_only_entries(block, entries) for block in blocks]
    kept: Blocks = []
    for k, block in enumerate(blocks):
        if gone[k]:
            continue
        t = block.get("t")
        if t == "Header" or t == "HorizontalRule":  # over nothing but the entries
            level = block["c"][0] if t == "Header" else 0
            end = k + 1
            while (
                end < len(blocks)
                and not (blocks[end].get("t") == "Header" and blocks[end]["c"][0] <= level)
                and not (t == "HorizontalRule" and blocks[end].get("t") == "Header")
            ):
                end += 1
            if end > k + 1 and all(gone[k + 1 : end]):
                continue
        kept.append(block)
    return kept


def _holds_only_entries(block: Json, entries: set[int]) -> bool:
    if id(block) in entries:
        return True
    t = block.get("t")
    if t in ("BulletList", "OrderedList"):
        items = block["c"] if t == "BulletList" else block["c"][1]
        left = [item for item in items if not all(_holds_only_entries(b, entries) for b in item)]
        if not left:
            return True
        items[:] = left
    elif t == "Div":
        inner = block["c"][1]
        inner[:] = [b for b in inner if not _holds_only_entries(b, entries)]
        return not inner
    return False
