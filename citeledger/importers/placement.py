"""Markers where the skill puts them: after the sentence's terminal punctuation, no space, each
id in its own brackets (``water.[1][2]``).

A citation stands somewhere in its sentence (an API's span ends mid-sentence, a report's link
sits before the full stop, STORM writes ``(1997) [2][5].``); its marker goes to the end of that
sentence: back over spaces to a full stop just before it, else forward to the next one, else to
the end of the line's block (a heading, a list item, a table cell). A sentence cites each id
once; more than three ids on one sentence is said, never silently cut.
"""

from __future__ import annotations

import re

MAX_IDS = 3
# The id that stands for ``[unverified]``: a claim whose citation names no page.
UNVERIFIED_ID = 0
_TERMINAL = ".!?\u3002\uff01\uff1f"
# What may close a sentence after its full stop: quotes, brackets, emphasis.
_CLOSERS = "\"'\u201d\u2019)]*_"
# Words whose full stop does not end a sentence.
_ABBREVIATIONS = frozenset({"e.g", "i.e", "vs", "mr", "mrs", "ms", "dr", "st", "no", "fig", "cf"})
_BLOCK_START = re.compile(r"\s*(?:$|#|[-*+]\s|\d+[.)]\s|>|\|)")


def sentence_end(text: str, at: int) -> int:
    """Where a marker for a citation at ``at`` goes (see the module docstring)."""
    back = at
    while back > 0 and text[back - 1] in " \t":
        back -= 1
    probe = back
    while probe > 0 and text[probe - 1] in _CLOSERS:
        probe -= 1
    if probe > 0 and text[probe - 1] in _TERMINAL and _ends_here(text, probe - 1):
        # ``food.[1][2].`` (STORM): the punctuation right after the citation is the sentence's.
        while back == at and at < len(text) and text[at] in _TERMINAL + _CLOSERS:
            at += 1
            back = at
        return back
    i = at
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "`":
            close = text.find("`", i + 1)
            i = close + 1 if close > 0 and "\n\n" not in text[i:close] else i + 1
            continue
        if ch == "]" and text.startswith("(", i + 1):
            close = text.find(")", i + 2)
            i = close + 1 if close > 0 else i + 1
            continue
        if ch == "\n" and (text.startswith("\n", i + 1) or _BLOCK_START.match(text, i + 1)):
            return _trimmed(text, i)
        if ch == "|" and _in_table_row(text, i):
            return _trimmed(text, i)
        if ch in _TERMINAL and _ends_here(text, i):
            j = i + 1
            while j < n and text[j] in _TERMINAL:
                j += 1
            while j < n and text[j] in _CLOSERS:
                j += 1
            if j >= n or text[j] in " \t\n" or ch in "\u3002\uff01\uff1f":
                return j
            i = j
            continue
        i += 1
    return _trimmed(text, n)


def _ends_here(text: str, i: int) -> bool:
    """Whether the mark at ``i`` ends a sentence: not a decimal point, an abbreviation's
    stop or the dots of an address."""
    if text[i] != ".":
        return True
    nxt = text[i + 1 : i + 2]
    if nxt and (nxt.isalnum() or nxt in "/-_"):
        return False
    word = re.search(r"([A-Za-z.]+)$", text[max(0, i - 6) : i])
    return not (word and word.group(1).lower().lstrip(".") in _ABBREVIATIONS)


def _trimmed(text: str, end: int) -> int:
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    return end


def _in_table_row(text: str, i: int) -> bool:
    line_start = text.rfind("\n", 0, i) + 1
    return text[line_start:i].lstrip().startswith("|")


def place_markers(
    text: str, cites: list[tuple[int, list[int]]], alone: frozenset[int] = frozenset()
) -> tuple[str, list[str]]:
    """``text`` with a marker run for each ``(offset, ids)`` at the end of its sentence: one
    run per sentence, each id once, in the order cited. A citation at an offset in ``alone``
    was a paragraph of its own: its run stays there, a paragraph of its own. The warnings name
    each sentence that carries more than :data:`MAX_IDS` ids, by line."""
    runs: dict[int, list[int]] = {}
    own: set[int] = set()
    for at, ids in cites:
        end = at if at in alone else sentence_end(text, at)
        if at in alone:
            own.add(end)
        run = runs.setdefault(end, [])
        run.extend(i for i in ids if i not in run)
    warnings: list[str] = []
    out = text
    for end in sorted(runs, reverse=True):
        ids = runs[end]
        before = out[:end]
        # Ids the sentence already carries right there (an earlier import) are not repeated.
        held = re.search(r"(?:\[[0-9]{1,6}\])+$", before)
        present = [int(x) for x in re.findall(r"[0-9]+", held.group())] if held else []
        new = [i for i in ids if i not in present and i != UNVERIFIED_ID]
        unverified = "[unverified]" if UNVERIFIED_ID in ids and not new and not present else ""
        gap = "\n\n" if end in own and out[end:].strip() else ""
        out = before + "".join(f"[{i}]" for i in new) + unverified + gap + out[end:]
        total = len(present) + len(new)
        if total > MAX_IDS:
            line = before.count("\n") + 1
            shown = "".join(f"[{i}]" for i in [*present, *new])
            warnings.append(
                f"line {line}: a sentence carries {total} citations {shown}, more than "
                f"{MAX_IDS}: keep the three that carry the claim or split the sentence"
            )
    return out, list(reversed(warnings))
