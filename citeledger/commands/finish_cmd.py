"""``citeledger finish FILE...``: apply the renderers to files pandoc wrote.

A pandoc-driven build stays two lines::

    pandoc draft.md --filter pandoc-citeledger -o out.docx
    citeledger finish out.docx

The options come from what the filter recorded in the file (notes, numbering, sources-title),
then from ``-M KEY=VAL`` (the filter's keys, with or without the ``citeledger.`` prefix), then
from flags (``--notes endnotes``); later ones win.
The ledger is ``--ledger`` (before or after the verb), else ``$CITELEDGER_LEDGER``,
``$HERMES_CITATION_LEDGER``, ``./ledger.json``: the one the build used.

``--project DIR`` (the Quarto extension's post-render step, after a full render): the ledger
sources no page of the project cites, from what each page's filter run recorded
(:mod:`citeledger.verify.pages`); a page's own run names only its own findings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import BadInput
from ..ledger import load_ledger, resolve_ledger_path
from ..messages import to_stderr
from ..options import Options, from_meta
from ..options.meta_args import meta_entries
from ._common import global_ledger
from ._flags import with_flags


def _meta_options(items: list[str]) -> Options:
    """``-M`` entries (the filter's keys, with or without the ``citeledger.`` prefix)."""
    meta = meta_entries(items, only_options=True)
    return from_meta(meta, to_stderr)


@with_flags("finish")
def finish(
    ctx: typer.Context,
    files: Annotated[
        list[Path] | None,
        typer.Argument(metavar="FILE...", help=".docx or .pptx files pandoc wrote."),
    ] = None,
    meta: Annotated[
        list[str] | None,
        typer.Option(
            "-M",
            "--metadata",
            metavar="KEY=VAL",
            help="A filter option, e.g. -M citeledger.notes=endnotes (wins over the file's).",
        ),
    ] = None,
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            metavar="DIR",
            help="A Quarto project whose pages were rendered: name the ledger sources no page "
            "cites (the extension's post-render step passes it after a full render).",
        ),
    ] = None,
    *,
    options: Options,
) -> None:
    """Post-process files pandoc wrote: Word marks = ledger ids, endnotes, Sources slides."""
    from ..renderers import SUFFIXES, postprocess, recorded_options

    files = files or []
    if not files and project is None:
        raise BadInput(
            "citeledger finish: no file given",
            hint="give the .docx or .pptx that pandoc wrote, or --project DIR after a Quarto "
            "render",
        )
    given = _meta_options(meta or []).merged(options)
    for path in files:  # every argument checked before any file is touched
        if path.suffix.lower() not in SUFFIXES:
            raise BadInput(
                f"{path}: citeledger finish works on .docx and .pptx files",
                hint="give the .docx or .pptx that pandoc wrote",
            )
        if not path.is_file():
            raise BadInput(f"{path}: no such file", hint="run pandoc first, then finish its output")
    given = global_ledger(ctx, given)
    if files:
        book = load_ledger(resolve_ledger_path(given.ledger))
        for path in files:
            postprocess(path, ledger=book, options=recorded_options(path).merged(given))
            print(f"finished {path}")
    if project is not None:
        _check_pages(project)


def _check_pages(project: Path) -> None:
    """The sources no page of the project cites, from what each page's filter run recorded;
    the records are then cleared (the next full render writes them again)."""
    from ..verify import clear_pages, uncited_in_pages

    if not project.is_dir():
        raise BadInput(f"{project}: no such folder", hint="give the Quarto project's folder")
    findings, pages = uncited_in_pages(project)
    for finding in findings:
        print(finding.line())
    if pages:
        uncited = sum(len(f.ids) for f in findings)
        said = f"{uncited} ledger source(s) cited by no page" if uncited else "all cited"
        print(f"citeledger: the ledger sources of {pages} page(s) of {project}: {said}")
    clear_pages(project)


def register(app: typer.Typer) -> None:
    app.command("finish")(finish)
