"""Where an answer's citations point, sentence by sentence: the check that an import kept each
citation at its place. A text's marker runs (``[3]``, ``[3][5]``) are taken out and each is
given to the sentence it stands in or ends; ``names`` turns a marker's number into the URL it
means (a STORM map's, a References list's, a ledger's)."""

from __future__ import annotations

import re
from collections.abc import Callable

from citeledger.ledger.urls import url_key

_RUN = re.compile(r"(?:\[[0-9]+\])+")
_END = re.compile(r"[.!?][\"'\u201d\u2019)*_]*(?=\s|$)|\n")


def cited_by_sentence(text: str, names: Callable[[int], str]) -> list[tuple[int, frozenset[str]]]:
    """Each sentence of ``text`` that cites (its number, counted with markers removed and a
    space before punctuation dropped) with the URL keys its markers name."""
    clean: list[str] = []
    marks: list[tuple[int, list[int]]] = []
    pos = 0
    length = 0
    for m in _RUN.finditer(text):
        piece = text[pos : m.start()]
        clean.append(piece)
        length += len(piece)
        marks.append((length, [int(n) for n in re.findall(r"[0-9]+", m.group())]))
        pos = m.end()
    clean.append(text[pos:])
    body = "".join(clean)
    # "(1997) [2]." and "(1997).[2]" are one sentence: spaces before punctuation do not count.
    squeeze = [0] * (len(body) + 1)
    kept: list[str] = []
    for i, ch in enumerate(body):
        squeeze[i] = len(kept)
        if ch in " \t" and i + 1 < len(body) and body[i + 1] in ".,;:!?":
            continue
        kept.append(ch)
    squeeze[len(body)] = len(kept)
    flat = "".join(kept)
    ends = [m.end() for m in _END.finditer(flat)] + [len(flat) + 1]
    by_sentence: dict[int, set[str]] = {}
    for at, numbers in marks:
        p = squeeze[at]
        k = next(i for i, end in enumerate(ends) if p <= end)
        by_sentence.setdefault(k, set()).update(url_key(names(n)) for n in numbers)
    return [(k, frozenset(by_sentence[k])) for k in sorted(by_sentence)]
