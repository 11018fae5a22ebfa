"""A report delivered as a Word file (an OpenAI Deep Research export): pandoc reads it into
markdown, its footnotes as ``[^n]`` with their text and its hyperlinks as ``[words](url)``,
and the report reader (``report.py``) takes it from there."""

from __future__ import annotations

from pathlib import Path

from ..files import check_archive
from ..pandoc import run_pandoc
from .answer import Answer
from .report import read_report


def read_docx(path: Path, where: str) -> Answer:
    """The report in ``path`` (a .docx) as an answer."""
    check_archive(path)
    markdown = run_pandoc(
        ["-f", "docx", "-t", "gfm+footnotes", "--wrap=none", str(path)], what=where
    ).decode("utf-8")
    return read_report(markdown, where, kind="docx")
