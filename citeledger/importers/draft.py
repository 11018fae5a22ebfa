"""An imported answer becomes a ledger's sources and a draft citing them.

One transaction registers every cited source in the order the answer first cites it, then the
pages a report lists and does not cite (:attr:`~.answer.Answer.listed`): a URL the
ledger holds keeps its id (an empty title is filled, as ``ingest`` fills it), and nothing else of
an existing source changes but a provider quote added beside its quotes
(``ledger/provided.py``). Tracking parameters are no part of a URL's identity (``utm_*``), so a
page cited twice with two of them is one source. What is not a source (a search page, an ad,
an image) gets no id and is named; a grounding redirect that expires is kept with a warning,
or followed first with ``resolve`` (``resolve.py``).

The draft is the answer's text with the markers placed (``placement.py``) and a Sources block
rendered from the ledger for the ids it cites. The same answer imported again writes the same
draft and leaves the ledger as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BadURL, NothingFound
from ..ledger import Ledger, today, transaction
from ..ledger.noise import KIND_NAMES, noise_kind, redirect_destination
from ..ledger.render import render_block
from ..ledger.urls import normalize_url
from .answer import Answer, Cited
from .placement import UNVERIFIED_ID, place_markers


@dataclass
class Imported:
    """What an import did: the draft's text, the ids it cites in order of first citation, which
    of them are new to the ledger, how many provider quotes were added, and the warnings."""

    text: str
    ids: list[int]
    new: list[int]
    quotes_added: int
    warnings: list[str] = field(default_factory=list)


def register(
    answer: Answer,
    ledger: Path,
    *,
    where: str,
    resolve: Callable[[str], str] | None = None,
    title: str = "Sources",
) -> Imported:
    """Register the sources of ``answer`` in ``ledger`` and make the draft (see the module
    docstring); ``NothingFound`` when the answer cites nothing the ledger may hold."""
    warnings = list(answer.warnings)
    canonical: dict[str, str] = {}
    expiring: list[str] = []
    for citation in answer.citations:
        for cited in citation.sources:
            if cited.url and cited.url not in canonical:
                canonical[cited.url] = _canonical(cited.url, resolve, warnings, expiring)
    if not any(canonical.values()):
        raise NothingFound(
            f"{where} cites no URL the ledger can hold",
            hint="import the answer as the provider returned it (with its citations), or "
            "choose its shape with --from",
        )
    date = today()
    ids_at: list[tuple[int, list[int]]] = []
    order: list[int] = []
    new: list[int] = []
    added = 0
    with transaction(ledger) as book:
        for citation in answer.citations:
            ids: list[int] = []
            for cited in citation.sources:
                if not cited.url:
                    if UNVERIFIED_ID not in ids:
                        ids.append(UNVERIFIED_ID)
                    continue
                url = canonical[cited.url]
                if not url:
                    continue
                source, created = book.add(url, title=cited.title, accessed=date)
                if created:
                    new.append(source.id)
                for quote in cited.quotes:
                    provider = cited.provider or answer.kind
                    if book.add_provider_quote(source, quote, provider, cited.origin):
                        added += 1
                if source.id not in ids:
                    ids.append(source.id)
                if source.id not in order:
                    order.append(source.id)
            if ids:
                ids_at.append((citation.at, ids))
        listed = _register_listed(book, answer, canonical, resolve, warnings, expiring, date)
        alone = frozenset(c.at for c in answer.citations if c.alone)
        text, crowded = place_markers(answer.text, ids_at, alone)
        block = render_block(book, order, "markdown", title=title)
        held = {url: book.find_url(url) for url in expiring}
    for url, holder in held.items():
        # The id the draft cites for the redirect, so the agent knows which marker to change.
        named = f"[{holder.id}] " if holder is not None else ""
        instead = f" in place of [{holder.id}]" if holder is not None else ""
        warnings.append(
            f"{named}{url} is a grounding redirect that expires within days: import with "
            "--resolve while it works, or open it, `citeledger add` the page it lands on and "
            f"cite the id it prints{instead}"
        )
    if listed:
        warnings.append(
            f"{where}: {listed} source(s) its list names and its text does not cite: registered "
            "in the ledger (`citeledger list`), cited nowhere in the draft"
        )
    body = text.rstrip()
    draft = (body + "\n\n" if body else "") + block + "\n"
    return Imported(draft, order, new, added, warnings + crowded)


def _register_listed(
    book: Ledger,
    answer: Answer,
    canonical: dict[str, str],
    resolve: Callable[[str], str] | None,
    warnings: list[str],
    expiring: list[str],
    date: str,
) -> int:
    """The sources the report lists and does not cite, registered after the cited ones (an
    agent's list of the pages it read is what an agent registers at retrieval time); how many
    the ledger did not hold."""
    added = 0
    cited = {url for url in canonical.values() if url}
    for listed in answer.listed:
        url = _canonical(listed.url, resolve, warnings, expiring)
        if not url or url in cited:
            continue
        cited.add(url)
        _source, created = book.add(url, title=listed.title, accessed=date)
        added += created
    return added


def _canonical(
    url: str, resolve: Callable[[str], str] | None, warnings: list[str], expiring: list[str]
) -> str:
    """The URL the ledger stores for ``url``, or "" (named in ``warnings``) when it holds
    none: not an http(s) address, or no page (a search, an ad, an image)."""
    try:
        canonical = normalize_url(url)
    except BadURL as exc:
        warnings.append(f"citation left out: {exc.message}")
        return ""
    kind = noise_kind(canonical)
    if kind == "redirect" and (destination := redirect_destination(canonical)) is not None:
        return _canonical(destination, resolve, warnings, expiring)  # each one shorter
    if kind == "expiring" and resolve is not None:
        landed = resolve(canonical)
        if landed != canonical:
            return _canonical(landed, None, warnings, expiring)
    if kind == "expiring":
        expiring.append(canonical)
        return canonical
    if kind is not None:
        warnings.append(
            f"citation left out: {canonical} is a {KIND_NAMES.get(kind, kind)}, not a source"
        )
        return ""
    return canonical


def cited_urls(answer: Answer) -> list[Cited]:
    """Each source the answer cites, once, in order of first citation (for a dry look)."""
    seen: dict[str, Cited] = {}
    for citation in answer.citations:
        for cited in citation.sources:
            seen.setdefault(cited.url, cited)
    return list(seen.values())
