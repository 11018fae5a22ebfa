"""The verbs' two line printers and their reader of a file or standard input. Standard library
and the ledger core only: the quick verbs (:mod:`citeledger.commands._quick`) print through
these without loading typer, and every typer command through the same ones
(``commands._common`` hands them on)."""

from __future__ import annotations

import re
import sys

from ..errors import BadInput
from ..ledger.files import read_file, read_stream
from ..ledger.model import MAX_ID
from ..messages import to_stderr

# Tool output and drafts read by the verbs; far above any search result page.
MAX_INPUT_BYTES = 256 * 1024 * 1024


def echo(line: str) -> None:
    print(line)


def warn(line: str) -> None:
    """A command's own warning (not a build's finding), through the one sink."""
    to_stderr(f"citeledger: warning: {line}")


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
