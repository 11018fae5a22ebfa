"""A report delivered in a format other than markdown: a Word file (an OpenAI Deep Research
export), an Org note, a reStructuredText or LaTeX report, an HTML page, a notebook. pandoc reads
it into markdown, its footnotes as ``[^n]`` with their text and its hyperlinks as
``[words](url)``, and the report reader (``report.py``) takes it from there."""

from __future__ import annotations

import json
from pathlib import Path

from ..files import check_archive
from ..pandoc import run_pandoc
from ..tree import Json, replace_elements, stringify
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
    from ..document.anchor_notes import as_footnotes
    from ..document.draft import open_draft

    tree = open_draft(path, from_format=fmt, name=where, trusted=trusted).tree
    as_footnotes(tree)  # an HTML report's numbered links to its own list of references
    replace_elements(tree["blocks"], _without_attributes)
    blocks = tree["blocks"]
    tree["blocks"] = [b for k, b in enumerate(blocks) if not _emptied_notes_heading(blocks, k)]
    markdown = run_pandoc(["-f", "json", *_MARKDOWN], stdin=json.dumps(tree), what=where)
    return read_report(markdown.decode("utf-8"), where, kind=fmt)


def _without_attributes(el: Json) -> list[Json] | None:
    """A span or Div as its content, a link without its ids and classes: markdown holds
    neither, and would keep them as raw HTML around the report's words (an HTML export's
    ``<span class="c0">`` on every run of text)."""
    t = el.get("t")
    if t == "Span" or t == "Div":
        return list(el["c"][1])
    if t == "Link" and el["c"][0] != ["", [], []]:
        el["c"][0] = ["", [], []]
    return None


def _emptied_notes_heading(blocks: list[Json], k: int) -> bool:
    """Whether block ``k`` is a "Footnotes" heading with nothing under it: where an Org file
    keeps its footnotes, which pandoc took into the notes (the draft lists its sources)."""
    block = blocks[k]
    if block.get("t") != "Header" or stringify(block["c"][2]).strip().lower() != "footnotes":
        return False
    after = blocks[k + 1] if k + 1 < len(blocks) else None
    return after is None or (after.get("t") == "Header" and after["c"][0] <= block["c"][0])
