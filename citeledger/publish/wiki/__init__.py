"""Multi-page builds: one draft (or several) into wiki pages, each with its own Sources list.

``citeledger wiki DRAFT... -o DIR --format mediawiki|dokuwiki|gfm|obsidian|html`` writes one page
per input file, or splits one document at heading level N (default 1). Also written: ``index``
(every page) and ``sources`` (every cited source with the pages that cite it).

The parts, each in its own module:

- ``formats``: the page formats and what each asks of pandoc's writer;
- ``pages``: where a page begins and ends, and its file name (slug);
- ``links``: links between pages, in each wiki's anchor form, and gfm's raw-HTML citations;
- ``writer``: the batched pandoc runs that write the pages, and the html page frame;
- ``entries``: each gfm Sources entry written once for every page that lists it;
- ``build``: verification, the per-page filter run, the index and sources pages.
"""

from __future__ import annotations

from .build import WikiResult, build_wiki
from .formats import FORMATS, WikiFormat
from .links import github_anchor, page_href
from .pages import RESERVED, Page, doc_title, slugify, split_pages, unique_slugs

__all__ = [
    "FORMATS",
    "RESERVED",
    "Page",
    "WikiFormat",
    "WikiResult",
    "build_wiki",
    "doc_title",
    "github_anchor",
    "page_href",
    "slugify",
    "split_pages",
    "unique_slugs",
]
