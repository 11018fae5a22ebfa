"""``citeledger convert``: one draft, verified once, written to every output asked for.

The draft is read to pandoc's JSON tree once and verified once (the same verifier as
``citeledger verify`` and the filter). Each output then gets its own copy of the tree, the filter
applied in-process (``filters.run.apply`` with verification off: it already ran), and pandoc
writing from JSON with the bundled templates. Word and PowerPoint files go through the
renderers (``citeledger.renderers.postprocess``) before they are moved into place.

A verification failure stops everything before any output is written. Each output is written
to a temporary file in its folder and renamed only when complete, so a failed build never
leaves a partial file behind. An output that fails after that (pandoc refuses it, a PDF engine
or a renderer fails) is reported in one line and the others are still built; the run then
ends with one line naming what was and was not written, and a non-zero exit.

This module is the run: :func:`convert` reads and verifies the draft, then hands the outputs
to ``pool`` (written at the same time, told in order), which writes each through ``write``;
``request`` holds what the run is asked, ``tools`` what it needs installed and runs.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from ...document.draft import Draft, open_draft
from ...document.pandoc_writes import check_pandoc_writes
from ...document.sources_titles import titles_for
from ...errors import BadInput, CiteledgerError, DraftError, VerificationFailed
from ...files import Guard
from ...filters.raw_html import sanitizes_nothing
from ...options import Options
from ...options.meta_args import meta_entries
from ...options.survey import Survey, survey
from ...options.tex_math import TEX_WRITERS, check_math
from ...pandoc import require_sandbox
from ...tree import PandocDoc, no_gc
from ..confine import Confinement, embeds_resources, named_resource_folders
from ..images import Fetcher, host_list
from .pool import Early, partial_failure, start_early, warm_imports, write_all
from .request import (
    ConvertRequest,
    Output,
    check_stdout,
    default_jobs,
    is_latex_pdf,
    is_stdout,
    writer_for,
)
from .tools import check_tools, sandboxed
from .write import Build, Job, draft_text, element_kinds

if TYPE_CHECKING:
    from ...document.markers import Scan
    from ...ledger import Ledger
    from ...messages import Say

__all__ = ["ConvertRequest", "Output", "convert", "writer_for"]


def convert(req: ConvertRequest) -> list[Path]:
    """Verify ``req.draft`` once and write every output; returns the files written.

    The cyclic collector is paused for the whole build, as the writers' processes pause it:
    the draft's tree, once decoded, is a large acyclic structure of long-lived objects, and
    each full collection the scan or the verifier's work set off walked all of it for nothing
    to free (two, 0.35 s, on a 5 MB draft: a cost that grew faster than the draft)."""
    with no_gc():
        return _convert(req)


def _convert(req: ConvertRequest) -> list[Path]:
    from ...document.markers import ledger_ids, ledger_links, scan
    from ...ledger import load_ledger, resolve_ledger_path

    say = req.say
    draft = Path(req.draft)
    if not draft.is_file():
        raise DraftError(f"{draft}: no such file", hint="give the path of the draft to convert")
    if not req.outputs:
        raise BadInput("no output given", hint="add -o report.docx (repeat -o for more)")
    if req.jobs is not None and req.jobs < 1:
        raise BadInput(f"--jobs {req.jobs}: not a number of outputs", hint="give 1 or more")
    outputs = [Output(Path(p), writer_for(Path(p), req.to)) for p in req.outputs]
    check_tools(outputs, req)
    if sandboxed(req):
        require_sandbox()
    guard = Guard([(draft, "the draft")])
    if req.reference_doc is not None:
        guard.protect(Path(req.reference_doc), "the reference document")
    # What pandoc itself would write (a defaults file's log-file), checked before pandoc reads
    # the draft: against the ledger the flags and the project name, and again below.
    _protect_ledger(guard, resolve_ledger_path(req.options.effective().ledger))
    pandoc_options = [*req.pipeline.reading_args(draft), *req.pandoc_args]
    check_pandoc_writes(guard.unclaimed(), pandoc_options)

    warm = warm_imports(outputs)
    try:
        read, doc, options = _read_draft(req, draft)
    finally:
        warm.join()  # before anything forks: a fork amid an import would hold its lock
    if options.is_set("pdf-engine") and options.pdf_engine != req.pdf_engine:
        # The draft's front matter named the engine (a flag would have won over it).
        req = dataclasses.replace(req, pdf_engine=options.pdf_engine)
        check_tools(outputs, req)
    if not req.options.effective().trust_draft and any(
        o.writer in TEX_WRITERS or is_latex_pdf(o, req) for o in outputs
    ):
        check_math(doc, str(draft), read.text)  # math is code in a TeX output
    ledger_path = resolve_ledger_path(options.ledger)
    _protect_ledger(guard, ledger_path)
    check_pandoc_writes(guard.unclaimed(), pandoc_options)
    for output in outputs:  # every output checked before any work
        if is_stdout(output):
            check_stdout(output, outputs)
        else:
            guard.check(output.path)
    ledger = load_ledger(ledger_path)

    found = scan(doc, titles_for(options.sources_title), ledger_links(ledger), ledger_ids(ledger))
    walked = _walked(read, doc)
    if walked is not None:
        found.kinds = frozenset(walked.kinds)
    # The heaviest output's writer starts while the draft is verified, when nothing it does
    # depends on the verification; its file goes in place only once the draft has passed.
    early, build = _start_early(req, outputs, draft, doc, ledger, options, found, walked)
    try:
        _verify_once(doc, ledger, options, found, read, say, walked)
    except BaseException:
        if early is not None:
            early.cancel(outputs[early.k].path)
        if build is not None:
            build.fetcher.close()
        raise
    if early is not None:
        early.open()
    build = build or _build(req, outputs, draft, doc, options, walked)
    try:
        job = Job(outputs, doc, req, draft, ledger, options, build, found)
        written, failed = write_all(job, early)
    finally:
        build.fetcher.close()
    req.written[:] = written
    if failed:
        raise partial_failure(failed, written, len(outputs))
    return written


def _build(
    req: ConvertRequest,
    outputs: list[Output],
    draft: Path,
    doc: PandocDoc,
    options: Options,
    walked: Survey | None = None,
) -> Build:
    """What every output of the build shares. ``walked``: :func:`_walked`'s survey of
    ``doc``, which saves the walks of the whole tree it answers for."""
    if walked is None:
        kinds, inert = element_kinds(doc), False
    else:
        meta = survey({"meta": doc.get("meta", {})}, str(draft))  # -M entries, the vetted
        kinds = frozenset(walked.kinds | meta.kinds)
        inert = sanitizes_nothing(walked) and sanitizes_nothing(meta)
    return Build(
        Fetcher(enabled=not options.no_fetch, allowed=host_list(options.fetch_allow)),
        draft_text(doc) if any(is_latex_pdf(o, req) for o in outputs) else "",
        Confinement.for_draft(draft, named_resource_folders(req), embeds=embeds_resources(req)),
        # A draft with nothing the sanitiser would change (no raw HTML, no live link or
        # attribute) is written as it is, as trusted HTML is: the same page, one walk less.
        _keeps_html(req.options) or inert,
        kinds=kinds,
    )


def _walked(read: Draft, doc: PandocDoc) -> Survey | None:
    """The vetting's walk of the draft (:attr:`Draft.vetted`) when it answers for ``doc``'s
    blocks as the build and the verifier find them: the element types (a superset: vetting
    only takes away), the raw elements, links and attributes. None when another tree came
    of the reading (the user's citeproc), or the tree holds what changes before its outputs
    are written: footnotes (the verifier may make citations of them), raw markup (the
    vetting may make an image of it)."""
    found = read.vetted
    if found is None or doc is not read.tree:
        return None
    if found.kinds & {"Note", "RawInline", "RawBlock"}:
        return None
    return found


def _start_early(
    req: ConvertRequest,
    outputs: list[Output],
    draft: Path,
    doc: PandocDoc,
    ledger: Ledger,
    options: Options,
    found: Scan,
    walked: Survey | None,
) -> tuple[Early | None, Build | None]:
    """The heaviest output's writer started before the draft is verified, where
    :func:`~.pool.start_early` allows it, and the build it was started with; (None, None)
    otherwise. What the build cannot be made of is told after the verification, as before."""
    if len(outputs) < 2:
        return None, None
    try:
        build = _build(req, outputs, draft, doc, options, walked)
    except CiteledgerError:
        return None, None
    early = start_early(Job(outputs, doc, req, draft, ledger, options, build, found))
    return early, build


def _protect_ledger(guard: Guard, ledger_path: Path) -> None:
    from ...ledger.evidence_store import evidence_dir
    from ...ledger.lock_file import lock_path

    guard.protect(ledger_path, "the ledger")
    guard.protect(lock_path(ledger_path), "the ledger's lock file")
    guard.protect_folder(evidence_dir(ledger_path), "the ledger's evidence folder")
    guard.protect_folder(lock_path(ledger_path).parent, "the ledger's lock folder")


# More runs than this cost more to start and join than they save, on any draft.
_MAX_PARTS = 4


def _read_draft(req: ConvertRequest, draft: Path) -> tuple[Draft, PandocDoc, Options]:
    """The draft read as every job reads it (:func:`~citeledger.document.draft.open_draft`),
    then its tree made what the outputs are written from (the request's ``-M`` entries, the
    user's citeproc) and its options (the request's flags over its front matter). A long
    markdown draft is read by one pandoc run per core the build may use (``document/parts.py``:
    the same tree), a wait the writers' cores would otherwise spend idle."""
    titles = titles_for(req.options.sources_title)
    read = open_draft(
        draft,
        from_format=req.from_format,
        pipeline=req.pipeline,
        titles=titles,
        trusted=req.options.effective().trust_draft,
        parts=min(_MAX_PARTS, req.jobs or default_jobs()),
    )
    read.vet(req.options, req.say)
    read.tree.setdefault("meta", {}).update(meta_entries(req.metadata))
    doc: PandocDoc = req.pipeline.resolve_citations(read.tree, draft)
    options = read.options(req.options, req.say)
    return read, doc, options


def _verify_once(
    doc: PandocDoc,
    ledger: Ledger,
    options: Options,
    found: Scan,
    read: Draft,
    say: Say,
    walked: Survey | None = None,
) -> None:
    """The one verification of a build; a markdown draft's findings name LINE:COL (its markers
    were located while pandoc read it). ``walked``: the element types the tree may hold are
    known (:func:`_walked`), and the verifier's walks for those it lacks are saved."""
    from ...verify import verify_for_build

    text, located = read.text, read.locator(titles_for(options.sources_title))
    report = verify_for_build(
        doc,
        ledger,
        options,
        found,
        source_name=read.name,
        source_text=text,
        located=located,
        say=say,
        kinds=frozenset(walked.kinds) if walked is not None else None,
    )
    if report.failed:
        raise VerificationFailed(
            f"{read.name}: verification failed; no output written",
            hint="fix the findings above, then convert again",
        )


def _keeps_html(options: Options) -> bool:
    """A draft's raw HTML is written as it is for a trusted draft or with trusted HTML."""
    flags = options.effective()
    return flags.trusted_html or flags.trust_draft
