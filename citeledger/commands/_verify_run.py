"""What ``citeledger verify`` does once its command line is read, by the typer command
(:mod:`citeledger.commands.verify_cmd`) or by the quick path
(:mod:`citeledger.commands._quick_verify`), which runs the common forms without loading typer:
an agent runs verify before every delivery, and typer is the largest import of a run. Both
hand the same values to :func:`run_verify`, so their output and exit codes are the same.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import formats
from ..errors import BadInput, DraftError
from ..ledger import Ledger, load_ledger, resolve_ledger_path
from ..messages import to_stderr
from ..options.project import load_project
from ._console import NORMAL, QUIET, VERBOSE, shown_all
from ._support import judge_progress, load_support_judge, support_options

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..document.pipeline import Pipeline
    from ..options import Options
    from ..verify import Report
    from ..verify.support.judge import Judge, Progress

OUTPUT_FORMATS = ("text", "json", "github", "sarif")


def run_verify(
    files: list[str] | None,
    from_format: str | None,
    metadata: list[str],
    output_format: str,
    quiet: bool,
    verbose: bool,
    options: Options,
    pipeline: Pipeline,
) -> int:
    """Verify ``files`` (none: the project file's drafts), print the report in
    ``output_format``; returns the exit code (1: verification failed). ``quiet`` and
    ``verbose``: the verb's own flags or the ones given before it."""
    if output_format not in OUTPUT_FORMATS:
        raise BadInput(
            f"--format {output_format}: not one of {', '.join(OUTPUT_FORMATS)}",
            hint=f"choose {', '.join(OUTPUT_FORMATS[:-1])} or {OUTPUT_FORMATS[-1]}",
        )
    if quiet and verbose:
        raise BadInput("-q and -v ask for opposite things", hint="give one of them")
    level = QUIET if quiet else VERBOSE if verbose else NORMAL
    files = files or _project_drafts()
    for file in files:
        if not Path(file).is_file():
            raise DraftError(f"no such draft: {file}", hint="check the path")
    options = support_options(options)
    judge = load_support_judge(options)
    ledgers: dict[Path, Ledger] = {}
    with judge_progress(judge, level) as progress:
        reports = [
            verify_file(file, from_format, metadata, options, ledgers, pipeline, judge, progress)
            for file in files
        ]
    print_reports(reports, output_format, level)
    return 1 if any(report.failed for report in reports) else 0


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

    draft = open_draft(
        Path(file),
        from_format=from_format,
        pipeline=pipeline,
        name=file,
        trusted=options.effective().trust_draft,
    )
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
    if report.cited_ids and not ledger_path.exists():
        from ..verify.checks import no_ledger

        no_ledger(report, ledger_path, file)
    if formats.family(fmt) == "pptx":
        from ..document.deck_reading import unreadable_slides
        from ..verify.checks import unreadable_slide_findings

        report.findings[:0] = unreadable_slide_findings(unreadable_slides(draft.path), file)
    return report


def print_reports(reports: list[Report], output_format: str, level: int) -> None:
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
