"""Tool output in: every source of a search or fetch tool's JSON, registered in one transaction.

Callable without the command line (the MCP server runs it in-process): :func:`parse_results`
reads the text, :func:`ingest_results` registers what it holds and returns one
:class:`Ingested` per source; both raise ``CiteledgerError`` subclasses and print nothing,
handing each warning to ``warn``.

What is not a source stays out (``noise.py``: images, search, redirect and ad pages), and the
shapes are read in their ranked order (``result_shapes.py``). Where a result carries the page's
text, that text is kept in the evidence folder as the source's page (unless ``keep_pages`` is
off), so ``quote N --text ...`` checks against it without a saved file. The texts are written
before the ledger names them, as ``quote`` does: a failure in between leaves an unnamed file in
the folder, never a source naming a missing text.

STORM's ``url_to_info.json`` names each URL by the number its article cites it with
(``storm_map.py``): on an empty ledger those numbers become the ids; a ledger that holds ids
already is refused in one line pointing to ``citeledger import``, which renumbers the article.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadInput, NothingFound
from .evidence_store import evidence_dir, store_text
from .model import Ledger, today
from .noise import KIND_NAMES
from .result_shapes import Found, read_results
from .store import load_ledger, transaction
from .storm_map import is_storm, storm_sources
from .urls import normalize_url, url_key


@dataclass(frozen=True)
class Ingested:
    """One source of an ingest: its id (the id it would get, in a dry run), URL and title,
    whether the ledger held it before, whether a page text was kept for it by this call, and
    whether its URL is a redirect that expires (Gemini's grounding links)."""

    id: int
    url: str
    title: str
    new: bool
    page_kept: bool = False
    expiring: bool = False


def parse_results(raw: str, where: str) -> Any:
    """The JSON of ``raw``; ``BadInput`` naming ``where`` when it is none. JSON lines (one
    object a line) are named as such: ``add -`` reads them."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and _json_lines(raw):
            raise BadInput(
                f"{where} is JSON lines (one object a line), not one JSON document",
                hint='pipe it to `citeledger add -`, which reads one {"url", "title"} a '
                "line, or wrap the lines in [ ] separated by commas",
            ) from None
        raise BadInput(
            f"{where} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            hint="pass the tool's raw JSON output, or a library file with --from",
        ) from None
    except RecursionError:
        raise BadInput(f"{where} nests too deeply to read") from None
    except ValueError as exc:  # a number of thousands of digits, say
        raise BadInput(f"{where} is not JSON citeledger can read ({exc})") from None


def _json_lines(raw: str) -> bool:
    lines = [line for line in raw.splitlines() if line.strip()]
    if len(lines) < 2:
        return False
    try:
        return all(isinstance(json.loads(line), dict) for line in lines)
    except (ValueError, RecursionError):
        return False


def ingest_results(
    path: Path,
    payload: Any,
    *,
    where: str,
    keep_pages: bool = True,
    dry_run: bool = False,
    warn: Callable[[str], None] = lambda line: None,
) -> list[Ingested]:
    """Register every source of ``payload`` (see the module docstring) in the ledger at
    ``path``, or, with ``dry_run``, say what would be registered without writing anything.
    ``NothingFound`` when the payload holds no source."""
    if is_storm(payload):
        return _ingest_storm(path, payload, where, dry_run)
    everything = read_results(payload, warn)
    sources = [f for f in everything if f.kind in (None, "expiring")]
    _name_noise([f for f in everything if f.kind not in (None, "expiring")], warn)
    if not sources:
        failed = _tool_error(payload)
        if failed is not None:
            raise NothingFound(
                f"{where} is a tool's error (isError), not search results: {failed}",
                hint="run the search again; nothing was added",
            )
        raise NothingFound(
            f"no URLs found in {where}",
            hint="expected search results: objects with url, link, source_url or uri, or text "
            "with a URL: line a result"
            + (" (only images, search, redirect or ad pages were found)" if everything else ""),
        )
    if dry_run:
        return _dry_run(path, sources, keep_pages)
    digests: dict[str, str] = {}
    if keep_pages:
        folder = evidence_dir(path)
        for f in sources:
            if f.page is not None:
                digests[f.url] = store_text(folder, f.page)
    date = today()
    # Only the file's name: the origin is shown in published evidence, a folder path is not.
    name = where if where == "standard input" else Path(where).name
    out: list[Ingested] = []
    with transaction(path) as book:
        for f in sources:
            source, created = book.add(f.url, title=f.title, accessed=date)
            kept = False
            if f.url in digests:
                origin = f"the {f.page_field} of a search result ({name}, ingested {date})"
                kept = book.set_page(source, digests[f.url], origin)
            expiring = f.kind == "expiring"
            out.append(Ingested(source.id, source.url, source.title, created, kept, expiring))
    return out


def _dry_run(path: Path, sources: list[Found], keep_pages: bool) -> list[Ingested]:
    book = load_ledger(path, missing_ok=True)
    next_id = book.next_id()
    out: list[Ingested] = []
    for f in sources:
        known = book.find_url(f.url)
        expiring = f.kind == "expiring"
        if known is not None:
            title = known.title or f.title
            out.append(Ingested(known.id, known.url, title, False, False, expiring))
        else:
            page = keep_pages and f.page is not None
            out.append(Ingested(next_id, f.url, f.title, True, page, expiring))
            next_id += 1
    return out


def _ingest_storm(path: Path, payload: Any, where: str, dry_run: bool) -> list[Ingested]:
    """STORM's map on an empty ledger: each URL gets the id its article cites it by."""
    sources = storm_sources(payload, where)
    if not sources:
        failed = _tool_error(payload)
        if failed is not None:
            raise NothingFound(
                f"{where} is a tool's error (isError), not search results: {failed}",
                hint="run the search again; nothing was added",
            )
        raise NothingFound(f"no URLs found in {where}", hint="its url_to_unified_index is empty")
    refuse = "`citeledger import` the folder of url_to_info.json and the article instead"
    numbers = [s.index for s in sources]
    if numbers != list(range(1, len(sources) + 1)):
        raise BadInput(
            f"{where}: STORM's indexes are not 1 to {len(sources)}, so they cannot be ids",
            hint=refuse + ": it renumbers the article's citations through the ledger",
        )
    canonical = [normalize_url(s.url) for s in sources]
    if len({url_key(u) for u in canonical}) != len(canonical):
        raise BadInput(
            f"{where}: two of STORM's URLs are one page to the ledger, so the ids would shift",
            hint=refuse + ": it gives both numbers the one id",
        )
    book = load_ledger(path, missing_ok=True)
    if not _follows(book, canonical):
        raise BadInput(
            f"{where} is STORM's url_to_info.json, whose numbers the article cites, and "
            f"{path} holds ids already: they would name other pages",
            hint=refuse + ", which renumbers the article through this ledger",
        )
    if dry_run:
        pairs = zip(sources, canonical, strict=True)
        return [Ingested(s.index, u, s.title, True) for s, u in pairs]
    date = today()
    out: list[Ingested] = []
    with transaction(path) as book:
        if not _follows(book, canonical):  # another writer came first
            raise BadInput(f"{path} gained ids while {where} was read", hint=refuse)
        for s, url in zip(sources, canonical, strict=True):
            source, created = book.add(url, title=s.title, accessed=date)
            out.append(Ingested(source.id, source.url, source.title, created))
    return out


def _follows(book: Ledger, urls: list[str]) -> bool:
    """Whether adding ``urls`` in order gives the n-th URL the id n: the ledger is empty, or
    holds the first of them under those very ids (the same file ingested again)."""
    held = len(book.sources)
    if max(book.last_id, held) != held or held > len(urls):
        return False
    return all(
        (s := book.get(n)) is not None and url_key(s.url) == url_key(urls[n - 1])
        for n in range(1, held + 1)
    )


def _tool_error(payload: Any) -> str | None:
    """The text of an MCP tool result marked ``isError`` (bare, or as a JSON-RPC ``result``),
    on one line; None for any other payload."""
    result = payload.get("result", payload) if isinstance(payload, dict) else None
    if not isinstance(result, dict) or result.get("isError") is not True:
        return None
    content = result.get("content")
    texts = [
        item["text"]
        for item in (content if isinstance(content, list) else [])
        if isinstance(item, dict) and isinstance(item.get("text"), str)
    ]
    return " ".join(" ".join(texts).split())[:200] or "(no text)"


def _name_noise(noise: list[Found], warn: Callable[[str], None]) -> None:
    """One line per kind of what was left out, with its count and first URL."""
    by_kind: dict[str, list[str]] = {}
    for f in noise:
        by_kind.setdefault(f.kind or "", []).append(f.url)
    for kind, urls in by_kind.items():
        more = f" and {len(urls) - 1} more" if len(urls) > 1 else ""
        warn(f"left out {len(urls)} {KIND_NAMES.get(kind, kind)}(s), not sources: {urls[0]}{more}")
