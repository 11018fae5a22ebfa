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

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .. import formats
from ..document.pipeline import Pipeline  # light: typer reads the annotation
from ..errors import BadInput, DraftError
from ..ledger import Ledger, load_ledger, resolve_ledger_path
from ..messages import to_stderr
from ..options import Options
from ..options.project import load_project
from ._common import FromOpt, MetaOpt, QuietOpt, VerboseOpt, flag, global_ledger, verbosity
from ._console import VERBOSE, shown_all
from ._flags import with_flags
from ._pipeline import with_pipeline
from ._support import judge_progress, load_support_judge, support_options

if TYPE_CHECKING:
    from ..verify import Report
    from ..verify.support.judge import Judge, Progress

_OUTPUT_FORMATS = ("text", "json", "github", "sarif")
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
        str, flag("--format", "|".join(_OUTPUT_FORMATS), _FORMAT_HELP)
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
    if output_format not in _OUTPUT_FORMATS:
        raise BadInput(
            f"--format {output_format}: not one of {', '.join(_OUTPUT_FORMATS)}",
            hint=f"choose {', '.join(_OUTPUT_FORMATS[:-1])} or {_OUTPUT_FORMATS[-1]}",
        )
    level = verbosity(ctx, quiet, verbose)
    files = files or _project_drafts()
    for file in files:
        if not Path(file).is_file():
            raise DraftError(f"no such draft: {file}", hint="check the path")
    options = support_options(global_ledger(ctx, options))
    judge = load_support_judge(options)
    ledgers: dict[Path, Ledger] = {}
    meta = metadata or []
    with judge_progress(judge, level) as progress:
        reports = [
            verify_file(file, from_format, meta, options, ledgers, pipeline, judge, progress)
            for file in files
        ]
    _print(reports, output_format, level)
    if any(report.failed for report in reports):
        raise typer.Exit(1)


def _project_drafts() -> list[str]:
    """The files the project file's ``drafts`` globs match, as paths from here."""
    import os

    project = load_project()
    if not project.drafts:
        where = f"the project file {project.path} has" if project.path else "no project file has"
        raise BadInput(
            f"no FILE given, and {where} no drafts",
            hint='give the drafts to check, or write drafts = ["drafts/*.md"] in citeledger.toml',
        )
    found = project.draft_files()
    if not found:
        raise DraftError(
            f"the drafts of {project.path} ({', '.join(project.drafts)}) match no file",
            hint="check the globs: they are relative to the project file's folder",
        )
    return [os.path.relpath(path) for path in found]


def verify_file(
    file: str,
    from_format: str | None,
    metadata: list[str],
    options: Options,
    ledgers: dict[Path, Ledger],
    pipeline: Pipeline,
    judge: Judge | None = None,
    progress: Progress | None = None,
) -> Report:
    """One draft read and verified against the ledger its options name (``audit`` too)."""
    from ..document.draft import open_draft
    from ..document.pandoc_writes import check_pandoc_writes
    from ..document.readers import unwrap_slides
    from ..files import Guard
    from ..options.trust import front_options
    from ..verify import verify

    # What pandoc itself would write while it reads the draft (a defaults file's log-file)
    # never lands on the draft or the ledger.
    guard = Guard([(Path(file), "the draft")])
    guard.protect(resolve_ledger_path(options.effective().ledger), "the ledger")
    check_pandoc_writes(guard, pipeline.reading_args(Path(file)))

    draft = open_draft(Path(file), from_format=from_format, pipeline=pipeline, name=file)
    draft.vet(options, to_stderr, builds=False)
    fmt, doc = draft.format, draft.tree
    if formats.family(fmt) == "html":
        unwrap_slides(doc)
    if metadata:
        from ..options.meta_args import meta_entries

        doc.setdefault("meta", {}).update(meta_entries(metadata))
    doc = pipeline.resolve_citations(doc, draft.path)
    options = front_options(doc.get("meta", {}), options, to_stderr)
    ledger_path = resolve_ledger_path(options.ledger)
    if ledger_path not in ledgers:
        ledgers[ledger_path] = load_ledger(ledger_path, missing_ok=True)
    report = verify(
        doc,
        ledgers[ledger_path],
        options,
        source_name=file,
        source_text=draft.text,
        judge=judge,
        progress=progress,
    )
    if formats.family(fmt) == "pptx":
        from ..document.deck_reading import unreadable_slides
        from ..verify.checks import unreadable_slide_findings

        report.findings[:0] = unreadable_slide_findings(unreadable_slides(draft.path), file)
    return report


def _print(reports: list[Report], output_format: str, level: int) -> None:
    """The text lines (one file: exactly sources.py's; several: each file's lines, its stats
    line named, then one verdict), or the machine form on stdout and the verdict on stderr.
    ``level`` (quiet, normal, verbose) says which text lines show."""
    failed = any(report.failed for report in reports)
    verdict = "verification failed" if failed else "citations OK"
    if output_format == "text":
        verbose = level >= VERBOSE
        lines = reports[0].lines(verbose=verbose) if len(reports) == 1 else []
        if len(reports) > 1:
            for report in reports:
                lines += report.lines(named=True, verbose=verbose)[:-1]
            lines.append(verdict)
        strict = any(report.strict for report in reports)
        for line in shown_all(lines, level, strict=strict):
            print(line, file=sys.stderr if line.startswith("FAIL:") else sys.stdout, flush=True)
        return
    if output_format == "json":
        data = [r.to_dict() for r in reports]
        sys.stdout.write(
            json.dumps(data[0] if len(data) == 1 else data, ensure_ascii=False, indent=2)
        )
        sys.stdout.write("\n")
    elif output_format == "github":
        from ..verify.ci_formats import github_commands

        for command in github_commands(reports):
            print(command)
    else:
        from .. import __version__
        from ..verify.ci_formats import sarif_log

        sarif = sarif_log(reports, __version__)
        sys.stdout.write(json.dumps(sarif, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()
    print(verdict, file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_command)
