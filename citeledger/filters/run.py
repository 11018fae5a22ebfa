"""One filter run on a pandoc JSON tree: scan, verify, place. Every way in ends here: the
console script (:mod:`citeledger.filters.main`), the panflute pieces
(:mod:`citeledger.filters.panflute`), ``citeledger convert`` and the wiki build.

Also how a filter process ends on an error (:func:`exit_with`) and what it learns of who
started it (:func:`caller_from`): the two entries pandoc starts share them, so neither
imports the other. A job that runs the filter in-process (``citeledger convert``) imports what
it does to the tree around the run from here too: the header-includes it adds, and what typst
cannot compile made plain.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import NoReturn

from ..document.grammar import Marker
from ..document.markers import Scan, ledger_ids, ledger_links, scan
from ..document.note_citations import note_citations
from ..document.readers import highlighting_as_code, join_split_brackets
from ..document.sources_block import find_sources_block
from ..document.sources_titles import is_sources_title, title_core, titles_for
from ..errors import CiteledgerError, VerificationFailed
from ..ledger import Ledger, load_ledger, resolve_ledger_path
from ..messages import Say, to_stderr
from ..options import RECORD_PROPERTY, Options, from_meta, is_option_meta
from ..options.tex_math import TEX_WRITERS, check_math
from ..options.trust import env_trusts, nesting_error, vet
from ..tree import Inlines, Json, PandocDoc, stringify, text_to_inlines
from ..verify import Report, record_page, verify_for_build
from .base import BasePlacement, Caller, CiteContext, State, add_header_include
from .headings import keep_heading_ids, title_for_lang, top_section_level
from .raw_html import sanitize_raw_html, writes_html
from .registry import placement_for
from .typst import make_compilable, unresolved_warning

QUARTO_PROJECT_FILES = ("_quarto.yml", "_quarto.yaml")

__all__ = [
    "Caller",
    "State",
    "add_header_include",
    "apply",
    "caller_from",
    "exit_with",
    "make_compilable",
    "unresolved_warning",
]


def _replace_hits(state: State, placement: BasePlacement) -> None:
    """Swap every marker for its placed form. Occurrences are counted in document order;
    replacement then runs from the end of each inline list so earlier indices stay valid."""
    planned: list[tuple[Inlines, int, int, Inlines]] = []
    for hit in state.scan.hits:
        out: Inlines = []
        prev_cite = False
        for piece in hit.pieces:
            if isinstance(piece, Marker):
                if piece.ids:
                    for source_id in piece.ids:
                        if prev_cite:
                            out += placement.separator()
                        out += _cite(state, placement, source_id, hit.in_note)
                        prev_cite = True
                else:
                    out += placement.provenance(piece)
                    prev_cite = False
            else:
                out += text_to_inlines(piece)
                prev_cite = False
        start = hit.start
        # The draft's space before a marker is not kept: the mark joins the word or
        # punctuation before it, so no line starts with it.
        if (
            placement.joins_marks
            and _cites_first(hit.pieces)
            and start > 0
            and hit.container[start - 1].get("t") in ("Space", "SoftBreak")
        ):
            start -= 1
        planned.append((hit.container, start, hit.end, out))
    for container, start, end, out in reversed(planned):
        container[start : end + 1] = out


def _cites_first(pieces: Sequence[object]) -> bool:
    first = next((p for p in pieces if not (isinstance(p, str) and not p)), None)
    return isinstance(first, Marker) and bool(first.ids)


def _cite(state: State, placement: BasePlacement, source_id: int, in_note: bool) -> Inlines:
    """One citation, with the context only this walk knows: how many times the source has been
    cited so far, and whether this citation sits in one of the draft's footnotes."""
    state.seen[source_id] = state.seen.get(source_id, 0) + 1
    at = CiteContext(occurrence=state.seen[source_id], in_note=in_note)
    return placement.cite(state.source(source_id), state.number(source_id), at)


def apply(
    doc: Json,
    fmt: str,
    *,
    options: Options | None = None,
    ledger: Ledger | None = None,
    say: Say = to_stderr,
    verify: bool = True,
    found: Scan | None = None,
    rendered: bool = False,
    caller: Caller | None = None,
    vet: Callable[[Json], None] | None = None,
    placement: Callable[[State], BasePlacement] | None = None,
) -> State | None:
    """Run the filter on a pandoc JSON document in place; return the run's state, or None
    when the document cites nothing (it then passes through untouched). Every filter run comes
    through here: the console script, the panflute pieces, convert and the wiki build.
    prepare: options, ledger, markers, verification (unless the caller verified already);
    action: marker -> citation; finalize: the Sources list and what the format needs besides.
    The document keeps no ``citeledger`` option metadata (a local ledger path must not reach a
    delivered file); a .docx or .pptx gets the options it was built with instead. ``say``:
    the run's warnings and findings, one line each. ``found``: the caller's scan of this very
    document, the ledger's links known (a wiki page cut from a draft the build scanned whole).
    ``rendered``: a renderer finishes the written file (convert's docx and pptx), so what it
    rebuilds is not laid out here. ``caller``: who started the run (in-process: the default).
    ``vet``: the trust model, applied once the document cites. ``placement``: makes its own."""
    caller = caller or Caller()
    meta = doc.setdefault("meta", {})
    opts = options or from_meta(meta, say)
    titles = titles_for(opts.sources_title)
    given = found is not None
    if found is None:
        found = scan(doc, titles)
    if not (found.hits or found.ordinary or found.sources) and opts.min_coverage is None:
        ledger = None if given else _cited_in_notes(doc, opts, ledger)
        if ledger is None:
            return None
    if vet is not None:
        opts, titles, found = _vet_then_scan(doc, vet, options, say)
    if ledger is None:
        ledger = load_ledger(_ledger_path(opts, caller))
    if not given and (found.ordinary or _lists_works(doc, found, titles, ledger)):
        # A numeric link set apart from the text cites only what the ledger knows, and a list
        # of works is the Sources block when it names the ledger's URLs.
        found = scan(doc, titles, ledger_links(ledger), ledger_ids(ledger))
        if not found.hits and found.sources is None and opts.min_coverage is None:
            return None
    if verify:
        report = _verify(doc, ledger, opts, found, say, caller, _source_text(caller))
        if caller.project is not None and caller.source_name != "input":
            _record(caller.project, caller.source_name, ledger, report, say)
    opts = _lang_title(_drafted_title(opts, found), found, meta)
    state = State(
        doc=doc,
        format=fmt,
        options=opts,
        ledger=ledger,
        scan=found,
        say=say,
        rendered=rendered,
        caller=caller,
    )
    for _hit, marker in found.markers():
        for source_id in marker.ids:
            state.order.setdefault(source_id, len(state.order) + 1)
    placed = (placement or partial(placement_for, fmt))(state)
    keep_heading_ids(doc["blocks"], found.hits)
    _replace_hits(state, placed)
    # The level of the document's own top sections (a wiki page's too), whatever level the
    # draft's block had.
    state.sources_level = top_section_level(doc["blocks"])
    if found.sources is not None:
        state.sources_at = found.sources.start
        state.sources_in = found.sources.remove(doc["blocks"])
    placed.finalize()
    for key in [k for k in meta if is_option_meta(k)]:
        del meta[key]
    if placed.records_options:
        meta[RECORD_PROPERTY] = {"t": "MetaString", "c": opts.record()}
    return state


def _vet_then_scan(
    doc: Json, vet: Callable[[Json], None], options: Options | None, say: Say
) -> tuple[Options, tuple[str, ...], Scan]:
    """The document vetted, then its options and scan again (vetting drops front matter and
    turns live links into their text)."""
    vet(doc)
    opts = options or from_meta(doc.setdefault("meta", {}), say)
    titles = titles_for(opts.sources_title)
    return opts, titles, scan(doc, titles)


def _cited_in_notes(doc: Json, opts: Options, ledger: Ledger | None) -> Ledger | None:
    """The ledger of a document that cites only in footnotes (``[^1]: https://...``), which
    cites what the ledger holds of their URLs; None when they name none of it: the document
    then passes through untouched, as one that cites nothing."""
    if ledger is None:
        ledger = load_ledger(resolve_ledger_path(opts.ledger), missing_ok=True)
    return ledger if note_citations(doc, ledger).ids else None


def _lists_works(doc: PandocDoc, found: Scan, titles: Sequence[str], ledger: Ledger) -> bool:
    """Whether the draft's Sources block, read with the ledger, is another than without it: a
    list of works naming the ledger's URLs (under a title no ``[n]`` list follows)."""
    if not found.hits:
        return False
    again = find_sources_block(doc["blocks"], titles, ledger_ids(ledger))
    return again is not None and again != found.listing


def _drafted_title(opts: Options, found: Scan) -> Options:
    """The list replaces the draft's own block under the draft's title ("References" stays
    "References") unless the options name one."""
    if found.sources is None or opts.is_set("sources-title"):
        return opts
    title = title_core(found.sources.title)
    if not title or is_sources_title(title, (opts.sources_title,)):
        return opts
    return opts.updated({"sources-title": title})


def _lang_title(opts: Options, found: Scan, meta: Json) -> Options:
    """The Sources title in the document's language (``lang``), for a draft with no Sources
    block of its own (whose title stands) and no title set.
    The option stays unset: a Word file adds a Sources section only when it is set."""
    if found.sources is not None or opts.is_set("sources-title"):
        return opts
    lang = meta.get("lang")
    if not isinstance(lang, dict):
        return opts
    value = lang.get("c")
    title = title_for_lang(value if isinstance(value, str) else stringify(value or []))
    return dataclasses.replace(opts, sources_title=title) if title else opts


def _record(project: str, page: str, ledger: Ledger, report: Report, say: Say) -> None:
    """What a Quarto page cites, kept for the project's check (:mod:`citeledger.verify.pages`);
    a project folder that cannot be written to costs that check this page, not the build."""
    try:
        record_page(Path(project), page, ledger.path, report.cited_ids)
    except OSError as exc:
        say(
            f"warn: {page}: cannot keep what it cites for the project's check "
            f"({exc.strerror or exc}): the post-render step will not count its citations"
        )


def _ledger_path(opts: Options, caller: Caller) -> Path:
    """The ledger the options name. A Quarto page runs in its own folder (``posts/``) while
    ``_quarto.yml`` names the ledger from the project's: a relative path found in neither
    the page's folder is read from the project's."""
    path = resolve_ledger_path(opts.ledger)
    if caller.project is not None and not path.is_absolute() and not path.exists():
        beside = Path(caller.project) / path
        if beside.exists():
            return beside
    return path


def _source_text(caller: Caller) -> str | None:
    """The draft's text when the caller named its file (the Quarto shim does) and it reads as
    text: findings then give its lines. None otherwise (bare pandoc names no file). A Quarto
    page's name is a path from its project's folder."""
    if caller.source_name == "input":
        return None
    try:
        return (Path(caller.project or "") / caller.source_name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _verify(
    doc: PandocDoc,
    ledger: Ledger,
    opts: Options,
    found: Scan,
    say: Say,
    caller: Caller,
    source_text: str | None = None,
) -> Report:
    # Inside a build only findings are news: the stats line and "citations OK" stay quiet.
    report = verify_for_build(
        doc,
        ledger,
        opts,
        found,
        source_name=caller.source_name,
        say=say,
        source_text=source_text,
        findings_only=True,
        page_of_set=caller.project is not None,
    )
    if report.failed:
        raise VerificationFailed(
            "verification failed; no output written",
            hint="fix the findings above, or run citeledger verify on the draft",
        )
    return report


def apply_handed(doc: Json, fmt: str, environ: Mapping[str, str]) -> State | None:
    """:func:`apply` for a tree pandoc hands the filter (the console script, the panflute
    entry). pandoc never says which reader built it, so what a reader does to a draft's markers
    is undone here, as :func:`~citeledger.document.draft.open_draft` undoes it for the commands:
    the LaTeX reader's ``{[}1{]}`` is ``[1]`` again (``join_split_brackets``), its highlighted
    code is code (``highlighting_as_code``)."""
    join_split_brackets(doc)
    highlighting_as_code(doc)
    caller = caller_from(environ)
    trusted = env_trusts(environ)
    here = Path.cwd()

    def vetted(tree: Json) -> None:
        name = caller.source_name
        vet(tree, trusted=trusted, name=name, folder=here, say=to_stderr, ledger_inside=here)
        if not trusted and writes_html(fmt):
            sanitize_raw_html(tree)
        if not trusted and fmt in TEX_WRITERS:
            check_math(tree, name)

    try:
        return apply(doc, fmt, say=to_stderr, caller=caller, vet=vetted)
    except RecursionError:
        raise nesting_error(caller.source_name) from None


def caller_from(environ: Mapping[str, str]) -> Caller:
    """What the process environment says of who started the filter, read once at an entry
    pandoc starts: pandoc sets ``PANDOC_VERSION``; a build script that runs ``citeledger
    finish`` on the file sets ``CITELEDGER_FINISH``; ``CITELEDGER_SOURCE_NAME`` names the draft
    in findings. Quarto's pandoc carries ``QUARTO_FILTER_PARAMS``, and ``QUARTO_PROJECT_DIR``
    (the project's folder; a lone document's own folder, which holds no ``_quarto.yml``)."""
    name = environ.get("CITELEDGER_SOURCE_NAME", "input")
    under_quarto = bool(environ.get("QUARTO_FILTER_PARAMS"))
    project = _quarto_project(environ) if under_quarto else None
    if project is not None and name != "input":
        with contextlib.suppress(ValueError):  # on another drive than the project's
            name = Path(os.path.relpath(Path(name).resolve(), Path(project).resolve())).as_posix()
    return Caller(
        source_name=name,
        under_pandoc=bool(environ.get("PANDOC_VERSION")),
        finished=bool(environ.get("CITELEDGER_FINISH")),
        under_quarto=under_quarto,
        project=project,
    )


def _quarto_project(environ: Mapping[str, str]) -> str | None:
    """The Quarto project folder the page renders in, None for a lone document."""
    folder = environ.get("QUARTO_PROJECT_DIR", "").strip()
    if folder and any((Path(folder) / name).is_file() for name in QUARTO_PROJECT_FILES):
        return folder
    return None


def exit_with(exc: CiteledgerError) -> NoReturn:
    """The filter's edge: one line on stderr (pandoc shows it) and the error's exit code."""
    print(f"pandoc-citeledger: {exc.line()}", file=sys.stderr)
    sys.exit(exc.exit_code)
