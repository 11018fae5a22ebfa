"""``citeledger add``: register source URLs, print ``[n] url`` for each (sources.py's lines).

``add A B C`` is all or nothing: a refused argument adds nothing, and the one error line names
every bad argument. ``--author``, ``--issued``, ``--site`` and ``--key`` record what a reference
library would (``ledger/bibliography.py``); like ``--title`` they fill empty fields of a source
the ledger holds. ``--archived URL`` records the address of an archived copy of the page (one-URL
calls; ``citeledger archive`` writes Wayback addresses for many). This module starts at every
retrieval: it imports the ledger core only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ..errors import BadInput, BadURL, CiteledgerError
from ..ledger import Ledger, Source, load_ledger, normalize_url, today, transaction
from ..ledger.bibliography import ISSUED_RE, Details, check_key, parse_names
from ..ledger.dates import parse_accessed
from ._common import JsonOpt, LedgerOpt, echo, flag, ledger_path, warn

_ACCESSED_HELP = "Access date, ISO 8601 (2024-01-31 or 2024-01-31T14:05Z; default: today)."
_AUTHOR_HELP = 'Author(s): "Family, Given; Other, Name" (no comma: one name as written).'
_ISSUED_HELP = "Publication date: YYYY, YYYY-MM or YYYY-MM-DD."
_SITE_HELP = "The site, journal or publisher the page belongs to."
_KEY_HELP = "Citation key ([@key] in a draft; citeledger rewrite --keys)."
_ARCHIVED_HELP = "Address of an archived copy of the page (web.archive.org, archive.today)."


def add(
    ctx: typer.Context,
    urls: Annotated[
        list[str], typer.Argument(metavar="URL...", help="http(s) URL, doi:10.x/y or arXiv:id.")
    ],
    title: Annotated[str | None, flag("--title", "TEXT", "Title (one-URL calls).")] = None,
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
    path = ledger_path(ctx, ledger)
    canonical, refused = _check_urls(path, urls)
    errors: list[CiteledgerError] = list(refused.values())
    problems = [f"argument {n + 1}: {exc.line()}" for n, exc in refused.items()]
    date = today()
    if accessed:
        try:
            date = parse_accessed(accessed)
        except BadInput as exc:
            errors.append(exc)
            problems.append(exc.line())
    try:
        details = _details(author, issued, site, key)
    except BadInput as exc:
        details = Details()
        errors.append(exc)
        problems.append(exc.line())
    archived_url = None
    if archived is not None:
        try:
            archived_url = normalize_url(archived)
        except BadURL as exc:
            errors.append(exc)
            problems.append(f"--archived: {exc.line()}")
    if len(errors) == 1 and len(urls) == 1:
        raise errors[0]
    if errors:
        raise BadInput(
            f"nothing added, {len(errors)} bad argument(s): " + "; ".join(problems),
            hint="fix or drop each one and run add again: a batch is added whole or not at all",
        )
    if title and len(urls) > 1:
        warn("--title is ignored when several URLs are added at once")
        title = None
    if details and len(urls) > 1:
        warn("--author, --issued, --site and --key are ignored when several URLs are added")
        details = Details()
    if archived_url and len(urls) > 1:
        warn("--archived is ignored when several URLs are added at once")
        archived_url = None
    with transaction(path) as book:
        pairs = zip(urls, canonical, strict=True)
        entries = [_register(book, raw, canon, title or "", date) for raw, canon in pairs]
        if details:
            _fill(book, entries[0], details)
        if archived_url:
            book.set_archived(entries[0], archived_url)
    if as_json:
        echo(json.dumps([e.to_dict() for e in entries], indent=2, ensure_ascii=False))
    else:
        for e in entries:
            echo(f"[{e.id}] {e.url}")


def _details(author: str | None, issued: str | None, site: str | None, key: str | None) -> Details:
    if issued is not None:
        issued = issued.strip()
        if not ISSUED_RE.fullmatch(issued) or _bad_date(issued):
            raise BadInput(
                f"--issued {issued!r} is not a date", hint="write YYYY, YYYY-MM or YYYY-MM-DD"
            )
    if key is not None and check_key(key):
        raise BadInput(f"--key {key!r} {check_key(key)}")
    names = parse_names(author) if author else None
    return Details(names or None, issued or None, (site or "").strip() or None, key or None)


def _bad_date(issued: str) -> bool:
    import datetime as _dt

    parts = [int(p) for p in issued.split("-")] + [1, 1]
    try:
        _dt.date(*parts[:3])
    except ValueError:
        return True
    return False


def _fill(book: Ledger, source: Source, details: Details) -> None:
    """``details`` onto ``source``: a key another source holds is refused (nothing written)."""
    owner = book.key_owner(details.key) if details.key else None
    if owner is not None and owner is not source:
        raise BadInput(
            f"--key {details.key} is held by [{owner.id}] {owner.url}",
            hint="choose another key: a key names one source",
        )
    book.fill_details(source, details)


def _check_urls(path: Path, urls: list[str]) -> tuple[list[str | None], dict[int, BadURL]]:
    """Every argument's canonical URL, checked before the ledger is touched (a bad one changes
    nothing), and the refusals by position. An argument that is no URL but names an entry of a
    ledger sources.py wrote (it stored any text, e.g. ``example.com/page``) is not refused: its
    canonical form is None and ``_register`` prints that entry's id."""
    canonical: list[str | None] = []
    refused: dict[int, BadURL] = {}
    for n, raw in enumerate(urls):
        try:
            canonical.append(normalize_url(raw))
        except BadURL as exc:
            canonical.append(None)
            refused[n] = exc
    if refused:
        try:
            book = load_ledger(path, missing_ok=True)
        except CiteledgerError:  # the transaction reports it if the URLs are fine
            return canonical, refused
        refused = {n: exc for n, exc in refused.items() if book.find_url(urls[n]) is None}
    return canonical, refused


def _register(book: Ledger, raw: str, canonical: str | None, title: str, date: str) -> Source:
    if canonical is not None:
        return book.add(canonical, title=title, accessed=date)[0]
    existing = book.find_url(raw)
    if existing is None:  # a reset removed it since the check: refuse, nothing is written
        raise BadURL(
            f"{raw!r} is not a URL and no longer in ledger {book.path}",
            hint="give a full http(s) URL",
        )
    book.fill_title(existing, title)
    warn(
        f"[{existing.id}] {existing.url} is not an http(s) URL: an entry carried over from an "
        "older ledger, cited as it stands"
    )
    return existing


def register(app: typer.Typer) -> None:
    app.command("add")(add)
