"""``citeledger wiki DRAFT... -o DIR``: multi-page builds with a Sources list per page.

The work is in :mod:`citeledger.publish.wiki`; this module parses the flags, shows a progress bar on
a terminal (rich, which typer brings) and prints one line per written page count.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..ledger import load_ledger, resolve_ledger_path
from ..messages import to_stderr
from ..options import Options
from ._common import FromOpt, QuietOpt, VerboseOpt, global_ledger, verbosity
from ._console import QUIET, Sink
from ._flags import with_flags

# Below this many pages a bar would only flicker.
PROGRESS_MIN_PAGES = 20
_WIKI_FORMATS = "mediawiki|dokuwiki|gfm|obsidian|html"


@with_flags("wiki")
def wiki_command(
    ctx: typer.Context,
    drafts: Annotated[list[Path], typer.Argument(metavar="DRAFT...", help="Drafts to publish.")],
    out: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", help="Folder to write.")],
    from_format: FromOpt = None,
    fmt: Annotated[
        str,
        typer.Option("--to", "-t", "--format", metavar=_WIKI_FORMATS, help="Page format."),
    ] = "gfm",
    split_level: Annotated[
        int,
        typer.Option(
            "--split-level",
            metavar="N",
            help="One draft: a page per heading of level <= N.",
        ),
    ] = 1,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    *,
    options: Options,
) -> None:
    """Write wiki pages, each with its own Sources list, plus an index and a sources page."""
    from ..publish.wiki import build_wiki

    level = verbosity(ctx, quiet, verbose)
    options = global_ledger(ctx, options)
    effective = options.effective()
    book = load_ledger(resolve_ledger_path(effective.ledger))
    say = Sink(to_stderr, level, strict=effective.strict)
    build = functools.partial(
        build_wiki,
        drafts,
        out,
        book,
        options,
        fmt=fmt,
        split_level=split_level,
        say=say,
        from_format=from_format,
    )
    if sys.stdout.isatty() and level > QUIET:
        from rich.console import Console
        from rich.progress import Progress

        # rich's own escape codes go to the terminal itself, past the CLI's escaping stream.
        console = Console(file=getattr(sys.stdout, "raw", sys.stdout))
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task("pages", total=None)

            def advance(done: int, total: int) -> None:
                if total >= PROGRESS_MIN_PAGES:
                    bar.update(task, completed=done, total=total)

            result = build(progress=advance)
    else:
        result = build()
    if level > QUIET:
        print(f"{len(result.files)} pages written to {out} ({len(result.cited_by)} sources cited)")


def register(app: typer.Typer) -> None:
    app.command("wiki")(wiki_command)
