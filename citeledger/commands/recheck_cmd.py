"""``citeledger recheck [--from-dir DIR]``: are the ledger's quotes still true?

Without ``--from-dir``, every quote of the ledger is re-checked against the text it was checked
against when it was added, kept in the evidence folder (what ``verify --recheck`` does for the
cited sources of one draft): a missing or altered evidence file fails, by digest.

With ``--from-dir DIR``, every quote is checked against a fresh copy of its page that the user
saved in DIR (``citeledger/ledger/drift.py`` says how the files are named: ``3.html`` or the URL's
slug), and a quote the page no longer holds is reported as drift, with the source id and the
nearest passage of the new text. Nothing is fetched and the ledger is not changed: a drifted
quote is the author's to re-check (``quote`` again, or cite another source).

The streams are verify's: ``info:``/``warn:`` lines and the verdict (``recheck OK`` or
``recheck failed``, always last) on stdout, ``FAIL:`` lines on stderr; exit 0, 1 when a quote
failed, 2 for bad input.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..ledger import Ledger, load_ledger
from ._common import LedgerOpt, flag, ledger_path


def _print(line: str) -> None:
    print(line, file=sys.stderr if line.startswith("FAIL:") else sys.stdout, flush=True)


_FROM_DIR_HELP = "Fresh page texts, one file per source: <id>.<ext> or <url slug>.<ext>."


def recheck(
    ctx: typer.Context,
    from_dir: Annotated[str | None, flag("--from-dir", "DIR", _FROM_DIR_HELP)] = None,
    ledger: LedgerOpt = None,
) -> None:
    """Re-check every quote against its kept evidence text, or against fresh pages in DIR."""
    path = ledger_path(ctx, ledger)
    book = load_ledger(path)
    lines = _against_pages(book, Path(from_dir)) if from_dir else _against_stored(book)
    failed = False
    for line in lines:
        failed = failed or line.startswith("FAIL:")
        _print(line)
    _print("recheck failed" if failed else "recheck OK")
    if failed:
        raise typer.Exit(1)


def _against_stored(book: Ledger) -> list[str]:
    from ..errors import EvidenceError
    from ..ledger.evidence_store import evidence_dir, recheck_stored
    from ..verify.evidence_trail import describe

    folder = evidence_dir(book.path)
    if folder.exists() and not folder.is_dir():
        raise EvidenceError(
            f"evidence folder {folder} is a file, not a folder",
            hint="move that file aside and restore the folder from a copy",
        )
    checks = recheck_stored(book)
    good = sum(1 for c in checks if c.ok)
    out = [
        f"info: {len(checks)} quote(s) of {len({c.source.id for c in checks})} source(s) "
        f"re-checked against the evidence texts in {folder}: {good} still hold"
    ]
    seen: set[tuple[int, str, str]] = set()
    for check in checks:
        if check.ok:
            continue
        level, code, message = describe(check, str(folder))
        key = (check.source.id, code, check.quote.text_sha256 or check.quote.text)
        if key in seen:
            continue
        seen.add(key)
        out.append(f"{level}: {code}: {message}")
    return out


def _against_pages(book: Ledger, folder: Path) -> list[str]:
    from ..ledger.drift import fresh_pages, nearest_passage, url_slug
    from ..ledger.evidence_pages import read_evidence
    from ..ledger.quotes import found_in, normalize_for_match, page_form

    pages, stray = fresh_pages(folder, book)
    out: list[str] = []
    checked = drifted = 0
    for source in sorted(book.sources, key=lambda s: s.id):
        if not source.quotes:
            continue
        page_path = pages.get(source.id)
        if page_path is None:
            out.append(
                f"info: [{source.id}] no fresh page in {folder} (save it as {source.id}.html "
                f"or {url_slug(source.url)}.html there to re-check its quotes)"
            )
            continue
        page = read_evidence(str(page_path))
        normal = page_form(page.text)
        for q in source.quotes:
            checked += 1
            if found_in(normalize_for_match(q.text), normal):
                continue
            drifted += 1
            near = nearest_passage(q.text, page.text)
            if near is None:
                nearest = "no passage of the new text shares its words"
            else:
                nearest = (
                    f"nearest passage ({near.shared:.0%} of its words): \u201c{near.text}\u201d"
                )
            out.append(
                f"FAIL: quote-drift: [{source.id}] quote \u201c{q.display_text}\u201d is no "
                f"longer in {page_path}; {nearest}"
            )
    for path in stray:
        out.append(f"warn: {path} names no source of ledger {book.path} (see `recheck --help`)")
    out.insert(
        0,
        f"info: {checked} quote(s) re-checked against the fresh pages in {folder}: "
        f"{checked - drifted} still hold, {drifted} drifted",
    )
    return out


def register(app: typer.Typer) -> None:
    app.command("recheck")(recheck)
