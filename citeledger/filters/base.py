"""What every placement shares: the filter's state, and the generic placement that any pandoc
output format can take (bracketed ids, a Sources list at the end).

A format module (``filters/html.py``, ``filters/docx.py``, ...) subclasses
:class:`BasePlacement` as ``<Format>Placement`` and overrides what its readers expect
differently. Placements build pandoc JSON elements, not raw markup, wherever pandoc can express
the thing: the writer then escapes titles and URLs for its format, which is the only escaping
that never drifts from the format's rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from ..document.grammar import Marker
from ..document.markers import Scan
from ..formats import family, find
from ..ledger import Ledger, Source
from ..messages import Say, to_stderr
from ..options import Options
from ..tree import (
    Block,
    Inlines,
    Json,
    PandocDoc,
    header,
    link,
    para,
    raw_block,
    raw_inline,
    str_,
    text_to_inlines,
)

# The class of every citation element a placement makes (a link, or pptx's Span): what a later
# step (the wiki build's gfm pages, the pptx speaker notes) finds them by.
CITE_CLASS = "citeledger-cite"


LABEL_CLASS = "citeledger-label"


def label_text(marker: Marker) -> tuple[str, str]:
    """A provenance marker's kind and the words its label shows: "unverified", "policy",
    "tool: python"."""
    if marker.kind == "tool":
        return "tool", f"tool: {marker.name}" if marker.name else "tool"
    return marker.kind, marker.kind


@dataclass(frozen=True, slots=True)
class Caller:
    """Who started the filter run, told by the entry that starts it (the console script reads
    its environment once, at its edge): a placement never asks the environment itself.

    ``source_name`` names the draft in findings; ``under_pandoc``: pandoc runs the filter (a
    bare ``pandoc --filter``), so nothing of citeledger's finishes the file unless ``finished``
    says a build script runs ``citeledger finish`` on it."""

    source_name: str = "input"
    under_pandoc: bool = False
    finished: bool = False
    # Quarto's pandoc runs the filter (it sets QUARTO_FILTER_PARAMS): Quarto's own filters run
    # after it and resolve its cross-references (``@fig-x``).
    under_quarto: bool = False
    # The Quarto project folder (``$QUARTO_PROJECT_DIR`` holding a ``_quarto.yml``) when the
    # document is one of its pages: ``source_name`` is then a path from it, the page's run says
    # nothing of ledger sources it does not cite and records what it cites
    # (:mod:`citeledger.verify.pages`).
    project: str | None = None


@dataclass(frozen=True, slots=True)
class CiteContext:
    """Where one citation sits, told to the placement by the walk that places it: a placement
    never re-derives it from the order of its calls.

    ``occurrence`` is 1 at the source's first citation in the document, 2 at its second, ...;
    ``in_note`` is true inside one of the draft's own footnotes."""

    occurrence: int
    in_note: bool = False


@dataclass
class State:
    """The one state object of a filter run (panflute's ``doc.<name>`` habit, on plain JSON)."""

    doc: PandocDoc
    format: str
    options: Options
    ledger: Ledger
    scan: Scan
    order: dict[int, int] = field(default_factory=dict)
    seen: dict[int, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    # Where the draft kept its own Sources block (top-level block index after that block is
    # removed) and its heading level: the rendered list takes its place. None: at the end.
    sources_at: int | None = None
    sources_level: int = 1
    # The blocks that held the draft's block (a Div's, when a reader nested it; None: the
    # document's): ``sources_at`` indexes them.
    sources_in: list[Block] | None = None
    say: Say = to_stderr  # where the run's warnings go (the caller's sink)
    caller: Caller = field(default_factory=Caller)
    # A renderer finishes the written file (convert's docx and pptx): what it rebuilds for the
    # real layout need not be laid out here too.
    rendered: bool = False

    def source(self, source_id: int) -> Source:
        src = self.ledger.get(source_id)
        if src is None:  # the verifier fails unknown ids before placement; keep the promise
            raise KeyError(source_id)
        return src

    def number(self, source_id: int) -> int:
        """The mark a reader sees: the ledger id, or the order of first citation."""
        if self.options.numbering == "sequential":
            return self.order[source_id]
        return source_id

    def cited_sources(self) -> list[Source]:
        """Cited sources in ledger order (the order of every Sources list)."""
        return [s for s in self.ledger.sources if s.id in self.order]

    def list_order(self) -> list[Source]:
        """Sources in the order the list shows them: ledger order, or citation order when the
        marks are sequential (a reader looks up [3] between [2] and [4])."""
        cited = self.cited_sources()
        if self.options.numbering == "sequential":
            cited.sort(key=lambda s: self.order[s.id])
        return cited


def source_anchor(source_id: int) -> str:
    """The anchor of a source's entry in the list; keyed by ledger id, whatever the numbering,
    so links into a document stay valid when the numbering option changes."""
    return f"src-{source_id}"


def cite_anchor(source_id: int, occurrence: int) -> str:
    """The anchor of one citation (the target of the list's back-links)."""
    return f"cite-{source_id}-{occurrence}"


def add_header_include(doc: PandocDoc, fmt: str, text: str) -> None:
    """Append raw ``text`` to the document's ``header-includes`` metadata, keeping what the
    author put there (a single value becomes the first item of a list)."""
    meta = doc.setdefault("meta", {})
    block = {"t": "MetaBlocks", "c": [raw_block(fmt, text)]}
    current = meta.get("header-includes")
    if current is None:
        meta["header-includes"] = {"t": "MetaList", "c": [block]}
    elif current.get("t") == "MetaList":
        current["c"].append(block)
    else:
        meta["header-includes"] = {"t": "MetaList", "c": [current, block]}


ARCHIVED = "citeledger-archived"


# Where a URL shown in an entry may break: after these, as a reader of a printed URL expects
# ("https://example.org/" / "annual-reports/"), never inside a word, where a break reads as a
# hyphenated word. The LaTeX header's \citeledgerurl breaks after the same characters.
URL_BREAKS_AFTER = "/.-?&=#_"
# How a writer is told where: "wbr" an HTML <wbr> element, "zwsp" a zero-width space (Word and
# LibreOffice break there), "none" the writer's own rules.
UrlBreaks = Literal["none", "wbr", "zwsp"]


def url_pieces(url: str) -> list[str]:
    """``url`` cut after each run of :data:`URL_BREAKS_AFTER` characters: "https://",
    "example.", "org/", "a-", "b"."""
    pieces: list[str] = []
    start = 0
    for i, ch in enumerate(url[:-1]):
        if ch in URL_BREAKS_AFTER and url[i + 1] not in URL_BREAKS_AFTER:
            pieces.append(url[start : i + 1])
            start = i + 1
    pieces.append(url[start:])
    return [p for p in pieces if p]


def url_label(url: str, breaks: UrlBreaks = "none") -> Inlines:
    """The shown text of a URL link, with the break opportunities ``breaks`` names."""
    if breaks == "zwsp":
        return [str_("\u200b".join(url_pieces(url)))]
    if breaks == "wbr":
        out: Inlines = []
        for piece in url_pieces(url):
            if out:
                out.append(raw_inline("html", "<wbr>"))
            out.append(str_(piece))
        return out
    return [str_(url)]


def entry_inlines(source: Source, *, with_url: bool = True, breaks: UrlBreaks = "none") -> Inlines:
    """``Title. URL (accessed DATE) (archived URL)`` with live links: the text of a note or a
    list entry (the archived part only when the ledger holds an archived copy's address);
    ``breaks`` says how the shown URLs get their break opportunities."""
    out: Inlines = []
    title = source.lead_sentence  # one line: a newline in a Str could start markup
    if title:
        out += text_to_inlines(title)
    if with_url:
        if out:
            out.append({"t": "Space"})
        out.append(link(url_label(source.url, breaks), source.href, classes=["url"]))
    if source.display_accessed:
        out += [{"t": "Space"}, *text_to_inlines(f"(accessed {source.display_accessed})")]
    if source.archived:
        shown = url_label(source.archived, breaks)
        archived = link(shown, source.archived_href, classes=["url", ARCHIVED])
        out += [{"t": "Space"}, str_("(archived"), {"t": "Space"}, archived, str_(")")]
    return out


class BaseEntries:
    """How a format writes one entry of a Sources list, ``[n] Title. URL (accessed DATE)``,
    from the format and the options alone. A placement renders its list's entries through it,
    and so does a list made outside any filter run (the wiki build's sources page), so both
    escape titles and URLs by the same code. A format module whose entries differ subclasses it
    and names the subclass in its placement's ``entries_type``."""

    def __init__(self, fmt: str, options: Options) -> None:
        self.fmt = family(fmt)
        self.options = options

    def entry(self, source: Source, number: int) -> Inlines:
        return [str_(f"[{number}]"), {"t": "Space"}, *entry_inlines(source)]


class BasePlacement:
    """The generic placement: ``[n]`` stays as text, the Sources list comes last.

    Subclasses override :meth:`cite` (the inline form of one citation), :meth:`list_blocks`
    (the list), :meth:`separator` (between adjacent citations) and :meth:`finalize` (anything
    the document needs besides: header-includes, metadata); ``entries_type`` renders the
    list's entries.
    """

    # Whether the written file records the options it was built with (files a renderer
    # finishes: ``citeledger finish`` reads them back).
    records_options = False
    # Whether a citation takes the place of the draft's space before it (formats whose marks
    # are raised notes or glued to the word: Word, LaTeX, typst).
    joins_marks = False
    entries_type: ClassVar[type[BaseEntries]] = BaseEntries

    def __init__(self, state: State) -> None:
        self.state = state
        self.entries = self.entries_type(state.format, state.options)

    # Inline side -------------------------------------------------------------------------
    def cite(self, source: Source, number: int, at: CiteContext) -> Inlines:
        """One citation of ``source``, shown as ``number``, where ``at`` says."""
        return [str_(f"[{number}]")]

    def separator(self) -> Inlines:
        return []

    def provenance(self, marker: Marker) -> Inlines:
        """``[unverified]``, ``[policy]``, ``[tool:x]`` as a label that says what it means,
        never brackets that read as a broken id: in HTML a Span of class ``citeledger-label``
        with ``data-kind`` (the stylesheet draws it as a label); in a format without a
        stylesheet the words in parentheses, in italics. Dropped with ``provenance: drop``."""
        if self.state.options.provenance == "drop":
            return []
        kind, text = label_text(marker)
        found = find(self.state.format)
        if found is not None and found.kind == "html":
            attrs = ["", [LABEL_CLASS], [["data-kind", kind]]]
            return [{"t": "Span", "c": [attrs, [str_(text)]]}]
        # A format with no stylesheet: the words in parentheses, set apart in italics.
        return [{"t": "Space"}, {"t": "Emph", "c": [str_(f"({text})")]}]

    # Block side --------------------------------------------------------------------------
    def entry(self, source: Source, number: int) -> Inlines:
        return self.entries.entry(source, number)

    def sources_blocks(self) -> list[Block]:
        """The Sources list, or nothing when the document cites nothing."""
        sources = self.state.list_order()
        return self.list_blocks(sources) if sources else []

    def list_blocks(self, sources: list[Source]) -> list[Block]:
        """The blocks of a Sources list of ``sources`` (never empty), in list order."""
        return [
            self.sources_header(),
            *(para(self.entry(src, self.state.number(src.id))) for src in sources),
        ]

    def sources_header(self, identifier: str = "sources") -> Json:
        """The list's heading: the draft's Sources heading level, unnumbered."""
        title = self.state.options.sources_title
        return header(self.state.sources_level, title, identifier, ["unnumbered"])

    def place_sources(self, blocks: list[Block]) -> None:
        """Put the list where the draft kept its Sources block, else at the end."""
        doc_blocks = self.state.sources_in
        if doc_blocks is None:
            doc_blocks = self.state.doc["blocks"]
        at = self.state.sources_at
        if at is None or at > len(doc_blocks):
            doc_blocks.extend(blocks)
        else:
            doc_blocks[at:at] = blocks

    def finalize(self) -> None:
        """After every citation is placed: the list, and whatever else the format needs."""
        self.place_sources(self.sources_blocks())
