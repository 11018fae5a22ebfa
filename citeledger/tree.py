"""Pandoc's document tree as plain JSON: its named shapes, builders, plain text, and the walk.

Everything that reads or builds a document works on the JSON pandoc hands a filter, as plain
dicts and lists: building panflute's object tree for a whole report costs more than the rest of
a filter run together. This module is the one place that knows the tree's shape, below the
verifier, the filters and the renderers alike.

The shapes, for signatures (``mypy --strict`` then tells a block list from a metadata map)::

    PandocDoc   {"pandoc-api-version": [1, 23], "meta": Meta, "blocks": Blocks}
    JsonDoc     anything that gives its PandocDoc by ``to_json()`` (a panflute Doc)
    Meta        {"title": MetaValue, ...}: the ``meta`` map
    MetaValue   {"t": "MetaInlines", "c": Inlines}, MetaString, MetaMap, MetaList...
    Element     {"t": "Str", "c": "ice"}: one inline or block; Inline and Block name its role
    Inlines     [Inline, ...]: a paragraph's content, a heading's text, a link's text
    Blocks      [Block, ...]: a document's body, a list item, a note, a table cell
    Attr        ["identifier", ["class", ...], [["key", "value"], ...]]
    Json        any JSON value whose shape the code does not rely on (an element's ``c``)

An element is an alias, not a TypedDict: its ``c`` changes shape with its ``t`` and is read by
position (a Link's text is ``c[1]``), which a union of a hundred TypedDicts would only repeat.

The walk (:class:`Walk`) visits blocks in the order a reader meets them in every writer's output,
because that order decides which citation of a source comes first (its Word note, its back-link,
its sequential number): a figure's image before its caption, a table's caption before its head
rows, each body's intermediate head rows before its rows, the foot last. Each consumer (the
marker finder, the sentence splitter, the Word note counter, the slide placement, the Sources
entries) subclasses it and says what to do with an inline list; the block structure is defined
here once. Where a consumer replaces elements rather than reading them (a filter swapping an
image for a raw block), :func:`replace_elements` visits every list instead, inner elements
first.

Decoding, walking and rebuilding a large tree makes millions of fresh objects and no garbage:
:func:`no_gc` pauses the cyclic collector for such work.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Container, Iterable, Iterator

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol, TypedDict

    # The named shapes (see the module docstring).
    Json = Any
    Element = dict[str, Any]
    Inline = Element
    Block = Element
    Inlines = list[Inline]
    Blocks = list[Block]
    MetaValue = Element
    Meta = dict[str, MetaValue]
    Attr = list[Any]
    PandocDoc = TypedDict(
        "PandocDoc",
        {"pandoc-api-version": list[int], "meta": Meta, "blocks": Blocks},
    )

    class JsonDoc(Protocol):
        """A document that gives its pandoc JSON (a panflute ``Doc``)."""

        def to_json(self) -> PandocDoc: ...

else:
    # At run time the shapes are names to import, nothing to check: plain dicts and lists
    # (annotations are not evaluated).
    Json = Element = Inline = Block = MetaValue = Attr = object
    Inlines = Blocks = list
    Meta = PandocDoc = dict

    class JsonDoc:
        """A document that gives its pandoc JSON (a panflute ``Doc``)."""


def no_gc() -> _NoGc:
    """Pause the cyclic garbage collector while a large tree is decoded, walked or rebuilt
    (``with no_gc():``).

    A pandoc tree (and a document an office library builds from one) is a large acyclic
    structure of fresh objects: a collection pass on the way finds nothing to free, yet passes
    cost from a tenth to more than half of such work. The collector is restored as it was, so a
    caller that had turned it off keeps it off."""
    return _NoGc()


class _NoGc:
    """:func:`no_gc`'s context (a class: every verify enters one, and ``contextlib`` is a
    share of a one-page verify's start)."""

    collecting = False

    def __enter__(self) -> None:
        self.collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.collecting:
            gc.enable()


# Inline elements that hold an inline list: directly as their content, or as c[1] (after an
# attribute, a quote type or a citation list). A Note holds blocks.
INLINES_AT_C = frozenset(
    {"Emph", "Underline", "Strong", "Strikeout", "Superscript", "Subscript", "SmallCaps"}
)
INLINES_AT_1 = frozenset({"Span", "Quoted", "Link", "Image", "Cite"})
# Blocks that never hold prose or citations.
OPAQUE_BLOCKS = frozenset({"CodeBlock", "RawBlock", "HorizontalRule", "Null"})
BREAKS = frozenset({"SoftBreak", "LineBreak"})


def is_old_figure_image(el: Inline) -> bool:
    """An Image that is a figure in pandoc-types 1.22 (pandoc 2.11 to 2.19): its target title
    starts with ``fig:`` and its alt inlines are the figure's caption. From 1.23 on a figure is
    a Figure block with a caption of its own, and its image's alt is only a copy."""
    target = el["c"][2]
    return isinstance(target, list) and str(target[1]).startswith("fig:")


def child_inlines(el: Inline) -> Inlines | None:
    """The inline list an inline element holds, or None (text, code, math, notes)."""
    t = el.get("t")
    if t in INLINES_AT_C:
        inner: Inlines = el["c"]
        return inner
    if t in INLINES_AT_1:
        inner = el["c"][1]
        return inner
    return None


# Builders ---------------------------------------------------------------------------------


def str_(text: str) -> Inline:
    return {"t": "Str", "c": text}


def space() -> Inline:
    return {"t": "Space"}


def attr(
    identifier: str = "", classes: Iterable[str] = (), kv: Iterable[tuple[str, str]] = ()
) -> Attr:
    return [identifier, list(classes), [list(p) for p in kv]]


def link(inlines: Inlines, url: str, identifier: str = "", classes: Iterable[str] = ()) -> Inline:
    return {"t": "Link", "c": [attr(identifier, classes), inlines, [url, ""]]}


def span(inlines: Inlines, identifier: str = "", classes: Iterable[str] = ()) -> Inline:
    return {"t": "Span", "c": [attr(identifier, classes), inlines]}


def div(blocks: Blocks, identifier: str = "", classes: Iterable[str] = ()) -> Block:
    return {"t": "Div", "c": [attr(identifier, classes), blocks]}


def para(inlines: Inlines) -> Block:
    return {"t": "Para", "c": inlines}


def plain(inlines: Inlines) -> Block:
    return {"t": "Plain", "c": inlines}


def bullet_list(items: list[Inlines]) -> Block:
    return {"t": "BulletList", "c": items}


def header(level: int, text: str, identifier: str = "", classes: Iterable[str] = ()) -> Block:
    return {"t": "Header", "c": [level, attr(identifier, classes), text_to_inlines(text)]}


def raw_inline(fmt: str, text: str) -> Inline:
    return {"t": "RawInline", "c": [fmt, text]}


def raw_block(fmt: str, text: str) -> Block:
    return {"t": "RawBlock", "c": [fmt, text]}


def text_to_inlines(text: str) -> Inlines:
    """Plain text as Str and Space elements (one line: callers flatten newlines first)."""
    out: Inlines = []
    for k, word in enumerate(text.split(" ")):
        if k:
            out.append({"t": "Space"})
        if word:
            out.append({"t": "Str", "c": word})
    return out


# Text -------------------------------------------------------------------------------------


def stringify(elements: Json) -> str:
    """Plain text of an inline list, a block list or one element, for headings, titles and
    messages: code and math keep their text, raw markup and notes drop out."""
    out: list[str] = []
    _stringify_into(elements, out)
    return "".join(out)


def _stringify_into(node: Json, out: list[str]) -> None:
    if isinstance(node, list):
        for item in node:
            _stringify_into(item, out)
        return
    if not isinstance(node, dict):
        return
    t = node.get("t")
    c: Any = node.get("c")
    if t == "Str":
        out.append(c)
    elif t in ("Space", "SoftBreak"):
        out.append(" ")
    elif t == "LineBreak":
        out.append("\n")
    elif t in ("Code", "Math"):
        out.append(c[-1] if isinstance(c[-1], str) else "")
    elif t in ("RawInline", "Note"):
        pass
    elif t == "Quoted":
        double = c[0]["t"] == "DoubleQuote"
        out.append("\u201c" if double else "\u2018")
        _stringify_into(c[1], out)
        out.append("\u201d" if double else "\u2019")
    elif t in INLINES_AT_1:
        _stringify_into(c[1], out)
    elif t == "Header":
        _stringify_into(c[2], out)
    elif t == "Div":
        _stringify_into(c[1], out)
    elif isinstance(c, list):
        _stringify_into(c, out)


def elements(node: Json) -> Iterator[Element]:
    """Every element (a dict with ``t``) under ``node``, depth first in document order."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, list):
            stack.extend(reversed(cur))
        elif isinstance(cur, dict):
            if "t" in cur:
                yield cur
            c = cur.get("c")
            if isinstance(c, list):
                stack.append(c)


def elements_of(node: Json, kinds: Container[str]) -> Iterator[Element]:
    """The elements under ``node`` whose type is one of ``kinds``, depth first in document
    order, as :func:`elements` finds them (an element is read after the caller has seen it,
    so a change to it is walked as changed). Several times faster than filtering
    :func:`elements`: no text element is pushed, popped or handed back."""
    stack: list[Iterator[Json]] = [iter((node,))]
    while stack:
        for item in stack[-1]:
            if item.__class__ is dict:
                if item.get("t") in kinds:
                    yield item
                c = item.get("c")
                if c.__class__ is list:
                    stack.append(iter(c))
                    break
            elif item.__class__ is list:
                stack.append(iter(item))
                break
        else:
            stack.pop()


# The walk ---------------------------------------------------------------------------------


class Walk:
    """Blocks in reading order (see the module docstring); subclasses implement
    :meth:`inlines` and may skip block types (``skip``) or treat a line block, a heading or a
    definition term their own way.

    :meth:`top` walks a document's top-level blocks, keeping ``index`` (of the top-level block
    being walked) and ``heading`` (the text of the nearest heading at or before it) for the
    consumer's findings, and leaving out the top-level blocks in ``exclude``.
    """

    skip: frozenset[str] = OPAQUE_BLOCKS

    def __init__(self) -> None:
        self.index = 0
        self.heading = ""

    def top(self, blocks: Blocks, exclude: range = range(0)) -> None:
        heading = ""
        for index, block in enumerate(blocks):
            if block.get("t") == "Header":
                heading = stringify(block["c"][2])
            if index in exclude:
                continue
            self.index = index
            self.heading = heading
            self.blocks([block])
            self.after_top()

    def after_top(self) -> None:
        """Called after each top-level block (the sentence splitter reads notes there)."""

    def inlines(self, inlines: Inlines) -> None:
        raise NotImplementedError

    def line_block(self, lines: list[Inlines]) -> None:
        for line in lines:
            self.inlines(line)

    def blocks(self, blocks: Blocks) -> None:
        skip = self.skip
        for b in blocks:
            t = b.get("t")
            if t in skip:
                continue
            c: Json = b.get("c")
            if t == "Para" or t == "Plain":
                self.inlines(c)
            elif t == "Header":
                self.inlines(c[2])
            elif t == "BlockQuote":
                self.blocks(c)
            elif t == "BulletList":
                for item in c:
                    self.blocks(item)
            elif t == "OrderedList":
                for item in c[1]:
                    self.blocks(item)
            elif t == "DefinitionList":
                for term, definitions in c:
                    self.inlines(term)
                    for d in definitions:
                        self.blocks(d)
            elif t == "LineBlock":
                self.line_block(c)
            elif t == "Div":
                self.blocks(c[1])
            elif t == "Figure":
                self.blocks(c[2])
                self.blocks(c[1][1])
            elif t == "Table":
                self.table(c)

    def table(self, c: list[Json]) -> None:
        _attr, caption, _specs, head, bodies, foot = c
        self.blocks(caption[1])
        rows = list(head[1])
        for body in bodies:
            rows += body[2]
            rows += body[3]
        rows += foot[1]
        for row in rows:
            for cell in row[1]:
                self.blocks(cell[4])


class InlineLists(Walk):
    """Collects every inline list in reading order, outer lists before the lists they hold;
    footnote bodies are not entered (a slide's notes and a chunk's links live outside them)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[Inlines] = []

    def inlines(self, inlines: Inlines) -> None:
        self.found.append(inlines)
        for el in inlines:
            inner = child_inlines(el)
            if inner is not None:
                self.inlines(inner)


class _JoinWords(Walk):
    """See :func:`join_words`."""

    def inlines(self, inlines: Inlines) -> None:
        out: Inlines = []
        words: list[str] = []  # the text of the Str that ends ``out``, while it grows
        n = len(inlines)
        for i, el in enumerate(inlines):
            t = el.get("t")
            if t == "Str":
                if words:
                    words.append(el["c"])
                    continue
                words.append(el["c"])
                out.append(el)
                continue
            if t == "Space" and words and i + 1 < n and inlines[i + 1].get("t") == "Str":
                words.append(" ")
                continue
            if len(words) > 1:
                out[-1] = {"t": "Str", "c": "".join(words)}  # new: the old one may be shared
            words = []
            out.append(el)
            inner = child_inlines(el)
            if inner is not None:
                self.inlines(inner)
            elif t == "Note":
                self.blocks(el["c"])
        if len(words) > 1:
            out[-1] = {"t": "Str", "c": "".join(words)}
        if len(out) != n:
            inlines[:] = out


def join_words(blocks: Blocks) -> None:
    """Make each run of words one Str, in place: ``Str "a", Space, Str "b"`` becomes
    ``Str "a b"``; a Space next to anything but text stays. Only for a writer that writes the
    same file either way (formats ``joins_words``): pandoc then reads and writes about half
    the elements. The document's metadata is left as it is."""
    _JoinWords().blocks(blocks)


def inline_lists(blocks: Blocks) -> list[Inlines]:
    walk = InlineLists()
    walk.blocks(blocks)
    return walk.found


# Code cells pandoc left as text -----------------------------------------------------------

_CELL_FENCES = ("```", "~~~")


class _CodeCells(Walk):
    """Finds, in every block list, the runs of blocks that are a Quarto or R Markdown code
    cell pandoc's reader could not take for a fence (see :func:`code_cell_inlines`)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: set[int] = set()

    def inlines(self, inlines: Inlines) -> None:
        pass

    def blocks(self, blocks: Blocks) -> None:
        start = None
        fence = ""
        for k, b in enumerate(blocks):
            if start is None:
                fence = _cell_opening(b)
                if not fence:
                    continue
                start = k
                if len(b["c"]) == 1:
                    continue
            if b.get("t") == "CodeBlock":
                # The cell's closing fence opened a code block that a later fence closes.
                self.cell(blocks[start:k])
                start = None
            elif _cell_closes(b, fence):
                self.cell(blocks[start : k + 1])
                start = None
        super().blocks(blocks)

    def cell(self, blocks: Blocks) -> None:
        for inner in inline_lists(blocks):
            self.found.add(id(inner))


def _cell_opening(block: Block) -> str:
    """The fence (```` ``` ```` or longer) when ``block`` is a paragraph whose first line is a
    cell fence with braces (```` ```{python} ````, ```` ```{{python}} ````), else ""."""
    if block.get("t") not in ("Para", "Plain") or not block["c"]:
        return ""
    first = block["c"][0]
    if first.get("t") != "Str":
        return ""
    text: str = first["c"]
    if not text.startswith(_CELL_FENCES):
        return ""
    fence = text[: len(text) - len(text.lstrip(text[0]))]
    return fence if text[len(fence) : len(fence) + 1] == "{" else ""


def _cell_closes(block: Block, fence: str) -> bool:
    if block.get("t") not in ("Para", "Plain") or not block["c"]:
        return False
    last = block["c"][-1]
    if last.get("t") != "Str":
        return False
    text: str = last["c"]
    return len(text) >= len(fence) and text == fence[0] * len(text)


def code_cell_inlines(blocks: Blocks) -> set[int]:
    """``id()`` of every inline list that belongs to a code cell pandoc read as text.

    Quarto and R Markdown write executable cells as ```` ```{python} ```` and display cells as
    ```` ```{{python}} ````; pandoc's markdown reader takes neither for a fence, so the cell
    becomes paragraphs (``plt.plot([1,23,2,4])`` as text). A run of blocks from a paragraph
    that opens with such a fence to the first one that ends with a closing fence is code: the
    marker finder and the sentence splitter leave it out, as they leave out a CodeBlock. When a
    later fence follows, pandoc reads the cell's closing fence as the opening of a code block:
    the cell then ends where that CodeBlock starts. A fence that never closes opens no cell
    (the rest of the document stays prose)."""
    walk = _CodeCells()
    walk.blocks(blocks)
    return walk.found


def replace_elements(node: object, change: Callable[[Element], list[Element] | None]) -> None:
    """Replace, in every list under ``node``, each element ``change`` returns a list for; inner
    elements are seen first, and an element ``change`` returns None for stays (``change`` may
    still edit it in place)."""
    if isinstance(node, list):
        out: list[object] = []
        changed = False
        for item in node:
            replace_elements(item, change)
            if isinstance(item, dict) and "t" in item:
                new = change(item)
                if new is not None:
                    out.extend(new)
                    changed = True
                    continue
            out.append(item)
        if changed:
            node[:] = out
    elif isinstance(node, dict):
        content = node.get("c")
        if isinstance(content, list):
            replace_elements(content, change)
