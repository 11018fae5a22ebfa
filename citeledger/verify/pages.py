"""The pages of a set that share one ledger (a Quarto website's or book's pages), checked
once for the whole set.

Each page is built by its own filter run, which sees one page: a ledger source that page does
not cite is most often cited by another page, so a page's run says nothing of it
(``verify(..., page_of_set=True)``) and records what it cites instead (:func:`record_page`),
under the project's ``.quarto/citeledger/pages/`` (Quarto's own scratch folder, which Quarto
keeps out of git). After the render, :func:`uncited` reads the records and names the ledger's
sources that no page cites, with the pages it read: the one question the pages could not
answer alone. ``citeledger finish --project DIR`` (the extension's post-render step) asks it.

A record names its page (a path from the project folder), the ledger's absolute path and the
ids the page cites. A page deleted since its record was written is skipped; :func:`clear`
removes the records once they have been read, so a page left out of a later render leaves no
stale record behind.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

from ..ledger import load_ledger
from ..ledger.light import record
from .report import Finding, snippet
from .rules import QUOTED_SOURCE_NOT_CITED, UNCITED_LEDGER_SOURCE

RECORDS = Path(".quarto") / "citeledger" / "pages"


@record(frozen=True)
class PageRecord:
    page: str
    ledger: str
    cited: tuple[int, ...]


def record_page(project: Path, page: str, ledger: Path, cited: list[int]) -> None:
    """Keep what ``page`` (a path from ``project``) cites of ``ledger``, replacing the record
    an earlier render of that page left."""
    folder = project / RECORDS
    folder.mkdir(parents=True, exist_ok=True)
    import hashlib  # OpenSSL's import: only a page that is recorded pays for it

    key = hashlib.sha256(page.encode("utf-8")).hexdigest()[:20]
    data = {"page": page, "ledger": str(ledger.resolve()), "cited": sorted(set(cited))}
    path = folder / f"{key}.json"
    temp = folder / f".{key}.{os.getpid()}.tmp"
    temp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    temp.replace(path)


def read_records(project: Path) -> list[PageRecord]:
    """The records of the pages that still exist, by page name; an unreadable record (a
    render stopped while writing it) is skipped, as its page's next render rewrites it."""
    found: dict[str, PageRecord] = {}
    folder = project / RECORDS
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            record = PageRecord(
                str(data["page"]), str(data["ledger"]), tuple(int(i) for i in data["cited"])
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if (project / record.page).is_file():
            found[record.page] = record
    return [found[page] for page in sorted(found)]


def clear(project: Path) -> None:
    """Remove the records (after :func:`uncited` read them)."""
    folder = project / RECORDS
    for path in folder.glob("*.json") if folder.is_dir() else []:
        path.unlink(missing_ok=True)


def uncited(project: Path) -> tuple[list[Finding], int]:
    """The findings of the whole set: per ledger the pages' records name, each source that
    carries evidence quotes and no page cites (a warning, as on a single draft), and one info
    line naming the search results no page cites. Located at the ledger, the pages named.
    Also returned: how many pages were read."""
    records = read_records(project)
    by_ledger: dict[str, list[PageRecord]] = defaultdict(list)
    for row in records:
        by_ledger[row.ledger].append(row)
    findings: list[Finding] = []
    for ledger_path, pages in sorted(by_ledger.items()):
        ledger = load_ledger(Path(ledger_path), missing_ok=True)
        cited = {i for record in pages for i in record.cited}
        where = _shown(Path(ledger_path), project)
        names = ", ".join(record.page for record in pages)
        read = f"{len(pages)} page{'s' if len(pages) != 1 else ''}: {names}"
        quiet = []
        quoted = ledger.quoted_ids()
        for sid in sorted(set(ledger.ids()) - cited):
            if sid not in quoted:
                quiet.append(sid)
                continue
            source = ledger.source(sid)
            findings.append(
                QUOTED_SOURCE_NOT_CITED.finding(
                    f"[{sid}] carries evidence quotes ({snippet(source.quotes[0].text)}) but no "
                    f"page of the project cites it ({read}): a claim lost its source?",
                    where,
                    (sid,),
                )
            )
        if quiet:
            shown = ", ".join(f"[{i}]" for i in quiet)
            findings.append(
                UNCITED_LEDGER_SOURCE.finding(
                    f"registered in the ledger but cited by no page of the project ({read}): "
                    f"{shown}",
                    where,
                    tuple(quiet),
                )
            )
    return findings, len(records)


def _shown(path: Path, project: Path) -> str:
    """The ledger's name from the project folder when it is inside it."""
    try:
        return path.relative_to(project.resolve()).as_posix()
    except ValueError:
        return str(path)
