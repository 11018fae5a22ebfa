"""A markdown draft's citations by key (``[@okafor2023]``, ``[@source12; @b]``) turned into the
ledger's ``[n]`` markers in place (``citeledger rewrite --keys``).

As for ``merge --rewrite`` (``edit/rewrite.py``), only real citations change and the draft is
never re-rendered through pandoc:

1. pandoc reads the draft: its ``Cite`` elements are the citations (never those in code, math,
   raw blocks or links);
2. a light pass over the raw text lists the bracketed groups of bare keys, in order, outside
   fenced code, front matter and code spans; each bracketed ``Cite`` of the tree takes the next
   group that names the same keys, which gives its ``LINE:COL``;
3. each key must be one the ledger holds: a source's library ``key``, or ``sourceN`` for a
   source's id (what ``render --style csljson``/``bibtex`` named it). A key it does not hold is
   named with its ``LINE:COL`` and nothing is written. A citation with a prefix, a locator or a
   suffix (``[see @a, p. 3]``), or written in the text (``@a says``), of a key the ledger holds is
   refused the same way: a ``[n]`` marker cannot carry them. An in-text ``@name`` the ledger
   does not know (a handle in prose) is not a citation of the ledger, and stays;
4. each group becomes ``[n]`` (``[n][m]`` for several keys), and pandoc reads the result: the
   tree must be the old one with each converted ``Cite`` replaced by the text of its marker, or
   the draft is refused and nothing is written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..document.draft import read_draft_text
from ..document.markers import scan
from ..document.readers import input_format
from ..document.sources_lines import fenced_lines
from ..errors import DraftError
from ..ledger import Ledger
from ..ledger.bibliography import GENERATED_KEY
from ..tree import PandocDoc

_KEY = r"-?@([A-Za-z0-9_](?:[\w:.#$%&+?<>~/-]*\w)?)"
_GROUP = re.compile(r"\[\s*" + _KEY + r"(?:\s*;\s*" + _KEY.replace("(", "(?:", 1) + r")*\s*\]")
_KEY_IN_GROUP = re.compile(_KEY)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_NORMAL_MODES = ("NormalCitation", "SuppressAuthor")


@dataclass
class KeyRewrite:
    """The outcome: ``text`` is the new content (None when the draft cites no key)."""

    path: Path
    original: str
    text: str | None
    citations: int = 0


@dataclass
class _Group:
    keys: tuple[str, ...]
    start: int
    end: int
    line: int
    col: int


def source_for_key(ledger: Ledger, key: str) -> int | None:
    """The id of the source ``key`` names: its library key, else ``sourceN``."""
    owner = ledger.key_owner(key)
    if owner is not None:
        return owner.id
    generated = GENERATED_KEY.fullmatch(key)
    if generated and ledger.get(int(generated.group(1))) is not None:
        return int(generated.group(1))
    return None


def _raw_groups(text: str) -> list[_Group]:
    lines = text.split("\n")
    skip = fenced_lines(lines)
    out: list[_Group] = []
    offset = 0
    for number, (line, skipped) in enumerate(zip(lines, skip, strict=True), 1):
        if not skipped:
            visible = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
            for m in _GROUP.finditer(visible):
                keys = tuple(k.group(1) for k in _KEY_IN_GROUP.finditer(m.group(0)))
                out.append(
                    _Group(keys, offset + m.start(), offset + m.end(), number, m.start() + 1)
                )
        offset += len(line) + 1
    return out


def _cites(node: Any) -> list[dict[str, Any]]:
    """Every ``Cite`` of the tree, in document order (a note's where it is referenced)."""
    stack = [node]
    found: list[dict[str, Any]] = []
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if item.get("t") == "Cite":
                found.append(item)
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def _is_plain(cite: dict[str, Any]) -> bool:
    return all(
        not c["citationPrefix"]
        and not c["citationSuffix"]
        and c["citationMode"]["t"] in _NORMAL_MODES
        for c in cite["c"][0]
    )


def _tree(path: Path, text: str) -> PandocDoc:
    """pandoc's tree of the draft's text as every job reads it (:func:`read_draft_text`)."""
    return read_draft_text(text, input_format(path), str(path))


def plan_key_rewrite(path: Path, text: str, ledger: Ledger) -> KeyRewrite:
    """What converting ``path``'s key citations gives (see the module docstring)."""
    doc = _tree(path, text)
    cites = _cites(doc["blocks"])
    groups = _raw_groups(text)
    claimed: set[int] = set()
    edits: list[tuple[_Group, str]] = []
    converted: list[int] = []
    at = 0
    for k, cite in enumerate(cites):
        keys = tuple(c["citationId"] for c in cite["c"][0])
        ids = [source_for_key(ledger, key) for key in keys]
        plain = _is_plain(cite)
        if not plain and all(i is None for i in ids) and _in_text(cite):
            continue  # a handle in prose, not a citation of this ledger
        match = _partner(groups, claimed, at, keys) if plain else None
        where = f"{path}:{match.line}:{match.col}" if match else _first_at(path, text, keys[0])
        unknown = [key for key, i in zip(keys, ids, strict=True) if i is None]
        if unknown:
            raise DraftError(
                f"{where}: @{unknown[0]} is no key of ledger {ledger.path}",
                hint="ingest the library that holds it, or add the page with --key; "
                "nothing was written",
            )
        if not plain or match is None:
            raise DraftError(
                f"{where}: citation {_shown(cite)} cannot become an [n] marker in place",
                hint="write it as [@key] alone (no prefix, locator or suffix); nothing was written",
            )
        at = groups.index(match) + 1
        claimed.add(at - 1)
        marker = "".join(f"[{i}]" for i in dict.fromkeys(ids))
        edits.append((match, marker))
        converted.append(k)
    if not edits:
        return KeyRewrite(path, text, None)
    rewritten = text
    for group, marker in sorted(edits, key=lambda e: e[0].start, reverse=True):
        rewritten = rewritten[: group.start] + marker + rewritten[group.end :]
    _check_read_back(path, doc, cites, converted, [m for _g, m in edits], rewritten)
    return KeyRewrite(path, text, rewritten, citations=len(edits))


def _partner(
    groups: list[_Group], claimed: set[int], at: int, keys: tuple[str, ...]
) -> _Group | None:
    """The raw group of a tree citation: the next unclaimed one naming the same keys, else
    (a footnote's citation, whose text stands after the reference) the first one anywhere."""
    order = [*range(at, len(groups)), *range(at)]
    return next((groups[n] for n in order if n not in claimed and groups[n].keys == keys), None)


def _in_text(cite: dict[str, Any]) -> bool:
    return any(c["citationMode"]["t"] == "AuthorInText" for c in cite["c"][0])


def _shown(cite: dict[str, Any]) -> str:
    from ..tree import stringify

    return stringify(cite["c"][1])[:80]


def _first_at(path: Path, text: str, key: str) -> str:
    found = re.search(r"@\{?" + re.escape(key), text)
    if found is None:
        return str(path)
    line = text.count("\n", 0, found.start()) + 1
    col = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    return f"{path}:{line}:{col}"


def _merged_strs(node: Any) -> Any:
    """``node`` with adjacent ``Str`` elements joined: how a marker typed into the text reads
    next to its neighbours (``floats.[1]`` is one ``Str``, a ``Cite`` stood apart); citations
    unnumbered."""
    if isinstance(node, dict):
        # A citation's note number and hash count the citations before it, converted ones too.
        numbering = ("citationNoteNum", "citationHash") if "citationId" in node else ()
        return {k: 0 if k in numbering else _merged_strs(v) for k, v in node.items()}
    if not isinstance(node, list):
        return node
    out: list[Any] = []
    for item in node:
        item = _merged_strs(item)
        if isinstance(item, dict) and item.get("t") == "Str" and out:
            last = out[-1]
            if isinstance(last, dict) and last.get("t") == "Str":
                out[-1] = {"t": "Str", "c": last["c"] + item["c"]}
                continue
        out.append(item)
    return out


def _check_read_back(
    path: Path,
    doc: PandocDoc,
    cites: list[dict[str, Any]],
    converted: list[int],
    markers: list[str],
    rewritten: str,
) -> None:
    before_markers = len(list(scan(doc).markers()))
    for k, marker in zip(converted, markers, strict=True):
        cite = cites[k]
        cite.clear()
        cite.update({"t": "Str", "c": marker})
    after = _tree(path, rewritten)
    expected = json.dumps(_merged_strs([doc.get("meta"), doc["blocks"]]), sort_keys=True)
    got = json.dumps(_merged_strs([after.get("meta"), after["blocks"]]), sort_keys=True)
    after_markers = len(list(scan(after).markers()))
    if got != expected or after_markers != before_markers + sum(m.count("[") for m in markers):
        raise DraftError(
            f"{path}: converting its key citations in place would change more than them",
            hint="convert them by hand (nothing was written)",
        )
