"""The page formats a wiki build writes: the wiki's own facts about each.

Read by every part of the build: the slugs (DokuWiki page ids are ASCII), the links between
pages (file names or wiki page names, each wiki's anchor form), the page suffix and the
writer's arguments. What a pandoc writer does (which raw format carries the page separator,
whether footnotes gather at the end) is its row in :mod:`citeledger.formats`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ... import formats


@dataclass(frozen=True)
class WikiFormat:
    name: str  # the format the filter places citations for (a row of citeledger.formats)
    writer: str  # the pandoc writer of its pages
    ext: str  # page suffix
    args: tuple[str, ...] = ()

    @property
    def placement(self) -> str:
        return self.name

    @property
    def raw(self) -> str:
        """The raw format the writer passes through (for the page separator)."""
        return formats.raw_format(self.writer)

    @property
    def notes_at_end(self) -> bool:
        return formats.notes_at_end(self.writer)


FORMATS = {
    "mediawiki": WikiFormat("mediawiki", "mediawiki", ".wiki", ("--wrap=none",)),
    "dokuwiki": WikiFormat("dokuwiki", "dokuwiki", ".txt", ("--wrap=none",)),
    "gfm": WikiFormat("gfm", "gfm", ".md", ("--wrap=none",)),
    "obsidian": WikiFormat("obsidian", "gfm", ".md", ("--wrap=none",)),
    "html": WikiFormat("html", "html5", ".html"),
}
