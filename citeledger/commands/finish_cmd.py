"""``citeledger finish FILE...``: apply the renderers to files pandoc wrote.

A pandoc-driven build stays two lines::

    pandoc draft.md --filter pandoc-citeledger -o out.docx
    citeledger finish out.docx

The options come from what the filter recorded in the file (notes, numbering), then from
``-M KEY=VAL`` (the filter's keys, with or without the ``citeledger.`` prefix), which win.
The ledger is ``--ledger`` (before or after the verb), else ``$CITELEDGER_LEDGER``,
``$HERMES_CITATION_LEDGER``, ``./ledger.json``: the one the build used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import BadInput
from ..ledger import load_ledger


def _meta_pairs(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise BadInput(
                f"-M {item!r} is not KEY=VALUE", hint="write e.g. -M citeledger.notes=endnotes"
            )
        if not key.startswith("citeledger."):
            key = f"citeledger.{key}"
        out[key] = value
    return out


def finish(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE...", help=".docx or .pptx files pandoc wrote.")
    ],
    ledger: Annotated[
        str | None,
        typer.Option(
            "--ledger",
            metavar="PATH",
            help="Ledger file (default: $CITELEDGER_LEDGER, then ./ledger.json).",
        ),
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
) -> None:
    """Post-process files pandoc wrote: Word marks = ledger ids, endnotes, Sources slides."""
    import sys

    from ..filters.main import read_options
    from ..renderers import SUFFIXES, recorded_options
    from ..renderers import finish as render_finish
    from .ledger_cmds import ledger_path

    given = _meta_pairs(meta or [])
    for path in files:  # every argument checked before any file is touched
        if path.suffix.lower() not in SUFFIXES:
            raise BadInput(
                f"{path}: citeledger finish works on .docx and .pptx files",
                hint="give the .docx or .pptx that pandoc wrote",
            )
        if not path.is_file():
            raise BadInput(f"{path}: no such file", hint="run pandoc first, then finish its output")
    book = load_ledger(ledger_path(ctx, ledger))
    for path in files:
        pairs = {f"citeledger.{k}": v for k, v in recorded_options(path).items()}
        pairs.update(given)
        meta_json = {k: {"t": "MetaString", "c": v} for k, v in pairs.items()}
        options = read_options(meta_json, lambda line: print(line, file=sys.stderr))
        render_finish(path, ledger=book, options=options)
        print(f"finished {path}")


def register(app: typer.Typer) -> None:
    app.command("finish")(finish)
