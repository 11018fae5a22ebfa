"""Cross-references between the entries of a BibTeX or BibLaTeX file, checked for a cycle before
citeproc reads the file.

An entry's ``crossref`` (or ``xdata``) names the entry it inherits fields from; two entries that
name each other make pandoc's citeproc inherit for ever: 37 s and 4.6 GB of memory before it
gave up. So the bibliographies a build hands citeproc are read first, the parents each entry
names followed, and a cycle refused in one line naming the file and the entries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..errors import DraftError
from ..ledger.light import pattern  # compiled on first use: start-up time

MAX_BIB_BYTES = 64 << 20
_ENTRY = pattern(r"@\s*([A-Za-z]+)\s*[{(]\s*([^,\s{}()]+)\s*,", re.ASCII)
_PARENT = pattern(
    r"(?<![A-Za-z])(crossref|xdata)\s*=\s*(?:\{([^{}]*)\}|\"([^\"]*)\"|([^,\s}]+))", re.I
)
_NOT_ENTRIES = {"string", "comment", "preamble"}
BIB_SUFFIXES = (".bib", ".bibtex")


def parents(text: str) -> dict[str, list[str]]:
    """Each entry's key (lower-cased, as BibTeX compares them) and the keys it inherits from."""
    found: dict[str, list[str]] = {}
    starts = [m for m in _ENTRY.finditer(text) if m.group(1).lower() not in _NOT_ENTRIES]
    for k, match in enumerate(starts):
        end = starts[k + 1].start() if k + 1 < len(starts) else len(text)
        body = text[match.end() : end]
        named: list[str] = []
        for field in _PARENT.finditer(body):
            value = next(g for g in field.groups()[1:] if g is not None)
            named += [v.strip().lower() for v in value.split(",") if v.strip()]
        found.setdefault(match.group(2).lower(), named)
    return found


def cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """A cycle of ``graph`` as its keys in order (the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in graph:
        if state.get(start):
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            key, index = stack.pop()
            if index == 0:
                state[key] = 1
                path.append(key)
            nexts = graph.get(key, [])
            if index < len(nexts):
                stack.append((key, index + 1))
                nxt = nexts[index]
                if state.get(nxt) == 1:
                    return [*path[path.index(nxt) :], nxt]
                if not state.get(nxt):
                    stack.append((nxt, 0))
                continue
            state[key] = 2
            path.pop()
    return None


def refuse_cycles(paths: Iterable[Path]) -> None:
    """Refuse (one line) the first BibTeX file of ``paths`` whose entries cross-reference in a
    cycle; a file that is missing, unreadable or too large is left to citeproc to report."""
    for path in paths:
        if path.suffix.lower() not in BIB_SUFFIXES:
            continue
        try:
            if path.stat().st_size > MAX_BIB_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = cycle(parents(text))
        if found is not None:
            chain = " -> ".join(found)
            raise DraftError(
                f"{path}: entries cross-reference each other in a cycle ({chain}); citeproc "
                "would inherit fields for ever",
                hint="remove the crossref (or xdata) field of one of them",
            )
