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

``list`` reads its columns off the same proven text (:func:`rows`): one split, no parse.
"""

from __future__ import annotations

from .lane_file import (
    MAX_ID,
    dumped,
    parse_at,
    parse_text,
    write_file,
)

# Read by type checkers only: ``typing`` is no cost of a quick verb (``light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .checked_texts import Key

    # list's columns: ids as written, URLs, titles, and quotes counted by place (lane.list_block).
    Columns = tuple[list[str], list[str], list[str], dict[int, int]]

_TITLE_LINE = '\n      "title": '
_ENTRY_OPEN = '\n    {\n      "id": '
_QUOTES_OPEN = '\n      "quotes": [\n'
_QUOTE_OPEN = "\n        {\n"
_QUOTES_CLOSE = "\n      ]"


def checked(text: str, ledger: str | None = None, key: Key | None = None) -> int | None:
    """The high-water mark of a large ledger ``text`` the one-pass pattern takes with distinct
    ids and sound URLs (canonical, no length over the limit, no bad escape, no tracking
    parameter: :data:`~.layout_pattern._SOUND_URL`), which ``layout.fast_ledger`` takes with
    the same sources. None for anything else. With ``ledger``, the path the text was read from:
    the same bytes proven before by this user need no second proof (:mod:`~.checked_texts`;
    ``key``: the file's identity as read, :func:`~.lane_file.read_keyed`), and a text proven now
    is recorded."""
    if ledger is not None:
        from .checked_texts import proven

        high = proven(ledger, text, key)
        if high is not None:
            return high
    from .layout_pattern import ID_LINE, LAST_ID, layout_match

    if not layout_match(text, canonical=None):
        return None
    ids = ID_LINE.findall(text)  # written without leading zeros: distinct as text, as numbers
    if not ids or len(set(ids)) != len(ids):
        return None
    top = int(max(zip(map(len, ids), ids, strict=True))[1])  # the longest, then the largest
    tail = LAST_ID.search(text, max(0, len(text) - 40))
    high = max(int(tail.group(1)) if tail else 0, top)
    if ledger is not None:
        from .checked_texts import record

        record(ledger, text, high, key)
    return high


def sound_entry(entry: dict[str, Any]) -> bool:
    """Whether an entry the lane made (every URL in it canonical with no tracking parameter)
    keeps a proven text sound (:func:`checked`): each string UTF-8 (no lone surrogate, which
    the file would hold as an escape the pattern refuses) and no ``&`` in a URL's path."""
    for key, value in entry.items():
        if key == "quotes":
            if not all(sound_entry(q) for q in value):
                return False
        elif type(value) is str:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return False
            if key in ("url", "archived") and "&" in value.partition("?")[0]:
                return False
    return True


def _holder(text: str, urls: list[str]) -> Callable[[str], int | None]:
    """Who holds each of ``urls`` in ``text`` (:func:`checked` took it), the first source
    where two hold one: for a few URLs a search of the text each, for many an index."""
    if len(urls) <= 8:

        def held(url: str) -> int | None:
            at = text.find(f'\n      "url": "{url}",\n')
            if at < 0:
                return None
            start = text.rfind(_ENTRY_OPEN, 0, at) + len(_ENTRY_OPEN)
            return int(text[start : text.index(",", start)])

        return held
    from .layout_pattern import ID_LINE, URL_LINE

    ids = ID_LINE.findall(text)
    by_url = dict(zip(reversed(URL_LINE.findall(text)), map(int, reversed(ids)), strict=True))
    return by_url.get


def add_large(
    path: str, text: str, urls: list[str], titles: list[str], mode: int, key: Key | None = None
) -> list[str] | None:
    """``add`` on the large ledger ``text`` at ``path`` (under its lock, read with ``key``): the
    lines printed, the file written; None (nothing done) for the core."""
    high = checked(text, path, key)
    if high is None:
        return None
    held = _holder(text, urls)
    new: dict[str, dict[str, object]] = {}
    lines = []
    for url, title in zip(urls, titles, strict=True):
        entry = new.get(url)
        if entry is not None:
            if title and not entry["title"]:
                entry["title"] = title
            lines.append(f"[{entry['id']}] {url}")
            continue
        sid = held(url)
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
        done = f'{text[:cut]}{entries}\n  ],\n  "last_id": {high}\n}}\n'.encode()
        if not write_file(path, done, mode):
            return None
        if all(sound_entry(e) for e in new.values()):  # the proven text and sound entries
            from .checked_texts import record

            record(path, done, high)
    return lines


def _untitled(text: str, sid: int) -> bool:
    """Whether the entry of source ``sid`` holds an empty title (the pattern took the text:
    each entry opens with its id's line and its title is its third line)."""
    start = text.find(f"{_ENTRY_OPEN}{sid},\n")
    at = text.find(_TITLE_LINE, start) + len(_TITLE_LINE)
    return text.startswith('""', at)


def entry(
    text: str, sid: int, ledger: str | None = None, key: Key | None = None
) -> tuple[dict[str, Any], int, int, int] | None:
    """Source ``sid`` of a large ledger ``text`` (see :func:`checked`; ``ledger``: the path it
    was read from, with ``key``) as parsed JSON, where its entry starts and ends in the text,
    and the ledger's high-water mark; None when the text is not one :func:`checked` takes or
    holds no such source."""
    high = checked(text, ledger, key)
    start = text.find(f"{_ENTRY_OPEN}{sid},\n")
    if high is None or start < 0:
        return None
    end = text.find("\n    }", start + 1)
    value = parse_at(text, start + 5)
    if value is None or type(value) is not dict:
        return None
    return value, start, end, high


def with_entry(
    text: str, where: tuple[dict[str, Any], int, int, int], ledger: str | None = None
) -> str:
    """``text`` with the entry :func:`entry` found written anew from its (changed) JSON, and
    the high-water mark after the list, as ``store._text_ledger_text`` writes them. With
    ``ledger``, the path the text goes to: recorded as proven when the entry is sound (the
    record names bytes: if the write then fails, the file's text is simply proven again)."""
    value, start, end, high = where
    text = text[: start + 1] + "    " + dumped(value, 2) + text[end + 6 :]
    cut = text.rfind("\n  ]")
    done = f'{text[:cut]}\n  ],\n  "last_id": {high}\n}}\n'
    if ledger is not None and sound_entry(value):
        from .checked_texts import record

        record(ledger, done.encode("utf-8"), high)
    return done


def rows(text: str, ledger: str | None = None, key: Key | None = None) -> Columns | None:
    """Each source's id (as written), URL and title, and the number of quotes of those that
    carry some (by place), in a large ledger ``text`` (see :func:`checked`; ``ledger``: the path
    it was read from, with ``key``), in id order: what ``list`` shows, read off the text the
    pattern proved (each entry opens with its id's, URL's and title's lines) without parsing it
    whole. None when :func:`checked` does not take it.

    One split by :data:`~.layout_pattern.ENTRY_ROW` gives the columns side by side in one flat
    list of strings (before, id, URL, title, before, ...): no tuple a source to build, track
    and transpose, as ``findall`` gave; the rest of each entry is dropped with the list."""
    high = checked(text, ledger, key)
    if high is None:
        return None
    from .layout_pattern import ENTRY_ROW

    parts = ENTRY_ROW.split(text)
    sids, urls, titles = parts[1::4], parts[2::4], parts[3::4]
    del parts
    if not sids:
        return None
    titles = _decoded(titles)
    quoted = _quoted(text)
    from itertools import repeat

    # In id order? The ids are written without leading zeros: right-aligned to the width of
    # the high-water mark (no id is above it), as text they sort as their numbers do; sorting
    # a sorted list of strings compares each neighbour once, in C (``all(map(lt, ...))`` cost
    # ten times as much).
    ids = list(map(str.rjust, sids, repeat(len(str(high)))))
    if sorted(ids) != ids:  # citeledger writes them in order; a hand may not
        order = sorted(range(len(ids)), key=ids.__getitem__)
        back = {k: n for n, k in enumerate(order)}
        sids, urls, titles = ([column[k] for k in order] for column in (sids, urls, titles))
        quoted = {back[k]: n for k, n in quoted.items()}
    return sids, urls, titles, quoted


def _decoded(titles: list[str]) -> list[str]:
    """The titles (the insides of their JSON strings, as the layout took them) decoded: most
    hold no escape, and the commonest escape, a quotation mark, is undone in one pass."""
    joined = "\x00".join(titles)  # the layout holds no raw control character
    if "\\" not in joined:
        return titles
    if joined.count("\\") == joined.count('\\"'):  # each backslash opens a \" escape
        return joined.replace('\\"', '"').split("\x00")
    from _json import scanstring

    return [scanstring(f'"{t}"', 1)[0] if "\\" in t else t for t in titles]


def _quoted(text: str) -> dict[int, int]:
    """The number of quotes of each source that carries some, by place in the text (the
    pattern took it: each entry opens with its id's line, each quote opens a line of its own).
    The entries before each are counted from the last, so the whole text is counted once."""
    quoted: dict[int, int] = {}
    place, seen = -1, 0
    at = text.find(_QUOTES_OPEN)
    while at >= 0:
        place += text.count(_ENTRY_OPEN, seen, at)
        end = text.find(_QUOTES_CLOSE, at)
        quoted[place] = text.count(_QUOTE_OPEN, at, end)
        seen = at
        at = text.find(_QUOTES_OPEN, end)
    return quoted


def whole(text: str, ledger: str | None = None) -> dict[str, Any] | None:
    """A large ledger ``text`` (see :func:`checked`; ``ledger``: the path it was read from)
    as parsed JSON, or None."""
    if checked(text, ledger) is None:
        return None
    value = parse_text(text)
    return value if type(value) is dict else None
