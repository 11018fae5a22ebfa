"""``citeledger convert``: verify a draft once and write Word, PDF, HTML, LaTeX, ... from it.

Module-level imports stay light (the CLI imports every command module at start-up); the
conversion machinery loads inside the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import CiteledgerError


def register(app: typer.Typer) -> None:
    @app.command("convert")
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
            typer.Option(
                "--pdf-engine", help="typst (default, no TeX), pdflatex, xelatex, lualatex."
            ),
        ] = "typst",
        reference_doc: Annotated[
            Path | None,
            typer.Option("--reference-doc", help="Word or PowerPoint styles (default: bundled)."),
        ] = None,
        metadata: Annotated[
            list[str] | None,
            typer.Option("-M", "--metadata", help="KEY=VALUE document metadata, as pandoc's -M."),
        ] = None,
        ledger: Annotated[
            str | None,
            typer.Option("--ledger", metavar="PATH", help="Ledger file (default as for add)."),
        ] = None,
        strict: Annotated[bool, typer.Option("--strict", help="Warnings fail.")] = False,
        min_coverage: Annotated[
            float | None,
            typer.Option("--min-coverage", help="Fail below this share of cited sentences."),
        ] = None,
        evidence: Annotated[
            bool, typer.Option("--evidence", help="Fail when a cited source has no quote.")
        ] = False,
        figures: Annotated[
            bool, typer.Option("--figures", help="Warn on numbers found in no quote.")
        ] = False,
    ) -> None:
        """Verify DRAFT once against the ledger, then write each -o output (docx, pptx, pdf,
        html, tex, typ, md, ...). A failed verification writes nothing and exits 1."""
        from ..convert import ConvertRequest, convert

        root = ctx.find_root()
        global_ledger = (root.params or {}).get("ledger") if root is not None else None
        try:
            convert(
                ConvertRequest(
                    draft=draft,
                    outputs=output,
                    to=to,
                    pdf_engine=pdf_engine,
                    reference_doc=reference_doc,
                    metadata=metadata or (),
                    ledger=ledger or global_ledger,
                    strict=strict,
                    min_coverage=min_coverage,
                    evidence=evidence,
                    figures=figures,
                )
            )
        except CiteledgerError:
            raise
        for path in output:
            print(f"wrote {path}")
