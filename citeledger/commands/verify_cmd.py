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

from ..errors import BadInput, DraftError
from ..ledger import load_ledger, resolve_ledger_path
from ..options import Options, with_flags
from .ledger_cmds import global_ledger

# Formats whose raw text the verifier can map markers back onto (LINE:COL locations).
_MARKDOWN_FORMATS = ("markdown", "commonmark", "commonmark_x", "gfm", "markdown_strict")
# Formats whose footnotes can be the list of sources: Word and ODF files convert wrote, and
# org, where ``[1]`` at the start of a line defines a footnote.
_FOOTNOTE_FORMATS = ("docx", "odt", "org")


@with_flags("verify")
def verify_command(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(metavar="FILE", help="The draft or document to check.")],
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
    *,
    options: Options,
) -> None:
    """Check a draft's citations against the ledger. Options in the document's metadata
    (a citeledger: map) apply too; flags win over them."""
    if output_format not in ("text", "json"):
        raise BadInput(f"--format {output_format}: not text or json", hint="choose text or json")
    path = Path(file)
    if not path.is_file():
        raise DraftError(f"no such draft: {file}", hint="check the path")
    options = global_ledger(ctx, options)

    from ..options import from_meta
    from ..pandoc import format_for, read_json, read_text_draft
    from ..verify import verify
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
    options = from_meta(doc.get("meta", {}), _warn).merged(options)
    book = load_ledger(resolve_ledger_path(options.ledger), missing_ok=True)
    report = verify(
        doc,
        book,
        options,
        source_name=file,
        source_text=source_text,
        footnote_citations=base in _FOOTNOTE_FORMATS,
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


def _warn(line: str) -> None:
    print(line, file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_command)
