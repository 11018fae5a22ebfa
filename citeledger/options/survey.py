"""One walk over a draft's tree for everything the trust model looks at (:mod:`.trust`).

The trust model asks four things of every element of a draft: how deep it is nested (a tree
deeper than ``MAX_NESTING`` elements is refused before anything recurses into it), whether it
is an attribute naming one of citeledger's own ids, a raw element, or a link or image whose
target may run code. Asked in four walks, a 1.7 MB report's tree (about a million nodes) was
walked four times on every build, half of the wiki build's own time before the pages were cut.
:func:`survey` walks it once, without recursion, and answers all four; the rare element that
needs work (a raw element, an own id, a link outside the allowlist) is then dealt with by the
trust model's own functions, in document order. The same walk keeps the attributes that hold
key-value pairs and the element types: from them a build learns, without another walk, which
walks of its outputs would find nothing (the HTML sanitiser's, the images', the notes').

The walk goes level by level: every element of one level (its nesting depth) is found before
any of the next, so the depth is the level's number and no node carries its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import BadInput
from ..ledger.light import field, pattern, record
from ..tree import Json

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_NESTING = 200
# citeledger's own anchors: the jump of a citation, its evidence card, the cards' switch.
OWN_ID = pattern(r"(?:src-\d+|cite-\d+-\d+|[\w-]*card-\d+|citeledgerCards)")


@record
class Survey:
    """What one walk found: the attributes holding one of citeledger's own ids (the lists
    themselves, to rename in place), the raw elements and the links and images (the
    elements), the lists shaped as an attribute with key-value pairs, each in no particular
    order, and every element type the tree holds."""

    own_ids: list[list[Any]] = field(default_factory=list)
    raws: list[dict[str, Any]] = field(default_factory=list)
    links: list[dict[str, Any]] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    attrs: list[list[Any]] = field(default_factory=list)


def nesting_error(name: str) -> BadInput:
    return BadInput(
        f"{name}: nested deeper than {MAX_NESTING} levels (block quotes, lists or spans "
        "inside each other)",
        hint="flatten the nesting; no document needs it this deep",
    )


def survey(doc: Json, name: str) -> Survey:
    """Walk ``doc`` once (see the module docstring); a tree nested deeper than
    :data:`MAX_NESTING` elements is refused (:func:`nesting_error`) before the walk goes
    below that depth."""
    found = Survey()
    own, raws, links, kinds = found.own_ids, found.raws, found.links, found.kinds
    attrs = found.attrs
    level: list[Any] = [doc]  # containers whose elements are at ``depth``
    depth = 0
    while level:
        depth += 1
        below: list[Any] = []  # the next level's containers: the values of this level's elements
        stack = level
        while stack:
            node = stack.pop()
            items: Iterable[Any]
            if node.__class__ is list:
                first = node[0] if node else None
                if first.__class__ is str and len(node) == 3:
                    if first and _own_id(node):
                        own.append(node)
                    if node[2].__class__ is list and node[2]:
                        attrs.append(node)
                items = node
            elif node.__class__ is dict:
                items = node.values()
            else:
                continue
            for item in items:
                cls = item.__class__
                if cls is dict:
                    t = item.get("t")
                    if t is None:
                        stack.append(item)
                        continue
                    if depth > MAX_NESTING:
                        raise nesting_error(name)
                    kinds.add(t)
                    if t == "Link" or t == "Image":
                        links.append(item)
                    elif t == "RawInline" or t == "RawBlock":
                        raws.append(item)
                    if len(item) == 2:
                        c = item.get("c")
                        if c.__class__ is list or c.__class__ is dict:
                            below.append(c)
                    else:
                        below.extend(v for k, v in item.items() if k != "t")
                elif cls is list:
                    stack.append(item)
        level = below
    return found


def _own_id(node: list[Any]) -> bool:
    """Whether ``node`` is a pandoc attribute (id, classes, key-value pairs) whose id is one
    of citeledger's own."""
    return (
        node[1].__class__ is list
        and node[2].__class__ is list
        and all(isinstance(c, str) for c in node[1])
        # The words every own id holds, before the pattern (most ids are a heading's own).
        and any(word in node[0] for word in ("src-", "cite-", "card-", "citeledgerCards"))
        and OWN_ID.fullmatch(node[0]) is not None
    )
