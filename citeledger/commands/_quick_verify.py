"""``citeledger verify FILE...`` in its common forms, run without typer.

An agent runs verify before every delivery, and typer (with its own click) is the largest
import of a run. A command line made of draft files, the option table's verify flags
(``--strict``, ``--min-coverage X``, ``--evidence``, ``--ledger L``, ...), ``--format F``,
``-q`` and ``-v`` runs here; anything else (``--help``, ``--from``, ``-M``, pandoc's reading
options, ``--opt=value``, a value that starts with ``-``, no file at all) returns None and goes
to the typer command. Both build the options with
:func:`~citeledger.commands._flag_options.options_from_flags` and run
:func:`~citeledger.commands._verify_run.run_verify`, so what they print and their exit codes are
the same (``tests/commands/test_quick_paths.py`` runs both).
"""

from __future__ import annotations

import gc
import os

_QUIET = ("-q", "--quiet")
_VERBOSE = ("-v", "--verbose")
# Drafts of at most this many bytes in all are verified without the cyclic collector: such a
# run is short and allocates a few megabytes, and the collector's passes over every object it
# loads (the modules, the option table, the trees) find nothing to free yet cost a twentieth of
# a one-page verify. Above it the collector runs as in any other command.
ONE_PAGE_BYTES = 256 * 1024


def quick_verify(
    words: list[str], global_ledger: str | None, quiet: bool, verbose: bool, *, ending: bool = False
) -> int | None:
    """Run ``verify`` with ``words`` (what follows the verb) and return its exit code, or None
    for a form left to typer. ``global_ledger``, ``quiet`` and ``verbose``: what was given
    before the verb. pandoc starts on the draft first (:func:`_start_early`); whatever way the
    run ends, a read it never took is killed and reaped here. Short drafts are verified with
    the cyclic collector paused (:data:`ONE_PAGE_BYTES`), restored after unless the process
    is ``ending`` with the run: back on, its first pass would walk every object the run made
    (all of them young), for nothing."""
    pause = gc.isenabled() and _drafts_bytes(words) <= ONE_PAGE_BYTES
    if pause:
        gc.disable()
    from .. import pandoc_start

    _start_early(words)
    try:
        return _parse(words, global_ledger, quiet, verbose)
    finally:
        if pause and not ending:
            gc.enable()
        pandoc_start.drop_reads_ahead()


def _drafts_bytes(words: list[str]) -> int:
    """The size of the files the words name (a flag's value or a missing draft names none)."""
    total = 0
    for word in words:
        if not word.startswith("-"):
            try:
                size = os.stat(word).st_size
            except (OSError, ValueError):  # no such file, or a name no file can have
                continue
            total += size
    return total


def _start_early(words: list[str]) -> None:
    """pandoc started on the first word that names a markdown draft, before the option table
    (and with it ``pathlib``, ``re`` and ``json``) loads: the run's two halves, pandoc's parse
    and Python's imports, side by side from the start
    (:func:`~citeledger.pandoc_start.read_markdown_ahead`). A word that is a flag's value
    (``--min-coverage 0.5``) names no draft; one that does by chance is a read never taken."""
    from ..pandoc_start import AHEAD, read_markdown_ahead

    sandbox = "--trust-draft" not in words  # as open_draft reads an untrusted draft
    for word in words:
        if not word.startswith("-"):
            read_markdown_ahead(word, sandbox=sandbox)
            if AHEAD:
                return


def _parse(words: list[str], global_ledger: str | None, quiet: bool, verbose: bool) -> int | None:
    from ._flag_options import flagged

    table = {o.flag: o for o in flagged("verify")}
    files: list[str] = []
    given: dict[str, object] = {}
    output_format = "text"
    rest = iter(words)
    for word in rest:
        if word in _QUIET:
            quiet = True
        elif word in _VERBOSE:
            verbose = True
        elif word == "--format" or (word in table and table[word].kind != "bool"):
            value = next(rest, None)
            if value is None or value.startswith("-"):
                return None
            if word == "--format":
                output_format = value
            else:
                given[table[word].key] = value
        elif word in table:
            given[table[word].key] = True
        elif word.startswith("-"):  # an unknown flag, --opt=value, - (stdin), --
            return None
        else:
            files.append(word)
    if not files:  # the project file's drafts: typer's path says so as it always did
        return None
    return _run(files, given, global_ledger, output_format, quiet, verbose)


def _run(
    files: list[str],
    given: dict[str, object],
    global_ledger: str | None,
    output_format: str,
    quiet: bool,
    verbose: bool,
) -> int:
    _read_ahead(files[0], trusted=bool(given.get("trust_draft")))
    from ..document.pipeline import Pipeline
    from ._flag_options import options_from_flags
    from ._verify_run import run_verify

    options = options_from_flags(given)
    if global_ledger and not options.is_set("ledger"):  # the verb's own --ledger wins
        options = options.updated({"ledger": global_ledger})
    return run_verify(files, None, [], output_format, quiet, verbose, options, Pipeline())


def _read_ahead(file: str, *, trusted: bool) -> None:
    """pandoc started on the first draft's read before the verifier loads, when the early start
    did not (a path not written plain, ``$CITELEDGER_PANDOC`` a bare name, another reader: a
    one-page verify's two halves side by side, :func:`~citeledger.pandoc.read_ahead`; started
    once for one command line). The read made in its turn takes it when its command line is
    the same (sandboxed unless ``--trust-draft`` is given; a project file that trusts its
    drafts makes it a read not taken); whatever would stop the run before it (no such draft,
    a format pandoc cannot read) is said in its turn, as without this."""
    from ..pandoc_start import AHEAD

    if AHEAD:  # the early start took this very read (a read started twice is one)
        return
    from pathlib import Path

    from ..document.pipeline import Pipeline
    from ..document.readers import input_format
    from ..errors import CiteledgerError
    from ..includes import SANDBOX_ARG
    from ..pandoc import read_ahead

    path = Path(file)
    try:
        if path.is_file():
            args = Pipeline().reading_args(path)
            read_ahead(path, input_format(path), args if trusted else [*args, SANDBOX_ARG])
    except CiteledgerError:
        pass
