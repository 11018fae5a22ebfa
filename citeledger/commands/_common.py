"""What every command shares: the ``--ledger`` option and where the ledger is, flag helpers,
the input reader for files or stdin, and the two line printers.

``--ledger PATH`` is accepted before the verb (``citeledger --ledger L add ...``) and after it
(``citeledger add --ledger L ...``); the one after the verb wins. Without it:
``$CITELEDGER_LEDGER``, ``$HERMES_CITATION_LEDGER``, ``$HERMES_HOME/cache/citations/ledger.json``
when ``$HERMES_HOME`` is set, else ``./ledger.json`` (see ``locate_ledger``).

Module-level imports stay light (``add`` runs at every retrieval).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import BadInput
from ..ledger.files import read_file, read_stream
from ..ledger.model import MAX_ID
from ..ledger.store import locate_ledger
from ..options import Options

LedgerOpt = Annotated[
    str | None,
    typer.Option(
        "--ledger",
        metavar="PATH",
        help="Ledger file (default: $CITELEDGER_LEDGER, $HERMES_CITATION_LEDGER, "
        "$HERMES_HOME/cache/citations/ledger.json, ./ledger.json).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of lines.")]


def flag(name: str, metavar: str, help: str) -> Any:
    """A verb's option that takes a value, in one call (typer's keywords are long to repeat)."""
    return typer.Option(name, metavar=metavar, help=help)


# Tool output and drafts read by the verbs; far above any search result page.
MAX_INPUT_BYTES = 256 * 1024 * 1024


def ledger_location(ctx: typer.Context, explicit: str | None = None) -> tuple[Path, str]:
    """The ledger a command works on and why: its own ``--ledger``, else the one given before
    the verb, else the environment and default (``locate_ledger``)."""
    if explicit:
        return locate_ledger(explicit)
    root = ctx.find_root()
    global_value = (root.params or {}).get("ledger") if root is not None else None
    return locate_ledger(global_value or None)


def ledger_path(ctx: typer.Context, explicit: str | None = None) -> Path:
    """The ledger path alone. Other command modules (verify, wiki, finish) use this too."""
    return ledger_location(ctx, explicit)[0]


def global_ledger(ctx: typer.Context, options: Options) -> Options:
    """``options`` with the ledger given before the verb, when the command got none itself."""
    root = ctx.find_root()
    global_value = (root.params or {}).get("ledger") if root is not None else None
    if options.is_set("ledger") or not global_value:
        return options
    return options.updated({"ledger": global_value})


def main_callback(
    ctx: typer.Context,
    ledger: LedgerOpt = None,
) -> None:
    """A citation ledger, a pandoc filter and one verifier for grounded research."""


def echo(line: str) -> None:
    print(line)


def warn(line: str) -> None:
    print(f"citeledger: warning: {line}", file=sys.stderr)


def read_text_input(source: str, what: str) -> str:
    if source == "-":
        data = read_stream(
            sys.stdin.buffer,
            limit=MAX_INPUT_BYTES,
            what=f"{what} on standard input",
            error=BadInput,
        )
        where = "standard input"
    else:
        data = read_file(
            source,
            limit=MAX_INPUT_BYTES,
            what=what,
            error=BadInput,
            missing_hint="check the path, or use - for stdin",
        )
        where = source
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{what} {where} is not UTF-8 (bad byte at offset {exc.start})") from None


def parse_id(value: str) -> int:
    """A ledger id as typed (``3`` or ``[3]``): ASCII digits only (``²`` or ``٣`` is no id)."""
    text = value.strip().strip("[]")
    if not re.fullmatch(r"[0-9]{1,7}", text) or not 1 <= int(text) <= MAX_ID:
        shown = value if len(value) <= 20 else value[:17] + "..."
        raise BadInput(
            f"{shown!r} is not a ledger id",
            hint=f"give the number n of a source [n], 1 to {MAX_ID}",
        )
    return int(text)
