"""``citeledger add``: register source URLs, print ``[n] url`` for each (sources.py's lines).

``add A B C`` is all or nothing: a refused argument adds nothing, and the one error line names
every bad argument. The batch an agent has after a search goes in one call: ``--title`` once
per URL, in order (a count that does not match is refused), or ``add -`` with one source a line
on standard input, ``url<TAB>title`` or a JSON object with ``url`` and ``title``.
``--author``, ``--issued``, ``--site`` and ``--key`` record what a reference library would
(``ledger/bibliography.py``); like ``--title`` they fill empty fields of a source the ledger
holds. ``--archived URL`` records the address of an archived copy of the page (one-URL calls;
``citeledger archive`` writes Wayback addresses for many). This module starts at every
retrieval: it imports the ledger core only, and its plain forms run without typer
(``commands._quick``); the work is ``commands._add_sources``."""

from __future__ import annotations

from typing import Annotated

import typer

from ._add_sources import add_sources
from ._common import JsonOpt, LedgerOpt, flag, ledger_path

_ACCESSED_HELP = "Access date, ISO 8601 (2024-01-31 or 2024-01-31T14:05Z; default: today)."
_AUTHOR_HELP = 'Author(s): "Family, Given; Other, Name" (no comma: one name as written).'
_ISSUED_HELP = "Publication date: YYYY, YYYY-MM or YYYY-MM-DD."
_SITE_HELP = "The site, journal or publisher the page belongs to."
_KEY_HELP = "Citation key ([@key] in a draft; citeledger rewrite --keys)."
_ARCHIVED_HELP = "Address of an archived copy of the page (web.archive.org, archive.today)."
_TITLE_HELP = "Title; repeat it once per URL, in order, to title several."


def add(
    ctx: typer.Context,
    urls: Annotated[
        list[str],
        typer.Argument(
            metavar="URL...",
            help="http(s) URL, doi:10.x/y or arXiv:id; - reads stdin: URL<TAB>TITLE or "
            'JSON {"url", "title"} a line.',
        ),
    ],
    title: Annotated[list[str] | None, flag("--title", "TEXT", _TITLE_HELP)] = None,
    accessed: Annotated[str | None, flag("--accessed", "DATE", _ACCESSED_HELP)] = None,
    author: Annotated[str | None, flag("--author", "NAMES", _AUTHOR_HELP)] = None,
    issued: Annotated[str | None, flag("--issued", "DATE", _ISSUED_HELP)] = None,
    site: Annotated[str | None, flag("--site", "TEXT", _SITE_HELP)] = None,
    key: Annotated[str | None, flag("--key", "KEY", _KEY_HELP)] = None,
    archived: Annotated[str | None, flag("--archived", "URL", _ARCHIVED_HELP)] = None,
    as_json: JsonOpt = False,
    ledger: LedgerOpt = None,
) -> None:
    """Register source URL(s) and print their ids as `[n] url`."""
    add_sources(
        lambda: ledger_path(ctx, ledger),
        list(urls),
        list(title or []),
        accessed=accessed,
        author=author,
        issued=issued,
        site=site,
        key=key,
        archived=archived,
        as_json=as_json,
    )


def register(app: typer.Typer) -> None:
    app.command("add")(add)
