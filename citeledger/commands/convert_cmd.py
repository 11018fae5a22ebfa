"""``citeledger convert``: verify a draft once and write Word, PDF, HTML, LaTeX, ... from it.

Each output is named as it is written (``wrote report.docx``), not all at the end: a long draft
takes a while per output. On a terminal a spinner names the output being built.

Module-level imports stay light (the CLI imports every command module at start-up); the
conversion machinery loads inside the command.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer

from ..console import QUIET, Sink
from ..escape import terminal_text
from ..messages import to_stderr
from ..options import Options, with_flags
from ._common import FromOpt, MetaOpt, QuietOpt, VerboseOpt, global_ledger, verbosity


@with_flags("convert")
def convert_command(
    ctx: typer.Context,
    draft: Annotated[
        Path, typer.Argument(metavar="DRAFT", help="The draft (markdown or any pandoc input).")
    ],
    output: Annotated[
        list[Path],
        typer.Option("--output", "-o", metavar="FILE", help="An output file; repeat for several."),
    ],
    from_format: FromOpt = None,
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            "-t",
            metavar="FORMAT",
            help="Pandoc writer for the text outputs (default: by extension).",
        ),
    ] = None,
    reference_doc: Annotated[
        Path | None,
        typer.Option(
            "--reference-doc", metavar="FILE", help="Word or PowerPoint styles (default: bundled)."
        ),
    ] = None,
    metadata: MetaOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    allow_fetch_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-fetch-host",
            metavar="HOST",
            help="Fetch images from HOST even at a loopback or private address; repeatable.",
        ),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Outputs written at the same time (default: one per core).",
        ),
    ] = None,
    *,
    options: Options,
) -> None:
    """Verify DRAFT once against the ledger, then write each -o output (docx, pptx, pdf,
    html, tex, typ, md, ...). A failed verification writes nothing and exits 1. Options given
    as flags win over the draft's metadata and -M, which win over the project file."""
    from ..build.convert import ConvertRequest, convert

    level = verbosity(ctx, quiet, verbose)
    options = global_ledger(ctx, options)
    if allow_fetch_host:
        options = options.updated({"fetch-allow": " ".join(allow_fetch_host)})
    effective = options.effective()
    with ExitStack() as stack:
        progress = None if level <= QUIET else _progress(stack)
        convert(
            ConvertRequest(
                draft=draft,
                outputs=output,
                to=to,
                from_format=from_format,
                pdf_engine=effective.pdf_engine,
                reference_doc=reference_doc,
                metadata=metadata or (),
                options=options,
                say=Sink(to_stderr, level, strict=effective.strict),
                progress=progress,
                jobs=jobs,
            )
        )


def _progress(stack: ExitStack) -> Callable[[Path, bool], None]:
    """One ``wrote FILE`` line per output as it lands; on a terminal, a spinner meanwhile."""
    status = None
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.text import Text

        # rich's own escape codes go to the terminal itself, past the CLI's escaping stream.
        console = Console(file=getattr(sys.stderr, "raw", sys.stderr))
        status = stack.enter_context(console.status("", spinner="dots"))

    def step(path: Path, done: bool) -> None:
        if not done:
            if status is not None:
                status.update(Text(terminal_text(f"writing {path}")))
            return
        print(f"wrote {path}", flush=True)

    return step


def register(app: typer.Typer) -> None:
    app.command("convert")(convert_command)
