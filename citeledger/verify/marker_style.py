"""The convention's marker style: a marker stands against the text it supports, one id a
bracket, after the sentence's closing punctuation (``sunlight.[1][2]``). Each is a warning: the
citation still resolves, only its shape is off.

One mistake, one finding: a run of markers set off by a space *and* standing before the closing
punctuation (``sunlight [1].``, ``water [2][3].``) is one ``marker-before-punctuation`` finding
that names both, and its one fix writes the run where it belongs (``sunlight.[1]``), a group in
it split into its ids; not a finding per rule, whose fixes would each undo half of the other.
Each fix is written with the draft's own word before the marker, so an agent can find the spot
and copy the corrected text.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..document.grammar import Marker, Piece
from ..document.markers import Hit
from ..ledger.light import record
from .rules import GROUP_MARKER, MARKER_BEFORE_PUNCTUATION, SPACE_BEFORE_MARKER, Rule

_TERMINAL = frozenset(".!?\u3002\uff01\uff1f")
_SPACE_BEFORE = frozenset({"Space", "SoftBreak"})
# A word longer than this is cut in a fix (a URL pasted before a marker, say).
_WORD_SHOWN = 30


@record(frozen=True)
class StyleIssue:
    """A finding of the style rules, placed by its hit and the ordinal of its marker there."""

    rule: Rule
    message: str
    hit: int
    ordinal: int
    ids: tuple[int, ...]
    fix: str


def style_issues(hits: Sequence[Hit]) -> Iterator[StyleIssue]:
    """The style findings of ``hits`` (a scan's), in the order their markers stand."""
    for k, hit in enumerate(hits):
        ordinal = 0
        for first, last in _runs(hit.pieces):
            run = [p for p in hit.pieces[first : last + 1] if isinstance(p, Marker)]
            yield from _run_issues(hit, k, ordinal, first, last, run)
            ordinal += len(run)


def _run_issues(
    hit: Hit, k: int, ordinal: int, first: int, last: int, run: list[Marker]
) -> Iterator[StyleIssue]:
    spaced = first == 0 and hit.start > 0 and _spaced(hit)
    after = hit.pieces[last + 1] if last + 1 < len(hit.pieces) else None
    stop = _closing(after) if isinstance(after, str) else ""
    word = _word_before(hit, first)
    written = "".join(m.text for m in run)
    ids = tuple(i for m in run for i in m.ids)
    own = "".join(_own_brackets(m) for m in run)
    split = " (and several ids share one bracket)" if own != written else ""
    if spaced and stop:
        as_written = f"{word} {written}{stop}" if word else f"{written}{stop}"
        yield StyleIssue(
            MARKER_BEFORE_PUNCTUATION,
            f"space before the marker {written}, which also stands before the sentence's "
            f"closing punctuation (`{as_written}`){split}",
            k,
            ordinal,
            ids,
            _write(word, f"{stop}{own}", "without the space, after the punctuation"),
        )
        return
    if spaced:
        yield StyleIssue(
            SPACE_BEFORE_MARKER,
            f"space before the marker {run[0].text}",
            k,
            ordinal,
            run[0].ids,
            "delete the space: " + _write(word, run[0].text, "without the space"),
        )
    for n, marker in enumerate(run):
        if marker.kind == "group":
            yield StyleIssue(
                GROUP_MARKER,
                f"several ids in one bracket {marker.text}",
                k,
                ordinal + n,
                marker.ids,
                f"give each id its own brackets: {_own_brackets(marker)}",
            )
    if stop:
        yield StyleIssue(
            MARKER_BEFORE_PUNCTUATION,
            f"marker {written} stands before the sentence's closing punctuation",
            k,
            ordinal + len(run) - 1,
            ids,
            "put it after the punctuation: "
            + _write(word, f"{stop}{own}", "after the punctuation"),
        )


def _runs(pieces: Sequence[Piece]) -> Iterator[tuple[int, int]]:
    """The (first, last) indexes of each run of markers side by side in ``pieces``."""
    start = None
    for p, piece in enumerate(pieces):
        if isinstance(piece, Marker):
            if start is None:
                start = p
        elif start is not None:
            yield start, p - 1
            start = None
    if start is not None:
        yield start, len(pieces) - 1


def _own_brackets(marker: Marker) -> str:
    return "".join(f"[{i}]" for i in marker.ids) if marker.kind == "group" else marker.text


def _spaced(hit: Hit) -> bool:
    return bool(hit.container[hit.start - 1].get("t") in _SPACE_BEFORE)


def _closing(text: str) -> str:
    """The sentence's closing punctuation ``text`` opens with ("" when it opens with none, or
    with an ellipsis, which ends no sentence)."""
    if not text or text[0] not in _TERMINAL or text.startswith(".."):
        return ""
    n = 1
    while n < len(text) and text[n] in _TERMINAL:
        n += 1
    return text[:n]


def _word_before(hit: Hit, first: int) -> str:
    """The draft's word before the run that starts at piece ``first`` ("" when the text before
    it is not a plain word: emphasis, a link, the start of a paragraph)."""
    text = ""
    before = hit.pieces[first - 1] if first > 0 else None
    if isinstance(before, str):
        text = before
    elif first == 0 and hit.start > 0:
        at = hit.start - 1
        if hit.container[at].get("t") in _SPACE_BEFORE and at > 0:
            at -= 1
        element = hit.container[at]
        if element.get("t") == "Str":
            text = str(element.get("c", ""))
    words = text.replace("`", "").split()
    if not words:
        return ""
    word = words[-1]
    return word if len(word) <= _WORD_SHOWN else "\u2026" + word[-_WORD_SHOWN:]


def _write(word: str, tail: str, how: str) -> str:
    """The fix's edit: the draft's word with what follows it rewritten, or, with no plain word
    before the marker, the rewritten tail and where it goes."""
    if word:
        return f"write `{word}{tail}`"
    return f"write `{tail}` right after the text it supports, {how}"
