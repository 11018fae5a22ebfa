"""``citeledger ingest``: register every URL found in JSON tool output, or every item of a
reference library (CSL-JSON, BibTeX, BibLaTeX, RIS) with its authors, date, site and key.

All or nothing: the whole file is read and checked before the ledger is touched, and one
transaction adds it. A source the ledger holds keeps its id (its empty fields are filled)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from ..errors import BadInput, NothingFound
from ..ledger import today, transaction
from ..ledger.ingest import urls_from_json
from ._common import LedgerOpt, echo, flag, ledger_path, read_text_input, warn

_FROM_HELP = "Input format: auto (default), json (tool output), csljson, bibtex, biblatex or ris."
# Items a library holds without any URL are named in one line, at most this many by name.
_NAMED = 20


def ingest(
    ctx: typer.Context,
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE|-", help="JSON tool output or a library file, or - for stdin."
        ),
    ],
    from_format: Annotated[str, flag("--from", "FORMAT", _FROM_HELP)] = "auto",
    ledger: LedgerOpt = None,
) -> None:
    """Register every URL of JSON tool output or of a reference library (CSL-JSON, BibTeX, RIS)."""
    from ..document.library import FORMATS, sniff

    if from_format not in FORMATS:
        raise BadInput(f"unknown --from {from_format!r}", hint="use one of " + ", ".join(FORMATS))
    path = ledger_path(ctx, ledger)
    raw = read_text_input(file, "input")
    where = "standard input" if file == "-" else file
    fmt = sniff(raw, where if file != "-" else "") if from_format == "auto" else from_format
    if fmt == "json":
        _ingest_tool_json(path, raw, where)
    else:
        _ingest_library(path, raw, where, fmt)


def _parse_json(raw: str, where: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"{where} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            hint="pass the tool's raw JSON output, or a library file with --from",
        ) from None
    except RecursionError:
        raise BadInput(f"{where} nests too deeply to read") from None
    except ValueError as exc:  # a number of thousands of digits, say
        raise BadInput(f"{where} is not JSON citeledger can read ({exc})") from None


def _ingest_tool_json(path: Any, raw: str, where: str) -> None:
    pairs = urls_from_json(_parse_json(raw, where), warn)
    if not pairs:
        raise NothingFound(
            f"no URLs found in {where}", hint="expected objects with url, link or source_url"
        )
    date = today()
    with transaction(path) as book:
        entries = [book.add(url, title=name, accessed=date)[0] for url, name in pairs]
    for e in entries:
        echo(f"[{e.id}] {e.url}")


def _ingest_library(path: Any, raw: str, where: str, fmt: str) -> None:
    from ..ledger.csl import library_items

    if fmt == "csljson":
        payload = _parse_json(raw, where)
    else:
        from ..document.library import csl_from_library

        payload = csl_from_library(raw, fmt, where)
    items, missing = library_items(payload)
    if missing:
        more = len(missing) - _NAMED
        named = ", ".join(missing[:_NAMED]) + (f" and {more} more" if more > 0 else "")
        warn(
            f"{len(missing)} item(s) of {where} have no URL or DOI the ledger takes, "
            f"not added: {named}"
        )
    if not items:
        raise NothingFound(
            f"no item of {where} ({fmt}) has a URL or DOI",
            hint="give each item a URL or DOI in the library, or add its page with citeledger add",
        )
    date = today()
    with transaction(path) as book:
        entries = []
        for item in items:
            key = item.details.key
            owner = book.key_owner(key) if key else None
            if owner is not None and book.find_url(item.url) is not owner:
                warn(f"key {key} is held by [{owner.id}] {owner.url}: not given to {item.url}")
            entries.append(
                book.add(
                    item.url,
                    title=item.title,
                    accessed=item.accessed or date,
                    details=item.details,
                )[0]
            )
    shown: set[int] = set()
    for e in entries:
        if e.id not in shown:
            shown.add(e.id)
            echo(f"[{e.id}] {e.url}")


def register(app: typer.Typer) -> None:
    app.command("ingest")(ingest)
