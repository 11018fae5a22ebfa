"""Which shape an answer has (``--from auto``), and the one call that reads any of them.

A folder, or a file beside ``url_to_info.json`` named as STORM names its files, is STORM; a .docx a
report, and so is a file pandoc reads by its suffix in another format than markdown (.org, .rst,
.tex, .html, .ipynb, ...); JSON is told apart by what each provider's response holds (OpenAI's
``output`` messages or annotated ``choices``, Perplexity's ``citations`` beside ``choices``,
Anthropic's typed ``content`` blocks, Gemini's ``candidates``); anything else is a markdown report.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import formats
from ..errors import BadInput
from ..ledger.ingest import parse_results
from ..ledger.storm_map import is_storm
from .answer import Answer
from .anthropic import is_anthropic, read_anthropic
from .gemini import is_gemini, read_gemini
from .office import read_document, read_docx
from .openai import is_openai, read_openai
from .perplexity import is_perplexity, read_perplexity
from .report import read_report
from .storm import INFO, read_storm, storm_folder

SHAPES = ("auto", "openai", "anthropic", "gemini", "perplexity", "storm", "markdown")
_JSON_SHAPES: tuple[tuple[str, Callable[[Any], bool], Callable[[Any, str], Answer]], ...] = (
    ("openai", is_openai, read_openai),
    ("perplexity", is_perplexity, read_perplexity),
    ("anthropic", is_anthropic, read_anthropic),
    ("gemini", is_gemini, read_gemini),
)


def read_answer(
    path: Path, shape: str, read: Callable[[Path], str], *, trusted: bool = False
) -> Answer:
    """The answer at ``path`` read as ``shape`` (:data:`SHAPES`); ``read`` reads a file as
    text with the command's limits; ``trusted``: a report in another format than markdown is
    read as a trusted draft (its includes read). ``BadInput`` names the shapes when none
    fits."""
    if shape not in SHAPES:
        raise BadInput(f"unknown --from {shape!r}", hint="use one of " + ", ".join(SHAPES))
    where = str(path)
    folder = storm_folder(path)
    if shape == "storm" or (shape == "auto" and folder is not None):
        if folder is None:
            raise BadInput(
                f"{where} is no STORM output: no {INFO} beside it",
                hint="give the folder STORM wrote its article and url_to_info.json into",
            )
        return read_storm(folder, where, read)
    if path.is_dir():
        raise BadInput(f"{where} is a folder", hint="give the answer's file")
    if path.suffix.lower() == ".docx" and shape in ("auto", "markdown"):
        return read_docx(path, where)
    other = formats.reader_named(path)
    if shape == "auto" and other not in (None, "json") and not formats.is_markdown_source(other):
        return read_document(path, where, other, trusted=trusted)
    raw = read(path)
    if shape == "markdown":
        return read_report(raw, where)
    wanted = [row for row in _JSON_SHAPES if shape in ("auto", row[0])]
    if shape == "auto" and not raw.lstrip().startswith(("{", "[")):
        return read_report(raw, where)
    payload = parse_results(raw, where)
    if isinstance(payload, dict) and isinstance(payload.get("response"), dict):
        payload = payload["response"]  # a saved stream's response.completed event
    if is_storm(payload):
        raise BadInput(
            f"{where} is STORM's {INFO}: the article cites through it",
            hint="import the folder that holds it and the article",
        )
    for _name, fits, reader in wanted:
        if fits(payload):
            return reader(payload, where)
    names = ", ".join(n for n, _f, _r in wanted)
    raise BadInput(
        f"{where} is JSON in no answer shape citeledger reads ({names})",
        hint="pass the provider's response as it came, or the answer's markdown with "
        "--from markdown",
    )
