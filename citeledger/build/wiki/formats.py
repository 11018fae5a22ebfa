"""The page formats a wiki build writes, and what each asks of pandoc's writer.

One table, read by every part of the build: the slugs (DokuWiki page ids are ASCII), the links
between pages (file names or wiki page names, each wiki's anchor form), the writer (which pandoc
writer, which raw format carries the page separator, whether footnotes gather at the end).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WikiFormat:
    name: str
    writer: str  # pandoc writer
    placement: str  # format name the filter places citations for
    ext: str
    raw: str  # raw format the writer passes through (for the page separator)
    notes_at_end: bool  # writer collects footnotes at the end of the document
    args: tuple[str, ...] = ()


FORMATS = {
    "mediawiki": WikiFormat(
        "mediawiki", "mediawiki", "mediawiki", ".wiki", "mediawiki", True, ("--wrap=none",)
    ),
    "dokuwiki": WikiFormat(
        "dokuwiki", "dokuwiki", "dokuwiki", ".txt", "dokuwiki", False, ("--wrap=none",)
    ),
    "gfm": WikiFormat("gfm", "gfm", "gfm", ".md", "html", True, ("--wrap=none",)),
    "obsidian": WikiFormat("obsidian", "gfm", "obsidian", ".md", "html", True, ("--wrap=none",)),
    "html": WikiFormat("html", "html5", "html", ".html", "html", True),
}
