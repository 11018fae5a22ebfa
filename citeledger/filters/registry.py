"""Which placement class places citations for which output format.

The formats table (:mod:`citeledger.formats`) names each writer's placement by a key of
:data:`PLACEMENTS` (its ``placement`` column), so the table imports no filter code; this module
turns the key into the class. The table and this registry are checked against each other
(``tests/ground/test_formats_table.py``): every row's key is here, and every class here places
some row.
"""

from __future__ import annotations

from .. import formats
from ..options import Options
from .base import BaseEntries, BasePlacement, State
from .chunked import ChunkedPlacement
from .docx import DocxPlacement
from .escaped import EscapedPlacement
from .html import HtmlPlacement
from .latex import LatexPlacement
from .pptx import PptxPlacement
from .typst import TypstPlacement
from .wiki import WikiPlacement

PLACEMENTS: dict[str, type[BasePlacement]] = {
    "chunked": ChunkedPlacement,
    "docx": DocxPlacement,
    "escaped": EscapedPlacement,
    "html": HtmlPlacement,
    "latex": LatexPlacement,
    "pptx": PptxPlacement,
    "typst": TypstPlacement,
    "wiki": WikiPlacement,
}


def placement_type(fmt: str) -> type[BasePlacement]:
    """The placement class of writer ``fmt`` (extensions ignored), named by its row in
    :mod:`citeledger.formats`."""
    return PLACEMENTS[formats.placement(fmt)]


def placement_for(fmt: str, state: State) -> BasePlacement:
    return placement_type(fmt)(state)


def entries_for(fmt: str, options: Options) -> BaseEntries:
    """How ``fmt``'s placement writes a Sources entry, for a list no filter run makes (the
    wiki build's sources page)."""
    return placement_type(fmt).entries_type(fmt, options)
