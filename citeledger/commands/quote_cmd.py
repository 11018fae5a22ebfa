"""``citeledger quote``: attach verbatim evidence to a source, matched against the fetched page
(``--from``) or the page text ``ingest`` kept from its search result, and kept by digest in the
evidence trail (``ledger/attach.py`` does the work; this module prints)."""

from __future__ import annotations

from typing import Annotated

import typer

from ..ledger.attach import attach_quote
from ._common import LedgerOpt, echo, flag, ledger_path, parse_id

_FROM_HELP = "The fetched page (text/HTML/PDF), or -; default: the page text ingest kept."


def quote(
    ctx: typer.Context,
    source_id: Annotated[str, typer.Argument(metavar="ID", help="Ledger id the quote supports.")],
    text: Annotated[str, flag("--text", "TEXT", "The exact quote, copied from the page.")],
    evidence: Annotated[str | None, flag("--from", "FILE|-", _FROM_HELP)] = None,
    ledger: LedgerOpt = None,
) -> None:
    """Attach verbatim supporting evidence to a source."""
    done = attach_quote(ledger_path(ctx, ledger), parse_id(source_id), text, evidence)
    echo(f"[{done.id}] evidence attached ({done.count} quote(s))")


def register(app: typer.Typer) -> None:
    app.command("quote")(quote)
