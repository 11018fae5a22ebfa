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

_QUIET = ("-q", "--quiet")
_VERBOSE = ("-v", "--verbose")


def quick_verify(
    words: list[str], global_ledger: str | None, quiet: bool, verbose: bool
) -> int | None:
    """Run ``verify`` with ``words`` (what follows the verb) and return its exit code, or None
    for a form left to typer. ``global_ledger``, ``quiet`` and ``verbose``: what was given
    before the verb."""
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
    from .. import pandoc

    _read_ahead(files[0], trusted=bool(given.get("trust_draft")))
    try:
        from ..document.pipeline import Pipeline
        from ._flag_options import options_from_flags
        from ._verify_run import run_verify

        options = options_from_flags(given)
        if global_ledger and not options.is_set("ledger"):  # the verb's own --ledger wins
            options = options.updated({"ledger": global_ledger})
        return run_verify(files, None, [], output_format, quiet, verbose, options, Pipeline())
    finally:
        pandoc.drop_reads_ahead()


def _read_ahead(file: str, *, trusted: bool) -> None:
    """pandoc started on the first draft's read before the verifier loads (a one-page verify's
    two halves side by side: :func:`~citeledger.pandoc.read_ahead`). The read made in its turn
    takes it when its command line is the same (sandboxed unless ``--trust-draft`` is given; a
    project file that trusts its drafts makes it a read not taken); whatever would stop the run
    before it (no such draft, a format pandoc cannot read) is said in its turn, as without
    this."""
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
