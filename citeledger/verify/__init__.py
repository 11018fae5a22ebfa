"""The one verifier: a document tree and a ledger in, findings out.

``citeledger verify`` and the pandoc filter both call :func:`verify`, so a draft checked on the
command line, inside a pandoc build, or read back from the Word file it became gets the same
answer. It never reads raw markdown for markers: the tree's marker finder
(:mod:`citeledger.document.markers`) decides what is a citation; the raw text, when given, only
turns a marker into a ``LINE:COL`` location. Every build (the console filter, ``citeledger
convert``, the wiki build) calls it through :func:`verify_for_build`, which also says the
report's lines.

Checks (the grounded-citations ``sources.py verify`` semantics, then more): every finding's
code, level, meaning and the flag that asks for it are one row each in :mod:`.rules`
(``RULES``), which the manual's table of findings prints (:func:`.rules.readme_table`).
FAIL findings fail the run; ``strict`` turns warnings into failures too (``Report.failed``).
"""

from __future__ import annotations

from ..document.grammar import OWN_TARGET
from ..document.locate import Locator, drop_escaped
from ..document.markers import Scan, admit_defined, ledger_ids, ledger_links
from ..document.markers import scan as scan_doc
from ..document.note_citations import NoteCitations, note_citations, place_note_citations
from ..document.sentences import sentences
from ..document.sources_block import DraftEntry, entries
from ..document.sources_titles import titles_for
from ..ledger import Ledger
from ..options import Options
from ..tree import JsonDoc, PandocDoc, no_gc
from .checks import Checker
from .report import Finding, Report, stats_line

# Read by type checkers only: the support check's modules load when a run asks for it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..messages import Say
    from .pages import clear as clear_pages
    from .pages import record_page
    from .pages import uncited as uncited_in_pages
    from .support.details import Detail
    from .support.judge import Judge, Progress
    from .support.verdict import ClaimVerdict

__all__ = [
    "ClaimVerdict",
    "Detail",
    "Finding",
    "Report",
    "clear_pages",
    "record_page",
    "stats_line",
    "uncited_in_pages",
    "verify",
    "verify_for_build",
]


def verify(
    doc: PandocDoc | JsonDoc,
    ledger: Ledger,
    options: Options | None = None,
    *,
    scan: Scan | None = None,
    source_name: str = "-",
    source_text: str | None = None,
    build: bool = False,
    located: Locator | None = None,
    judge: Judge | None = None,
    progress: Progress | None = None,
    page_of_set: bool = False,
    kinds: frozenset[str] | None = None,
) -> Report:
    """Check ``doc`` (pandoc JSON as a dict, or a panflute Doc) against ``ledger``.

    ``scan`` is the marker scan the caller already made of this same ``doc`` (the filter has
    one; scanning twice would cost a second walk). ``source_text`` is the raw draft when it is
    markdown: findings then carry ``source_name:LINE:COL`` instead of the nearest heading,
    markers the author escaped (``\\[1\\]``) are taken out of ``doc`` and ``scan`` (see
    :func:`~citeledger.document.locate.drop_escaped`), and ``[n]: url`` definitions that end
    the draft are its Sources entries.
    ``build``: the document is being built, and the build renders the Sources list from the
    ledger, so the draft need not carry one. A footnote holding a ledger URL counts as a
    citation in every format (Word and ODF files read back, ``[^1]: https://...`` in markdown,
    URL footnotes in rst and Org; :mod:`~citeledger.document.note_citations`). ``located``: the
    :class:`~citeledger.document.locate.Locator` of ``source_text``, made ahead (a build makes
    it while pandoc reads the draft); made again when it was read with other Sources titles.
    ``judge``: the support check's judge (:mod:`.support.judge`), when ``support`` is on and
    the caller loaded one; ``progress`` hears how many of its pairs it has scored.
    ``page_of_set``: ``doc`` is one page of several sharing the ledger (a Quarto website's):
    the ledger's sources it does not cite are no finding of this page; :func:`.pages.uncited`
    asks once for the whole set.
    ``kinds``: every element type ``doc`` may hold, when the caller knows (a build's reading
    of the draft walked it): the walks for footnotes and raw code are saved when it holds none.
    """
    # The tree is a large acyclic structure of fresh objects: a collection pass finds nothing
    # to free and, on a long report, costs a third of the verifier's own time.
    with no_gc():
        return _verify(
            doc,
            ledger,
            options or Options(),
            scan,
            source_name,
            source_text,
            require_sources_block=not build,
            located=located,
            judge=judge,
            progress=progress,
            page_of_set=page_of_set,
            kinds=kinds,
        )


def __getattr__(name: str) -> object:
    """The names this package hands out from modules a verify of a draft does not load: the
    support check's (``ClaimVerdict``, ``Detail``: loaded when a run asks for it) and the page
    records of a Quarto website's build."""
    if name in ("clear_pages", "record_page", "uncited_in_pages"):
        from . import pages

        value = {"clear_pages": pages.clear, "record_page": pages.record_page}.get(
            name, pages.uncited
        )
        globals()[name] = value
        return value
    if name == "ClaimVerdict":
        from .support.verdict import ClaimVerdict

        return ClaimVerdict
    if name == "Detail":
        from .support.details import Detail

        return Detail
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The lines of a finding; the rest (the stats line, "citations OK") are a summary.
FINDING_PREFIXES = ("warn", "FAIL")


def verify_for_build(
    doc: PandocDoc,
    ledger: Ledger,
    options: Options,
    found: Scan,
    *,
    source_name: str,
    say: Say,
    source_text: str | None = None,
    located: Locator | None = None,
    findings_only: bool = False,
    page_of_set: bool = False,
    kinds: frozenset[str] | None = None,
) -> Report:
    """Verify the draft a build is about to write and say the report's lines (only its
    findings with ``findings_only``: inside a pandoc run, the summary is noise).

    A build renders the Sources list from the ledger, so the draft need not carry one. Raising
    (and what the failure line says) stays with the caller, which knows what it was about to
    write. Then the footnotes the report counted as citations become citations of their ledger
    ids in ``doc`` and ``found`` (:func:`~citeledger.document.note_citations.place_note_citations`):
    what the build places is what was verified, never a footnote numbered anew."""
    report = verify(
        doc,
        ledger,
        options,
        scan=found,
        source_name=source_name,
        source_text=source_text,
        build=True,
        located=located,
        page_of_set=page_of_set,
        kinds=kinds,
    )
    for line in report.lines():
        if not findings_only or line.startswith(FINDING_PREFIXES):
            say(line)
    if not report.failed:
        titles = titles_for(options.sources_title)
        place_note_citations(doc, found, ledger, titles, read=report.notes)
    return report


def _own_links(found: Scan, ledger: Ledger) -> set[int]:
    """A citation citeledger placed links to ``#src-N``, the entry of ledger id N: its mark
    must read ``[N]``. One edited after the build (``[9]`` linking to the entry of 1) is held
    to the URL of the entry it links to, which is not the ledger's URL for 9. Returned: the
    indexes of those edited hits (an edited mark, not a search tool's number)."""
    edited: set[int] = set()
    for k, hit in enumerate(found.hits):
        url = hit.url or ""
        target = OWN_TARGET.fullmatch(url) if url.startswith("#src-") else None
        if target is None:
            continue
        linked = int(target.group(1))
        source = ledger.get(linked)
        if hit.markers[0].ids == (linked,):
            hit.url = None
        elif source is not None:
            hit.url = source.url
            edited.add(k)
    return edited


def _verify(
    doc: PandocDoc | JsonDoc,
    ledger: Ledger,
    options: Options,
    scan: Scan | None,
    source_name: str,
    source_text: str | None,
    *,
    require_sources_block: bool,
    located: Locator | None = None,
    judge: Judge | None = None,
    progress: Progress | None = None,
    page_of_set: bool = False,
    kinds: frozenset[str] | None = None,
) -> Report:
    if not isinstance(doc, dict):
        doc = doc.to_json()
    titles = titles_for(options.sources_title)
    found = (
        scan
        if scan is not None
        else scan_doc(doc, titles, ledger_links(ledger), ledger_ids(ledger))
    )
    locator = None
    if source_text is not None:
        locator = located
        if locator is None or locator.titles != tuple(titles):
            locator = Locator.from_text(source_name, source_text, titles)
        drop_escaped(doc, found, locator, titles)
        admit_defined(doc, found, titles, (d.id for d in locator.definitions))
    edited = _own_links(found, ledger)
    listing = found.listing
    skip = listing.top_range() if listing else range(0)
    if kinds is not None and "Note" not in kinds:
        notes = NoteCitations(skip=skip)  # what the walk finds in a tree without footnotes
    else:
        notes = note_citations(doc, ledger, skip=skip, text=source_text)
    prose = sentences(doc, found, note_ids=notes.ids)
    listed = entries(doc["blocks"], listing) if listing else []
    positions = None
    entry_positions: dict[int, str] = {}
    if locator is not None:
        positions = locator.place(found)
        entry_positions = {i: f"{line}:{col}" for i, (line, col) in locator.entries.items()}
        listed += [DraftEntry(d.id, d.url, f"[{d.id}]: {d.url}", -1) for d in locator.definitions]
    checker = Checker(
        ledger=ledger,
        options=options,
        require_sources_block=require_sources_block,
        found=found,
        sentences=prose,
        entries=listed,
        notes=notes,
        name=source_name,
        positions=positions,
        entry_positions=entry_positions,
        blocks=doc["blocks"],
        text=source_text,
        titles=titles,
        edited_links=edited,
        list_lines=locator.lists if locator is not None else [],
        judge=judge,
        progress=progress,
        page_of_set=page_of_set,
        raws=kinds is None or bool(kinds & {"RawInline", "RawBlock"}),
    )
    cited, stats = checker.run()
    report = Report(checker.findings, stats, cited, strict=options.strict, source_name=source_name)
    report.claims = checker.claims
    report.notes = notes
    return report
