"""What ``citeledger add`` does once its command line is read, by the typer command
(:mod:`citeledger.commands.add_cmd`) or by the quick path (:mod:`citeledger.commands._quick`),
which runs it without loading typer: ``add`` runs at every retrieval, once per source.

``add A B C`` is all or nothing: a refused argument adds nothing, and the one error line names
every bad argument. The ledger core and the standard library only."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ..errors import BadInput, BadURL, CiteledgerError
from ..ledger import Ledger, Source, load_ledger, normalize_url, today, transaction
from ..ledger.bibliography import ISSUED_RE, Details, check_key, parse_names
from ._io import echo, read_text_input, warn


def add_sources(
    locate: Callable[[], Path],
    urls: list[str],
    titles: list[str],
    *,
    accessed: str | None = None,
    author: str | None = None,
    issued: str | None = None,
    site: str | None = None,
    key: str | None = None,
    archived: str | None = None,
    as_json: bool = False,
) -> None:
    """Register ``urls`` (``["-"]``: the lines of standard input) in the ledger ``locate``
    finds, and print ``[n] url`` for each (or their JSON)."""
    urls, titles, unit = _batch(urls, titles)
    path = locate()
    canonical, refused = _check_urls(path, urls)
    errors: list[CiteledgerError] = list(refused.values())
    problems = [f"{unit} {n + 1}: {exc.line()}" for n, exc in refused.items()]
    date = today()
    if accessed:
        from ..ledger.dates import parse_accessed

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
    if details and len(urls) > 1:
        warn("--author, --issued, --site and --key are ignored when several URLs are added")
        details = Details()
    if archived_url and len(urls) > 1:
        warn("--archived is ignored when several URLs are added at once")
        archived_url = None
    with transaction(path) as book:
        rows = zip(urls, canonical, titles, strict=True)
        entries = [_register(book, raw, canon, text, date) for raw, canon, text in rows]
        if details:
            _fill(book, entries[0], details)
        if archived_url:
            book.set_archived(entries[0], archived_url)
    if as_json:
        echo(json.dumps([e.to_dict() for e in entries], indent=2, ensure_ascii=False))
    else:
        for e in entries:
            echo(f"[{e.id}] {e.url}")


def _batch(urls: list[str], titles: list[str]) -> tuple[list[str], list[str], str]:
    """The URLs, their titles ("" for none) and what an error calls one of them (an argument,
    or a source read from standard input)."""
    if urls == ["-"]:
        if titles:
            raise BadInput(
                "add - takes its titles from standard input, not from --title",
                hint="write URL<TAB>TITLE lines, or give the URLs as arguments",
            )
        return (*_read_batch(read_text_input("-", "the sources")), "source")
    if "-" in urls:
        raise BadInput("- (stdin) is given with URLs", hint="give - alone, or the URLs alone")
    if titles and len(titles) != len(urls):
        raise BadInput(
            f"{len(urls)} URL(s) and {len(titles)} --title: nothing added",
            hint="give one --title per URL, in the URLs' order, or none",
        )
    return urls, titles or [""] * len(urls), "argument"


def _read_batch(text: str) -> tuple[list[str], list[str]]:
    """``url<TAB>title`` or a JSON object per line; blank lines and ``#`` comments skipped."""
    urls: list[str] = []
    titles: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BadInput(
                    f"standard input line {number}: not JSON ({exc.msg})",
                    hint='write {"url": "https://...", "title": "..."} or URL<TAB>TITLE',
                ) from None
            url, title = row.get("url"), row.get("title") or ""
            if not isinstance(url, str) or not isinstance(title, str):
                raise BadInput(
                    f"standard input line {number}: no text url (and title)",
                    hint='write {"url": "https://...", "title": "..."}',
                )
        else:
            url, _tab, title = line.partition("\t")
        urls.append(url.strip())
        titles.append(" ".join(title.split()))
    if not urls:
        raise BadInput("no URL on standard input", hint="one URL<TAB>TITLE a line")
    return urls, titles


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
