"""A long deck written by several pandoc runs at once, each given a part of the document.

pandoc's pptx writer costs more than in proportion to what it writes: on the bench's 1.8 MB
report it takes 3.3 s of CPU for the deck's 3.5 MB of JSON, 0.94 s a MB, and on the 5.2 MB
report five times as much. Cut into parts of about half a MB of JSON, the same deck costs
0.48 s a MB (pandoc 3.9). So a long deck is cut where a slide begins, its parts are written
side by side (as many at once as the build has cores) and ``renderers/pptx_join.py`` joins
them into the deck one run writes: the same slides, each slide's XML the same bytes.

The deck is written whole, as always, unless every part is sure to come out as it would have:

- the slide level is fixed for every part (``--slide-level``: the one the user gave, else the
  one pandoc finds in the whole document), and a part begins only at a heading at or above it,
  where pandoc begins a slide anyway;
- the metadata slide (title, subtitle, authors, date) is the first part's: the later parts are
  given the metadata without those four;
- a link to a slide (``#id``) is never cut from its target, since pandoc drops a link whose
  target is not in its deck;
- no footnote is left (pandoc gathers them on one slide at the end of each deck; convert's
  filter has moved a deck's footnotes into its speaker notes);
- pandoc is given no option whose effect spans the deck (``--toc``, a filter, metadata, a
  defaults file): only the options listed in :data:`_OPTIONS`.

A part pandoc fails on, or parts the join does not recognise, and the deck is written whole:
pandoc then says what it says of the whole deck.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from ...errors import CiteledgerError
from ...formats.slide_fit import slide_level
from ...pandoc import run_pandoc
from ...tree import PandocDoc

# JSON characters per part (the compact JSON convert hands pandoc): below about 300,000 a
# run's start weighs, above about a million the writer's growth does (0.68, 0.49, 0.48, 0.54
# and 0.68 s of CPU a MB in parts of 0.15, 0.3, 0.6, 1.2 and 2.4 MB of one report's 3.5 MB,
# 0.94 s a MB whole; pandoc 3.9).
PART_CHARS = 500_000

# The metadata pandoc's pptx writer makes its first slide of; only the first part gets it.
_TITLE_SLIDE_KEYS = ("title", "subtitle", "author", "date")

# The options a part may be written with: each acts on a slide or the package alone. Those
# that take a value, with how many (``--opt value``; ``--opt=value`` also).
_OPTIONS = {
    "-f": 1, "--from": 1, "-r": 1, "--read": 1, "-t": 1, "--to": 1, "-w": 1, "--write": 1,
    "--resource-path": 1, "--reference-doc": 1, "--slide-level": 1, "--dpi": 1,
    "--columns": 1, "--wrap": 1, "--eol": 1, "--highlight-style": 1,
    "--syntax-highlighting": 1, "--tab-stop": 1,
    "--sandbox": 0, "-s": 0, "--standalone": 0, "-i": 0, "--incremental": 0,
    "--no-highlight": 0, "--quiet": 0, "--fail-if-warnings": 0, "--preserve-tabs": 0,
}  # fmt: skip

# A link to an anchor in the JSON text (a link's target is ``["#id", "title"]``), and an
# element's attributes (``["id", ["class", ...], [...]``): read from the text each part is
# written from, a superset at worst (which only keeps more of the document together).
_ANCHOR_LINK = re.compile(r'\["#((?:[^"\\]|\\.)*)",')
_IDENTIFIER = re.compile(r'\["((?:[^"\\]|\\.)+)",\[(?:"(?:[^"\\]|\\.)*",?)*\],\[')


def write_in_parts(doc: PandocDoc, args: Sequence[str], what: str, jobs: int) -> bytes | None:
    """The deck of ``doc`` written by pandoc (``args``: its options, ``-t pptx`` among them) in
    parts, up to ``jobs`` at once, and joined; None when it is to be written whole."""
    from ...renderers.pptx_join import CannotJoin, join_decks

    level = _slide_level_option(args)
    if level is None:
        return None
    parts = split_deck(doc, level or None)
    if parts is None:
        return None
    payloads, level = parts
    command = [*args, "--slide-level", str(level), "-o", "-"]

    def write(payload: str) -> bytes:
        return run_pandoc(command, stdin=payload, what=what)

    try:
        with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(payloads)))) as pool:
            decks = list(pool.map(write, payloads))
    except CiteledgerError:
        return None  # written whole: pandoc's word on the whole deck
    try:
        return join_decks(decks)
    except CannotJoin:
        return None


def split_deck(doc: PandocDoc, level: int | None = None) -> tuple[list[str], int] | None:
    """The JSON texts of the parts ``doc``'s deck is written from, and the slide level they
    are written at (``level``, else pandoc's default for ``doc``); None when the deck is
    short or cannot be cut safely (see the module's docstring)."""
    blocks = doc.get("blocks", [])
    texts = [_dumps(block) for block in blocks]
    total = sum(len(text) for text in texts)
    count = math.ceil(total / PART_CHARS)
    if count < 2 or any('"t":"Note"' in text for text in texts):
        return None
    if level is None:
        level = slide_level(blocks)
    cuts = _cuts(blocks, texts, level, count, total)
    if not cuts:
        return None
    meta = doc.get("meta", {})
    later = {k: v for k, v in meta.items() if k not in _TITLE_SLIDE_KEYS}
    head = '{"pandoc-api-version":' + _dumps(doc.get("pandoc-api-version", [])) + ',"meta":'
    bounds = [0, *cuts, len(blocks)]
    payloads = []
    for k in range(len(bounds) - 1):
        body = ",".join(texts[bounds[k] : bounds[k + 1]])
        payloads.append(head + _dumps(meta if k == 0 else later) + ',"blocks":[' + body + "]}")
    return payloads, level


def _cuts(
    blocks: list[dict[str, object]], texts: list[str], level: int, count: int, total: int
) -> list[int]:
    """Where the parts begin (indices of top-level blocks, ascending, none 0): at a heading
    that begins a slide, not between a link to a slide and its target, each as near as can
    be to a ``count``-th of the document's text."""
    kept = _kept_together(texts)
    allowed = [
        i
        for i, block in enumerate(blocks)
        if i > 0
        and block.get("t") == "Header"
        and isinstance(block.get("c"), list)
        and block["c"][0] <= level  # type: ignore[index]
        and not kept[i]
    ]
    if not allowed:
        return []
    starts = [0]
    for text in texts:
        starts.append(starts[-1] + len(text))
    at = [starts[i] for i in allowed]
    cuts: list[int] = []
    for k in range(1, count):
        goal = total * k / count
        j = bisect.bisect_left(at, goal)
        near = min((c for c in (j - 1, j) if 0 <= c < len(at)), key=lambda c: abs(at[c] - goal))
        if not cuts or allowed[near] > cuts[-1]:
            cuts.append(allowed[near])
    return cuts


def _kept_together(texts: list[str]) -> list[bool]:
    """For each top-level block, whether a part may not begin there: a link to an anchor and
    the blocks that define that anchor are kept in one part."""
    kept = [False] * (len(texts) + 1)
    if not any('["#' in text for text in texts):
        return kept
    defined: dict[str, list[int]] = {}
    links: list[tuple[int, str]] = []
    for i, text in enumerate(texts):
        for m in _IDENTIFIER.finditer(text):
            defined.setdefault(m.group(1), []).append(i)
        links += [(i, m.group(1)) for m in _ANCHOR_LINK.finditer(text)]
    for i, anchor in links:
        places = [i, *defined.get(anchor, [])]
        for j in range(min(places) + 1, max(places) + 1):
            kept[j] = True
    return kept


def _slide_level_option(args: Sequence[str]) -> int | None:
    """The ``--slide-level`` of ``args`` (0 when none is given), or None when ``args`` hold an
    option a part may not be written with."""
    level = 0
    k = 0
    while k < len(args):
        arg = args[k]
        name, eq, value = arg.partition("=")
        if name not in _OPTIONS:
            return None
        if _OPTIONS[name] and not eq:
            if k + 1 >= len(args):
                return None
            value = args[k + 1]
            k += 1
        if name == "--slide-level":
            if not value.isdigit() or not 0 < int(value) <= 6:
                return None
            level = int(value)
        k += 1
    return level


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, check_circular=False, separators=(",", ":"))
