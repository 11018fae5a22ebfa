"""What a convert run is asked: the draft, the outputs and the writer of each, the options.

An output's format comes from its extension unless ``--to`` names a text format (a binary
extension always names its own); ``-o -`` writes one text output to standard output. The
request's options are the flags: the draft's front matter and the project file fill in what
they leave unset.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ... import formats
from ...document.pipeline import Pipeline
from ...errors import BadInput
from ...messages import Say, to_stderr
from ...options import Options


@dataclass
class Output:
    """One file a run writes (``-``: standard output) and the writer that writes it."""

    path: Path
    writer: str  # pandoc writer name, or "pdf"


@dataclass
class ConvertRequest:
    draft: Path
    outputs: Sequence[Path]
    to: str | None = None
    pdf_engine: str = "typst"
    reference_doc: Path | None = None
    metadata: Sequence[str] = ()
    options: Options = field(default_factory=Options)  # flags: win over the draft's metadata
    written: list[Path] = field(default_factory=list)
    say: Say = to_stderr  # findings, warnings and per-output errors, one line each
    from_format: str | None = None  # the pandoc reader (default: by the draft's suffix)
    # Told of each output as its work starts (False) and once it is in place (True).
    progress: Callable[[Path, bool], None] | None = None
    # The user's filters, defaults and citeproc, run while the draft is read (see
    # document/pipeline.py for the order).
    pipeline: Pipeline = field(default_factory=Pipeline)
    # pandoc options for the writing step (--toc, -N, --pandoc-arg), after citeledger's own.
    pandoc_args: Sequence[str] = ()
    jobs: int | None = None  # outputs written at the same time (default: the cores)


def writer_for(path: Path, to: str | None) -> str:
    """The writer for one output: ``--to`` for text outputs, while a binary extension
    (.docx, .pptx, .pdf, .odt, .epub) always names its own format."""
    suffix = path.suffix.lower()
    writer = formats.writer_for_suffix(suffix)
    if to and not (writer and formats.is_binary(writer)):
        return to
    if writer is None:
        raise BadInput(
            f"{path}: cannot tell the output format from the extension {suffix or '(none)'}",
            hint="add --to FORMAT (a pandoc writer such as html5, gfm, latex)",
        )
    return writer


def is_stdout(output: Output) -> bool:
    return str(output.path) == "-"


def check_stdout(output: Output, outputs: list[Output]) -> None:
    """``-o -``: a text output written to standard output, once."""
    if output.writer == "pdf" or formats.is_binary(output.writer):
        raise BadInput(
            f"-o -: a {output.writer} file cannot be written to standard output",
            hint="name a file for it, e.g. -o report." + output.writer,
        )
    if sum(is_stdout(o) for o in outputs) > 1:
        raise BadInput("-o - is named twice", hint="write one output to standard output")


def is_latex_pdf(output: Output, req: ConvertRequest) -> bool:
    """A PDF through LaTeX, the one output whose fonts follow the draft's scripts."""
    return output.writer == "pdf" and req.pdf_engine != "typst"


def default_jobs() -> int:
    """The cores this process may run on (a container's or ``taskset``'s limit included)."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13
    if counted is not None:
        return int(counted() or 1)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1
