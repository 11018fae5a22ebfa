"""The build: verify the drafts, split them into pages, cite on each page, write every page,
the index and the sources page.

The drafts are verified once, as wholes; then every page goes through the filter
(``filters.main.apply``, verification off) so it cites with the same ledger ids as every other
page and ends with a list of only the ids it cites, in ledger order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...document.markers import Hit, Scan, ledger_links, scan
from ...document.sources_block import titles_for
from ...errors import BadInput, VerificationFailed
from ...filters import main as filter_main
from ...filters.base import Entries
from ...filters.cards import assets_html
from ...ledger import Ledger
from ...ledger.lock_file import lock_path
from ...messages import Say, to_stderr
from ...options import Options, from_meta
from ...outputs import Guard
from ...pandoc import read_json
from ...tree import Json, link, raw_block, text_to_inlines
from ...verify import verify_for_build
from .entries import WrittenEntries
from .formats import FORMATS, WikiFormat
from .links import GfmLinks, index_targets, page_href, rewrite_links
from .pages import Page, doc_title, split_pages, unique_slugs, whole_page
from .writer import PageWriter


@dataclass
class WikiResult:
    pages: list[Page]
    files: list[Path]
    cited_by: dict[int, list[str]]  # ledger id -> slugs of the pages citing it


@dataclass
class _Build:
    """What every step of one wiki build shares: the request, checked, and its message sink."""

    drafts: list[Path]
    form: WikiFormat
    ledger: Ledger
    opts: Options  # the flags, numbering by ledger id
    split_level: int
    say: Say
    progress: Callable[[int, int], None] | None


def build_wiki(
    drafts: list[Path],
    out_dir: Path,
    ledger: Ledger,
    options: Options | None = None,
    *,
    fmt: str = "gfm",
    split_level: int = 1,
    verify: bool = True,
    say: Say = to_stderr,
    progress: Callable[[int, int], None] | None = None,
    from_format: str | None = None,
) -> WikiResult:
    """Verify ``drafts``, split them into pages and write the pages, the index and the sources
    page into ``out_dir``. The pages are always numbered by ledger id (the same on every page)."""
    opts = (options or Options()).updated({"numbering": "ledger"})
    form = _wiki_format(fmt, split_level, drafts)
    job = _Build(drafts, form, ledger, opts, split_level, say, progress)
    docs = [read_json(d, from_format=from_format) for d in drafts]
    if not opts.effective().trusted_html:
        from ..raw_html import sanitize_raw_html, writes_html

        if writes_html(form.writer):
            for doc in docs:  # the drafts' own raw HTML, before citeledger adds its markup
                sanitize_raw_html(doc)
    pages = _read_pages(job, docs, verify)
    slugs = unique_slugs([p.title for p in pages], ascii_only=form.name == "dokuwiki")
    for page, slug in zip(pages, slugs, strict=True):
        page.slug = slug
    cited_by: dict[int, list[str]] = {}
    for page in pages:
        for i in page.ids:
            cited_by.setdefault(i, []).append(page.slug)
    written = _write_pages(job, docs, pages, cited_by, out_dir)
    return WikiResult(pages=pages, files=written, cited_by=cited_by)


def _wiki_format(fmt: str, split_level: int, drafts: list[Path]) -> WikiFormat:
    """The page format, once the request is known to make sense: a bad flag or a missing
    draft is one line before any draft is read."""
    form = FORMATS.get(fmt)
    if form is None:
        raise BadInput(
            f"--format {fmt}: not a wiki format", hint=f"choose one of {', '.join(FORMATS)}"
        )
    if not 1 <= split_level <= 6:
        raise BadInput(
            f"--split-level {split_level}: not a heading level",
            hint="give a level from 1 to 6",
        )
    for draft in drafts:
        if not draft.is_file():
            raise BadInput(f"no such draft: {draft}", hint="check the path")
    return form


def _read_pages(job: _Build, docs: list[Json], verify: bool) -> list[Page]:
    """Every draft verified (all of them, so every finding is said before the build stops)
    and cut into its pages."""
    failed = False
    pages: list[Page] = []
    for draft, doc in zip(job.drafts, docs, strict=True):
        # Each draft is verified with its own metadata's options; the flags win over them.
        drafted = from_meta(doc.get("meta", {}), job.say).merged(job.opts)
        found = scan(doc, titles_for(drafted.sources_title), ledger_links(job.ledger))
        if verify:
            failed |= _verify(draft, doc, found, job.ledger, drafted, job.say)
        pages += _draft_pages(job, draft, doc, found)
    if failed:
        raise VerificationFailed(
            "verification failed; no pages written",
            hint="fix the findings above, or run citeledger verify on the draft",
        )
    return pages


def _draft_pages(job: _Build, draft: Path, doc: Json, found: Scan) -> list[Page]:
    """One draft's pages (split at headings when it is the only draft), each knowing the ids
    it cites and the inline lists that hold its citations, found once from the draft's scan."""
    skip = range(found.sources.start, found.sources.end) if found.sources else range(0)
    cites_at: dict[int, list[Any]] = {}
    for hit in found.hits:
        cites_at.setdefault(hit.block, []).append(hit)
    if len(job.drafts) == 1:
        parts = split_pages(doc, job.split_level, skip)
    else:
        parts = [whole_page(doc, draft.stem, skip)]
    pages: list[Page] = []
    for title, blocks, indices in parts:
        hits = [h for i in indices for h in cites_at.get(i, ())]
        cited = {i for h in hits for m in h.markers for i in m.ids}
        page = Page(title, "", blocks, doc.get("meta", {}), str(draft))
        page.ids = [i for i in job.ledger.ids() if i in cited]
        page.containers = [h.container for h in hits]
        page.scan = page_scan(found, hits, indices)
        pages.append(page)
    return pages


def page_scan(found: Scan, hits: list[Hit], indices: list[int]) -> Scan:
    """The draft's scan as a scan of one page: its hits, the block indices the page's own (the
    page's blocks are the draft's blocks at ``indices``, in order). The filter then places the
    page's citations without walking the page again."""
    at = {index: k for k, index in enumerate(indices)}
    ordinary = [h for h in found.ordinary if h.block in at]
    return Scan(
        hits=[dataclasses.replace(h, block=at[h.block]) for h in hits],
        code=found.code,
        ordinary=[dataclasses.replace(h, block=at[h.block]) for h in ordinary],
        known=found.known,
    )


def _write_pages(
    job: _Build,
    docs: list[Json],
    pages: list[Page],
    cited_by: dict[int, list[str]],
    out_dir: Path,
) -> list[Path]:
    """The index, the sources page and every page, through the batched writer; the files are
    saved only when every page was written."""
    form = job.form
    api = docs[0].get("pandoc-api-version", [1, 23, 1])
    files = {Path(p.origin).name: p.slug for p in pages} if len(job.drafts) > 1 else {}
    targets = index_targets(pages)
    total = len(pages) + 2
    writer = PageWriter(form, api, pages)
    once = WrittenEntries(writer, _gfm_links) if form.name == "gfm" else None
    try:
        index = _index_page(pages, form, docs[0] if len(docs) == 1 else None)
        sources = sources_page(pages, cited_by, job.ledger, form, job.opts, once)
        all_pages = [*pages, index, sources]
        # The index and the sources page need no filter run: written first, they are not
        # left for the end (the sources page, a link per citing page, is the largest).
        writer.add(index)
        writer.add(sources, flush=True)
        for n, page in enumerate(pages, 1):
            rewrite_links(page, form, targets, files)
            _cite_page(job, page, api, once)
            writer.add(page)
            if job.progress:
                job.progress(n, total)
        writer.wait()
        if once is not None:
            once.fill(all_pages)
        guard = Guard([(d, "a draft") for d in job.drafts])
        guard.protect(job.ledger.path, "the ledger")
        guard.protect(lock_path(job.ledger.path), "the ledger's lock file")
        written = writer.save(all_pages, out_dir, guard)
    finally:
        writer.close()
    if job.progress:
        job.progress(total, total)
    return written


def _cite_page(job: _Build, page: Page, api: Json, once: WrittenEntries | None) -> None:
    """The filter on one page (verification off: the drafts were verified as wholes), so the
    page cites by ledger id and ends with a list of only the ids it cites."""
    page_doc = {"pandoc-api-version": api, "meta": {}, "blocks": page.blocks}
    own = len(page.blocks)
    filter_main.apply(
        page_doc,
        job.form.placement,
        options=job.opts,
        ledger=job.ledger,
        say=job.say,
        verify=False,
        found=page.scan,
    )
    page.blocks = page_doc["blocks"]
    if job.form.name == "html":  # the page frame holds the stylesheet and script, once
        page.blocks = [b for b in page.blocks if b != _ASSETS]
    if job.form.name == "gfm":
        gfm = GfmLinks()
        for inlines in page.containers:
            gfm.inlines(inlines)
    if once is not None:
        once.swap(page.blocks, own)  # the list's links are rewritten there


_ASSETS = raw_block("html", assets_html())


def _gfm_links(blocks: list[Json]) -> None:
    GfmLinks().blocks(blocks)


def _verify(
    draft: Path,
    doc: Json,
    found: Scan,
    ledger: Ledger,
    options: Options,
    say: Say,
) -> bool:
    try:
        text: str | None = draft.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    report = verify_for_build(
        doc, ledger, options, found, source_name=str(draft), source_text=text, say=say
    )
    return bool(report.failed)


def _link(text: str, href: str) -> Json:
    return link(text_to_inlines(text), href)


def _index_page(pages: list[Page], fmt: WikiFormat, doc: Json | None) -> Page:
    title = (doc_title(doc) if doc is not None else "") or "Index"
    items = [[{"t": "Plain", "c": [_link(p.title, page_href(fmt, p.slug))]}] for p in pages]
    blocks: list[Json] = [
        {"t": "Header", "c": [1, ["index", [], []], text_to_inlines(title)]},
        {"t": "BulletList", "c": items},
        {"t": "Para", "c": [_link("Sources of every page", page_href(fmt, "sources"))]},
    ]
    return Page(title, "index", blocks, {}, "")


def entries_for(fmt: WikiFormat, options: Options) -> Entries:
    """The list entries of ``fmt``'s placement (the filter's table picks the module), for
    a list that no filter run makes."""
    return filter_main.placement_type(fmt.placement).entries_type(fmt.placement, options)


def sources_page(
    pages: list[Page],
    cited_by: dict[int, list[str]],
    ledger: Ledger,
    fmt: WikiFormat,
    opts: Options,
    once: WrittenEntries | None,
) -> Page:
    """Every cited source in ledger order, each with the pages that cite it. The entries come
    from the format's own placement, so titles and URLs are escaped as on every page; with
    ``once``, each citing page's link is written once for the whole page (see
    :mod:`.entries`)."""
    titles = {p.slug: p.title for p in pages}
    hrefs = {p.slug: page_href(fmt, p.slug) for p in pages}  # a page is cited from many entries
    entries = entries_for(fmt, opts)
    items: list[Json] = []
    for source in ledger.sources:
        if source.id not in cited_by:
            continue
        cited = [
            {"t": "LineBreak"},
            {"t": "Str", "c": "Cited"},
            {"t": "Space"},
            {"t": "Str", "c": "on:"},
        ]
        links = [_link(titles[slug], hrefs[slug]) for slug in cited_by[source.id]]
        if once is not None:
            cited += [{"t": "Space"}, once.links(links)]
        else:
            for k, el in enumerate(links):
                cited += [{"t": "Str", "c": ","}, {"t": "Space"}, el] if k else [{"t": "Space"}, el]
        items.append([{"t": "Plain", "c": entries.entry(source, source.id) + cited}])
    blocks: list[Json] = [
        {"t": "Header", "c": [1, ["sources", [], []], text_to_inlines(opts.sources_title)]},
    ]
    if items:
        blocks.append({"t": "BulletList", "c": items})
    if fmt.name == "gfm":
        GfmLinks().blocks(blocks)
    return Page(opts.sources_title, "sources", blocks, {}, "")
