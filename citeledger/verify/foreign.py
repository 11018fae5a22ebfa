"""Citations written in a form that names no ledger id, in a markdown draft: footnotes that
are a source's entry (a Perplexity export's ``[^1]: https://...``, a URL with at most a short
title) and reference links standing as citations (ChatGPT's ``([Site][1])`` with
``[1]: https://... "Title"``). A draft that cites only so cites nothing verify can check, and
must not pass as "citations OK": one finding names how many there are and where the first
stands, and its fix is ``citeledger import``, which turns them into ledger ids.

Held narrow, since it fails the run: a footnote that says more than a title (pandoc's manual's
remarks with a link in them) and a reference link in the prose (``a [quoted link][1]``) are no
citations, and one such footnote alone is a remark (a README's "Install it.[^1]" with "See
https://pypi.org/."), not a way of citing: it takes two. A reference link in parentheses
(``([Site][1])``) is a citation's shape wherever it stands. A draft that cites ledger ids as
well keeps the footnote warning it had
(``footnote-url-not-in-ledger``).
"""

from __future__ import annotations

import re

from ..document.locate import heading_location
from ..ledger.light import pattern  # compiled on first use: start-up time
from ..tree import Blocks, elements, elements_of, stringify
from .report import Finding
from .rules import FOREIGN_CITATIONS

_FENCE = pattern(r"^[ ]{0,3}(`{3,}|~{3,}).*?^[ ]{0,3}\1", re.MULTILINE | re.DOTALL)
_DEFINITION = pattern(r"^[ ]{0,3}\[([0-9]{1,4})\]:[ \t]*<?https?://", re.MULTILINE)
_REFERENCE = pattern(r"\([ \t]*\[[^\[\]\n]+\]\[([0-9]{1,4})\]")
_NOTE = pattern(r"^\[\^([^\]\s]+)\]:[ \t]*(.*)$", re.MULTILINE)
_URL = pattern(r"<?https?://[^\s<>]+>?")
_NOTE_REF = pattern(r"\[\^([^\]\s]+)\](?!:)")
# A footnote is a source's entry when, its URL aside, it holds at most a title's words.
_TITLE_WORDS = 16
# Citing by footnotes takes more than one: a lone footnote with a link is a remark.
_AT_LEAST = 2


def foreign_findings(text: str | None, name: str, fix: str) -> list[Finding]:
    """The finding for a draft (``text``: its markdown) that cites only in forms naming no
    ledger id, or none."""
    if text is None:
        return []
    places: list[str] = []
    kinds: list[str] = []
    prose = _FENCE.sub(lambda m: " " * len(m.group()), text)
    entries = {m.group(1) for m in _NOTE.finditer(prose) if _is_entry(m.group(2))}
    refs = [m for m in _NOTE_REF.finditer(prose) if m.group(1) in entries]
    if len(refs) >= _AT_LEAST:
        kinds.append(f"{len(refs)} footnote(s) holding a URL")
        places.append(_position(name, prose, refs[0].start()))
    defined = {m.group(1) for m in _DEFINITION.finditer(prose)}
    links = [m for m in _REFERENCE.finditer(prose) if m.group(1) in defined]
    if links:  # ``([Site][1])``: a citation's shape, never a remark's
        shown = links[0].group().lstrip("( \t")
        kinds.append(f"{len(links)} reference link(s) such as {shown}")
        places.insert(0, _position(name, prose, links[0].start()))
    if not kinds:
        return []
    return [
        FOREIGN_CITATIONS.finding(
            f"the draft cites with {' and '.join(kinds)}, and by no ledger id: "
            "verify cannot check these citations",
            places[0],
            fix=fix,
        )
    ]


def foreign_notes(blocks: Blocks, name: str, fix: str) -> list[Finding]:
    """The finding of :func:`foreign_findings` for a draft whose text is no markdown (an Org
    file's ``[fn:1] https://...``, a reStructuredText or LaTeX draft's URL footnotes, a Word
    file's notes): read from pandoc's tree, where each footnote reference is a Note, and
    placed under the heading of the first."""
    heading = ""
    first = ""
    count = 0
    for block in blocks:
        if block.get("t") == "Header":
            heading = stringify(block["c"][2])
        for note in elements_of(block, ("Note",)):
            targets = [el["c"][2][0] for el in elements(note["c"]) if el.get("t") == "Link"]
            if _is_entry(" ".join([*targets, stringify(note["c"])])):
                count += 1
                first = first or heading_location(name, heading)
    if count < _AT_LEAST:
        return []
    return [
        FOREIGN_CITATIONS.finding(
            f"the draft cites with {count} footnote(s) holding a URL, and by no ledger id: "
            "verify cannot check these citations",
            first,
            fix=fix,
        )
    ]


def foreign_anchors(blocks: Blocks, name: str, fix: str) -> list[Finding]:
    """The finding for a draft that cites with numbered links to its own list of references
    (an HTML report's ``<sup><a href="#ref-1">[1]</a></sup>``; ``document/anchor_notes.py``),
    placed under the heading of the first."""
    from ..document.anchor_notes import anchor_citations

    found = anchor_citations(blocks)
    if len(found) < _AT_LEAST:
        return []
    first = id(found[0].link)
    heading = ""
    for block in blocks:
        if block.get("t") == "Header":
            heading = stringify(block["c"][2])
        if any(id(el) == first for el in elements_of(block, ("Link",))):
            break
    shown = stringify(found[0].link["c"][1])
    return [
        FOREIGN_CITATIONS.finding(
            f"the draft cites with {len(found)} numbered link(s) to its own list of references "
            f"(such as {shown}), and by no ledger id: verify cannot check these citations",
            heading_location(name, heading),
            fix=fix,
        )
    ]


def _is_entry(note: str) -> bool:
    """Whether a footnote's text is a source's entry: a URL with at most a title beside it."""
    if not _URL.search(note):
        return False
    rest = _URL.sub(" ", note)
    return len(re.findall(r"\w+", rest)) <= _TITLE_WORDS


def _position(name: str, text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{name}:{line}:{col}"
