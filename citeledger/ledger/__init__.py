"""The ledger core: the ``url -> [n]`` mapping, its file, URL identity and quote matching.

Standard library and the lock library only: the command line's ``add`` runs at every retrieval
and must start fast, and the verifier, filters and renderers all build on this package, never
the other way round.
"""

from __future__ import annotations

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .model import SCHEMA_VERSION, Ledger, Quote, Source, today
    from .quotes import normalize_for_match, quote_in_text, word_count
    from .render import STYLES, render_block
    from .store import (
        dump_ledger,
        load_ledger,
        parse_ledger,
        reset_ledger,
        resolve_ledger_path,
        transaction,
    )
    from .urls import normalize_url

# Each name's module, loaded on first use: ``add`` and ``list`` in the fast lane (``lane.py``)
# load none of them, ``add``, ``quote`` and ``list`` render no Sources block, and each module
# loaded is start-up time.
_HOME = {
    **dict.fromkeys(("SCHEMA_VERSION", "Ledger", "Quote", "Source", "today"), "model"),
    **dict.fromkeys(("normalize_for_match", "quote_in_text", "word_count"), "quotes"),
    **dict.fromkeys(("STYLES", "render_block"), "render"),
    **dict.fromkeys(
        ("dump_ledger", "load_ledger", "parse_ledger", "reset_ledger", "resolve_ledger_path"),
        "store",
    ),
    "transaction": "store",
    "normalize_url": "urls",
}


def __getattr__(name: str) -> Any:
    """The package's names, from their modules (see ``_HOME``)."""
    home = _HOME.get(name)
    if home is None:  # importlib asks for __path__ and the like
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # __import__ with a fromlist gives the module itself; the importlib package is a share of
    # a one-page verify's start, which reaches its names through here.
    return getattr(__import__(f"{__name__}.{home}", fromlist=[name]), name)


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
