"""Every pandoc reader and writer citeledger knows, one row each, and the one place a format
name is taken apart.

A format name on the command line or from pandoc carries extensions (``gfm+hard_line_breaks``,
``markdown-smart``); :func:`family` strips them, as pandoc itself does, and every fact below is
looked up by what it returns. Adding a format is adding a row: the suffix maps, the version gate
(``pandoc.require``), the filter's placement, ``convert``'s ``--standalone`` and ``-o``, the
verifier's LINE:COL locations and footnote lists, and zip sniffing all read it.

Ground floor: standard library only. The placement is a key of the filter's registry
(``citeledger.filters.registry.PLACEMENTS``, named for the module that holds the class), so
this table imports no filter code.
"""

from __future__ import annotations

from ..ledger.light import record

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``), nor is
# ``pathlib`` of a quick verify's start (``citeledger/pandoc_start.py`` reads this table first).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Literal

    Kind = Literal[
        "markdown", "html", "office", "ebook", "tex", "typst", "pdf", "wiki", "markup", "data"
    ]

Version = tuple[int, ...]


@record(frozen=True)
class Format:
    """One pandoc reader/writer (or one of citeledger's own names, ``own``).

    ``suffixes`` are the files read with it, ``output_suffixes`` the outputs ``convert``
    writes with it; a suffix names one format each way. ``markdown_source``: its raw text maps
    back to LINE:COL.
    ``zip_part``: the archive member, and the bytes in its first 4 KB, that say a zip holds this
    format. ``raw``: the raw format its writer passes through ("" for its own name).
    ``reads_since``/``writes_since``: the first pandoc with the reader/writer, where it is newer
    than the oldest pandoc citeledger takes; ``gate_note`` says what needs it."""

    name: str  # what family() gives for it
    kind: Kind  # the sort of document, for a reader of the table
    reads: bool = False
    writes: bool = False
    suffixes: tuple[str, ...] = ()
    output_suffixes: tuple[str, ...] = ()
    binary: bool = False  # written with -o, never to stdout
    # A whole document only with --standalone (the rest always are, or should not be: a gfm
    # README with a YAML header is not what anyone wants).
    standalone: bool = False
    markdown_source: bool = False
    zip_part: tuple[str, bytes] | None = None
    placement: str = "html"
    raw: str = ""
    notes_at_end: bool = True  # the writer gathers footnotes at the end of the document
    links: bool = True  # the writer has internal links (#src-12)
    raw_html_anchors: bool = False  # drops Span/Div ids but passes raw HTML
    splits_brackets: bool = False  # the reader wraps brackets in bare Spans ({[}1{]})
    rendered: bool = False  # post-processed by citeledger.renderers
    slides: bool = False  # a slide show: its Sources list is paginated onto slides
    # The writer writes the same file when each run of words is one Str (the office writers
    # write a run's text in one piece, the HTML writer breaks its lines itself): convert hands
    # it the words joined, which pandoc reads and writes in about two thirds of the time.
    joins_words: bool = False
    own: bool = False  # citeledger's name, not a pandoc reader or writer
    reads_since: Version | None = None
    writes_since: Version | None = None
    gate_note: str = ""


def _file(name: str, kind: Kind, *suffixes: str, **facts: Any) -> Format:
    """A format read and written with the same file suffixes."""
    return Format(
        name, kind, reads=True, writes=True, suffixes=suffixes, output_suffixes=suffixes, **facts
    )


# Row order is the order zip sniffing tries (a deck before a Word file, as verify always did:
# either may embed the other, and then both content types show).
ROWS = (
    Format(
        "markdown",
        "markdown",
        reads=True,
        writes=True,
        suffixes=(
            ".md",
            ".markdown",
            ".txt",
            ".text",
            ".qmd",
            ".rmd",
            ".mdown",
            ".mdwn",
            ".mkd",
            ".mkdn",
        ),
        output_suffixes=(".md", ".markdown"),
        markdown_source=True,
    ),
    # The flavours whose raw passthrough is HTML, so anchors are written as raw HTML.
    *(
        Format(
            name,
            "markdown",
            reads=True,
            writes=True,
            markdown_source=True,
            raw="html",
            raw_html_anchors=True,
        )
        for name in ("commonmark", "commonmark_x", "gfm")
    ),
    Format("markdown_strict", "markdown", reads=True, writes=True, markdown_source=True),
    Format("markdown_mmd", "markdown", reads=True, writes=True, markdown_source=True),
    Format(
        "markdown_github", "markdown", reads=True, writes=True, raw="html", raw_html_anchors=True
    ),
    Format("plain", "markup", writes=True, output_suffixes=(".txt",), links=False),
    Format(
        "html",
        "html",
        reads=True,
        writes=True,
        suffixes=(".html", ".htm", ".xhtml"),
        standalone=True,
        joins_words=True,
    ),
    Format("html4", "html", writes=True, standalone=True, raw="html", joins_words=True),
    Format(
        "html5",
        "html",
        writes=True,
        output_suffixes=(".html", ".htm", ".xhtml"),
        standalone=True,
        raw="html",
        joins_words=True,
    ),
    Format("revealjs", "html", writes=True, standalone=True, raw="html", slides=True),
    *(
        Format(name, "html", writes=True, standalone=True, raw="html", slides=True)
        for name in ("slidy", "s5", "slideous", "dzslides")
    ),
    Format(
        "chunkedhtml", "html", writes=True, placement="chunked", raw="html", writes_since=(3, 0)
    ),
    _file(
        "pptx",
        "office",
        ".pptx",
        binary=True,
        zip_part=("[Content_Types].xml", b"presentationml"),
        placement="pptx",
        rendered=True,
        slides=True,
        joins_words=True,
        reads_since=(3, 8, 3),
    ),
    _file(
        "docx",
        "office",
        ".docx",
        binary=True,
        zip_part=("[Content_Types].xml", b"wordprocessingml"),
        placement="docx",
        rendered=True,
        joins_words=True,
    ),
    _file(
        "odt",
        "office",
        ".odt",
        binary=True,
        zip_part=("mimetype", b"opendocument.text"),
        joins_words=True,
    ),
    Format(
        "epub",
        "ebook",
        reads=True,
        writes=True,
        suffixes=(".epub",),
        binary=True,
        zip_part=("mimetype", b"application/epub+zip"),
    ),
    Format("epub2", "ebook", writes=True, binary=True),
    Format("epub3", "ebook", writes=True, output_suffixes=(".epub",), binary=True),
    Format("pdf", "pdf", writes=True, output_suffixes=(".pdf",), binary=True, own=True),
    _file(
        "latex",
        "tex",
        ".tex",
        ".latex",
        ".ltx",
        standalone=True,
        placement="latex",
        splits_brackets=True,
    ),
    Format(
        "beamer", "tex", writes=True, standalone=True, placement="latex", raw="latex", slides=True
    ),
    # ConTeXt takes no raw LaTeX; pandoc's own links and anchors work.
    Format("context", "tex", writes=True, standalone=True),
    _file(
        "typst",
        "typst",
        ".typ",
        standalone=True,
        placement="typst",
        reads_since=(3, 1, 2),
        writes_since=(3, 1, 2),
        gate_note="PDF through typst, .typ",
    ),
    _file(
        "mediawiki",
        "wiki",
        ".wiki",
        placement="wiki",
    ),
    Format("dokuwiki", "wiki", reads=True, writes=True, placement="wiki", notes_at_end=False),
    # citeledger wiki writes it with gfm.
    Format("obsidian", "wiki", writes=True, placement="wiki", raw="html", own=True),
    _file(
        "org",
        "markup",
        ".org",
        placement="escaped",
    ),
    _file(
        "rst",
        "markup",
        ".rst",
        placement="escaped",
    ),
    Format(
        "asciidoc",
        "markup",
        reads=True,
        writes=True,
        suffixes=(".adoc", ".asciidoc", ".asc"),
        output_suffixes=(".adoc",),
        reads_since=(3, 8, 3),
    ),
    # Readers whose writers citeledger does not place for: their suffixes name the reader only.
    Format("djot", "markup", reads=True, suffixes=(".dj", ".djot"), reads_since=(3, 1, 12)),
    Format("muse", "markup", reads=True, suffixes=(".muse",)),
    Format("rtf", "markup", reads=True, suffixes=(".rtf",), reads_since=(2, 14, 2)),
    Format("opml", "markup", reads=True, suffixes=(".opml",)),
    Format("fb2", "ebook", reads=True, suffixes=(".fb2",)),
    Format("t2t", "markup", reads=True, suffixes=(".t2t",)),
    Format("docbook", "markup", reads=True, suffixes=(".dbk",)),
    Format("asciidoc_legacy", "markup", writes=True, links=False),
    Format("textile", "markup", reads=True, writes=True, suffixes=(".textile",)),
    Format("man", "markup", writes=True, links=False),
    Format("ms", "markup", writes=True, links=False),
    Format("texinfo", "markup", writes=True, links=False),
    Format("haddock", "markup", writes=True, links=False),
    _file("ipynb", "data", ".ipynb"),
    _file("json", "data", ".json"),
    _file("native", "data", ".native"),
)
FORMATS = {row.name: row for row in ROWS}
DEFAULT_READER = "markdown"  # a draft whose suffix names no reader
DEFAULT_PLACEMENT = "html"

_READ_SUFFIXES = {suffix: row.name for row in ROWS for suffix in row.suffixes}
_WRITE_SUFFIXES = {suffix: row.name for row in ROWS for suffix in row.output_suffixes}


def family(fmt: str) -> str:
    """``gfm+hard_line_breaks-smart`` as ``gfm``: the name without its extensions,
    lower-cased as pandoc reads it."""
    cut = min((k for k in (fmt.find("+"), fmt.find("-")) if k >= 0), default=len(fmt))
    return fmt[:cut].lower()


def find(fmt: str) -> Format | None:
    """The row of ``fmt`` (extensions allowed), or None for a format the table does not know."""
    return FORMATS.get(family(fmt))


def _has(fmt: str, fact: str) -> bool:
    row = find(fmt)
    return row is not None and bool(getattr(row, fact))


def reader_for(path: str | Path) -> str:
    """The reader of a file by its suffix; markdown for a suffix the table does not name."""
    return reader_named(path) or DEFAULT_READER


def reader_named(path: str | Path) -> str | None:
    """The reader a file's suffix names (markdown for a file with no suffix, as pandoc reads
    one); None for a suffix no reader in the table takes, which a caller asks ``--from`` for."""
    from pathlib import PurePath

    return reader_for_suffix(PurePath(path).suffix)


def reader_for_suffix(suffix: str) -> str | None:
    """The reader a file's suffix (``.md``, as ``PurePath.suffix`` gives it; "" for none)
    names, as :func:`reader_named` says."""
    return _READ_SUFFIXES.get(suffix.lower()) if suffix else DEFAULT_READER


def writer_for_suffix(suffix: str) -> str | None:
    """The writer ``convert`` uses for an output with ``suffix`` ("pdf": typst or LaTeX)."""
    return _WRITE_SUFFIXES.get(suffix.lower())


def is_markdown_source(fmt: str) -> bool:
    return _has(fmt, "markdown_source")


def is_binary(fmt: str) -> bool:
    return _has(fmt, "binary")


def is_standalone(fmt: str) -> bool:
    return _has(fmt, "standalone")


def is_zip(fmt: str) -> bool:
    row = find(fmt)
    return row is not None and row.zip_part is not None


def zip_kinds() -> list[tuple[str, bytes, str]]:
    """(member, bytes, format) for sniffing a zip, in the order to try them."""
    return [(*row.zip_part, row.name) for row in ROWS if row.zip_part is not None]


def splits_brackets(fmt: str) -> bool:
    return _has(fmt, "splits_brackets")


def is_rendered(fmt: str) -> bool:
    return _has(fmt, "rendered")


def rendered_suffixes() -> tuple[str, ...]:
    return tuple(suffix for row in ROWS if row.rendered for suffix in row.output_suffixes)


def placement(fmt: str) -> str:
    """The key in ``citeledger.filters.registry.PLACEMENTS`` of the class that places
    citations for ``fmt``."""
    row = find(fmt)
    return row.placement if row is not None else DEFAULT_PLACEMENT


def raw_format(fmt: str) -> str:
    """The raw format the writer ``fmt`` passes through."""
    row = find(fmt)
    return (row.raw or row.name) if row is not None else family(fmt)


def notes_at_end(fmt: str) -> bool:
    row = find(fmt)
    return row is None or row.notes_at_end


def has_links(fmt: str) -> bool:
    row = find(fmt)
    return row is None or row.links


def joins_words(fmt: str) -> bool:
    return _has(fmt, "joins_words")


def is_slides(fmt: str) -> bool:
    return _has(fmt, "slides")


def raw_html_anchors(fmt: str) -> bool:
    return _has(fmt, "raw_html_anchors")
