"""``citeledger convert``: one draft, verified once, written to every output asked for.

The draft is read to pandoc's JSON tree once and verified once (the same verifier as
``citeledger verify`` and the filter). Each output then gets its own copy of the tree, the filter
applied in-process (``filters.main.apply`` with verification off: it already ran), and pandoc
writing from JSON with the bundled templates. Word and PowerPoint files go through the
renderers (``citeledger.renderers.postprocess``) before they are moved into place.

The outputs are written at the same time, as many at once as the process has cores (``jobs``,
``-j``): each in a process forked from the build (its own copy of the tree for free, its own
pandoc, its renderer starting as soon as its pandoc is done), the heaviest started first.
What each output says is held back and told in the order the outputs were asked for, each
output's lines together, so a run reads the same whichever finishes first.

A verification failure stops everything before any output is written. Each output is written
to a temporary file in its folder and renamed only when complete, so a failed build never
leaves a partial file behind. An output that fails after that (pandoc refuses it, a PDF engine
or a renderer fails) is reported in one line and the others are still built; the run then
ends with one line naming what was and was not written, and a non-zero exit.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import multiprocessing
import os
import re
import shutil
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import formats
from ...document.pipeline import Pipeline
from ...errors import (
    BadInput,
    CiteledgerError,
    DraftError,
    PandocError,
    ToolMissing,
    VerificationFailed,
)
from ...files import Guard, fill, staged
from ...messages import Say, to_stderr
from ...options import Options, from_meta, meta_entries
from ...pandoc import format_for, read_json, run_pandoc
from ...renderers.latex import pandoc_variables
from ...tree import Json, elements, join_words, stringify
from ..images import (
    Confinement,
    Fetcher,
    confine_local_files,
    drop_missing_images,
    embeds_resources,
    host_list,
    localize_images,
    missing_images,
    missing_warning,
    named_resource_folders,
    refused_warning,
)

if TYPE_CHECKING:
    from ...document.locate import LocatedAhead
    from ...document.markers import Scan
    from ...ledger import Ledger

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
TYPST_TEMPLATE = TEMPLATES / "report.typst"
LATEX_REPORT = TEMPLATES / "latex-report.tex"
REFERENCE_DOCS = {"docx": TEMPLATES / "reference.docx", "pptx": TEMPLATES / "reference.pptx"}

PDF_ENGINES = ("typst", "pdflatex", "xelatex", "lualatex")
# What each LaTeX engine needs from Debian for pandoc's template and the report look: the engine,
# LaTeX with the recommended and extra packages (titlesec, xurl, upquote), Latin Modern, and for
# xelatex the standard PostScript fonts (its hyperref driver loads ZapfDingbats:
# "Font \XeTeXLink@font=pzdr ... not loadable" without texlive-fonts-recommended). CJK text
# needs a CJK font besides (fonts-noto-cjk) under xelatex and lualatex.
TEX_PACKAGES = {
    "pdflatex": ("texlive-latex-recommended", "texlive-latex-extra", "lmodern"),
    "xelatex": (
        "texlive-xetex",
        "texlive-latex-recommended",
        "texlive-latex-extra",
        "texlive-fonts-recommended",
        "lmodern",
    ),
    "lualatex": ("texlive-luatex", "texlive-latex-recommended", "texlive-latex-extra", "lmodern"),
}
# One file of each package, looked up with kpsewhich before the build.
TEX_SENTINELS = {
    "texlive-latex-recommended": "booktabs.sty",
    "texlive-latex-extra": "titlesec.sty",
    "texlive-fonts-recommended": "pzdr.tfm",
    "lmodern": "lmodern.sty",
}
TEX_INSTALL_HINT = {
    engine: f"Debian: apt-get install {' '.join(packages)}; or use the default --pdf-engine typst"
    for engine, packages in TEX_PACKAGES.items()
}

# The report look of PDF through LaTeX (pandoc template variables).
LATEX_VARIABLES = (
    "papersize=a4",
    "fontsize=11pt",
    "geometry=margin=2.5cm",
    "colorlinks=true",
    "linkcolor=citeledgeraccent",
    "urlcolor=citeledgeraccent",
    "citecolor=citeledgeraccent",
)


@dataclass
class Target:
    path: Path
    writer: str  # pandoc writer name, or "pdf"


@dataclass
class _Build:
    """What every output of one build shares: the remote images fetched once, the draft's
    own text (its scripts choose a LaTeX PDF's fonts), the folders it may read files from."""

    fetcher: Fetcher
    text: str  # for a LaTeX PDF only (else empty): its scripts choose the fonts
    confinement: Confinement | None = None
    trusted_html: bool = False  # from a flag or the project file, never the draft
    missing_said: set[str] = field(default_factory=set)  # local images a warning named
    # The element types the draft holds (front matter included), found once: a draft with no
    # image and no raw markup needs none of the per-output walks over images and raw files.
    kinds: frozenset[str] = frozenset({"Image", "RawInline", "RawBlock"})


@dataclass
class ConvertRequest:
    draft: Path
    outputs: Sequence[Path]
    to: str | None = None
    pdf_engine: str = "typst"
    reference_doc: Path | None = None
    metadata: Sequence[str] = ()
    options: Options = field(default_factory=Options)  # flags: win over the draft's metadata
    written: list[Path] = field(default_factory=list)
    say: Say = to_stderr  # findings, warnings and per-output errors, one line each
    from_format: str | None = None  # the pandoc reader (default: by the draft's suffix)
    # Told of each output as its work starts (False) and once it is in place (True).
    progress: Callable[[Path, bool], None] | None = None
    # The user's filters, defaults and citeproc, run while the draft is read (see
    # document/pipeline.py for the order).
    pipeline: Pipeline = field(default_factory=Pipeline)
    # pandoc options for the writing step (--toc, -N, --pandoc-arg), after citeledger's own.
    pandoc_args: Sequence[str] = ()
    jobs: int | None = None  # outputs written at the same time (default: the cores)


def writer_for(path: Path, to: str | None) -> str:
    """The writer for one output: ``--to`` for text outputs, while a binary extension
    (.docx, .pptx, .pdf, .odt, .epub) always names its own format."""
    suffix = path.suffix.lower()
    writer = formats.writer_for_suffix(suffix)
    if to and not (writer and formats.is_binary(writer)):
        return to
    if writer is None:
        raise BadInput(
            f"{path}: cannot tell the output format from the extension {suffix or '(none)'}",
            hint="add --to FORMAT (a pandoc writer such as html5, gfm, latex)",
        )
    return writer


def _check_tex_packages(engine: str) -> None:
    """An installed engine with a package missing fails deep in TeX; name the package first."""
    import subprocess

    wanted = {p: TEX_SENTINELS[p] for p in TEX_PACKAGES[engine] if p in TEX_SENTINELS}
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None or not wanted:
        return
    proc = subprocess.run(
        [kpsewhich, *wanted.values()], capture_output=True, text=True, check=False
    )
    found = {Path(line).name for line in proc.stdout.splitlines()}
    missing = [package for package, sentinel in wanted.items() if sentinel not in found]
    if missing:
        files = ", ".join(wanted[p] for p in missing)
        raise ToolMissing(
            f"{engine} is installed, but TeX Live lacks {files}",
            hint=f"Debian: apt-get install {' '.join(missing)}; or use the default "
            "--pdf-engine typst",
        )


def check_tools(targets: Sequence[Target], req: ConvertRequest) -> None:
    """Everything a build needs, checked before any work: one line per missing piece."""
    if req.pdf_engine not in PDF_ENGINES:
        raise BadInput(
            f"--pdf-engine {req.pdf_engine}: not one of {', '.join(PDF_ENGINES)}",
            hint="use typst (no TeX needed) or an installed LaTeX engine",
        )
    from ...pandoc import require

    for target in targets:
        writer = target.writer
        if writer == "pdf":
            writer = "typst" if req.pdf_engine == "typst" else "latex"
        require(reads=req.from_format or format_for(req.draft), writes=writer)
    if any(t.writer == "pdf" for t in targets):
        if req.pdf_engine == "typst":
            if not TYPST_TEMPLATE.is_file():
                raise ToolMissing(
                    f"the typst template {TYPST_TEMPLATE.name} is missing from the installation",
                    hint="reinstall citeledger (pip install --force-reinstall citeledger)",
                )
            try:
                import typst  # noqa: F401
            except ImportError:
                raise ToolMissing(
                    "the typst compiler is not installed", hint="pip install typst"
                ) from None
        elif shutil.which(req.pdf_engine) is None:
            raise ToolMissing(
                f"{req.pdf_engine} not found on PATH", hint=TEX_INSTALL_HINT[req.pdf_engine]
            )
        else:
            _check_tex_packages(req.pdf_engine)
    if req.reference_doc is not None and not Path(req.reference_doc).is_file():
        raise BadInput(
            f"--reference-doc {req.reference_doc}: no such file",
            hint="give an existing .docx or .pptx, or leave it out for the bundled one",
        )


def convert(req: ConvertRequest) -> list[Path]:
    """Verify ``req.draft`` once and write every output; returns the files written."""
    from ...document.markers import ledger_links, scan
    from ...document.sources_block import titles_for
    from ...ledger import load_ledger, resolve_ledger_path
    from ...ledger.evidence_store import evidence_dir
    from ...ledger.lock_file import lock_path

    say = req.say
    draft = Path(req.draft)
    if not draft.is_file():
        raise DraftError(f"{draft}: no such file", hint="give the path of the draft to convert")
    if not req.outputs:
        raise BadInput("no output given", hint="add -o report.docx (repeat -o for more)")
    if req.jobs is not None and req.jobs < 1:
        raise BadInput(f"--jobs {req.jobs}: not a number of outputs", hint="give 1 or more")
    targets = [Target(Path(p), writer_for(Path(p), req.to)) for p in req.outputs]
    check_tools(targets, req)
    guard = Guard([(draft, "the draft")])
    if req.reference_doc is not None:
        guard.protect(Path(req.reference_doc), "the reference document")

    from_format = req.from_format or format_for(draft)
    warm = _warm_imports(targets)
    ahead = None
    if formats.is_markdown_source(from_format):
        from ...document.locate import LocatedAhead

        ahead = LocatedAhead(draft, str(draft), titles_for(req.options.sources_title))
    try:
        doc = read_json(draft, from_format=from_format, extra_args=req.pipeline.reading_args(draft))
    finally:
        warm.join()  # before anything forks: a fork amid an import would hold its lock
    doc.setdefault("meta", {}).update(meta_entries(req.metadata))
    doc = req.pipeline.resolve_citations(doc, draft)
    meta = doc.setdefault("meta", {})
    options = from_meta(meta, say).merged(req.options)
    if options.is_set("pdf-engine") and options.pdf_engine != req.pdf_engine:
        # The draft's front matter named the engine (a flag would have won over it).
        req = dataclasses.replace(req, pdf_engine=options.pdf_engine)
        check_tools(targets, req)
    ledger_path = resolve_ledger_path(options.ledger)
    guard.protect(ledger_path, "the ledger")
    guard.protect(lock_path(ledger_path), "the ledger's lock file")
    guard.protect_folder(evidence_dir(ledger_path), "the ledger's evidence folder")
    guard.protect_folder(lock_path(ledger_path).parent, "the ledger's lock folder")
    for target in targets:  # every output checked before any work
        if _is_stdout(target):
            _check_stdout(target, targets)
        else:
            guard.check(target.path)
    ledger = load_ledger(ledger_path)

    found = scan(doc, titles_for(options.sources_title), ledger_links(ledger))
    _verify_once(doc, ledger, options, found, draft, ahead, say)

    build = _Build(
        Fetcher(enabled=not options.no_fetch, allowed=host_list(options.fetch_allow)),
        _draft_text(doc) if any(_latex_pdf_target(t, req) for t in targets) else "",
        Confinement.for_draft(draft, named_resource_folders(req), embeds=embeds_resources(req)),
        req.options.effective().trusted_html,
        kinds=element_kinds(doc),
    )
    try:
        job = _Job(targets, doc, req, draft, ledger, options, build, found)
        written, failed = _write_all(job)
    finally:
        build.fetcher.close()
    req.written[:] = written
    if failed:
        raise _partial_failure(failed, written, len(targets))
    return written


def _warm_imports(targets: Sequence[Target]) -> threading.Thread:
    """Import what the writers will need while pandoc reads the draft, a wait that leaves a
    core idle: the filter's placements and the office libraries of the renderers, loaded once
    here instead of in every forked writer. Started, and to be joined."""

    def load() -> None:
        from ...filters.main import placement_type
        from ...renderers import preload

        for target in targets:
            # Only a head start: whatever fails here fails again, and is told, where the
            # writer needs it.
            with contextlib.suppress(Exception):
                placement_type("latex" if target.writer == "pdf" else target.writer)
                if formats.is_rendered(target.writer):
                    preload(target.path.suffix)

    thread = threading.Thread(target=load, name="citeledger-imports", daemon=True)
    thread.start()
    return thread


def _is_stdout(target: Target) -> bool:
    return str(target.path) == "-"


def _check_stdout(target: Target, targets: list[Target]) -> None:
    """``-o -``: a text output written to standard output, once."""
    if target.writer == "pdf" or formats.is_binary(target.writer):
        raise BadInput(
            f"-o -: a {target.writer} file cannot be written to standard output",
            hint="name a file for it, e.g. -o report." + target.writer,
        )
    if sum(_is_stdout(t) for t in targets) > 1:
        raise BadInput("-o - is named twice", hint="write one output to standard output")


def element_kinds(doc: Json) -> frozenset[str]:
    """The element types in ``doc``'s blocks and front matter."""
    nodes = [doc.get("blocks", []), list(doc.get("meta", {}).values())]
    return frozenset(el.get("t", "") for el in elements(nodes))


def _latex_pdf_target(target: Target, req: ConvertRequest) -> bool:
    """A PDF through LaTeX, the one output whose fonts follow the draft's scripts."""
    return target.writer == "pdf" and req.pdf_engine != "typst"


def _draft_text(doc: Json) -> str:
    title = doc.get("meta", {}).get("title")
    return stringify(doc.get("blocks", [])) + ("\n" + stringify(title) if title else "")


def default_jobs() -> int:
    """The cores this process may run on (a container's or ``taskset``'s limit included)."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13
    if counted is not None:
        return int(counted() or 1)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


# The heaviest writers start first: the build takes as long as its longest output.
_WEIGHT = {"pdf": 0, "pptx": 1, "docx": 2, "odt": 3, "epub": 3, "epub3": 3}


@dataclass
class _Job:
    """One build's outputs and what every one of them reads."""

    targets: list[Target]
    doc: Json  # the verified tree; never changed in the build's own process
    req: ConvertRequest
    draft: Path
    ledger: Ledger
    options: Options
    build: _Build
    found: Scan | None = None  # the draft's scan, made on ``doc`` and verified
    # The tree as text, for outputs built in this process (made once, when first needed).
    text: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def freeze(self) -> None:
        """The tree as text, while no output has changed it yet."""
        with self.lock:
            if not self.text:
                self.text.append(json.dumps(self.doc, ensure_ascii=False))

    def tree(self, in_place: bool) -> Json:
        """A tree the output may change: the build's own in a forked writer (its copy) or for
        the last output built here, else a copy."""
        if in_place:
            return self.doc
        self.freeze()
        copy: Json = json.loads(self.text[0])
        return copy


@dataclass
class _Outcome:
    """What one output said, and its error when it was not written."""

    lines: list[str] = field(default_factory=list)
    error: CiteledgerError | None = None


def _write_all(job: _Job) -> tuple[list[Path], list[tuple[Path, CiteledgerError]]]:
    """Every output, ``jobs`` at a time; told in the order asked for."""
    targets, req = job.targets, job.req
    jobs = min(req.jobs or default_jobs(), len(targets))
    if len(targets) == 1:
        return _write_here(job)
    if jobs > 1:
        _fetch_first(job)
    written: list[Path] = []
    failed: list[tuple[Path, CiteledgerError]] = []
    outcomes = _outcomes(job, jobs)
    for target in targets:
        if req.progress is not None:
            req.progress(target.path, False)
        outcome = next(outcomes)
        for line in outcome.lines:
            req.say(line)
        if outcome.error is not None:
            # One output's failure costs only that output: build the others, then say so.
            line = outcome.error.line()
            named = line if line.startswith(f"{target.path}:") else f"{target.path}: {line}"
            req.say(f"citeledger: error: {named}")
            failed.append((target.path, outcome.error))
            continue
        written.append(target.path)
        if req.progress is not None:
            req.progress(target.path, True)
    return written, failed


def _write_here(job: _Job) -> tuple[list[Path], list[tuple[Path, CiteledgerError]]]:
    """The one output of a build, in this process: its error is the build's."""
    target = job.targets[0]
    if job.req.progress is not None:
        job.req.progress(target.path, False)
    _build_output(job, 0, job.req.say, in_place=True)
    if job.req.progress is not None:
        job.req.progress(target.path, True)
    return [target.path], []


def _outcomes(job: _Job, jobs: int) -> Iterator[_Outcome]:
    """Each output's outcome, in the targets' order, built ``jobs`` at a time: in forked
    writers where the system forks, else in threads of this process (the work is in pandoc,
    which runs outside the GIL), else one after another."""
    count = len(job.targets)
    if jobs == 1:
        for k in range(count):
            yield _outcome(job, k, in_place=k == count - 1)
        return
    order = sorted(range(count), key=lambda k: _WEIGHT.get(job.targets[k].writer, 9))
    if "fork" in multiprocessing.get_all_start_methods():
        yield from _forked(job, order, jobs)
        return
    from concurrent.futures import ThreadPoolExecutor

    job.freeze()  # before the output that changes the build's own tree starts
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        last = order[-1]
        futures = {k: pool.submit(_outcome, job, k, in_place=k == last) for k in order}
        for k in range(count):
            yield futures[k].result()


def _outcome(job: _Job, k: int, *, in_place: bool) -> _Outcome:
    """Output ``k`` built, its lines held back for the caller to tell in order."""
    outcome = _Outcome()
    try:
        _build_output(job, k, outcome.lines.append, in_place=in_place)
    except CiteledgerError as exc:
        outcome.error = exc
    return outcome


def _forked(job: _Job, order: list[int], jobs: int) -> Iterator[_Outcome]:
    """Outputs built in forked writers, at most ``jobs`` alive at once. A writer that dies
    without an answer costs its output only; one left when the build stops (Ctrl-C, an
    error) is stopped, and stops its pandoc."""
    from multiprocessing.connection import Connection, wait

    context = multiprocessing.get_context("fork")
    waiting = list(order)
    running: dict[int, tuple[Any, Connection]] = {}
    done: dict[int, _Outcome] = {}
    try:
        for k in range(len(job.targets)):
            while k not in done:
                while waiting and len(running) < jobs:
                    nxt = waiting.pop(0)
                    ours, theirs = context.Pipe(duplex=False)
                    writer = context.Process(target=_writer, args=(job, nxt, theirs), daemon=True)
                    try:
                        writer.start()
                    except OSError:  # no process to be had (memory, a limit): built here
                        ours.close()
                        done[nxt] = _outcome(job, nxt, in_place=False)
                        continue
                    finally:
                        theirs.close()
                    running[nxt] = (writer, ours)
                if not running:  # every output left was built here
                    continue
                ready = wait([conn for _proc, conn in running.values()])
                for m in [m for m, (_p, conn) in running.items() if conn in ready]:
                    writer, conn = running.pop(m)
                    done[m] = _answer(conn, writer, job.targets[m])
            yield done.pop(k)
    finally:
        for writer, conn in running.values():
            writer.terminate()
            writer.join()
            conn.close()


def _answer(conn: Any, writer: Any, target: Target) -> _Outcome:
    try:
        outcome: _Outcome = conn.recv()
    except (EOFError, OSError):
        writer.join()
        return _Outcome(
            error=CiteledgerError(
                f"{target.path}: its writer stopped (exit {writer.exitcode}) before it was done",
                hint="convert again; with -j 1 the outputs are written one at a time",
            )
        )
    finally:
        conn.close()
    writer.join()
    return outcome


def _writer(job: _Job, k: int, conn: Any) -> None:
    """A forked writer: build output ``k`` from this process's copy of the tree, send what
    came of it, and leave without running the parent's exit handlers. Told to stop, it kills
    its pandoc first."""
    import signal

    from ... import pandoc

    def stop(signum: int, _frame: object) -> None:
        pandoc.stop_children()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    code = 0
    try:
        conn.send(_outcome(job, k, in_place=True))
    except BaseException:  # nothing of a writer's reaches the terminal but its answer
        code = 1
    finally:
        conn.close()
        os._exit(code)


def _fetch_first(job: _Job) -> None:
    """The remote images of the binary outputs fetched once, before the writers start, so
    that no writer fetches one again nor repeats the warning for one refused."""
    if "Image" not in job.build.kinds or not any(formats.is_binary(t.writer) for t in job.targets):
        return
    from ..images import remote_images

    urls = remote_images(job.doc)
    for url in urls:
        job.build.fetcher.local(url)
    refused = [
        (url, job.build.fetcher.refused[url]) for url in urls if url in job.build.fetcher.refused
    ]
    warning = refused_warning(job.draft, refused, job.build.fetcher)
    if warning:
        job.req.say(warning)
    if job.build.confinement is not None:  # said here once, not by each writer
        missing = missing_images(job.doc, job.build.confinement)
        job.build.missing_said.update(missing)
        warning = missing_warning(job.draft, missing)
        if warning:
            job.req.say(warning)


def _build_output(job: _Job, k: int, say: Say, *, in_place: bool) -> None:
    """Output ``k``: the filter applied to its own tree, pandoc, the renderer, in place."""
    from ...filters.main import apply

    target = job.targets[k]
    req = dataclasses.replace(job.req, say=say)
    writer = "typst" if target.writer == "pdf" and req.pdf_engine == "typst" else None
    if target.writer == "pdf" and writer is None:
        writer = "latex"
    fmt = writer or target.writer
    tree = job.tree(in_place)
    # Threads of one build share the fetcher and the filter's imports; a forked writer has
    # its own of everything, and the lock of its own copy is free.
    with job.lock:
        changed = _prepare(tree, fmt, target, job.draft, job.build, say)
        # The draft's scan points into the build's own tree: reused while that tree is as the
        # scan found it, else the filter scans its copy again.
        found = job.found if in_place and not changed else None
        state = apply(
            tree,
            fmt,
            options=job.options,
            ledger=job.ledger,
            say=say,
            verify=False,
            found=found,
            rendered=formats.is_rendered(fmt),
        )
    # The filter's options: a list under the draft's own title is found by that title.
    used = state.options if state is not None else job.options
    _write(target, fmt, tree, req, job.draft, job.ledger, used, job.build)


def _prepare(doc: Json, fmt: str, target: Target, draft: Path, build: _Build, say: Say) -> bool:
    """What the writer needs of the tree before the filter runs: remote images made local
    (pandoc never fetches), and for typst what it cannot compile made plain. Returns whether
    the tree may have changed (the draft's scan then no longer points into it)."""
    family = formats.family(fmt)
    changed = False
    if not build.trusted_html:
        from ..raw_html import sanitize_raw_html, writes_html

        if writes_html(fmt):
            changed = sanitize_raw_html(doc) > 0
    if family == "typst":
        from ...filters.typst import make_compilable, unresolved_warning

        changed = True
        unresolved = make_compilable(doc)
        if unresolved:
            say(unresolved_warning(str(target.path), unresolved))
    images = "Image" in build.kinds
    reads_files = images or bool(build.kinds & {"RawInline", "RawBlock"})
    # Every binary output (a package, a PDF) holds its images: pandoc would fetch remote ones.
    if formats.is_binary(target.writer) or formats.is_binary(family):
        from ...renderers.typst import placeholder_name

        name = placeholder_name if family == "typst" else str
        if build.confinement is not None and (reads_files or family.startswith("epub")):
            changed = True
            missing = drop_missing_images(doc, build.confinement) if images else []
            warning = missing_warning(draft, [m for m in missing if m not in build.missing_said])
            build.missing_said.update(missing)
            if warning:
                say(warning)
            confine_local_files(
                doc, build.confinement, writer=target.writer, family=family, point=family != "typst"
            )
        refused = localize_images(doc, build.fetcher, name=name) if images else []
        changed = changed or images
        warning = refused_warning(draft, refused, build.fetcher)
        if warning:
            say(warning)
    elif build.confinement is not None and build.confinement.embeds and reads_files:
        # pandoc's --embed-resources puts local files into a text output too.
        changed = True
        confine_local_files(doc, build.confinement, writer=target.writer, family=family)
    return changed


def _partial_failure(
    failed: list[tuple[Path, CiteledgerError]], written: list[Path], total: int
) -> CiteledgerError:
    """One line for a build that wrote some outputs and not others; its exit code is the
    failures' own when they agree (1: a check said no), else 2."""
    names = ", ".join(str(path) for path, _exc in failed)
    done = ", ".join(str(path) for path in written) or "nothing"
    error = CiteledgerError(
        f"{len(failed)} of {total} outputs not written ({names}); written: {done}",
        hint="fix what the lines above say, then convert again",
    )
    codes = {exc.exit_code for _path, exc in failed}
    error.exit_code = codes.pop() if len(codes) == 1 else 2
    return error


def _verify_once(
    doc: Json,
    ledger: Ledger,
    options: Options,
    found: Scan,
    draft: Path,
    ahead: LocatedAhead | None,
    say: Say,
) -> None:
    """The one verification of a build; ``ahead``: a markdown draft's text and markers,
    located while pandoc read it (findings then name LINE:COL)."""
    from ...verify import verify_for_build

    text, located = ahead.result() if ahead is not None else (None, None)
    report = verify_for_build(
        doc,
        ledger,
        options,
        found,
        source_name=str(draft),
        source_text=text,
        located=located,
        say=say,
    )
    if report.failed:
        raise VerificationFailed(
            f"{draft}: verification failed; no output written",
            hint="fix the findings above, then convert again",
        )


def _pandoc_args(fmt: str, req: ConvertRequest, draft: Path) -> list[str]:
    args = ["-f", "json", "-t", fmt, "--resource-path", req.pipeline.resources(draft)]
    family = formats.family(fmt)
    if formats.is_standalone(fmt):
        args.append("--standalone")
    if family in REFERENCE_DOCS:
        reference = req.reference_doc or REFERENCE_DOCS[family]
        if Path(reference).is_file():
            args += ["--reference-doc", str(reference)]
    if family == "typst":
        args += ["--template", str(TYPST_TEMPLATE)]
    if family == "latex":
        for variable in LATEX_VARIABLES:
            args += ["-V", variable]
    # The user's writer options last: pandoc lets a later option win.
    return [*args, *req.pandoc_args]


def _add_latex_look(doc: Json) -> None:
    """The report look for LaTeX: first in header-includes, before the filter's macros."""
    from ...filters.base import add_header_include

    if LATEX_REPORT.is_file():
        add_header_include(doc, "latex", LATEX_REPORT.read_text(encoding="utf-8"))


def _write(
    target: Target,
    fmt: str,
    doc: Json,
    req: ConvertRequest,
    draft: Path,
    ledger: Ledger,
    options: Options,
    build: _Build,
) -> None:
    out = target.path
    family = formats.family(fmt)
    if family == "latex":
        _add_latex_look(doc)
    variables: dict[str, str] = {}
    if target.writer == "pdf" and family == "latex":
        from ...filters.base import add_header_include
        from ...renderers.latex import plan

        chosen = plan(req.pdf_engine, build.text, doc.get("meta", {}), draft)
        for text in chosen.header:
            add_header_include(doc, "latex", text)
        variables = chosen.variables
    if family == "commonmark_x":
        _escape_braces(doc)
    if formats.joins_words(fmt) and not _filters_at_write(req.pandoc_args):
        join_words(doc.get("blocks", []))
    payload = json.dumps(doc, ensure_ascii=False, check_circular=False, separators=(",", ":"))
    if _is_stdout(target):
        data = run_pandoc(_pandoc_args(fmt, req, draft), stdin=payload, what=str(draft))
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    with staged(out) as tmp, _named_as(tmp, out):
        args = _pandoc_args(fmt, req, draft)
        if target.writer == "pdf" and family == "typst":
            from ...renderers.typst import compile_pdf

            source = run_pandoc(args, stdin=payload, what=str(draft))
            fetched = list(build.fetcher.fetched.values())
            fill(tmp, compile_pdf(source, draft, out, fetched, req.say), out)
        elif target.writer == "pdf":
            _latex_pdf([*args, *pandoc_variables(variables)], payload, tmp, req, draft, out)
        elif formats.is_binary(fmt):
            run_pandoc([*args, "-o", str(tmp)], stdin=payload, what=str(draft))
        else:
            fill(tmp, run_pandoc(args, stdin=payload, what=str(draft)), out)
        if formats.is_rendered(fmt):
            _run_renderer(tmp, ledger, options, say=req.say, shown=out)


# pandoc options that run code on the tree at the writing step (a filter, citeproc, or a
# defaults file that may name them): that code must see the tree as citeledger placed it.
_WRITE_FILTERS = ("-F", "-L", "-C", "-d", "--filter", "--lua-filter", "--citeproc", "--defaults")


def _filters_at_write(args: Sequence[str]) -> bool:
    return any(a.startswith(_WRITE_FILTERS) for a in args)


_MISSING_TEX_FILE = re.compile(r"File `([^'`\s]+)' not found")


def _escape_braces(doc: Json) -> None:
    """pandoc's commonmark_x writer leaves ``{`` as it is, and its reader takes
    ``word{onclick=x}`` as attributes of the word: a title from the web (or the draft's text)
    would come back as a live span. Each ``{`` of the text is written escaped."""
    from ...tree import replace_elements

    def change(el: Json) -> list[Json] | None:
        if el.get("t") != "Str" or "{" not in el["c"]:
            return None
        out: list[Json] = []
        for k, part in enumerate(el["c"].split("{")):
            if k:
                out.append({"t": "RawInline", "c": ["commonmark_x", "\\{"]})
            if part:
                out.append({"t": "Str", "c": part})
        return out

    replace_elements(doc.get("blocks", []), change)


@contextlib.contextmanager
def _named_as(tmp: Path, out: Path) -> Iterator[None]:
    """An error inside the block names the output, never its hidden temporary file (pandoc's
    own "resource exhausted" line on a full disk quotes the path it was given)."""
    try:
        yield
    except CiteledgerError as exc:
        if str(tmp) not in exc.message:
            raise
        raise type(exc)(exc.message.replace(str(tmp), str(out)), hint=exc.hint) from None


def _latex_pdf(
    args: list[str], payload: str, tmp: Path, req: ConvertRequest, draft: Path, out: Path
) -> None:
    """A PDF through LaTeX (fonts for the draft's scripts already in ``args``); refused when
    the engine's log says it left letters out."""
    import tempfile

    from ...renderers import latex as scripts

    with tempfile.TemporaryDirectory(prefix="citeledger-latex-") as logs:
        log = Path(logs) / "pandoc-log.json"
        try:
            run_pandoc(
                [*args, "--pdf-engine", req.pdf_engine, f"--log={log}", "-o", str(tmp)],
                stdin=payload,
                what=str(draft),
                env=scripts.engine_env(),
            )
        except PandocError as exc:
            # pandoc's template loads a package for what the draft holds (soul for
            # strikeout...): one line naming it, not TeX's interactive prompt.
            lacking = _MISSING_TEX_FILE.search(exc.message)
            if lacking is None:
                raise
            raise ToolMissing(
                f"{draft}: {req.pdf_engine} cannot build {out.name}: the LaTeX file "
                f"{lacking.group(1)} is not installed (pandoc's template loads it for this draft)",
                hint="install the TeX Live package that holds it (Debian: apt-file search "
                f"{lacking.group(1)}), or use the default --pdf-engine typst",
            ) from None
        warning = scripts.judge_missing(scripts.missing_characters(log), req.pdf_engine, draft, out)
    if warning:
        req.say(warning)


def _run_renderer(path: Path, ledger: Ledger, options: Options, *, say: Say, shown: Path) -> None:
    """The renderer on the staged file; its errors name the output, not the hidden file."""
    try:
        from ...renderers import postprocess
    except ImportError:
        say(f"warn: {path.suffix} renderer not installed; marks keep pandoc's numbering")
        return
    try:
        postprocess(path, ledger=ledger, options=options)
    except CiteledgerError as exc:
        message = exc.message.replace(str(path), str(shown))
        raise type(exc)(f"{message} (while finishing what pandoc wrote)", hint=exc.hint) from None
