"""``citeledger reset``: a clean ledger (an unreadable old one is kept aside, never lost)."""

from __future__ import annotations

import typer

from ..ledger import reset_ledger
from ._common import LedgerOpt, echo, ledger_path, warn


def reset(
    ctx: typer.Context,
    ledger: LedgerOpt = None,
) -> None:
    """Start a clean ledger."""
    path = ledger_path(ctx, ledger)
    saved = reset_ledger(path)
    if saved is not None:
        warn(f"the unreadable old ledger was kept as {saved}")
    echo(f"ledger reset: {path}")


def register(app: typer.Typer) -> None:
    app.command("reset")(reset)
