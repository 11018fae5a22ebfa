"""The fast lane of ``add`` (:mod:`~.lane`) on a large ledger: checked by the core's one-pass
pattern (:mod:`~.layout_pattern`), not parsed, and the new entries inserted into its text.

Beyond a few hundred kilobytes, checking each entry in Python costs more than ``re`` and the
pattern do; the rest of the core (``json``, ``pathlib``, ``urllib.parse``, the model and the
store, together more than the pattern's own work on 10,000 sources) is still not needed. This
is what :class:`~.layout.TextLedger` and ``store._text_ledger_text`` do for the same file: the
pattern takes the text, its ids are distinct, its URLs canonical (no length over the limit, no
bad escape, no tracking parameter), and each new source's entry goes in before the list
closes, with the high-water mark after it. A URL already held whose entry has no title, given
a title now, goes to the core, which rewrites that entry.
"""

from __future__ import annotations

from .lane_file import (
    MAX_ID,
    MAX_URL_LENGTH,
    dumped,
    parse_at,
    parse_text,
    tracking,
    write_file,
)

# Read by type checkers only: ``typing`` is no cost of a quick verb (``light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TITLE_LINE = '\n      "title": '


def checked(text: str) -> tuple[list[int], list[str], int] | None:
    """The ids, URLs and high-water mark of a large ledger ``text`` the one-pass pattern takes
    with distinct ids and canonical URLs (no length over the limit, no bad escape, no tracking
    parameter): what ``layout.fast_ledger`` finds for the same text. None for anything else."""
    from .layout_pattern import ARCHIVED_LINE, ID_LINE, LAST_ID, URL_LINE, layout_match

    if not layout_match(text):
        return None
    ids = list(map(int, ID_LINE.findall(text)))
    held = URL_LINE.findall(text)
    archived = ARCHIVED_LINE.findall(text) if '"archived": ' in text else []
    if not ids or len(set(ids)) != len(ids):
        return None
    joined = "\n".join(held + archived)
    if max(map(len, held + archived)) > MAX_URL_LENGTH or tracking(joined):
        return None
    if not _escapes_sound(joined):
        return None
    tail = LAST_ID.search(text, max(0, len(text) - 40))
    return ids, held, max(int(tail.group(1)) if tail else 0, max(ids))


def add_large(
    path: str, text: str, urls: list[str], titles: list[str], mode: int
) -> list[str] | None:
    """``add`` on the large ledger ``text`` at ``path`` (under its lock): the lines printed,
    the file written; None (nothing done) for the core."""
    found = checked(text)
    if found is None:
        return None
    ids, held, high = found
    by_url = dict(zip(reversed(held), reversed(ids), strict=True))  # the first one wins
    new: dict[str, dict[str, object]] = {}
    lines = []
    for url, title in zip(urls, titles, strict=True):
        entry = new.get(url)
        if entry is not None:
            if title and not entry["title"]:
                entry["title"] = title
            lines.append(f"[{entry['id']}] {url}")
            continue
        sid = by_url.get(url)
        if sid is not None:
            if title and _untitled(text, sid):
                return None
            lines.append(f"[{sid}] {url}")
            continue
        high += 1
        if high > MAX_ID:
            return None
        import time

        entry = {"id": high, "url": url, "title": title, "accessed": time.strftime("%Y-%m-%d")}
        entry["quotes"] = []
        new[url] = entry
        lines.append(f"[{high}] {url}")
    if new:
        cut = text.rfind("\n  ]")
        entries = "".join(",\n    " + dumped(e, 2) for e in new.values())
        done = f'{text[:cut]}{entries}\n  ],\n  "last_id": {high}\n}}\n'
        if not write_file(path, done, mode):
            return None
    return lines


def _untitled(text: str, sid: int) -> bool:
    """Whether the entry of source ``sid`` holds an empty title (the pattern took the text:
    each entry opens with its id's line and its title is its third line)."""
    start = text.find(f'\n    {{\n      "id": {sid},\n')
    at = text.find(_TITLE_LINE, start) + len(_TITLE_LINE)
    return text.startswith('""', at)


def _escapes_sound(joined: str) -> bool:
    """Whether every ``%`` in ``joined`` starts an upper-case escape (``urls._BAD_ESCAPE``)."""
    at = joined.find("%")
    while at >= 0:
        escape = joined[at + 1 : at + 3]
        if len(escape) != 2 or not all(c in "0123456789ABCDEF" for c in escape):
            return False
        at = joined.find("%", at + 1)
    return True


def entry(text: str, sid: int) -> tuple[dict[str, Any], int, int, int] | None:
    """Source ``sid`` of a large ledger ``text`` (see :func:`checked`) as parsed JSON, where its
    entry starts and ends in the text, and the ledger's high-water mark; None when the text is
    not one :func:`checked` takes or holds no such source."""
    found = checked(text)
    if found is None or sid not in found[0]:
        return None
    start = text.find(f'\n    {{\n      "id": {sid},\n')
    end = text.find("\n    }", start + 1)
    value = parse_at(text, start + 5)
    if value is None or type(value) is not dict:
        return None
    return value, start, end, found[2]


def with_entry(text: str, where: tuple[dict[str, Any], int, int, int]) -> str:
    """``text`` with the entry :func:`entry` found written anew from its (changed) JSON, and
    the high-water mark after the list, as ``store._text_ledger_text`` writes them."""
    value, start, end, high = where
    text = text[: start + 1] + "    " + dumped(value, 2) + text[end + 6 :]
    cut = text.rfind("\n  ]")
    return f'{text[:cut]}\n  ],\n  "last_id": {high}\n}}\n'


def whole(text: str) -> dict[str, Any] | None:
    """A large ledger ``text`` (see :func:`checked`) as parsed JSON, or None."""
    if checked(text) is None:
        return None
    value = parse_text(text)
    return value if type(value) is dict else None
