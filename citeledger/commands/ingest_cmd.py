"""``citeledger ingest``: register every URL found in JSON tool output."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ..errors import BadInput, NothingFound
from ..ledger import today, transaction
from ..ledger.ingest import urls_from_json
from ._common import LedgerOpt, echo, ledger_path, read_text_input, warn


def ingest(
    ctx: typer.Context,
    file: Annotated[
        str, typer.Argument(metavar="FILE|-", help="JSON tool output, or - for stdin.")
    ],
    ledger: LedgerOpt = None,
) -> None:
    """Register every URL found in JSON tool output (search results, extracts)."""
    path = ledger_path(ctx, ledger)
    raw = read_text_input(file, "JSON input")
    where = "standard input" if file == "-" else file
    try:
        payload = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"{where} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            hint="pass the tool's raw JSON output",
        ) from None
    except RecursionError:
        raise BadInput(f"{where} nests too deeply to read") from None
    except ValueError as exc:  # a number of thousands of digits, say
        raise BadInput(f"{where} is not JSON citeledger can read ({exc})") from None
    pairs = urls_from_json(payload, warn)
    if not pairs:
        raise NothingFound(
            f"no URLs found in {where}", hint="expected objects with url, link or source_url"
        )
    date = today()
    with transaction(path) as book:
        entries = [book.add(url, title=name, accessed=date)[0] for url, name in pairs]
    for e in entries:
        echo(f"[{e.id}] {e.url}")


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest)
