"""STORM's ``url_to_info.json``: which URL each of the article's numbers names.

STORM (stanford-oval/storm) writes beside its article a file of two maps::

    {"url_to_unified_index": {"https://...": 6, ...},
     "url_to_info": {"https://...": {"url", "title", "description", "snippets": [...]}}}

The article's ``[6]`` is the URL whose unified index is 6, whatever the order of the keys: read
in key order, 11 of the 12 numbers of a real article named another page. :func:`storm_sources`
reads the file in the map's order; ``ingest`` follows it on an empty ledger and refuses
otherwise (``citeledger import`` renumbers an article through the ledger), and the STORM
importer reads the article's numbers through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import BadInput


@dataclass(frozen=True)
class StormSource:
    """One URL of the file: its unified index, URL as written, title and the snippets STORM's
    search kept from the page."""

    index: int
    url: str
    title: str
    snippets: tuple[str, ...] = ()


def is_storm(payload: Any) -> bool:
    """Whether ``payload`` is STORM's reference file (it holds ``url_to_unified_index``)."""
    return isinstance(payload, dict) and isinstance(payload.get("url_to_unified_index"), dict)


def storm_sources(payload: dict[str, Any], where: str) -> list[StormSource]:
    """Every URL of the map in the order of its unified index; ``BadInput`` naming ``where``
    when an index is no whole number or two URLs share one."""
    index = payload["url_to_unified_index"]
    info = payload.get("url_to_info")
    info = info if isinstance(info, dict) else {}
    out: list[StormSource] = []
    seen: dict[int, str] = {}
    for url, number in index.items():
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise BadInput(
                f"{where}: url_to_unified_index gives {url[:80]!r} the index {number!r}",
                hint="each URL's index is the whole number the article cites it by",
            )
        if number in seen:
            raise BadInput(
                f"{where}: url_to_unified_index gives {number} to two URLs "
                f"({seen[number][:80]} and {url[:80]})",
                hint="an index names one URL; fix the file or re-run STORM",
            )
        seen[number] = url
        entry = info.get(url)
        entry = entry if isinstance(entry, dict) else {}
        title = entry.get("title")
        snippets = entry.get("snippets")
        kept = tuple(s for s in snippets if isinstance(s, str) and s.strip()) if snippets else ()
        out.append(StormSource(number, url, title if isinstance(title, str) else "", kept))
    return sorted(out, key=lambda s: s.index)
