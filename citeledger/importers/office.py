"""A report delivered in a format other than markdown: a Word file (an OpenAI Deep Research
export), an Org note, a reStructuredText or LaTeX report, an HTML page, a notebook. pandoc reads
it into markdown, its footnotes as ``[^n]`` with their text and its hyperlinks as
``[words](url)``, and the report reader (``report.py``) takes it from there."""

from __future__ import annotations

import json
from pathlib import Path

from ..files import check_archive
from ..pandoc import run_pandoc
from ..tree import Json, stringify
from .answer import Answer
from .report import read_report

_MARKDOWN = ["-t", "gfm+footnotes", "--wrap=none"]


def read_docx(path: Path, where: str) -> Answer:
    """The report in ``path`` (a .docx) as an answer."""
    check_archive(path)
    markdown = run_pandoc(["-f", "docx", *_MARKDOWN, str(path)], what=where).decode("utf-8")
    return read_report(markdown, where, kind="docx")


def read_document(path: Path, where: str, fmt: str, *, trusted: bool = False) -> Answer:
    """The report in ``path``, which pandoc reads as ``fmt``, as an answer. It is read as
    every draft is (``open_draft``: Org's bracketed numbers kept, an untrusted file's includes
    refused), then written as markdown."""
    from ..document.draft import open_draft

    tree = open_draft(path, from_format=fmt, name=where, trusted=trusted).tree
    blocks = tree["blocks"]
    tree["blocks"] = [b for k, b in enumerate(blocks) if not _emptied_notes_heading(blocks, k)]
    markdown = run_pandoc(["-f", "json", *_MARKDOWN], stdin=json.dumps(tree), what=where)
    return read_report(markdown.decode("utf-8"), where, kind=fmt)


def _emptied_notes_heading(blocks: list[Json], k: int) -> bool:
    """Whether block ``k`` is a "Footnotes" heading with nothing under it: where an Org file
    keeps its footnotes, which pandoc took into the notes (the draft lists its sources)."""
    block = blocks[k]
    if block.get("t") != "Header" or stringify(block["c"][2]).strip().lower() != "footnotes":
        return False
    after = blocks[k + 1] if k + 1 < len(blocks) else None
    return after is None or (after.get("t") == "Header" and after["c"][0] <= block["c"][0])
