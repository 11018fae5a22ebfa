"""``citeledger convert``: verify a draft once and write Word, PDF, HTML, LaTeX, ... from it.

Module-level imports stay light (the CLI imports every command module at start-up); the
conversion machinery loads inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..messages import to_stderr
from ..options import Options, with_flags
from ._common import global_ledger


@with_flags("convert")
def convert_command(
    ctx: typer.Context,
    draft: Annotated[Path, typer.Argument(help="The draft (markdown or any pandoc input).")],
    output: Annotated[
        list[Path],
        typer.Option("-o", "--output", help="An output file; repeat for several."),
    ],
    to: Annotated[
        str | None,
        typer.Option("--to", help="pandoc writer for the outputs (default: by extension)."),
    ] = None,
    pdf_engine: Annotated[
        str,
        typer.Option("--pdf-engine", help="typst (default, no TeX), pdflatex, xelatex, lualatex."),
    ] = "typst",
    reference_doc: Annotated[
        Path | None,
        typer.Option("--reference-doc", help="Word or PowerPoint styles (default: bundled)."),
    ] = None,
    metadata: Annotated[
        list[str] | None,
        typer.Option("-M", "--metadata", help="KEY=VALUE document metadata, as pandoc's -M."),
    ] = None,
    allow_fetch_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-fetch-host",
            metavar="HOST",
            help="Fetch images from HOST even at a loopback or private address; repeatable.",
        ),
    ] = None,
    *,
    options: Options,
) -> None:
    """Verify DRAFT once against the ledger, then write each -o output (docx, pptx, pdf,
    html, tex, typ, md, ...). A failed verification writes nothing and exits 1. Options given
    as flags win over the draft's metadata and -M."""
    from ..build.convert import ConvertRequest, convert

    if allow_fetch_host:
        options = options.updated({"fetch-allow": " ".join(allow_fetch_host)})
    convert(
        ConvertRequest(
            draft=draft,
            outputs=output,
            to=to,
            pdf_engine=pdf_engine,
            reference_doc=reference_doc,
            metadata=metadata or (),
            options=global_ledger(ctx, options),
            say=to_stderr,
        )
    )
    for path in output:
        print(f"wrote {path}")


def register(app: typer.Typer) -> None:
    app.command("convert")(convert_command)
