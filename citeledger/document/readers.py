"""Undo what some pandoc readers do to a marker before the finder looks for it.

The LaTeX reader turns ``{[}1{]}`` (how pandoc's own LaTeX writer escapes a bracket) into
``Span [Str "["]``, ``Str "1"``, ``Span [Str "]"]``: the marker is there for a reader of the PDF
but no longer one Str. Attribute-less Spans that hold only text are melted into the text around
them, so a LaTeX file written by pandoc verifies like the markdown it came from (the readers
that need it are marked ``splits_brackets`` in :mod:`citeledger.formats`). The command line
applies this to its own copy of the tree; the filter never needs it (it sees the draft's tree).
"""

from __future__ import annotations

from ..tree import Json

_EMPTY_ATTR = ["", [], []]


def join_bracket_spans(node: Json) -> None:
    """In place: melt bare text-only Spans into neighbouring Str elements, everywhere."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            c = cur.get("c")
            if isinstance(c, list):
                stack.append(c)
            elif cur.get("blocks") is not None:
                stack.append(cur["blocks"])
        elif isinstance(cur, list):
            if cur and isinstance(cur[0], dict) and "t" in cur[0] and _is_inlines(cur):
                _melt(cur)
            stack.extend(cur)


def _is_inlines(items: list[Json]) -> bool:
    return any(isinstance(x, dict) and x.get("t") == "Span" for x in items)


def _bare_text(el: Json) -> str | None:
    if el.get("t") != "Span" or el["c"][0] != _EMPTY_ATTR:
        return None
    inner = el["c"][1]
    if inner and all(x.get("t") == "Str" for x in inner):
        return "".join(x["c"] for x in inner)
    return None


def _melt(inlines: list[Json]) -> None:
    out: list[Json] = []
    changed = False
    for el in inlines:
        text = el.get("c") if el.get("t") == "Str" else _bare_text(el)
        if text is None:
            out.append(el)
            continue
        if el.get("t") != "Str":
            changed = True
        if out and out[-1].get("t") == "Str":
            out[-1] = {"t": "Str", "c": out[-1]["c"] + text}
            changed = True
        else:
            out.append({"t": "Str", "c": text})
    if changed:
        inlines[:] = out


# The Divs pandoc's HTML reader makes of a slide show's wrappers (reveal.js's ``.reveal >
# .slides``, s5's ``.presentation``, each slide's ``<section>`` or ``<div class="slide">``):
# unwrapped, the slides' headings and the Sources pages are top-level blocks, as in the draft.
_SLIDE_WRAPPERS = frozenset({"reveal", "slides", "presentation", "slide", "section"})


def unwrap_slides(doc: Json) -> None:
    """In place: the top-level blocks of ``doc`` with slide-show wrapper Divs replaced by their
    contents, at any depth of such wrappers."""
    out: list[Json] = []
    stack = list(reversed(doc.get("blocks", [])))
    while stack:
        block = stack.pop()
        if block.get("t") == "Div" and _SLIDE_WRAPPERS.intersection(block["c"][0][1]):
            stack.extend(reversed(block["c"][1]))
        else:
            out.append(block)
    doc["blocks"] = out
