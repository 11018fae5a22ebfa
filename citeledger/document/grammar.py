"""The marker grammar: what a marker is, in text and as a link, and nothing about where.

Marker grammar (the grounded-citations convention):

- ``[n]``: 1-6 ASCII digits, not followed by ``(`` (that is a link); the seed read 1-4, and ids
  past 9999 must stay citable. ``[n]:`` is a reference definition only where markdown reads
  one: at the start of a line, followed by a URL (:func:`opens_definition`). Mid-line
  (``known[1]: power``) it cites, in every reader: markdown has no definitions there;
- ``[unverified]``, ``[policy]``, ``[tool:<name>]`` with name ``[A-Za-z0-9][A-Za-z0-9_.-]*``;
- ``[1, 2]``, ``[1-3]``, ``[1,2]``: several ids in one bracket, a *group*; it cites each id and
  the verifier warns about its style.

A Link is a marker when its text is one (``n`` or ``[n]``) and its target is http(s)
(:func:`link_marker_id`), or when it is a citation citeledger placed itself: a Link to
``#src-N`` whose text is ``[n]`` (:func:`own_cite_id`). Whether such a link cites where it
stands is the finder's business (:mod:`.markers`). Kept apart from the finder so the Sources
block's reader, which must read a link-marker as the ``[n]`` it shows, needs nothing of the walk.
"""

from __future__ import annotations

import re

from ..ledger.light import pattern, record
from ..tree import Inline, Inlines

# Ledger ids run to six digits (``MAX_ID``); ASCII digits only, so ``[²]`` or ``[٣]`` is text.
_ID = r"[0-9]{1,6}"
MARKER_RE = pattern(
    r"\[(?:"
    rf"(?P<id>{_ID})"
    rf"|(?P<group>{_ID}(?:\s*[,\u2013-]\s*{_ID})+)"
    r"|(?P<unverified>unverified)"
    r"|tool:(?P<tool>[A-Za-z0-9][A-Za-z0-9_.-]*)"
    r"|(?P<policy>policy)"
    r")\](?!\()"
)
# ``[n]:`` then a URL: how a line that is a reference definition opens (``[1]: https://...``).
DEFINITION_OPENING = pattern(rf"\[{_ID}\]:")
_URL_START = ("http://", "https://", "<http://", "<https://")
# A group that pandoc split at its spaces: ``[1,`` then ``2,`` then ``3]``.
GROUP_OPEN_RE = pattern(rf"\[{_ID}(?:\s*,\s*{_ID})*,$")
GROUP_PART_RE = pattern(rf"^{_ID},?")

_MAX_GROUP_RANGE = 50

_LINK_ID = pattern(rf"\[({_ID})\]|({_ID})")
# The target of a citation citeledger's html/typst placement wrote (``filters/base.source_anchor``).
OWN_TARGET = pattern(rf"#src-({_ID})")
# The raw anchor gfm and commonmark carry a citation in (they have no link attributes).
RAW_OWN_LINK = pattern(rf'<a href="#src-({_ID})"')


@record(frozen=True)
class Marker:
    """One marker as written. ``ids`` holds the ledger ids it cites (empty for provenance)."""

    kind: str  # "id" | "group" | "unverified" | "tool" | "policy"
    text: str
    ids: tuple[int, ...] = ()
    name: str | None = None

    @property
    def is_citation(self) -> bool:
        return bool(self.ids)


Piece = str | Marker


def parse_marker(match: re.Match[str]) -> Marker:
    text = match.group(0)
    if match.group("id") is not None:
        return Marker("id", text, (int(match.group("id")),))
    if match.group("group") is not None:
        return Marker("group", text, _group_ids(match.group("group")))
    if match.group("tool") is not None:
        return Marker("tool", text, name=match.group("tool"))
    if match.group("policy") is not None:
        return Marker("policy", text)
    return Marker("unverified", text)


def _group_ids(body: str) -> tuple[int, ...]:
    ids: list[int] = []
    for part in re.split(r"\s*,\s*", body.strip()):
        bounds = re.split(r"\s*[\u2013-]\s*", part)
        if len(bounds) == 2:
            lo, hi = int(bounds[0]), int(bounds[1])
            if lo <= hi and hi - lo <= _MAX_GROUP_RANGE:
                ids.extend(range(lo, hi + 1))
            else:
                ids.extend((lo, hi))
        else:
            ids.extend(int(b) for b in bounds)
    return tuple(dict.fromkeys(ids))


def split_markers(text: str) -> list[Piece]:
    """Split ``text`` into plain strings and Markers, in order. The single marker parser:
    every other part of citeledger that needs markers in text calls this."""
    if "[" not in text:
        return [text]
    pieces: list[Piece] = []
    pos = 0
    for match in MARKER_RE.finditer(text):
        if match.start() > pos:
            pieces.append(text[pos : match.start()])
        pieces.append(parse_marker(match))
        pos = match.end()
    if pos < len(text):
        pieces.append(text[pos:])
    return pieces


def has_marker(pieces: list[Piece]) -> bool:
    return any(isinstance(p, Marker) for p in pieces)


def opens_definition(inlines: Inlines, i: int) -> bool:
    """Whether the Str at ``i`` is ``[n]:`` opening a line (the first inline, or after a line
    break) with a URL after it: a reference definition that a reader other than markdown's kept
    as text (org, rst), never a citation. Anywhere else ``[n]:`` cites."""
    text = inlines[i]["c"]
    if not text.endswith("]:") or DEFINITION_OPENING.fullmatch(text) is None:
        return False
    if i > 0 and inlines[i - 1].get("t") not in ("SoftBreak", "LineBreak"):
        return False
    k = i + 1
    while k < len(inlines) and inlines[k].get("t") == "Space":
        k += 1
    if k == i + 1 or k >= len(inlines):
        return False
    nxt = inlines[k]
    if nxt.get("t") == "Link":
        return bool(nxt["c"][2][0].startswith(_URL_START[:2]))
    return nxt.get("t") == "Str" and str(nxt["c"]).startswith(_URL_START)


def link_marker_id(link: Inline) -> int | None:
    """The id a Link cites when its text is a marker: text ``n`` or ``[n]`` (how pandoc reads
    ``[n]`` with a definition, ``[n](url)`` and ``[[n]](url)``) and an http(s) target."""
    text = link["c"][1]
    if len(text) != 1 or text[0].get("t") != "Str":
        return None
    if not link["c"][2][0].startswith(("http://", "https://")):
        return None
    m = _LINK_ID.fullmatch(text[0]["c"])
    if m is None:
        return None
    return int(m.group(1) or m.group(2))


def own_cite_id(link: Inline) -> int | None:
    """The mark of a citation citeledger placed (a Link to ``#src-N`` whose text is ``[n]``)."""
    text = link["c"][1]
    if len(text) != 1 or text[0].get("t") != "Str":
        return None
    if OWN_TARGET.fullmatch(link["c"][2][0]) is None:
        return None
    m = _LINK_ID.fullmatch(text[0]["c"])
    if m is None or m.group(1) is None:
        return None
    return int(m.group(1))
