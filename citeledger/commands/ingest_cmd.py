"""``citeledger ingest``: register every source of a search or fetch tool's JSON output
(``ledger/ingest.py``), or every item of a reference library (CSL-JSON, BibTeX, BibLaTeX, RIS)
with its authors, date, site and key.

All or nothing: the whole file is read and checked before the ledger is touched, and one
transaction adds it. A source the ledger holds keeps its id (its empty fields are filled).
Tool output prints one line per source, ``[n] URL (new) — title`` or ``[n] URL (known) — title``;
``--dry-run`` prints the same lines and writes nothing."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..errors import BadInput, NothingFound
from ..ledger import today, transaction
from ..ledger.display import display_text
from ..ledger.ingest import Ingested, ingest_results, parse_results
from ._common import LedgerOpt, echo, flag, ledger_path, read_text_input, warn

_DRY_RUN_HELP = "Print what would be added (tool output); write nothing."
_NO_PAGES_HELP = "Do not keep the page texts results carry (raw_content, text) as evidence."
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
    dry_run: Annotated[bool, typer.Option("--dry-run", help=_DRY_RUN_HELP)] = False,
    no_pages: Annotated[bool, typer.Option("--no-pages", help=_NO_PAGES_HELP)] = False,
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
        payload = parse_results(raw, where)
        done = ingest_results(
            path, payload, where=where, keep_pages=not no_pages, dry_run=dry_run, warn=warn
        )
        for row in done:
            echo(result_line(row))
            if row.expiring:
                warn(
                    f"[{row.id}] {row.url} is a grounding redirect that expires within days: "
                    "open it and `citeledger add` the address it lands on, then cite that id"
                )
        if dry_run:
            warn(f"dry run: nothing written to {path}")
    elif dry_run:
        raise BadInput("--dry-run reads tool output only", hint="drop --dry-run for a library")
    else:
        _ingest_library(path, raw, where, fmt)


def result_line(row: Ingested) -> str:
    """``[n] URL (new) — title`` (or ``known``), and a note when a page text was kept: the
    line starts as sources.py's ``[n] url``, so a script reading those two words still can."""
    line = f"[{row.id}] {row.url} ({'new' if row.new else 'known'})"
    title = display_text(row.title, 200)
    if title and title != row.url:
        line += f" \u2014 {title}"
    return line + (" (page text kept as evidence)" if row.page_kept else "")


def _ingest_library(path: Any, raw: str, where: str, fmt: str) -> None:
    from ..ledger.csl import library_items

    if fmt == "csljson":
        payload = parse_results(raw, where)
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
