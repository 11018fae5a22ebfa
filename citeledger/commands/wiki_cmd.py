"""``citeledger wiki DRAFT... -o DIR``: multi-page builds with a Sources list per page.

The work is in :mod:`citeledger.wiki`; this module parses the flags, shows a progress bar on a
terminal (rich, which typer brings) and prints one line per written page count.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..ledger import load_ledger
from .ledger_cmds import LedgerOpt, ledger_path

# Below this many pages a bar would only flicker.
PROGRESS_MIN_PAGES = 20


def wiki_command(
    ctx: typer.Context,
    drafts: Annotated[list[Path], typer.Argument(metavar="DRAFT...", help="Drafts to publish.")],
    out: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", help="Folder to write.")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format", "-t", metavar="mediawiki|dokuwiki|gfm|obsidian|html", help="Page format."
        ),
    ] = "gfm",
    split_level: Annotated[
        int,
        typer.Option(
            "--split-level",
            metavar="N",
            help="One draft: a page per heading of level <= N.",
        ),
    ] = 1,
    wiki_refs: Annotated[
        str,
        typer.Option(
            "--wiki-refs",
            metavar="anchors|native",
            help="mediawiki: linked [n] and a list, or <ref> notes and <references/>.",
        ),
    ] = "anchors",
    sources_title: Annotated[
        str, typer.Option("--sources-title", metavar="TEXT", help="Title of each page's list.")
    ] = "Sources",
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings as failures.")] = False,
    min_coverage: Annotated[
        float | None,
        typer.Option("--min-coverage", metavar="X", help="Required share of cited sentences."),
    ] = None,
    evidence: Annotated[
        bool, typer.Option("--evidence", help="Require a verbatim quote for every cited source.")
    ] = False,
    figures: Annotated[
        bool, typer.Option("--figures", help="Warn about numbers no quote supports.")
    ] = False,
    ledger: LedgerOpt = None,
) -> None:
    """Write wiki pages, each with its own Sources list, plus an index and a sources page."""
    from ..wiki import FORMATS, WikiOptions, build_wiki

    if fmt not in FORMATS:
        raise typer.BadParameter(f"choose one of {', '.join(FORMATS)}", param_hint="--format")
    if wiki_refs not in ("anchors", "native"):
        raise typer.BadParameter("choose anchors or native", param_hint="--wiki-refs")
    book = load_ledger(ledger_path(ctx, ledger))
    options = WikiOptions(
        fmt=fmt,
        split_level=split_level,
        wiki_refs=wiki_refs,
        sources_title=sources_title,
        strict=strict,
        min_coverage=min_coverage,
        evidence=evidence,
        figures=figures,
    )
    if sys.stdout.isatty():
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task("pages", total=None)

            def advance(done: int, total: int) -> None:
                if total >= PROGRESS_MIN_PAGES:
                    bar.update(task, completed=done, total=total)

            result = build_wiki(drafts, out, book, options, progress=advance)
    else:
        result = build_wiki(drafts, out, book, options)
    print(f"{len(result.files)} pages written to {out} ({len(result.cited_by)} sources cited)")


def register(app: typer.Typer) -> None:
    app.command("wiki")(wiki_command)
