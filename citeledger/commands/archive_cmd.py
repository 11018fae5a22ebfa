"""``citeledger archive``: record where an archived copy of each source lives, against link rot.

``archive --wayback [IDS]`` writes, for each picked source without an ``archived`` address, the
Wayback Machine's address for the day the page was read::

    https://web.archive.org/web/<yyyymmdd>/<url>

No network: the Wayback Machine answers such an address with its copy nearest that day, so the
address is right whether or not a copy was taken that very day (``citeledger add --archived``
records an address you checked). A source whose access date is no date is skipped and named.
This module imports the ledger core only.
"""

from __future__ import annotations

import json
import re
from typing import Annotated

import typer

from ..errors import BadInput
from ..ledger import Source, transaction
from ..ledger.render import parse_id_spec, pick_sources
from ._common import JsonOpt, LedgerOpt, echo, ledger_path, warn

WAYBACK = "https://web.archive.org/web/{stamp}/{url}"
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def wayback_url(source: Source) -> str | None:
    """The Wayback address of ``source`` for its access date, or None without a date."""
    match = _DATE.match(source.accessed.strip())
    if match is None or not source.url.startswith(("http://", "https://")):
        return None
    return WAYBACK.format(stamp="".join(match.groups()), url=source.url)


def archive(
    ctx: typer.Context,
    ids: Annotated[
        str | None, typer.Argument(metavar="[IDS]", help="Ids to archive, e.g. 1,3,5-7 (all).")
    ] = None,
    wayback: Annotated[
        bool, typer.Option("--wayback", help="Write Wayback Machine addresses (the default).")
    ] = True,
    replace: Annotated[
        bool, typer.Option("--replace", help="Also replace an archived address already set.")
    ] = False,
    as_json: JsonOpt = False,
    ledger: LedgerOpt = None,
) -> None:
    """Record archived-copy addresses (Wayback, from the accessed date; no network)."""
    if not wayback:
        raise BadInput("no archive named", hint="use --wayback")
    picked_ids = parse_id_spec(ids) if ids else None
    path = ledger_path(ctx, ledger)
    written: list[Source] = []
    with transaction(path) as book:
        picked = pick_sources(book, picked_ids)
        if picked_ids is not None:
            missing = sorted(picked_ids - {s.id for s in picked})
            if missing:
                raise BadInput(
                    "not in the ledger: " + ", ".join(f"[{i}]" for i in missing[:10]),
                    hint="citeledger list shows the ids",
                )
        for source in picked:
            if source.archived and not replace:
                continue
            address = wayback_url(source)
            if address is None:
                warn(f"[{source.id}] {source.url}: no access date to archive by, skipped")
                continue
            if book.set_archived(source, address):
                written.append(source)
    if as_json:
        echo(json.dumps([s.to_dict() for s in written], indent=2, ensure_ascii=False))
        return
    for s in written:
        echo(f"[{s.id}] {s.archived}")


def register(app: typer.Typer) -> None:
    app.command("archive")(archive)
