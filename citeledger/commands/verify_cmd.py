"""``citeledger verify FILE...``: the grounded-citations gate, on any format pandoc reads.

Flags and exit codes are the seed's (``--strict``, ``--min-coverage X``, ``--evidence``; 0 ok,
1 verification failed, 2 bad input), plus ``--support`` (``--figures``, its old name), its
judge (``--support-model DIR``, ``--support-judge CMD``), ``--from FORMAT`` and
``--format json|github|sarif``. Without ``--from`` the format comes from the file itself: an
Office or ODF file by its content (a .pptx renamed .bin is still a deck), anything else by its
suffix. The streams are sources.py's too, because callers are built on them
(``verify ... | tail -1``, ``$(verify ...)``, ``2>/dev/null``): ``info:`` and ``warn:`` lines
and the final ``citations OK`` / ``verification failed`` on stdout, ``FAIL:`` lines on stderr.
With ``--format json``, ``github`` (GitHub Actions workflow commands) or ``sarif`` (SARIF 2.1.0)
stdout holds the report alone (a parser reads it whole) and stderr the verdict line.

With no FILE, the project file's ``drafts`` globs name the files (``citeledger.toml`` or
``[tool.citeledger]``). ``-q`` keeps the ``FAIL:`` lines (and warnings under ``--strict``) and
the verdict; ``-v`` adds the ``info:`` findings (search results registered and never cited,
which the stats line counts) and gives each id of a grouped finding its own line. Every
finding's line ends with its fix. ``-M KEY=VAL`` sets
document metadata as pandoc's ``-M`` does, before the options are read from it.

Several files are checked in one run (a pre-commit hook passes the drafts a commit changed):
each against the ledger its own metadata or the flags name, one verdict for all, exit 1 when
any fails; the text report names each file's stats line, and JSON is then a list of reports.
Pandoc and the verifier load inside the command: ``citeledger add`` must not pay for them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ..document.pipeline import Pipeline  # light: typer reads the annotation
from ..options import Options
from ._common import FromOpt, MetaOpt, QuietOpt, VerboseOpt, flag, global_ledger
from ._flags import with_flags
from ._pipeline import with_pipeline
from ._verify_run import OUTPUT_FORMATS, print_reports, run_verify, verify_file

# audit and import run one file and print its report as verify does.
__all__ = ["print_reports", "register", "verify_file"]

_FORMAT_HELP = "Findings as text lines, JSON, GitHub Actions workflow commands or SARIF 2.1.0."


@with_flags("verify")
@with_pipeline
def verify_command(
    ctx: typer.Context,
    files: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="FILE...",
            help="The drafts or documents to check (default: the project file's drafts).",
            show_default=False,
        ),
    ] = None,
    from_format: FromOpt = None,
    metadata: MetaOpt = None,
    output_format: Annotated[
        str, flag("--format", "|".join(OUTPUT_FORMATS), _FORMAT_HELP)
    ] = "text",
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    *,
    options: Options,
    pipeline: Pipeline,
) -> None:
    """Check drafts' citations against the ledger. Options in each document's metadata
    (a citeledger: map) apply too; flags win over them. The filters (-F, -L), defaults (-d)
    and citeproc (-C) run as convert runs them, so the gate sees the document the build
    places."""
    quiet, verbose = global_verbosity(ctx, quiet, verbose)
    options = global_ledger(ctx, options)
    code = run_verify(
        files, from_format, metadata or [], output_format, quiet, verbose, options, pipeline
    )
    if code:
        raise typer.Exit(code)


def global_verbosity(ctx: typer.Context, quiet: bool, verbose: bool) -> tuple[bool, bool]:
    """The verb's -q/-v, or the ones given before the verb."""
    root = ctx.find_root()
    params = (root.params or {}) if root is not None else {}
    return quiet or bool(params.get("quiet")), verbose or bool(params.get("verbose"))


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_command)
