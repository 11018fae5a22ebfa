"""``citeledger import ANSWER [-o DRAFT] [--from SHAPE]``: an agent's answer becomes a draft
citing ledger ids, its sources registered, then verified (``citeledger/importers/``).

ANSWER is an API response saved as JSON (OpenAI, Anthropic, Gemini, Perplexity), a STORM output
folder, or a report in markdown, .docx or another format pandoc reads (.org, .rst, .tex, .html,
.ipynb, ...: read as a draft is, written as markdown). The draft goes to ``-o`` (default: beside
the answer, ``answer.json`` -> ``answer.md``, ``report.md`` (or ``.org``, ``.html``, ...) ->
``report.cited.md``, a STORM folder ``F`` -> ``F.md``), never onto the answer or the ledger. One
line per source (``[n] URL (new|known)``), the importer's warnings, then verify's report on the
draft, with verify's flags (``--evidence``, ``--strict``, ...): exit 0 when it verifies, 1 when it
does not, 2 for input that cannot be read. The same answer imported again changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..document.pipeline import Pipeline
from ..errors import DraftError
from ..files import Guard, write_bytes
from ..importers.detect import SHAPES, read_answer
from ..importers.draft import register as register_answer
from ..importers.resolve import make_resolver
from ..ledger import load_ledger, resolve_ledger_path
from ..options import Options
from ._common import echo, flag, global_ledger, read_text_input, warn
from ._console import NORMAL
from ._flags import with_flags
from ._verify_run import print_reports, verify_file

_FROM_HELP = "The answer's shape: " + ", ".join(SHAPES) + " (default auto)."
_OUT_HELP = "The draft to write (default: beside the answer, ANSWER.md or ANSWER.cited.md)."
_RESOLVE_HELP = "Follow Gemini's expiring grounding redirects to the pages' own URLs (network)."


@with_flags("verify")
def import_command(
    ctx: typer.Context,
    answer: Annotated[
        str,
        typer.Argument(
            metavar="ANSWER",
            help="The answer: an API response (.json), a STORM folder, a report (.md, .docx, "
            ".org, .rst, .tex, .html, ...).",
        ),
    ],
    output: Annotated[str | None, flag("--output", "DRAFT", _OUT_HELP, "-o")] = None,
    shape: Annotated[str, flag("--from", "|".join(SHAPES), _FROM_HELP)] = "auto",
    resolve: Annotated[bool, typer.Option("--resolve", help=_RESOLVE_HELP)] = False,
    *,
    options: Options,
) -> None:
    """Bring an agent's answer in: register its sources, write a draft citing their ids,
    verify it."""
    source = Path(answer)
    if not source.exists():
        raise DraftError(f"no such answer: {answer}", hint="check the path")
    options = global_ledger(ctx, options)
    ledger = resolve_ledger_path(options.effective().ledger)
    target = Path(output) if output else default_output(source)
    guard = Guard([(source, "the answer"), (ledger, "the ledger")])
    if source.is_dir():
        guard.protect_folder(source, "the STORM folder being imported")
    guard.check(target)
    found = read_answer(
        source,
        shape,
        lambda p: read_text_input(str(p), "answer"),
        trusted=options.effective().trust_draft,
    )
    before = load_ledger(ledger, missing_ok=True)
    known = {s.id for s in before.sources}
    done = register_answer(
        found,
        ledger,
        where=answer,
        resolve=make_resolver(warn) if resolve else None,
        title=options.effective().sources_title,
    )
    book = load_ledger(ledger)
    for sid in done.ids:
        s = book.source(sid)
        echo(f"[{sid}] {s.url} ({'known' if sid in known else 'new'})")
    for line in done.warnings:
        warn(line)
    data = done.text.encode("utf-8")
    if not target.is_file() or target.read_bytes() != data:
        write_bytes(target, data)
    quotes = f", {done.quotes_added} provider quote(s) added" if done.quotes_added else ""
    echo(f"wrote {target}: {len(done.ids)} source(s) cited, {len(done.new)} new{quotes}")
    report = verify_file(str(target), None, [], options, {}, Pipeline())
    print_reports([report], "text", NORMAL)
    if report.failed:
        raise typer.Exit(1)


def default_output(source: Path) -> Path:
    """Where the draft goes when ``-o`` is not given (see the module docstring)."""
    if source.is_dir():
        return source.resolve().parent / f"{source.resolve().name}.md"
    suffix = source.suffix.lower()
    if suffix in (".json", ".docx"):
        return source.with_suffix(".md")
    # A report in markdown, or in a format the author may also keep as markdown (an Org note
    # exported, a page saved as HTML): never onto a report.md of theirs.
    return source.with_name(source.stem + ".cited.md")


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)
