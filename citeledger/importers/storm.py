"""STORM: the polished article and ``url_to_info.json`` beside it.

STORM (stanford-oval/storm) writes ``storm_gen_article_polished.txt``; other runners of it name
the article ``storm_polished_article.txt``; both are read (the unpolished
``storm_gen_article.txt`` only when neither is there, with a warning). The article's ``[n]`` is
the URL whose ``url_to_unified_index`` is n (``ledger/storm_map.py``), renumbered through the
ledger here; titles come from ``url_to_info``, and the ``snippets`` STORM's search kept of each
cited page become its provider quotes (not matched against a page the agent saved).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..errors import BadInput, DraftError
from ..ledger.ingest import parse_results
from ..ledger.storm_map import is_storm, storm_sources
from .answer import Answer, Cited
from .report import read_report

INFO = "url_to_info.json"
ARTICLES = ("storm_gen_article_polished.txt", "storm_polished_article.txt")
UNPOLISHED = "storm_gen_article.txt"
MAX_SNIPPETS = 8


def storm_folder(path: Path) -> Path | None:
    """The STORM output folder ``path`` names (the folder, its ``url_to_info.json`` or its
    article), or None when it is no STORM output."""
    folder = path if path.is_dir() else path.parent
    if not (folder / INFO).is_file():
        return None
    if path.is_dir() or path.name == INFO or path.name in (*ARTICLES, UNPOLISHED):
        return folder
    return None


def read_storm(folder: Path, where: str, read: Callable[[Path], str]) -> Answer:
    """The article's text and citations (see the module docstring); ``read`` reads a file of
    the folder as text with the command's limits."""
    warnings: list[str] = []
    article = next((folder / name for name in ARTICLES if (folder / name).is_file()), None)
    if article is None and (folder / UNPOLISHED).is_file():
        article = folder / UNPOLISHED
        warnings.append(f"{where}: no polished article; read {UNPOLISHED}")
    if article is None:
        raise DraftError(
            f"{where} holds {INFO} but no article ({' or '.join(ARTICLES)})",
            hint="import the folder STORM wrote its article into",
        )
    payload = parse_results(read(folder / INFO), str(folder / INFO))
    if not is_storm(payload):
        raise BadInput(
            f"{folder / INFO} holds no url_to_unified_index",
            hint="give the url_to_info.json STORM wrote beside the article",
        )
    numbers: dict[int, Cited] = {}
    origin = f"a snippet STORM kept in {folder.name}/{INFO}"
    for s in storm_sources(payload, str(folder / INFO)):
        numbers[s.index] = Cited(s.url, s.title, s.snippets[:MAX_SNIPPETS], "storm", origin)
    answer = read_report(read(article), f"{where}/{article.name}", kind="storm", numbers=numbers)
    answer.warnings[:0] = warnings
    return answer
