"""The outputs of one build written at the same time, and what each said told in order.

One more output is written at once than the process has cores (``jobs``, ``-j``; one at a
time on one core): each in a process forked from the build (its own copy of the tree for free,
its own pandoc, its renderer starting as soon as its pandoc is done), the heaviest started
first; where the system does not fork, in threads of this process (the work is in pandoc,
outside the GIL). While pandoc reads the draft, a thread imports what the writers will need,
once, instead of in every writer.

What each output says is held back and told in the order the outputs were asked for, each
output's lines together, so a run reads the same whichever finishes first. An output that fails
costs only that output: the others are still written, and the run ends with one line naming
what was and was not written.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import formats
from ...errors import CiteledgerError
from ...files import remove_stale_staged
from ..confine import missing_images, missing_warning
from ..images import refused_warning, remote_images
from .request import Output, default_jobs, is_stdout
from .write import Job, build_output, with_front_matter


def warm_imports(outputs: Sequence[Output]) -> threading.Thread:
    """Import what the writers will need while pandoc reads the draft, a wait that leaves a
    core idle: the filter's placements and the office libraries of the renderers, loaded once
    here instead of in every forked writer. Started, and to be joined."""

    def load() -> None:
        from ...filters.registry import placement_type
        from ...renderers import preload

        for output in outputs:
            # Only a head start: whatever fails here fails again, and is told, where the
            # writer needs it.
            with contextlib.suppress(Exception):
                placement_type("latex" if output.writer == "pdf" else output.writer)
                if formats.is_rendered(output.writer):
                    preload(output.path.suffix)

    thread = threading.Thread(target=load, name="citeledger-imports", daemon=True)
    thread.start()
    return thread


# The heaviest writers start first: the build takes as long as its longest output.
_WEIGHT = {"pdf": 0, "pptx": 1, "docx": 2, "odt": 3, "epub": 3, "epub3": 3}


@dataclass
class _Outcome:
    """What one output said, and its error when it was not written."""

    lines: list[str] = field(default_factory=list)
    error: CiteledgerError | None = None


def write_all(
    job: Job, early: Early | None = None
) -> tuple[list[Path], list[tuple[Path, CiteledgerError]]]:
    """Every output, ``jobs`` at a time; told in the order asked for. ``early``: the writer
    :func:`start_early` started, its gate opened."""
    outputs, req = job.outputs, job.req
    jobs = _jobs(job)
    page_language(job)
    if len(outputs) == 1:
        return _write_here(job)
    if jobs > 1:
        _fetch_first(job)
    written: list[Path] = []
    failed: list[tuple[Path, CiteledgerError]] = []
    outcomes = _outcomes(job, jobs, early)
    for output in outputs:
        if req.progress is not None:
            req.progress(output.path, False)
        outcome = next(outcomes)
        for line in outcome.lines:
            req.say(line)
        if outcome.error is not None:
            # One output's failure costs only that output: build the others, then say so.
            line = outcome.error.line()
            named = line if line.startswith(f"{output.path}:") else f"{output.path}: {line}"
            req.say(f"citeledger: error: {named}")
            failed.append((output.path, outcome.error))
            continue
        written.append(output.path)
        if req.progress is not None:
            req.progress(output.path, True)
    return written, failed


def _write_here(job: Job) -> tuple[list[Path], list[tuple[Path, CiteledgerError]]]:
    """The one output of a build, in this process: its error is the build's."""
    output = job.outputs[0]
    if job.req.progress is not None:
        job.req.progress(output.path, False)
    build_output(job, 0, job.req.say, in_place=True)
    if job.req.progress is not None:
        job.req.progress(output.path, True)
    return [output.path], []


def default_writers() -> int:
    """How many outputs are written at once unless ``-j`` says: one more than the cores.
    Outputs differ in work (a deck's writer and renderer cost about what a page's and a
    Word file's do together), and an output's writer holds its core to the end: with one
    writer per core, the last output started ran alone at the end with the other cores idle
    (2.7 s of a 9.4 s build of the 1.8 MB bench report to html, docx and pptx on two cores).
    One writer more shares the cores among them, and they end nearer together (8.1 s)."""
    cores = default_jobs()
    return cores + 1 if cores > 1 else 1


def _jobs(job: Job) -> int:
    return min(job.req.jobs or default_writers(), len(job.outputs))


def _order(job: Job) -> list[int]:
    return sorted(range(len(job.outputs)), key=lambda k: _WEIGHT.get(job.outputs[k].writer, 9))


@dataclass
class Early:
    """The heaviest output's writer, forked before the draft is verified (the verifier and the
    pptx chain then run on two cores at once) and held at its gate: its file is complete but
    not in place until :meth:`open`; :meth:`cancel` stops it and removes its staged file."""

    k: int
    writer: Any
    conn: Any  # the writer's answer
    gate: Any  # this end of the gate

    def open(self) -> None:
        with contextlib.suppress(OSError):
            self.gate.send_bytes(b"go")
        self.gate.close()

    def cancel(self, out: Path) -> None:
        """Stop the writer of ``out`` (and its pandoc) and remove what it staged."""
        self.gate.close()
        self.writer.terminate()
        self.writer.join()
        self.conn.close()
        remove_stale_staged(out.parent, [out.name])


def start_early(job: Job) -> Early | None:
    """Fork the writer of the build's heaviest output now, before the draft is verified, when
    that changes nothing of what it writes or says: a Word or PowerPoint file written to a
    file by a forked writer, from a draft without images or raw markup (whose files the
    build fetches or checks once, before the writers start) and without footnotes, more than
    one output and more than one core. None otherwise."""
    from ...filters.html_page import reads_as_page

    if _jobs(job) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return None
    k = _order(job)[0]
    output = job.outputs[k]
    if output.writer not in ("pptx", "docx") or is_stdout(output) or reads_as_page(output.writer):
        return None
    # Footnotes too: those the verifier counts as citations become citations of their ledger
    # ids in the tree only once the draft has passed (verify_for_build places them).
    if job.build.kinds & {"Image", "RawInline", "RawBlock", "Note"}:
        return None
    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe(duplex=False)
    gate_in, gate_out = context.Pipe(duplex=False)
    writer = context.Process(target=_writer, args=(job, k, theirs, gate_in), daemon=True)
    try:
        _start(writer)
    except OSError:
        for end in (ours, gate_in, gate_out):
            end.close()
        return None
    finally:
        theirs.close()
    gate_in.close()
    return Early(k, writer, ours, gate_out)


def _outcomes(job: Job, jobs: int, early: Early | None = None) -> Iterator[_Outcome]:
    """Each output's outcome, in the outputs' order, built ``jobs`` at a time: in forked
    writers where the system forks, else in threads of this process (the work is in pandoc,
    which runs outside the GIL), else one after another."""
    count = len(job.outputs)
    if jobs == 1:
        for k in range(count):
            yield _outcome(job, k, in_place=k == count - 1)
        return
    order = _order(job)
    if "fork" in multiprocessing.get_all_start_methods():
        yield from _forked(job, order, jobs, early)
        return
    from concurrent.futures import ThreadPoolExecutor

    job.freeze()  # before the output that changes the build's own tree starts
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        last = order[-1]
        futures = {k: pool.submit(_outcome, job, k, in_place=k == last) for k in order}
        for k in range(count):
            yield futures[k].result()


def _outcome(job: Job, k: int, *, in_place: bool) -> _Outcome:
    """Output ``k`` built, its lines held back for the caller to tell in order."""
    outcome = _Outcome()
    try:
        build_output(job, k, outcome.lines.append, in_place=in_place)
    except CiteledgerError as exc:
        outcome.error = exc
    return outcome


def _forked(
    job: Job, order: list[int], jobs: int, early: Early | None = None
) -> Iterator[_Outcome]:
    """Outputs built in forked writers, at most ``jobs`` alive at once (``early`` one of them
    already). A writer that dies without an answer costs its output only; one left when the
    build stops (Ctrl-C, an error) is stopped, and stops its pandoc."""
    from multiprocessing.connection import Connection, wait

    context = multiprocessing.get_context("fork")
    waiting = list(order)
    running: dict[int, tuple[Any, Connection]] = {}
    if early is not None:
        waiting.remove(early.k)
        running[early.k] = (early.writer, early.conn)
    done: dict[int, _Outcome] = {}
    try:
        for k in range(len(job.outputs)):
            while k not in done:
                while waiting and len(running) < jobs:
                    nxt = waiting.pop(0)
                    ours, theirs = context.Pipe(duplex=False)
                    writer = context.Process(target=_writer, args=(job, nxt, theirs), daemon=True)
                    try:
                        _start(writer)
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
                    done[m] = _answer(conn, writer, job.outputs[m])
            yield done.pop(k)
    finally:
        for writer, conn in running.values():
            writer.terminate()
            writer.join()
            conn.close()


def _start(writer: Any) -> None:
    """Fork ``writer`` with the cyclic collector off, so that the child starts without it:
    switched off only in :func:`_writer`, the child could still run a pass over the whole
    inherited tree in the bootstrap code before it (a pass comes after so many new objects,
    and how many the parent had made by the fork varies)."""
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        writer.start()
    finally:
        if enabled:
            gc.enable()


def _answer(conn: Any, writer: Any, output: Output) -> _Outcome:
    try:
        outcome: _Outcome = conn.recv()
    except (EOFError, OSError):
        writer.join()
        return _Outcome(
            error=CiteledgerError(
                f"{output.path}: its writer stopped (exit {writer.exitcode}) before it was done",
                hint="convert again; with -j 1 the outputs are written one at a time",
            )
        )
    finally:
        conn.close()
    writer.join()
    return outcome


def _writer(job: Job, k: int, conn: Any, gate: Any = None) -> None:
    """A forked writer: build output ``k`` from this process's copy of the tree, send what
    came of it, and leave without running the parent's exit handlers. Told to stop, it kills
    its pandoc first. ``gate``: started before the draft was verified, it puts its file in
    place only when the build says so."""
    import gc
    import signal

    from ... import pandoc

    # The writer holds the build's whole tree, inherited at the fork, and adds its own copy's
    # changes, the filter's marks and an office library's document to it: the cyclic
    # collector's passes found nothing to free there, yet each full pass walked every object
    # of the tree (and wrote to it, copying the parent's pages), a cost that grew faster than
    # the draft. The writer ends with its process, which frees what it made.
    gc.disable()

    def stop(signum: int, _frame: object) -> None:
        pandoc.stop_children()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if gate is not None:
        job.build.gate = lambda: _pass(gate, job.outputs[k].path)
    code = 0
    try:
        conn.send(_outcome(job, k, in_place=True))
    except BaseException:  # nothing of a writer's reaches the terminal but its answer
        code = 1
    finally:
        conn.close()
        os._exit(code)


def _pass(gate: Any, path: Path) -> None:
    """Wait for the build's word on the draft's verification: on "go" the file goes in place."""
    try:
        word = gate.recv_bytes()
    except (EOFError, OSError):
        word = b""
    finally:
        gate.close()
    if word != b"go":
        raise CiteledgerError(f"{path}: not written: the draft did not pass verification")


def page_language(job: Job) -> None:
    """The language an HTML output's page says (``filters/html_page.py``), chosen once for the
    build and, for a draft with none, said once before any output is written."""
    from ...filters.html_page import page_lang, reads_as_page

    if not any(reads_as_page(o.writer) for o in job.outputs):
        return
    doc = job.doc
    meta = dict(doc.get("meta", {}))
    job.build.lang = page_lang({"meta": meta, "blocks": doc["blocks"]}, job.req.say, str(job.draft))


def _fetch_first(job: Job) -> None:
    """The remote images of the binary outputs fetched once, before the writers start, so
    that no writer fetches one again nor repeats the warning for one refused."""
    if "Image" not in job.build.kinds or not any(formats.is_binary(o.writer) for o in job.outputs):
        return
    parts = with_front_matter(job.doc)  # a title's image too
    urls = list(dict.fromkeys(u for part in parts for u in remote_images(part)))
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


def partial_failure(
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
