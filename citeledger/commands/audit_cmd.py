"""``citeledger audit DRAFT -o audit.html``: the reviewer's page of a draft's support.

It runs ``verify --support`` on the draft (with the judge the flags or the project file name,
and ``--support-pages``), then writes one HTML page listing each cited sentence once with its
sources, their quotes and the verdict (:mod:`citeledger.publish.audit_page`), through the one
safe write: never onto the draft or the ledger. Exit 0 when the page is written, whatever it
says (it is the report); 2 on bad input, as every verb.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..document.pipeline import Pipeline  # light: typer reads the annotation
from ..errors import DraftError
from ..ledger import Ledger, resolve_ledger_path
from ..options import Options
from ._common import FromOpt, MetaOpt, QuietOpt, VerboseOpt, global_ledger, verbosity
from ._console import QUIET
from ._flags import with_flags
from ._pipeline import with_pipeline
from ._support import judge_progress, load_support_judge


@with_flags("audit")
@with_pipeline
def audit_command(
    ctx: typer.Context,
    draft: Annotated[
        Path, typer.Argument(metavar="DRAFT", help="The draft to audit.", show_default=False)
    ],
    out: Annotated[
        Path,
        typer.Option("--output", "-o", metavar="FILE", help="The HTML page to write."),
    ],
    from_format: FromOpt = None,
    metadata: MetaOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    *,
    options: Options,
    pipeline: Pipeline,
) -> None:
    """Write a reviewer's HTML page: each cited sentence, its sources, their quotes and the
    support check's verdict, filterable to what needs a look."""
    from ..files import Guard, write_bytes
    from ..publish.audit_page import audit_page
    from .verify_cmd import verify_file

    level = verbosity(ctx, quiet, verbose)
    if not draft.is_file():
        raise DraftError(f"no such draft: {draft}", hint="check the path")
    options = global_ledger(ctx, options)
    options = options.replaced(support=True, given=options.given | {"support"})
    guard = Guard([(draft, "the draft")])
    ledger_path = resolve_ledger_path(options.effective().ledger)
    guard.protect(ledger_path, "the ledger")
    guard.check(out)
    judge = load_support_judge(options)
    ledgers: dict[Path, Ledger] = {}
    with judge_progress(judge, level) as progress:
        report = verify_file(
            str(draft), from_format, metadata or [], options, ledgers, pipeline, judge, progress
        )
    ledger = next(iter(ledgers.values()))
    effective = options.effective()
    page = audit_page(
        report.claims,
        ledger,
        draft=str(draft),
        judge=judge.name if judge is not None else None,
        threshold=effective.support_threshold,
        pages=effective.support_pages,
    )
    write_bytes(out, page.encode("utf-8"))
    if level > QUIET:
        look = sum(1 for c in report.claims if c.needs_look)
        print(f"wrote {out}: {len(report.claims)} cited sentence(s), {look} needing a look")


def register(app: typer.Typer) -> None:
    app.command("audit")(audit_command)
