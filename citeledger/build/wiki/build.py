"""The build: verify the drafts, split them into pages, cite on each page, write every page,
the index and the sources page.

The drafts are verified once, as wholes; then every page goes through the filter
(``filters.main.apply``, verification off) so it cites with the same ledger ids as every other
page and ends with a list of only the ids it cites, in ledger order.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...document.markers import Scan, scan
from ...document.sources_block import titles_for
from ...errors import BadInput, VerificationFailed
from ...filters import main as filter_main
from ...filters.base import Entries
from ...ledger import Ledger
from ...options import Options, from_meta
from ...outputs import Guard
from ...pandoc import read_json
from ...tree import Json, link, text_to_inlines
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


def build_wiki(
    drafts: list[Path],
    out_dir: Path,
    ledger: Ledger,
    options: Options | None = None,
    *,
    fmt: str = "gfm",
    split_level: int = 1,
    verify: bool = True,
    say: Callable[[str], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> WikiResult:
    """Verify ``drafts``, split them into pages and write the pages, the index and the sources
    page into ``out_dir``. The pages are always numbered by ledger id (the same on every page)."""
    echo = say or (lambda line: print(line, file=sys.stderr))
    opts = (options or Options()).updated({"numbering": "ledger"})
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

    docs = [read_json(d) for d in drafts]
    api = docs[0].get("pandoc-api-version", [1, 23, 1])
    failed = False
    pages: list[Page] = []
    for draft, doc in zip(drafts, docs, strict=True):
        # Each draft is verified with its own metadata's options; the flags win over them.
        drafted = from_meta(doc.get("meta", {}), echo).merged(opts)
        found = scan(doc, titles_for(drafted.sources_title))
        if verify:
            failed |= _verify(draft, doc, found, ledger, drafted, echo)
        skip = range(found.sources.start, found.sources.end) if found.sources else range(0)
        cites_at: dict[int, list[Any]] = {}
        for hit in found.hits:
            cites_at.setdefault(hit.block, []).append(hit)
        if len(drafts) == 1:
            parts = split_pages(doc, split_level, skip)
        else:
            parts = [whole_page(doc, draft.stem, skip)]
        for title, blocks, indices in parts:
            hits = [h for i in indices for h in cites_at.get(i, ())]
            cited = {i for h in hits for m in h.markers for i in m.ids}
            page = Page(title, "", blocks, doc.get("meta", {}), str(draft))
            page.ids = [i for i in ledger.ids() if i in cited]
            page.containers = [h.container for h in hits]
            pages.append(page)
    if failed:
        raise VerificationFailed(
            "verification failed; no pages written",
            hint="fix the findings above, or run citeledger verify on the draft",
        )

    slugs = unique_slugs([p.title for p in pages], ascii_only=form.name == "dokuwiki")
    for page, slug in zip(pages, slugs, strict=True):
        page.slug = slug
    files = {Path(p.origin).name: p.slug for p in pages} if len(drafts) > 1 else {}
    targets = index_targets(pages)

    cited_by: dict[int, list[str]] = {}
    for page in pages:
        for i in page.ids:
            cited_by.setdefault(i, []).append(page.slug)
    total = len(pages) + 2
    writer = PageWriter(form, api, pages)
    once = WrittenEntries(writer, _gfm_links) if form.name == "gfm" else None
    try:
        index = _index_page(pages, form, docs[0] if len(docs) == 1 else None)
        sources = sources_page(pages, cited_by, ledger, form, opts, once)
        all_pages = [*pages, index, sources]
        # The index and the sources page need no filter run: written first, they are not
        # left for the end (the sources page, a link per citing page, is the largest).
        writer.add(index)
        writer.add(sources, flush=True)
        for n, page in enumerate(pages, 1):
            rewrite_links(page, form, targets, files)
            page_doc = {"pandoc-api-version": api, "meta": {}, "blocks": page.blocks}
            own = len(page.blocks)
            filter_main.apply(
                page_doc, form.placement, options=opts, ledger=ledger, warn=echo, verify=False
            )
            page.blocks = page_doc["blocks"]
            if form.name == "gfm":
                gfm = GfmLinks()
                for inlines in page.containers:
                    gfm.inlines(inlines)
            if once is not None:
                once.swap(page.blocks, own)  # the list's links are rewritten there
            writer.add(page)
            if progress:
                progress(n, total)
        writer.wait()
        if once is not None:
            once.fill(all_pages)
        guard = Guard([(d, "a draft") for d in drafts])
        guard.protect(ledger.path, "the ledger")
        guard.protect(Path(f"{ledger.path}.lock"), "the ledger's lock file")
        written = writer.save(all_pages, out_dir, guard)
    finally:
        writer.close()
    if progress:
        progress(total, total)
    return WikiResult(pages=pages, files=written, cited_by=cited_by)


def _gfm_links(blocks: list[Json]) -> None:
    GfmLinks().blocks(blocks)


def _verify(
    draft: Path,
    doc: Json,
    found: Scan,
    ledger: Ledger,
    options: Options,
    echo: Callable[[str], None],
) -> bool:
    try:
        text: str | None = draft.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    report = filter_main.verify_for_build(
        doc, ledger, options, found, source_name=str(draft), source_text=text
    )
    for line in report.lines():
        echo(line)
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
