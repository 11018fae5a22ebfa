"""``citeledger list``: show the ledger (and, when it is empty, which file was read and why)."""

from __future__ import annotations

import typer

from ._common import JsonOpt, LedgerOpt, echo, ledger_location
from ._quick import list_lines


def list_sources(
    ctx: typer.Context,
    as_json: JsonOpt = False,
    ledger: LedgerOpt = None,
) -> None:
    """Show the ledger."""
    path, why = ledger_location(ctx, ledger)
    echo("\n".join(list_lines(path, why, as_json)))


def register(app: typer.Typer) -> None:
    app.command("list")(list_sources)
