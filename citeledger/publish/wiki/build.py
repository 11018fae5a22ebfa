"""The build: verify the drafts, split them into pages, cite on each page, write every page,
the index and the sources page.

The drafts are verified once, as wholes; then every page goes through the filter
(``filters.run.apply``, verification off) so it cites with the same ledger ids as every other
page and ends with a list of only the ids it cites, in ledger order.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...document.draft import Draft, open_draft
from ...document.markers import Hit, Scan, ledger_ids, ledger_links, scan
from ...document.sources_titles import titles_for
from ...errors import BadInput, VerificationFailed
from ...files import Guard
from ...filters.base import BaseEntries, BasePlacement, State
from ...filters.cards import assets_html
from ...filters.html_page import page_lang
from ...filters.registry import entries_for as placement_entries
from ...filters.run import apply
from ...ledger import Ledger
from ...ledger.lock_file import lock_path
from ...messages import Say, to_stderr
from ...options import Options
from ...options.trust import front_options
from ...tree import Blocks, Inline, Json, link, no_gc, raw_block, text_to_inlines
from ...verify import verify_for_build
from .entries import SharedEntriesPlacement, WrittenEntries
from .formats import FORMATS, WikiFormat
from .frame import html_frame, navigation, promote_headings, sources_level
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
    # Each draft as read: its text and markers, located while pandoc read it (verify only).
    read: dict[Path, Draft] = dataclasses.field(default_factory=dict)
    lang: tuple[str, str] = ("", "")  # an html build's (lang, dir), from the first draft


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
    # The drafts' trees and the pages made from them are large acyclic structures of fresh
    # objects: a collection pass finds nothing to free, and on the 500-page benchmark the
    # passes cost 0.4 to 0.6 s, a fifth or more of the build's own Python time.
    with no_gc():
        return _build(job, out_dir, verify, from_format)


def _build(job: _Build, out_dir: Path, verify: bool, from_format: str | None) -> WikiResult:
    titles = titles_for(job.opts.sources_title) if verify else None
    # A long draft is read by one pandoc run per core (document/parts.py): on two cores the
    # read, which is most of the build, takes about half the time.
    parts = max(1, min(4, os.cpu_count() or 1))
    trusted = job.opts.effective().trust_draft
    reads = [
        open_draft(d, from_format=from_format, titles=titles, trusted=trusted, parts=parts)
        for d in job.drafts
    ]
    for read in reads:
        read.vet(job.opts, job.say)
    job.read = {r.path: r for r in reads}
    docs: list[Json] = [r.tree for r in reads]
    if not (job.opts.effective().trusted_html or job.opts.effective().trust_draft):
        from ...filters.raw_html import sanitize_raw_html, writes_html

        if writes_html(job.form.writer):
            for doc in docs:  # the drafts' own raw HTML, before citeledger adds its markup
                sanitize_raw_html(doc)
    drafts, failed = _scan_drafts(job, docs, verify)
    if job.form.name == "html":  # once per build, not once per page
        first = docs[0]
        meta = dict(first.get("meta", {}))
        job.lang = page_lang({"meta": meta, "blocks": first["blocks"]}, job.say, str(job.drafts[0]))
    # The index and the sources page need only the pages' titles and cited ids, which the last
    # draft's verification changes only when it scans the draft again (escaped markers, defined
    # links): pandoc writes them while that verification runs, and again in that rare case.
    pages = _pages(job, drafts, scans=not verify)
    writing = _Writing(job, docs, pages)
    try:
        if verify:
            failed |= _verify(drafts[-1], job)
            if failed:
                raise VerificationFailed(
                    "verification failed; no pages written",
                    hint="fix the findings above, or run citeledger verify on the draft",
                )
            checked = _pages(job, drafts, scans=True)
            if _outline(checked) == _outline(pages):
                for page, same in zip(pages, checked, strict=True):
                    same.slug = page.slug
            else:
                writing.close()
                writing = _Writing(job, docs, checked)
            pages = checked
        written = writing.finish(pages, out_dir)
    finally:
        writing.close()
    return WikiResult(pages=pages, files=written, cited_by=writing.cited_by)


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


@dataclass
class _Draft:
    path: Path
    doc: Json
    options: Options  # the draft's own metadata under the flags
    found: Scan


def _scan_drafts(job: _Build, docs: list[Json], verify: bool) -> tuple[list[_Draft], bool]:
    """Every draft scanned, and verified but the last (see :func:`_build`): every finding is
    said before the build stops, in the drafts' order; True when one failed."""
    failed = False
    drafts: list[_Draft] = []
    for k, (path, doc) in enumerate(zip(job.drafts, docs, strict=True), 1):
        # Each draft is verified with its own metadata's options; the flags win over them.
        drafted = front_options(doc.get("meta", {}), job.opts, job.say)
        titles = titles_for(drafted.sources_title)
        found = scan(doc, titles, ledger_links(job.ledger), ledger_ids(job.ledger))
        drafts.append(_Draft(path, doc, drafted, found))
        if verify and k < len(docs):
            failed |= _verify(drafts[-1], job)
    return drafts, failed


def _pages(job: _Build, drafts: list[_Draft], *, scans: bool) -> list[Page]:
    """Every draft cut into its pages; with ``scans``, each page with its cut of the draft's
    scan, which the filter places the page's citations by."""
    return [page for d in drafts for page in _draft_pages(job, d.path, d.doc, d.found, scans)]


def _outline(pages: list[Page]) -> list[tuple[str, list[int], int]]:
    """What the index and the sources page are made of, and the page sizes the writer cuts
    its batches by (which pages share a pandoc run shows in html pages: pandoc numbers their
    code blocks per run)."""
    return [(page.title, page.ids, len(page.blocks)) for page in pages]


def _draft_pages(
    job: _Build, draft: Path, doc: Json, found: Scan, scans: bool = True
) -> list[Page]:
    """One draft's pages (split at headings when it is the only draft), each knowing the ids
    it cites and the inline lists that hold its citations, found once from the draft's scan."""
    skip = found.sources.top_range() if found.sources else range(0)
    if found.sources is not None and found.sources.path:
        # A Div holds it: its page keeps the rest of the Div.
        doc = {**doc, "blocks": found.sources.left_out(doc["blocks"])}
    cites_at: dict[int, list[Any]] = {}
    for hit in found.hits:
        cites_at.setdefault(hit.block, []).append(hit)
    if len(job.drafts) == 1:
        parts = split_pages(doc, job.split_level, skip)
    else:
        parts = [whole_page(doc, draft.stem, skip)]
    order = {i: k for k, i in enumerate(job.ledger.ids())}  # once, not once per page
    pages: list[Page] = []
    for title, blocks, indices in parts:
        hits = [h for i in indices for h in cites_at.get(i, ())]
        cited = {i for h in hits for m in h.markers for i in m.ids}
        page = Page(title, "", blocks, doc.get("meta", {}), str(draft))
        page.ids = sorted(cited & order.keys(), key=order.__getitem__)
        page.containers = [h.container for h in hits]
        if scans:
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


class _Writing:
    """The batched writer of one build, started as soon as the pages are known: the pages
    named, and the index and the sources page (no filter run) handed to pandoc first, so they
    are not left for the end (the sources page, a link per citing page, is the largest). The
    pages follow once cited (:meth:`finish`); the files are saved only when every page was
    written."""

    def __init__(self, job: _Build, docs: list[Json], pages: list[Page]) -> None:
        self.job = job
        form = job.form
        slugs = unique_slugs([p.title for p in pages], ascii_only=form.name == "dokuwiki")
        self.cited_by: dict[int, list[str]] = {}  # ledger id -> slugs of the pages citing it
        for page, slug in zip(pages, slugs, strict=True):
            page.slug = slug
            for i in page.ids:
                self.cited_by.setdefault(i, []).append(slug)
        self.api = docs[0].get("pandoc-api-version", [1, 23, 1])
        self.writer = PageWriter(form, self.api, pages)
        self.once = WrittenEntries(self.writer, _gfm_links) if form.name == "gfm" else None
        try:
            self.index = _index_page(pages, form, docs[0] if len(docs) == 1 else None)
            self.sources = sources_page(pages, self.cited_by, job.ledger, form, job.opts, self.once)
            self.writer.add(self.index)
            self.writer.add(self.sources, flush=True)
        except BaseException:
            self.writer.close()
            raise

    def finish(self, pages: list[Page], out_dir: Path) -> list[Path]:
        """Cite on every page (``pages``, named as the ones the writer started with), write
        them, and save every file of the build."""
        job, form, writer = self.job, self.job.form, self.writer
        files = {Path(p.origin).name: p.slug for p in pages} if len(job.drafts) > 1 else {}
        total = len(pages) + 2
        all_pages = [*pages, self.index, self.sources]
        targets = index_targets(pages)
        for n, page in enumerate(pages, 1):
            rewrite_links(page, form, targets, files)
            _cite_page(job, page, self.api, self.once)
            writer.add(page)
            if job.progress:
                job.progress(n, total)
        writer.wait()
        if self.once is not None:
            self.once.fill(all_pages)
        guard = Guard([(d, "a draft") for d in job.drafts])
        guard.protect(job.ledger.path, "the ledger")
        guard.protect(lock_path(job.ledger.path), "the ledger's lock file")
        framed = None
        if form.name == "html":
            lang, text_dir = job.lang
            title = job.opts.sources_title
            place = {id(page): k for k, page in enumerate(pages)}

            def framed(page: Page) -> str:
                nav = navigation(page, pages, title, place.get(id(page)))
                return html_frame(page.title, page.text, lang, text_dir, nav)

        written = writer.save(all_pages, out_dir, guard, framed)
        if job.progress:
            job.progress(total, total)
        return written

    def close(self) -> None:
        self.writer.close()


def _cite_page(job: _Build, page: Page, api: Json, once: WrittenEntries | None) -> None:
    """The filter on one page (verification off: the drafts were verified as wholes), so the
    page cites by ledger id and ends with a list of only the ids it cites."""
    meta: dict[str, Json] = {}
    if job.form.name == "html":
        promote_headings(page.blocks)
        meta["lang"] = {"t": "MetaString", "c": job.lang[0]}  # said once, for the build
    page_doc = {"pandoc-api-version": api, "meta": meta, "blocks": page.blocks}
    own = len(page.blocks)
    placement = None
    if once is not None:  # gfm: each Sources entry made once for every page listing it

        def placement(state: State) -> BasePlacement:
            return SharedEntriesPlacement(state, once)

    apply(
        page_doc,
        job.form.placement,
        options=job.opts,
        ledger=job.ledger,
        say=job.say,
        verify=False,
        found=page.scan,
        placement=placement,
    )
    page.blocks = page_doc["blocks"]
    if job.form.name == "html":  # the page frame holds the stylesheet and script, once
        page.blocks = [b for b in page.blocks if b != _ASSETS]
    sources_level(page.blocks)
    if job.form.name == "gfm":
        gfm = GfmLinks()
        for inlines in page.containers:
            gfm.inlines(inlines)
    if once is not None:
        once.swap(page.blocks, own)  # the list's links are rewritten there


_ASSETS = raw_block("html", assets_html())


def _gfm_links(blocks: Blocks) -> None:
    GfmLinks().blocks(blocks)


def _verify(draft: _Draft, job: _Build) -> bool:
    """Verify one draft as a whole (its findings said); True when it failed."""
    read = job.read[draft.path]
    text, located = read.text, read.locator(titles_for(job.opts.sources_title))
    report = verify_for_build(
        draft.doc,
        job.ledger,
        draft.options,
        draft.found,
        source_name=str(draft.path),
        source_text=text,
        located=located,
        say=job.say,
    )
    return bool(report.failed)


def _link(text: str, href: str) -> Inline:
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


def entries_for(fmt: WikiFormat, options: Options) -> BaseEntries:
    """The list entries of ``fmt``'s placement (the filter's table picks the module), for
    a list that no filter run makes."""
    return placement_entries(fmt.placement, options)


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
