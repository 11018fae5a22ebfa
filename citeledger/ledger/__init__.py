"""The ledger core: the ``url -> [n]`` mapping, its file, URL identity and quote matching.

Standard library and the lock library only: the command line's ``add`` runs at every retrieval
and must start fast, and the verifier, filters and renderers all build on this package, never
the other way round.
"""

from __future__ import annotations

from .model import SCHEMA_VERSION, Ledger, Quote, Source, today
from .quotes import normalize_for_match, quote_in_text, word_count
from .store import (
    dump_ledger,
    load_ledger,
    parse_ledger,
    reset_ledger,
    resolve_ledger_path,
    transaction,
)
from .urls import normalize_url

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .render import STYLES, render_block


def __getattr__(name: str) -> Any:
    """``STYLES`` and ``render_block``, loaded on first use: ``add``, ``quote`` and ``list``
    render no Sources block, and each module loaded is start-up time."""
    if name in ("STYLES", "render_block"):
        from . import render

        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "SCHEMA_VERSION",
    "STYLES",
    "Ledger",
    "Quote",
    "Source",
    "dump_ledger",
    "load_ledger",
    "normalize_for_match",
    "normalize_url",
    "parse_ledger",
    "quote_in_text",
    "render_block",
    "reset_ledger",
    "resolve_ledger_path",
    "today",
    "transaction",
    "word_count",
]
