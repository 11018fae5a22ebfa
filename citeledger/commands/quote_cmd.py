"""``citeledger quote``: attach verbatim evidence to a source, matched against the fetched page
(``--from``) or the page text ``ingest`` kept from its search result, and kept by digest in the
evidence trail (``ledger/attach.py`` does the work; this module prints); or take a quote back
(``--drop K``, ``--drop-text TEXT``: ``ledger/detach.py``)."""

from __future__ import annotations

import re
from typing import Annotated

import typer

from ..errors import BadInput
from ..ledger.attach import attach_quote
from ..ledger.detach import drop_quote
from ..ledger.display import display_text
from ._common import LedgerOpt, echo, flag, ledger_path, parse_id

_FROM_HELP = "The fetched page (text/HTML/PDF), or -; default: the page text ingest kept."
_DROP_HELP = (
    "Remove the source's quote K (counted from 1, in the order `list --json` and "
    "`render --style evidence` show them) instead of attaching one."
)
_DROP_TEXT_HELP = "Remove the source's quote with this text (compared as quotes are matched)."


def quote(
    ctx: typer.Context,
    source_id: Annotated[str, typer.Argument(metavar="ID", help="Ledger id the quote supports.")],
    text: Annotated[
        str | None, flag("--text", "TEXT", "The exact quote, copied from the page.")
    ] = None,
    evidence: Annotated[str | None, flag("--from", "FILE|-", _FROM_HELP)] = None,
    drop: Annotated[str | None, flag("--drop", "K", _DROP_HELP)] = None,
    drop_text: Annotated[str | None, flag("--drop-text", "TEXT", _DROP_TEXT_HELP)] = None,
    ledger: LedgerOpt = None,
) -> None:
    """Attach verbatim evidence to a source, or --drop a quote."""
    sid = parse_id(source_id)
    given = [n for n, v in (("--text", text), ("--drop", drop), ("--drop-text", drop_text)) if v]
    if len(given) != 1:
        raise BadInput(
            f"quote takes one of --text, --drop and --drop-text, got {len(given) or 'none'}"
            + (f" ({', '.join(given)})" if given else ""),
            hint=f'attach with `citeledger quote {sid} --text "…"`, or take quote K back with '
            f"`citeledger quote {sid} --drop K`",
        )
    path = ledger_path(ctx, ledger)
    if text is None:
        if evidence is not None:
            raise BadInput(
                "--from names the page a new quote is checked against; --drop takes none",
                hint=f"`citeledger quote {sid} --drop K` alone",
            )
        gone = drop_quote(path, sid, _quote_number(drop, sid) if drop else None, drop_text)
        echo(
            f"[{gone.id}] quote {gone.number} dropped ({gone.left} quote(s) left): "
            f"\u201c{display_text(gone.text, 80)}\u201d"
        )
        return
    done = attach_quote(path, sid, text, evidence)
    echo(f"[{done.id}] evidence attached ({done.count} quote(s))")


def _quote_number(value: str, sid: int) -> int:
    """K of ``--drop K``: a whole number from 1 (``2``, or ``#2`` as a list may number it)."""
    shown = value.strip().lstrip("#")
    if not re.fullmatch(r"[0-9]{1,6}", shown) or int(shown) < 1:
        raise BadInput(
            f"--drop {value[:20]!r} is not a quote's number",
            hint=f"`citeledger quote {sid} --drop K`, K the quote's place under [{sid}] counted "
            "from 1, as `citeledger list --json` orders them",
        )
    return int(shown)


def register(app: typer.Typer) -> None:
    app.command("quote")(quote)
