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

from .lane_file import MAX_ID, MAX_URL_LENGTH, dumped, tracking, write_file

_TITLE_LINE = '\n      "title": '


def add_large(
    path: str, text: str, urls: list[str], titles: list[str], mode: int
) -> list[str] | None:
    """``add`` on the large ledger ``text`` at ``path`` (under its lock): the lines printed,
    the file written; None (nothing done) for the core."""
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
    high = max(int(tail.group(1)) if tail else 0, max(ids))
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
