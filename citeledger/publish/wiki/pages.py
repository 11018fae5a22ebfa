"""Drafts into pages: where one page ends and the next begins, and the file name each gets.

A single draft splits at its headings of level <= N (the content before the first is the page
"Introduction"); several drafts make one page each. Slugs are file names first: unique
regardless of case (macOS and Windows folders), never a device name Windows refuses, never the
build's own ``index`` or ``sources``, and short enough for any file system.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...options import meta_value
from ...tree import Json, stringify

if TYPE_CHECKING:
    from ...document.markers import Scan

RESERVED = frozenset({"index", "sources"})
_WINDOWS_RESERVED = frozenset(
    {
        "con",
        "prn",
        "aux",
        "nul",
        *(f"com{i}" for i in range(1, 10)),
        *(f"lpt{i}" for i in range(1, 10)),
    }
)
_MAX_SLUG_BYTES = 100


@dataclass
class Page:
    title: str
    slug: str
    blocks: list[Json]
    meta: dict[str, Json]
    origin: str  # the draft file it came from
    ids: list[int] = field(default_factory=list)  # cited ledger ids, ledger order
    has_notes: bool = False
    text: str = ""
    containers: list[list[Json]] = field(default_factory=list)  # inline lists with citations
    links: list[Json] = field(default_factory=list)  # the draft's Link elements on the page
    scan: Scan | None = None  # the draft's scan, cut to the page (block indices the page's own)


def slugify(title: str, *, ascii_only: bool = False) -> str:
    """A file-name-safe slug: letters and digits of any script (ASCII only for DokuWiki page
    ids), lower-cased, other runs as ``-``, at most 100 UTF-8 bytes."""
    text = unicodedata.normalize("NFKC", title).lower()
    if ascii_only:
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w]+|_+", "-", text, flags=re.UNICODE).strip("-")
    while len(text.encode("utf-8")) > _MAX_SLUG_BYTES:
        text = text[:-1]
    return text.strip("-")


def _fold(name: str) -> str:
    """The name as a case-insensitive, normalization-insensitive file system compares it."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


def unique_slugs(titles: list[str], *, ascii_only: bool = False) -> list[str]:
    """One slug per title, unique regardless of case (full case folding: ``ß`` is ``ss``, ``ς``
    is ``σ``) and of Unicode normalization (a macOS file system stores names decomposed),
    never a reserved or device name."""
    used: set[str] = {_fold(name) for name in RESERVED}
    out: list[str] = []
    for n, title in enumerate(titles, 1):
        base = slugify(title, ascii_only=ascii_only) or f"page-{n}"
        if base in _WINDOWS_RESERVED:
            base = f"{base}-page"
        slug = base
        k = 2
        while _fold(slug) in used:
            slug = f"{base}-{k}"
            k += 1
        used.add(_fold(slug))
        out.append(slug)
    return out


def split_pages(
    doc: Json, split_level: int, skip: range = range(0)
) -> list[tuple[str, list[Json], list[int]]]:
    """``(title, blocks, top-level indices)`` per page: each heading of level <= ``split_level``
    opens one; the content before the first is the page "Introduction". Blocks in ``skip``
    (the draft's own Sources block) go nowhere."""
    pages: list[tuple[str, list[Json], list[int]]] = []
    front: tuple[str, list[Json], list[int]] = ("Introduction", [], [])
    current = front
    for index, block in enumerate(doc["blocks"]):
        if index in skip:
            continue
        if block.get("t") == "Header" and block["c"][0] <= split_level:
            current = (stringify(block["c"][2]).strip() or "page", [], [])
            pages.append(current)
        current[1].append(block)
        current[2].append(index)
    if front[1]:
        pages.insert(0, front)
    return pages


def whole_page(
    doc: Json, fallback: str, skip: range = range(0)
) -> tuple[str, list[Json], list[int]]:
    """One draft of several as one page, titled by its metadata, else its first heading, else
    ``fallback`` (the file's stem)."""
    title = doc_title(doc) or first_heading(doc) or fallback
    kept = [i for i in range(len(doc["blocks"])) if i not in skip]
    return title, [doc["blocks"][i] for i in kept], kept


def doc_title(doc: Json) -> str:
    meta = doc.get("meta", {})
    if "title" in meta:
        return str(meta_value(meta["title"])).strip()
    return ""


def first_heading(doc: Json) -> str:
    for block in doc["blocks"]:
        if block.get("t") == "Header":
            return stringify(block["c"][2]).strip()
    return ""
