"""``citeledger verify FILE``: the grounded-citations gate, on any format pandoc reads.

Flags and exit codes are the seed's (``--strict``, ``--min-coverage X``, ``--evidence``; 0 ok,
1 verification failed, 2 bad input), plus ``--figures``, ``--from FORMAT`` and
``--format json``. Without ``--from`` the format comes from the file itself: an Office or ODF
file by its content (a .pptx renamed .bin is still a deck), anything else by its suffix. The
streams are sources.py's too, because callers are built on them
(``verify ... | tail -1``, ``$(verify ...)``, ``2>/dev/null``): ``info:`` and ``warn:`` lines
and the final ``citations OK`` / ``verification failed`` on stdout, ``FAIL:`` lines on stderr.
With ``--format json`` stdout holds the report alone (a parser reads it whole) and stderr the
verdict line. Pandoc and the verifier load inside the command: ``citeledger add`` must not pay
for them.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
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

    fmt = from_format or input_format(path, format_for)
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


# Office and ODF files are zip archives; the part that names the kind of document says which.
_ZIP_KINDS = (
    ("[Content_Types].xml", b"presentationml", "pptx"),
    ("[Content_Types].xml", b"wordprocessingml", "docx"),
    ("mimetype", b"opendocument.text", "odt"),
    ("mimetype", b"application/epub+zip", "epub"),
)
_SUFFIX_FORMATS = {".pptx": "pptx", ".qmd": "markdown", ".rmd": "markdown"}


def input_format(path: Path, by_suffix: Callable[[Path], str]) -> str:
    """The pandoc reader for ``path``: a zip's own description of what it holds, else the
    suffix (``by_suffix`` for the suffixes pandoc's table knows). Reading a deck as markdown
    would decode a zip as text."""
    import zipfile

    try:
        with open(path, "rb") as handle:
            is_zip = handle.read(4) == b"PK\x03\x04"
        if is_zip:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
                for part, needle, fmt in _ZIP_KINDS:
                    if part in names:
                        with archive.open(part) as member:  # a zip bomb's part: 4 KB of it
                            if needle in member.read(4096):
                                return fmt
    except (OSError, zipfile.BadZipFile):
        pass
    return _SUFFIX_FORMATS.get(path.suffix.lower()) or by_suffix(path)


def _warn(line: str) -> None:
    print(line, file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_command)
