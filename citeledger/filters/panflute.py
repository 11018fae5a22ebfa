"""citeledger as panflute pieces: run the filter inside a panflute filter of your own, in one
pass. The filter's manual (``pandoc-citeledger --help``) has the example and the cost.

``prepare(doc)`` runs the whole citeledger filter on the document before the actions walk it:
markers found, verified, placed for ``doc.format``, the Sources list rendered from the ledger.
The actions then see what a filter listed after ``--filter pandoc-citeledger`` sees, and the
output is that two-filter build's. ``finalize(doc)`` runs it after the actions instead, for
actions that write markers (a filter listed before ``pandoc-citeledger``). With a prepare of
your own, call both: ``prepare=lambda doc: (mine(doc), citeledger.prepare(doc))``. Either sets
``doc.citeledger``, the run's one state object (:class:`~citeledger.filters.base.State`:
``options``, ``ledger``, ``order`` -- cited id to order of first citation -- and
``number(id)``, the mark a reader sees), or None when the document cites nothing and passes
through untouched.

A failed verification ends the filter as the console filter ends: the findings and one line
on stderr, a non-zero exit, and pandoc writes nothing.

The work is the raw-JSON filter's (``filters/run.py``, one code path): the document goes to
pandoc JSON, through the filter and back into the panflute tree.
"""

from __future__ import annotations

import json
import os
from typing import Any

try:
    import panflute as pf
except ModuleNotFoundError as missing:  # an optional extra: say which, not just the name
    raise ModuleNotFoundError(
        "citeledger.filters.panflute needs panflute: pip install 'citeledger[panflute]'",
        name=missing.name,
    ) from None

from ..errors import CiteledgerError
from ..tree import no_gc
from .run import apply_handed, exit_with

__all__ = ["finalize", "main", "prepare"]


def prepare(doc: pf.Doc) -> None:
    """Run citeledger on ``doc`` before the actions walk it (see the module docstring)."""
    _filter(doc)


def finalize(doc: pf.Doc) -> None:
    """Run citeledger on ``doc`` after the actions walked it (see the module docstring)."""
    _filter(doc)


def main(doc: pf.Doc | None = None) -> Any:
    """The panflute template's ``main``: citeledger alone, as a panflute filter. Given a Doc,
    filters it and returns it; otherwise reads pandoc JSON on stdin, writes it to stdout."""
    return pf.run_filters([], prepare=prepare, doc=doc)


def _filter(doc: pf.Doc) -> None:
    # Millions of fresh objects and nothing to free until the old tree goes: collection passes
    # on the way more than double the cost of the round trip (the old tree's parent links are
    # cycles, collected once this is done).
    with no_gc():
        data = doc.to_json()
        try:
            state = apply_handed(data, doc.format, os.environ)
        except CiteledgerError as exc:
            exit_with(exc)
        doc.citeledger = state
        if state is None:
            return
        # panflute builds elements from the innermost JSON object outwards, as json.loads
        # hands them to its object hook: a round trip through the text is the cheapest way in.
        doc.content = json.loads(json.dumps(data["blocks"]), object_hook=pf.elements.from_json)
        doc.metadata = json.loads(json.dumps(data["meta"]), object_hook=pf.elements.from_json)
