"""CSL-JSON, the reference libraries' common tongue: items in (``ingest``), the ledger out
(``render --style csljson``).

In: a list of items or ``{"items": [...]}`` (Zotero, Better BibTeX, Mendeley export it; pandoc
turns BibTeX, BibLaTeX and RIS into it). An item's source is its ``URL``, else its ``DOI`` (as
``https://doi.org/...``), else the first http(s) URL in ``howpublished``, ``publisher`` or
``note`` (where pandoc puts a BibTeX ``howpublished = {\\url{...}}``, the shape
``render --style bibtex`` writes). Items with none of these are returned apart, by id, so the
caller can name them.

Out: one ``webpage`` item per source, its id the library's ``key`` or ``sourceN``: the citation
key a draft writes (``[@source12]``) and pandoc's citeproc resolves. Read back, an item gives
the source it came from (the generated ``sourceN`` is not kept as a key).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import CiteledgerError
from .bibliography import (
    GENERATED_KEY,
    MAX_SITE,
    Details,
    check_key,
    clean_names,
    csl_date,
    issued_from_csl,
    one_line,
)
from .dates import parse_accessed
from .model import Source
from .urls import normalize_url

_URL_IN_TEXT = re.compile(r"https?://[^\s{}<>\"']+")
_ACCESSED_NOTE = re.compile(r"Accessed\s+(\S+)\s*$")


@dataclass(frozen=True)
class LibraryItem:
    """One item of a library, as the ledger takes it."""

    url: str
    title: str
    accessed: str | None
    details: Details


def is_csl(payload: Any) -> bool:
    """Whether parsed JSON is CSL-JSON rather than tool output: a list of items (or
    ``{"items": [...]}``) each with an ``id`` and a ``type``, none with a tool's ``url``."""
    items = csl_items_of(payload)
    return bool(items) and all(
        isinstance(i, dict) and "id" in i and "type" in i and not _has_tool_url(i) for i in items
    )


def _has_tool_url(item: dict[str, Any]) -> bool:
    """Whether a tool's ``url``/``link``/``source_url`` key stands anywhere in ``item``: search
    results carry ids and types too, and their URLs must not be missed."""
    stack: list[Any] = [item]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if any(k in node for k in ("url", "link", "source_url")):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def csl_items_of(payload: Any) -> list[Any]:
    if isinstance(payload, dict) and isinstance(payload.get("items"), list):
        return list(payload["items"])
    return list(payload) if isinstance(payload, list) else []


def _text(item: dict[str, Any], key: str) -> str:
    value = item.get(key)
    return value if isinstance(value, str) else ""


def _item_url(item: dict[str, Any]) -> str | None:
    if _text(item, "URL").strip():
        return _text(item, "URL").strip()
    doi = _text(item, "DOI").strip()
    if doi:
        return doi if doi.lower().startswith(("http://", "https://")) else "doi:" + doi
    for key in ("howpublished", "publisher", "note"):
        found = _URL_IN_TEXT.search(_text(item, key))
        if found:
            return _without_sentence_end(found.group(0))
    return None


def _without_sentence_end(url: str) -> str:
    """A URL found in a note without the punctuation the sentence puts after it (a closing
    parenthesis only when it closes none in the URL)."""
    while url and (url[-1] in ".,;:" or (url[-1] == ")" and url.count(")") > url.count("("))):
        url = url[:-1]
    return url


def _accessed(item: dict[str, Any]) -> str | None:
    date = issued_from_csl(item.get("accessed"))
    if date is None:
        note = _ACCESSED_NOTE.search(_text(item, "note"))
        date = note.group(1) if note else None
    if date is None:
        return None
    try:
        return parse_accessed(date)
    except CiteledgerError:
        return date if re.fullmatch(r"\d{4}-\d{2}-\d{2}\S*", date) else None


def _site(item: dict[str, Any]) -> str | None:
    for key in ("container-title", "publisher"):
        text = one_line(_text(item, key), MAX_SITE)
        if text and not _URL_IN_TEXT.match(text):
            return text
    return None


def library_items(payload: Any) -> tuple[list[LibraryItem], list[str]]:
    """The items of a CSL-JSON payload with a URL the ledger accepts, in order, and the ids
    (or positions) of those without one."""
    found: list[LibraryItem] = []
    missing: list[str] = []
    for n, item in enumerate(csl_items_of(payload)):
        if not isinstance(item, dict):
            missing.append(f"#{n + 1}")
            continue
        name = str(item.get("id", f"#{n + 1}"))
        raw = _item_url(item)
        try:
            url = normalize_url(raw) if raw else None
        except CiteledgerError:
            url = None
        if url is None:
            missing.append(name)
            continue
        key = name if not GENERATED_KEY.fullmatch(name) and not check_key(name) else None
        details = Details(
            author=clean_names(item.get("author")) or None,
            issued=issued_from_csl(item.get("issued")),
            site=_site(item),
            key=key,
        )
        found.append(LibraryItem(url, _text(item, "title"), _accessed(item), details))
    return found, missing


def csl_item(source: Source) -> dict[str, Any]:
    """``source`` as a CSL-JSON item (see the module docstring)."""
    item: dict[str, Any] = {
        "id": source.key or f"source{source.id}",
        "type": "webpage",
    }
    if source.title:  # citeproc shows an empty title as nothing, and then drops the URL too
        item["title"] = source.title
    item["URL"] = source.url
    if source.author:
        item["author"] = source.author
    if source.issued:
        item["issued"] = csl_date(source.issued)
    if source.site:
        item["container-title"] = source.site
    if source.accessed:
        item["accessed"] = csl_date(source.accessed)
    return item


def csljson_text(sources: Iterable[Source]) -> str:
    return json.dumps([csl_item(s) for s in sources], indent=2, ensure_ascii=False)
