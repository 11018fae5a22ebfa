"""``citeledger list``: show the ledger (and, when it is empty, which file was read and why)."""

from __future__ import annotations

import json

import typer

from ..ledger import load_ledger
from ..ledger.render import pick_sources
from ._common import JsonOpt, LedgerOpt, echo, ledger_location


def list_sources(
    ctx: typer.Context,
    as_json: JsonOpt = False,
    ledger: LedgerOpt = None,
) -> None:
    """Show the ledger."""
    path, why = ledger_location(ctx, ledger)
    sources = pick_sources(load_ledger(path, missing_ok=True), None)
    if as_json:
        echo(json.dumps([s.to_dict() for s in sources], indent=2, ensure_ascii=False))
        return
    if not sources:
        # Which ledger and why: an agent that expected sources learns it is looking elsewhere.
        echo(f"ledger is empty: {path} ({why})")
        return
    for s in sources:
        title = f"  {s.display_title}" if s.title else ""
        n = len(s.quotes)
        mark = f"  ({n} quote{'s' if n != 1 else ''})" if n else ""
        echo(f"[{s.id}] {s.url}{title}{mark}")


def register(app: typer.Typer) -> None:
    app.command("list")(list_sources)
