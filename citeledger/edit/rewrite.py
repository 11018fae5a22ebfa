"""A markdown draft's ``[n]`` markers, translated in place through an id map (``merge --rewrite``).

Only real markers change, and the draft is never re-rendered through pandoc (that would
reformat every line of it):

1. pandoc reads the draft and the verifier's marker finder (``document/markers.py``) says which
   brackets are citations: never those in code, links, math, raw blocks or the Sources block;
2. the locator (``document/locate.py``) maps each of them to its ``LINE:COL`` in the raw text,
   where the marker must be found again as written, or the draft is refused;
3. each marker's digits are replaced there (a group keeps its separators; a range whose ids
   are no longer consecutive becomes a list), and the Sources block is rendered anew from the
   merged ledger (``render_block``, ``replace_in_text``);
4. pandoc reads the result, and it must be the same document with the markers translated:
   the same markers in the same order with mapped ids, and every other element of the tree
   (outside the Sources block) identical. A locator mismatch can thus never edit a code span
   or miss a marker: the draft is refused instead, and nothing is written.

A draft whose Sources block lists the merged ledger's ids with the merged ledger's URLs (and
not OTHER's) has been rewritten already: it is left alone, which makes a repeated
``merge --rewrite`` change nothing. A block that agrees with neither is refused: the draft was
written against some third ledger, and translating it would cite the wrong pages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..document.draft import read_draft_text
from ..document.grammar import MARKER_RE, Marker, parse_marker
from ..document.locate import Locator
from ..document.markers import Scan, scan
from ..document.readers import input_format
from ..document.sources_block import entries
from ..document.sources_lines import find_sources_lines, replace_in_text
from ..document.sources_titles import ANY_HEADING, titles_for
from ..errors import DraftError
from ..ledger import Ledger, render_block
from ..ledger.urls import url_key
from ..options import from_meta
from ..tree import PandocDoc

_GROUP_PART = re.compile(r"([0-9]{1,6})(\s*[\u2013-]\s*)([0-9]{1,6})|([0-9]{1,6})")
_MAX_RANGE = 50  # as the marker grammar reads ranges (document/grammar.py)
MAX_DRAFT_BYTES = 256 * 1024 * 1024


@dataclass
class Rewrite:
    """The outcome for one draft: ``text`` is its new content (``None`` when it stays as it
    is); ``already`` when it cites the merged ledger already."""

    path: Path
    original: str
    text: str | None
    markers: int = 0
    already: bool = False


def read_markdown_draft(path: Path) -> str:
    """The draft's text as it is on disk (line endings included: a CRLF draft stays CRLF);
    ``DraftError`` for a file that is missing, not markdown or not text."""
    from ..formats import is_markdown_source
    from ..ledger.files import read_file

    fmt = input_format(path)
    if not is_markdown_source(fmt):
        raise DraftError(
            f"--rewrite {path}: a {fmt} file, not a markdown draft",
            hint="rewrite the markdown draft it was built from, then build it again",
        )
    data = read_file(
        path, limit=MAX_DRAFT_BYTES, what="draft", error=DraftError, missing_hint="check the path"
    )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DraftError(
            f"draft {path} is not UTF-8 text (bad byte at offset {exc.start})",
            hint="save it as UTF-8",
        ) from None
    if "\x00" in text:
        raise DraftError(f"{path} is not text (it holds NUL bytes)", hint="check the path")
    return text


def _tree(path: Path, text: str) -> PandocDoc:
    """pandoc's tree of the draft's text as every job reads it (:func:`read_draft_text`)."""
    return read_draft_text(text, input_format(path), str(path))


def plan_rewrite(
    path: Path, text: str, other: Ledger, merged: Ledger, id_map: dict[int, int]
) -> Rewrite:
    """What rewriting ``path`` (holding ``text``, written against ``other``) against ``merged``
    gives; ``DraftError`` when it cannot be done safely (see the module docstring)."""
    on_disk = text
    # A CRLF draft is worked on as LF (as the locator and the block finder read lines) and
    # written back as CRLF; a draft mixing both is worked on as it is.
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    doc = _tree(path, text)
    titles = titles_for(from_meta(doc.get("meta", {}), lambda _line: None).sources_title)
    found = scan(doc, titles)
    name = str(path)
    if _cites_merged_already(doc, found, other, merged, name):
        return Rewrite(path, on_disk, None, already=True)
    _refuse_label_collisions(text, found, id_map, name)
    locator = Locator.from_text(name, text, titles)
    places = locator.place(found)
    starts = _line_starts(text)
    edits: list[tuple[int, int, str]] = []
    expected: list[tuple[str, tuple[int, ...], str | None]] = []
    for hit, row in zip(found.hits, places, strict=True):
        for marker, place in zip(hit.markers, row, strict=False):
            if not marker.ids:
                expected.append((marker.kind, marker.ids, marker.name))
                continue
            where = f"{name}:{place}" if place else f"{name} \u00a7 {hit.heading or 'start'}"
            unknown = [i for i in marker.ids if i not in id_map]
            if unknown:
                raise DraftError(
                    f"{where} cites [{unknown[0]}], which {other.path} does not hold",
                    hint="fix the draft against the ledger it was written with, then merge",
                )
            new = _translated(marker, id_map)
            expected.append(
                (marker.kind, tuple(dict.fromkeys(id_map[i] for i in marker.ids)), None)
            )
            if place is None:
                raise DraftError(
                    f"{where}: marker {marker.text} was not found in the text of the draft",
                    hint="change it by hand, or write it on one line as [n]",
                )
            line, col = (int(part) for part in place.split(":"))
            offset = starts[line - 1] + col - 1
            raw = MARKER_RE.match(text, offset)
            if raw is None or _key(parse_marker(raw)) != _key(marker):
                raise DraftError(
                    f"{where}: marker {marker.text} is not where the locator put it",
                    hint="change it by hand",
                )
            if new != raw.group(0):
                edits.append((raw.start(), raw.end(), new))
    rewritten = text
    for start, end, new in sorted(edits, reverse=True):
        rewritten = rewritten[:start] + new + rewritten[end:]
    cited = [id_map[i] for i in found.cited_ids()]
    if cited:
        block = render_block(merged, cited, _style_of(text, titles))
        rewritten = replace_in_text(rewritten, block, titles)
    _check_same_document(path, doc, found, rewritten, expected, titles)
    if rewritten == text:
        return Rewrite(path, on_disk, None)
    if crlf:
        rewritten = rewritten.replace("\n", "\r\n")
    return Rewrite(path, on_disk, rewritten, markers=len(edits))


def _key(marker: Marker) -> tuple[str, tuple[int, ...], str | None]:
    return (marker.kind, marker.ids, marker.name)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for k, ch in enumerate(text):
        if ch == "\n":
            starts.append(k + 1)
    return starts


def _translated(marker: Marker, id_map: dict[int, int]) -> str:
    """The marker's text with each id mapped; separators kept, ranges kept while consecutive."""
    if marker.kind == "id":
        return f"[{id_map[marker.ids[0]]}]"

    def part(m: re.Match[str]) -> str:
        if m.group(4) is not None:
            return str(id_map[int(m.group(4))])
        lo, hi = int(m.group(1)), int(m.group(3))
        if not (lo <= hi and hi - lo <= _MAX_RANGE):  # read as two ids, not a range
            return f"{id_map[lo]},{id_map[hi]}"
        mapped = [id_map[i] for i in range(lo, hi + 1)]
        if mapped == list(range(mapped[0], mapped[0] + len(mapped))):
            return f"{mapped[0]}{m.group(2)}{mapped[-1]}"
        return ",".join(str(i) for i in mapped)

    return "[" + _GROUP_PART.sub(part, marker.text[1:-1]) + "]"


def _cites_merged_already(
    doc: PandocDoc, found: Scan, other: Ledger, merged: Ledger, name: str
) -> bool:
    """Whether the draft's Sources block says the draft is against ``merged`` already;
    ``DraftError`` when the block agrees with neither ledger."""
    if found.sources is None:
        return False
    listed = entries(doc["blocks"], found.sources)
    if not listed:
        return False

    def agrees(book: Ledger) -> bool:
        for entry in listed:
            source = book.get(entry.id)
            if source is None or url_key(source.url) != url_key(entry.url):
                return False
        return True

    if agrees(other):
        return False
    if agrees(merged):
        return True
    raise DraftError(
        f"{name}: its Sources block agrees with neither {other.path} nor {merged.path}",
        hint=f"run `citeledger --ledger {other.path} render --replace-in {name}` if the draft "
        "was written against it, then merge again",
    )


def _style_of(text: str, titles: Sequence[str]) -> str:
    """The render style of the draft's present block: evidence when it shows quotes, plain for
    a ``Sources:`` paragraph, else markdown."""
    lines = text.splitlines()
    block = find_sources_lines(lines, titles)
    if block is None:
        return "markdown"
    body = lines[block.start : block.end]
    if any(ln.startswith('    > "') for ln in body):
        return "evidence"
    return "plain" if block.level == ANY_HEADING else "markdown"


def _neutral(doc: PandocDoc, found: Scan) -> str:
    """The tree with every marker replaced by one placeholder, heading identifiers blanked
    (pandoc makes them from the heading's text, marker digits included) and the Sources block
    removed: what must not change when only ids are translated."""
    for hit in reversed(found.hits):
        text = "".join("\x00" if isinstance(p, Marker) else p for p in hit.pieces)
        hit.container[hit.start : hit.end + 1] = [{"t": "Str", "c": text}]
    blocks = doc["blocks"]
    if found.sources is not None:
        blocks = found.sources.left_out(blocks)
    stack: list[Any] = [blocks]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("t") == "Header":
                node["c"][1][0] = ""
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return json.dumps([doc.get("meta"), blocks], sort_keys=True)


_REF_LABEL = re.compile(r"^ {0,3}\[([0-9]{1,6})\]:", re.MULTILINE)


def _refuse_label_collisions(text: str, found: Scan, id_map: dict[int, int], name: str) -> None:
    """A translated ``[n]`` that the draft defines as a reference-link label (``[n]: url``)
    would turn into that link: refuse, naming both, before anything is written."""
    labels = {int(m.group(1)) for m in _REF_LABEL.finditer(text)}
    if not labels:
        return
    for _hit, marker in found.markers():
        for old in marker.ids:
            new = id_map.get(old)
            if new is not None and new != old and new in labels:
                raise DraftError(
                    f"{name}: [{old}] would become [{new}], which the draft defines as a "
                    f"reference link ([{new}]: ...)",
                    hint="rename that reference label, then merge again",
                )


def _check_same_document(
    path: Path,
    doc: PandocDoc,
    found: Scan,
    rewritten: str,
    expected: list[tuple[str, tuple[int, ...], str | None]],
    titles: Sequence[str],
) -> None:
    after = _tree(path, rewritten)
    found_after = scan(after, titles)
    got = [(m.kind, m.ids, m.name if not m.ids else None) for _h, m in found_after.markers()]
    if got != expected or _neutral(doc, found) != _neutral(after, found_after):
        raise DraftError(
            f"{path}: translating its markers in place would change more than the markers",
            hint="change the ids by hand (nothing was written)",
        )
