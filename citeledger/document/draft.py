"""The one reading of a draft: :func:`open_draft`, and what a draft cites.

Every job that starts from a draft (verify, convert, the wiki, ``render --cited-in`` and
``--replace-in``, ``config``) reads it here, so they agree on what it says. A reading decides
the pandoc reader by one rule (``--from``, else a zip's own description of what it holds, else
the suffix: :func:`~.readers.input_format`), refuses a markdown draft that is not UTF-8 text
before pandoc chews on it, and gives the tree as pandoc's reader gives it for that format with
the one repair markers need: the LaTeX reader wraps each bracket of ``{[}1{]}`` (how pandoc's
own LaTeX writer escapes ``[1]``) in a bare Span, and the Spans are melted back
(:func:`~.readers.join_bracket_spans`), so a ``.tex`` draft cites what the markdown it came from
cites. Before, verify did this and the builds did not: a ``.tex`` draft verified with its
citation and was built with ``[1]`` left as plain text.

A markdown draft's markers are located in its raw text (``LINE:COL`` for findings, escaped
brackets, ``[n]: url`` definitions) in a thread while pandoc reads it; other formats have no
text to locate in, and their findings name headings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from .. import formats
from ..errors import DraftError
from ..ledger.light import field, record
from ..options import Options, from_meta
from ..options.survey import Survey
from ..options.trust import check_nesting, front_options, nesting_error, vet
from ..pandoc import run_pandoc
from ..tree import PandocDoc, no_gc
from .locate import LocatedAhead, Locator, drop_escaped
from .markers import admit_defined, ledger_ids, ledger_links, scan
from .note_citations import note_citations
from .readers import highlighting_as_code, input_format, join_bracket_spans, read_output
from .sources_titles import titles_for

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..ledger.model import Ledger
    from ..messages import Say
    from .pipeline import Pipeline


@record
class Draft:
    """A draft as read: its path and the name findings give it, the pandoc reader that read
    it, its text (a markdown draft's; None for other formats) and pandoc's tree of it."""

    path: Path
    name: str
    format: str
    text: str | None
    tree: PandocDoc
    _located: dict[tuple[str, ...], Locator] = field(default_factory=dict)
    # The trust model's walk of the tree as read (``options/survey.py``), for :meth:`vet`.
    surveyed: Survey | None = None
    # The walk :meth:`vet` made (or was given), kept once the tree is vetted: every raw element,
    # link, image and attribute with key-value pairs the tree may still hold, and every
    # element type (vetting takes elements away, adds none). None before :meth:`vet`.
    vetted: Survey | None = None

    def locator(self, titles: Sequence[str]) -> Locator | None:
        """Where the draft's markers are in its text, its Sources block found under
        ``titles``; None without text. Located once per set of titles."""
        if self.text is None:
            return None
        key = tuple(titles)
        if key not in self._located:
            self._located[key] = Locator.from_text(self.name, self.text, key)
        return self._located[key]

    def vet(self, flags: Options, say: Say, *, builds: bool = True) -> None:
        """The trust model applied to the tree as read (:mod:`citeledger.options.trust`):
        an untrusted draft's raw code refused, its front matter cut to what a reader sees,
        citeledger's own ids renamed. Before the user's ``-M`` entries and citeproc. A reading
        that builds nothing (``builds`` false: verify) keeps the raw code, which it never runs
        or writes, so a reviewer can check a draft with equations without trusting it."""
        trusted = flags.effective().trust_draft
        self.vetted = vet(
            self.tree,
            trusted=trusted,
            name=self.name,
            folder=self.path.parent,
            text=self.text,
            say=say,
            refuse_raw=builds,
            surveyed=self.surveyed,
        )
        self.surveyed = None  # the tree is the caller's to change from here

    def options(self, flags: Options, say: Say) -> Options:
        """The run's options: the front matter's, no looser than the project's, under the
        flags (:func:`~citeledger.options.trust.front_options`)."""
        return front_options(self.tree.get("meta", {}), flags, say)


def open_draft(
    path: Path,
    *,
    from_format: str | None = None,
    pipeline: Pipeline | None = None,
    titles: Sequence[str] | None = None,
    name: str | None = None,
    trusted: bool = False,
    parts: int = 1,
) -> Draft:
    """Read the draft at ``path`` (see the module docstring). ``from_format``: the reader the
    user named; ``pipeline``: the filters and defaults pandoc reads it with; ``titles``: the
    Sources titles to locate the markers under while pandoc reads (the caller's guess before
    the front matter is known; :meth:`Draft.locator` locates again under others); ``name``:
    what findings call the draft (default: the path); ``trusted``: the draft is trusted (a
    flag or the project file says so, never the draft), else pandoc reads it sandboxed, an
    include leading outside its folder refused; ``parts``: how many pandoc runs may read a
    long markdown draft at once (:mod:`.parts`: the tree is the same), when no filter or
    defaults file of the ``pipeline`` takes part in the reading. Runs pandoc."""
    fmt = from_format or input_format(path)
    name = name if name is not None else str(path)
    text = read_text_draft(path, fmt)
    ahead = LocatedAhead(path, name, titles, text) if text is not None and titles else None
    # No collection passes while pandoc's tree is decoded: it frees nothing and costs time.
    try:
        with no_gc():
            split = None
            surveys: list[Survey] = []  # the trust model's walk, made of each part as decoded
            plain = pipeline is None or pipeline.reads_plainly()
            if parts > 1 and text is not None and plain:
                from .parts import read_in_parts  # threads and logging: no cost of a verify

                walk = lambda part: surveys.append(check_nesting(part, name))  # noqa: E731
                split = read_in_parts(text, fmt, parts, name, each=walk, sandbox=not trusted)
            tree: PandocDoc = (
                split
                if split is not None
                else read_output(path, fmt, pipeline, sandbox=not trusted)
            )
    except RecursionError:
        raise nesting_error(name) from None
    surveyed: Survey | None = _joined(surveys) if split is not None else check_nesting(tree, name)
    if formats.splits_brackets(fmt):
        join_bracket_spans(tree)
        highlighting_as_code(tree)
        surveyed = None  # the tree changed: vet walks it again
    draft = Draft(path, name, fmt, text, tree, surveyed=surveyed)
    if ahead is not None and titles is not None:
        located = ahead.result()[1]
        if located is not None:
            draft._located[tuple(titles)] = located
    return draft


def _joined(surveys: list[Survey]) -> Survey:
    """The walks of a draft's parts as the walk of the whole (each list in no order)."""
    whole = Survey()
    for part in surveys:
        whole.own_ids += part.own_ids
        whole.raws += part.raws
        whole.links += part.links
        whole.kinds |= part.kinds
        whole.attrs += part.attrs
    return whole


def read_draft_text(text: str, fmt: str, what: str) -> PandocDoc:
    """Pandoc's tree of a draft's text that is not (or not yet) the file: the rewrite a job is
    about to write, checked against the reading of the draft it replaces. ``fmt`` is that
    draft's :attr:`Draft.format`."""
    import json

    tree: PandocDoc = json.loads(run_pandoc(["-f", fmt, "-t", "json"], stdin=text, what=what))
    if formats.splits_brackets(fmt):
        join_bracket_spans(tree)
        highlighting_as_code(tree)
    return tree


@record(frozen=True)
class DraftCitations:
    """What a draft cites (distinct ids, in order of first citation) and the options its
    metadata sets, flags given by the caller winning."""

    ids: list[int]
    options: Options


def read_citations(
    path: Path,
    *,
    from_format: str | None = None,
    flags: Options | None = None,
    ledger: Ledger | None = None,
    warn: Callable[[str], None] = lambda _line: None,
) -> DraftCitations:
    """The ids a draft cites (its own Sources block does not count, nor do brackets the
    author escaped, nor numeric links that are no citation; with the ``ledger``, footnotes
    holding its URLs do) and its options. Runs pandoc."""
    trusted = flags is not None and flags.effective().trust_draft
    draft = open_draft(path, from_format=from_format, trusted=trusted)
    doc = draft.tree
    options = from_meta(doc.get("meta", {}), warn).merged(flags or Options())
    titles = titles_for(options.sources_title)
    found = scan(
        doc,
        titles,
        ledger_links(ledger) if ledger is not None else None,
        ledger_ids(ledger) if ledger is not None else None,
    )
    locator = draft.locator(titles)
    if locator is not None:
        drop_escaped(doc, found, locator, titles)
        admit_defined(doc, found, titles, (d.id for d in locator.definitions))
    ids = found.cited_ids()
    if ledger is not None:  # a footnote holding a ledger URL cites it (verify counts it so)
        listing = found.listing
        skip = listing.top_range() if listing else range(0)
        ids += [i for i in note_citations(doc, ledger, skip=skip).order if i not in ids]
    return DraftCitations(ids, options)


def cited_ids_in_file(path: Path, *, from_format: str | None = None) -> list[int]:
    """:func:`read_citations`' ids, with no ledger to ask about numeric links."""
    return read_citations(path, from_format=from_format).ids


def read_text_draft(path: str | Path, fmt: str) -> str | None:
    """The draft's text when ``fmt`` is a markdown flavour, refusing what is not UTF-8 text
    before pandoc sees it (pandoc falls back to latin1 on a binary file and chews on it for
    minutes); None for other formats."""
    if not formats.is_markdown_source(fmt):
        return None
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DraftError(f"cannot read {path}: {exc}", hint="save it as UTF-8 text") from None
    if "\x00" in text:
        raise DraftError(f"{path} is not text (it holds NUL bytes)", hint="check the path")
    return text
