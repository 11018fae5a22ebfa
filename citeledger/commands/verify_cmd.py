"""``citeledger verify FILE``: the grounded-citations gate, on any format pandoc reads.

Flags and exit codes are the seed's (``--strict``, ``--min-coverage X``, ``--evidence``; 0 ok,
1 verification failed, 2 bad input), plus ``--figures``, ``--from FORMAT`` and
``--format json``. The streams are sources.py's too, because callers are built on them
(``verify ... | tail -1``, ``$(verify ...)``, ``2>/dev/null``): ``info:`` and ``warn:`` lines
and the final ``citations OK`` / ``verification failed`` on stdout, ``FAIL:`` lines on stderr.
With ``--format json`` stdout holds the report alone (a parser reads it whole) and stderr the
verdict line. Pandoc and the verifier load inside the command: ``citeledger add`` must not pay
for them.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import DraftError
from ..ledger import load_ledger
from .ledger_cmds import LedgerOpt, ledger_path

# Formats whose raw text the verifier can map markers back onto (LINE:COL locations).
_MARKDOWN_FORMATS = ("markdown", "commonmark", "commonmark_x", "gfm", "markdown_strict")
# Formats whose footnotes can be the list of sources: Word and ODF files convert wrote, and
# org, where ``[1]`` at the start of a line defines a footnote.
_FOOTNOTE_FORMATS = ("docx", "odt", "org")


def verify_command(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(metavar="FILE", help="The draft or document to check.")],
    strict: Annotated[bool, typer.Option("--strict", help="Treat warnings as failures.")] = False,
    min_coverage: Annotated[
        float | None,
        typer.Option(
            "--min-coverage",
            metavar="X",
            help="Required share of prose sentences with declared provenance, e.g. 0.5.",
        ),
    ] = None,
    evidence: Annotated[
        bool,
        typer.Option("--evidence", help="Require every cited source to carry a verbatim quote."),
    ] = False,
    figures: Annotated[
        bool,
        typer.Option(
            "--figures",
            help="Warn when a cited sentence states numbers no quote of its sources contains.",
        ),
    ] = False,
    from_format: Annotated[
        str | None,
        typer.Option(
            "--from", "-f", metavar="FORMAT", help="Pandoc input format (default: by extension)."
        ),
    ] = None,
    output_format: Annotated[
        str,
        typer.Option("--format", metavar="text|json", help="Findings as text lines or JSON."),
    ] = "text",
    ledger: LedgerOpt = None,
) -> None:
    """Check a draft's citations against the ledger."""
    if output_format not in ("text", "json"):
        raise typer.BadParameter("choose text or json", param_hint="--format")
    if min_coverage is not None and not 0.0 <= min_coverage <= 1.0:
        raise typer.BadParameter("give a share between 0 and 1", param_hint="--min-coverage")
    path = Path(file)
    if not path.is_file():
        raise DraftError(f"no such draft: {file}", hint="check the path")
    book = load_ledger(ledger_path(ctx, ledger), missing_ok=True)

    from ..pandoc import format_for, read_json, read_text_draft
    from ..verify import VerifyOptions, verify
    from ..verify.readers import SPLITS_BRACKETS, join_bracket_spans

    fmt = from_format or format_for(path)
    base = fmt.split("+", 1)[0].split("-", 1)[0]
    source_text = read_text_draft(path, fmt) if base in _MARKDOWN_FORMATS else None
    # No collection passes while pandoc's tree is decoded: it frees nothing and costs time.
    gc.disable()
    try:
        doc = read_json(path, from_format=fmt)
    finally:
        gc.enable()
    if base in SPLITS_BRACKETS:
        join_bracket_spans(doc)
    report = verify(
        doc,
        book,
        VerifyOptions(
            strict=strict,
            min_coverage=min_coverage,
            evidence=evidence,
            figures=figures,
            footnote_citations=base in _FOOTNOTE_FORMATS,
        ),
        source_name=file,
        source_text=source_text,
    )
    lines = report.lines()
    if output_format == "json":
        sys.stdout.write(report.to_json() + "\n")
        print(lines[-1], file=sys.stderr)
    else:
        for line in lines:
            print(line, file=sys.stderr if line.startswith("FAIL:") else sys.stdout, flush=True)
    if report.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_command)
