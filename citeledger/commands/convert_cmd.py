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

from ..document.pipeline import Pipeline  # light: typer reads the annotation
from ..escape import terminal_text
from ..messages import to_stderr
from ..options import Options
from ._common import FromOpt, MetaOpt, QuietOpt, VerboseOpt, flag, global_ledger, verbosity
from ._console import QUIET, Sink
from ._flags import with_flags
from ._pipeline import with_pipeline

_ALLOW_HELP = "Fetch images from HOST even at a loopback or private address; repeatable."


# convert's own flags; pandoc's names and short flags where pandoc has them.
DraftArg = Annotated[
    Path, typer.Argument(metavar="DRAFT", help="The draft (markdown or any pandoc input).")
]
_OUTPUT_HELP = "An output file (- writes a text format to standard output); repeat for several."
OutputOpt = Annotated[list[Path], flag("--output", "FILE", _OUTPUT_HELP, "-o")]
_TO_HELP = "Pandoc writer for the text outputs (default: by extension)."
ToOpt = Annotated[str | None, flag("--to", "FORMAT", _TO_HELP, "-t")]
ReferenceDocOpt = Annotated[
    Path | None,
    typer.Option(
        "--reference-doc", metavar="FILE", help="Word or PowerPoint styles (default: bundled)."
    ),
]
AllowFetchHostOpt = Annotated[list[str] | None, flag("--allow-fetch-host", "HOST", _ALLOW_HELP)]
TocOpt = Annotated[bool, typer.Option("--toc", help="A table of contents (pandoc's --toc).")]
NumberSectionsOpt = Annotated[
    bool, typer.Option("--number-sections", "-N", help="Numbered headings (pandoc's -N).")
]
_JOBS_HELP = "Outputs written at the same time (default: one more than the cores; 1 on one core)."
JobsOpt = Annotated[int | None, flag("--jobs", "N", _JOBS_HELP, "-j")]
_PANDOCARG_HELP = (
    "Any other pandoc option for the writing step (--pandoc-arg=--wrap=none); repeatable."
)
PandocArgOpt = Annotated[list[str] | None, flag("--pandoc-arg", "ARG", _PANDOCARG_HELP)]


@with_flags("convert")
@with_pipeline
def convert_command(
    ctx: typer.Context,
    draft: DraftArg,
    output: OutputOpt,
    from_format: FromOpt = None,
    to: ToOpt = None,
    reference_doc: ReferenceDocOpt = None,
    metadata: MetaOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    allow_fetch_host: AllowFetchHostOpt = None,
    toc: TocOpt = False,
    number_sections: NumberSectionsOpt = False,
    pandoc_arg: PandocArgOpt = None,
    jobs: JobsOpt = None,
    *,
    options: Options,
    pipeline: Pipeline,
) -> None:
    """Verify DRAFT once against the ledger, then write each -o output (docx, pptx, pdf,
    html, tex, typ, md, ...). A failed verification writes nothing and exits 1. Options given
    as flags win over the draft's metadata and -M, which win over the project file. pandoc's
    own options keep pandoc's names: the filters (-F, -L) and defaults (-d) run while the
    draft is read, then citeproc (-C; on by itself when a bibliography is named), then
    citeledger; the writer options (--toc, -N, --pandoc-arg, anything after --) apply to
    every output."""
    from ..publish.convert import ConvertRequest, convert

    level = verbosity(ctx, quiet, verbose)
    options = global_ledger(ctx, options)
    if allow_fetch_host:
        options = options.updated({"fetch-allow": " ".join(allow_fetch_host)})
    effective = options.effective()
    writing = (["--toc"] if toc else []) + (["--number-sections"] if number_sections else [])
    writing += _after_dashes(ctx.args)
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
                pipeline=pipeline,
                pandoc_args=[*writing, *(pandoc_arg or [])],
                jobs=jobs,
            )
        )


def _after_dashes(extra: list[str]) -> list[str]:
    """What follows ``--`` goes to pandoc's writing step as given; anything else left over is
    a mistake (a second draft, a misspelt option), refused rather than handed to pandoc."""
    if not extra:
        return []
    argv = sys.argv[1:]
    if "--" not in argv or argv[len(argv) - len(extra) - 1] != "--":
        from ..errors import BadInput

        raise BadInput(
            f"unexpected argument {extra[0]!r}: convert takes one DRAFT",
            hint="give pandoc's other options after -- or with --pandoc-arg=ARG",
        )
    return list(extra)


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
        # ``-o -``: standard output holds the document itself, so the line goes to stderr.
        stream = sys.stderr if str(path) == "-" else sys.stdout
        print(f"wrote {'standard output' if str(path) == '-' else path}", file=stream, flush=True)

    return step


def register(app: typer.Typer) -> None:
    # Arguments after "--" reach the command (ctx.args): pandoc's other options.
    app.command("convert", context_settings={"allow_extra_args": True})(convert_command)
