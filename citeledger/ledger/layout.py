"""The ledger file as citeledger writes it, recognised in one pass: a cheap load for the common
ledger.

``dump_ledger`` writes one layout (two-space indented JSON, keys in one order). A ledger in that
layout whose sources hold the common fields only (id, url, title, accessed, issued, site,
archived, page_sha256, page_origin and quotes of text, added, sha256, origin, text_sha256) is
checked here by one compiled pattern over the whole text (:func:`layout`) instead of field by
field in Python: the pattern spells out valid JSON of exactly that shape, every string a valid
JSON string without an escaped surrogate, every id a whole number from 1 to 999,999, every
``url`` and ``archived`` a URL in canonical form (:func:`~citeledger.ledger.urls.is_canonical`:
its characters, host, path and query; the escapes and the length are checked beside the pattern),
``page_sha256`` a digest (a ledger whose URLs are not all canonical is matched with any string
in their place, and each of those URLs gets the full check of the field-by-field load,
:func:`_odd_urls`). A text the pattern takes is therefore one the field-by-field load
(``Ledger.from_dict``) takes, with the same result; the sources are built from the parsed JSON
without checking each field again (:func:`fast_ledger`). Anything else (another layout, a field
such as ``author``, ``key`` or ``provider_quotes``, a key this version does not know, a bad
entry) returns None and takes the field-by-field load, which names what is wrong and where.

The pattern also proves that the text's indentation tells its structure: each line ``    {``
opens a source of the sources list, so a source's entry can be found and replaced in the text
(``store.updated_text``).
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

from .lane_file import LANE_BYTES
from .lane_file import parsed as lane_parsed
from .layout_pattern import ARCHIVED_LINE, ID_LINE, LAST_ID, URL_LINE, layout_match
from .model import MAX_ID, Ledger, Quote, Source, archived_problem
from .urls import (
    _BAD_ESCAPE,
    MAX_URL_LENGTH,
    any_tracking,
    is_canonical,
    stored_url_problem,
    url_key,
)

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


class LayoutText(str):
    """The text of a ledger :func:`layout` took (``Ledger.loaded_text``): its entries may be
    replaced in place without reading the whole file back (``store.updated_text``)."""


_DECODER = json.JSONDecoder()


# The last text :func:`fast_ledger` took and what it found in it: ``quote`` reads the ledger once
# to check the source and again under the lock, and the same text needs no second check (a
# 50,000-source ledger spends a tenth of a second in the pattern and its searches).
_LAST: list[tuple[str, list[int], list[str], int, bool]] = []


def fast_ledger(path: Path, text: str) -> TextLedger | None:
    """The ledger in ``text`` when :func:`layout` takes it and its ids are distinct and its
    URLs sound; None sends the caller to the field-by-field load."""
    if _LAST and _LAST[0][0] == text:
        _seen, ids, urls, last_id, plain = _LAST[0]
        return TextLedger(path, LayoutText(text), list(ids), list(urls), last_id, plain)
    found = _checked(text, path)
    if found is None:
        return None
    ids, urls, last_id, plain = found
    _LAST[:] = [(text, list(ids), list(urls), last_id, plain)]
    return TextLedger(path, LayoutText(text), ids, urls, last_id, plain)


def _checked(text: str, path: Path | None = None) -> tuple[list[int], list[str], int, bool] | None:
    """The ids, URLs, high-water mark and whether every URL is its own lookup key of a text
    :func:`layout` takes with distinct ids and sound URLs; None for anything else. A large text
    read from ``path`` that this user's citeledger proved sound before is taken without the
    pattern (every URL canonical, none tracking: each its own key); one proven sound now is
    recorded."""
    if len(text) <= LANE_BYTES and (book := lane_parsed(text)) is not None:
        # The fast lane's reading took it: exactly this layout, every URL canonical and free of
        # tracking parameters, checked with str methods, without compiling the pattern.
        sources = book["sources"]
        return [s["id"] for s in sources], [s["url"] for s in sources], book.get("last_id", 0), True
    data = b""
    # Above the lane's size, as its large path does (lane_large.checked): below it the lane's
    # reading or the pattern costs less than the lookup.
    if path is not None and len(text) > LANE_BYTES:
        from .checked_texts import proven

        data = text.encode("utf-8")
        if proven(str(path), data) is not None:
            tail = LAST_ID.search(text, max(0, len(text) - 40))
            ids = list(map(int, ID_LINE.findall(text)))
            return ids, URL_LINE.findall(text), int(tail.group(1)) if tail else 0, True
    canonical = layout_match(text)
    if not canonical and not layout_match(text, canonical=False):
        return None
    # The pattern took the text: each source's first lines are its id's and its URL's, so the
    # two lists are in step (two searches: transposing pairs costs more than either).
    ids = list(map(int, ID_LINE.findall(text)))
    urls = URL_LINE.findall(text)
    archived = ARCHIVED_LINE.findall(text) if '"archived": ' in text else []
    if len(set(ids)) != len(ids):
        return None
    checked = urls + archived
    joined = "\n".join(checked)
    if canonical and (
        (checked and max(map(len, checked)) > MAX_URL_LENGTH)
        or ("%" in joined and _BAD_ESCAPE.search(joined))
    ):
        canonical = False  # the pattern's URLs are a part of what the loose one takes
    if canonical:
        plain = "?" not in joined or not any_tracking(checked)
    else:
        odd = _odd_urls(urls, archived)
        if odd is None:
            return None
        plain = odd
    tail = LAST_ID.search(text, max(0, len(text) - 40))
    last_id = int(tail.group(1)) if tail else 0
    if data and canonical and plain and "&" not in joined:
        # What lane_large.checked proves: the layout, distinct ids, every URL canonical, within
        # the length, with sound escapes, tracking nothing, and no "&" in a path.
        from .checked_texts import record

        record(str(path), data, max(last_id, max(ids, default=0)))
    return ids, urls, last_id, plain


def _odd_urls(urls: list[str], archived: list[str]) -> bool | None:
    """For a ledger whose URLs are not all canonical: None when one of them is refused (the
    field-by-field load names it), else whether every URL is its own lookup key."""
    odd = [u for u in urls if not is_canonical(u)]
    if any(stored_url_problem(u) for u in odd):
        return None
    if any(archived_problem(u) for u in archived if not is_canonical(u)):
        return None
    plain = all(url_key(u) == u for u in odd)
    return plain and ("?" not in "".join(urls) or not any_tracking(urls))


def _source(d: dict[str, Any]) -> Source:
    """A source from its JSON object, which :func:`layout` has checked field by field."""
    if len(d) == 5:  # id, url, title, accessed and quotes alone: the common entry
        quotes = d["quotes"]
        return Source(
            d["id"],
            d["url"],
            d["title"],
            d["accessed"],
            [_quote(q) for q in quotes] if quotes else [],
        )
    return Source(
        d["id"],
        d["url"],
        d["title"],
        d["accessed"],
        [_quote(q) for q in d["quotes"]],
        {},
        None,
        d.get("issued"),
        d.get("site"),
        None,
        d.get("archived"),
        d.get("page_sha256"),
        d.get("page_origin"),
        [],
    )


def _quote(q: dict[str, Any]) -> Quote:
    return Quote(q["text"], q["added"], q.get("sha256"), q.get("origin"), q.get("text_sha256"))


# Lines of the layout (the pattern proved where each stands; no JSON string holds a line break).
_ENTRY_OPEN = '\n    {\n      "id": '
_QUOTES_OPEN = '\n      "quotes": [\n'
_PAGE_LINE = '\n      "page_sha256": "'
_QUOTE_PAGE_LINE = '\n          "text_sha256": "'


class TextLedger(Ledger):
    """A ledger read from a text :func:`layout` took, whose sources are built when asked for:
    ``add`` looks a URL up and appends, ``quote`` builds the one source it changes, and the
    store writes the file by inserting their entries into the text read (``store.updated_text``).
    Anything that wants every source (``sources``, the lists, a whole rewrite) builds them all
    once, and from then on this is a plain :class:`Ledger`. The text was checked on load like
    any ledger: the pattern, distinct ids, every URL canonical."""

    def __init__(
        self,
        path: Path,
        text: LayoutText,
        ids: list[int],
        urls: list[str],
        last_id: int,
        keys_are_urls: bool,
    ) -> None:
        super().__init__(path, None, last_id=last_id)
        self._all: list[Source] | None = None
        self.loaded_text = text
        self._text = text
        self._ids = ids
        self._id_set = set(ids)
        self._urls = urls
        self._keys_are_urls = keys_are_urls
        self._by_url: dict[str, int] | None = None
        self._file_max = max(ids, default=0)
        # The sources appended in this transaction, by lookup key.
        self._new: dict[str, Source] = {}
        # The sources built one at a time, by id: the same objects once all are built.
        self.built: dict[int, Source] = {}

    @property
    def sources(self) -> list[Source]:
        if self._all is None:
            gc_was = gc.isenabled()
            gc.disable()  # see store.parse_ledger
            try:
                data = _DECODER.decode(self._text)
                built = self.built
                self._all = [built.get(d["id"]) or _source(d) for d in data["sources"]]
            finally:
                if gc_was:
                    gc.enable()
            self._all += self.appended
        return self._all

    @sources.setter
    def sources(self, value: list[Source]) -> None:
        self._all = value

    @property
    def whole(self) -> bool:
        """Whether every source has been built (the text alone no longer tells the ledger)."""
        return self._all is not None

    def ids(self) -> list[int]:
        if self._all is not None:
            return super().ids()
        return sorted(self._ids + [s.id for s in self.appended])

    def quoted_ids(self) -> set[int]:
        """Read off the text (the pattern proved each line's place: a source's quotes list
        that is not empty opens on a line of its own), without building the sources."""
        if self._all is not None:
            return super().quoted_ids()
        found = set(self._entries_with(_QUOTES_OPEN))
        for source in [*self.built.values(), *self.appended]:  # maybe changed since the read
            if source.quotes:
                found.add(source.id)
            else:
                found.discard(source.id)
        return found

    def holds_pages(self) -> bool:
        if self._all is not None:
            return super().holds_pages()
        if any(s.page_sha256 or any(q.text_sha256 for q in s.quotes) for s in self.appended):
            return True
        if Ledger(self.path, list(self.built.values())).holds_pages():
            return True
        built = self.built
        return any(
            sid not in built
            for line in (_PAGE_LINE, _QUOTE_PAGE_LINE)
            for sid in self._entries_with(line)
        )

    def _entries_with(self, line: str) -> Iterator[int]:
        """The id of the entry of each ``line`` (a line's start, as the layout writes it) in
        the text read, in the text's order."""
        text = self._text
        at = text.find(line)
        while at >= 0:
            start = text.rfind(_ENTRY_OPEN, 0, at) + len(_ENTRY_OPEN)
            yield int(text[start : text.index(",", start)])
            at = text.find(line, at + len(line))

    def get(self, id: int) -> Source | None:
        if self._all is not None:
            return super().get(id)
        hit = self.built.get(id)
        if hit is not None:
            return hit
        if id not in self._id_set:
            return next((s for s in self._new.values() if s.id == id), None)
        start = self._text.find(f'\n    {{\n      "id": {id},\n')
        source = _source(_DECODER.raw_decode(self._text, start + 5)[0])
        self.built[id] = source
        return source

    def source(self, id: int) -> Source:
        found = self.get(id)
        if found is None:
            raise KeyError(id)
        return found

    def find_url(self, url: str) -> Source | None:
        if self._all is not None or not self._keys_are_urls:
            return super().find_url(url)
        key = url_key(url)
        if key in self._new:
            return self._new[key]
        if self._by_url is None:  # the first source wins, as in Ledger._indexes
            self._by_url = dict(zip(reversed(self._urls), reversed(self._ids), strict=True))
        sid = self._by_url.get(key)
        return None if sid is None else self.get(sid)

    def next_id(self) -> int:
        if self._all is not None:
            return super().next_id()
        # Every id appended here is at most last_id (each append sets it).
        return max(self.last_id, self._file_max) + 1

    def _append(self, canonical: str, title: str, accessed: str) -> Source:
        new_id = self.next_id()
        if self._all is not None or new_id > MAX_ID:
            return super()._append(canonical, title, accessed)  # the full ledger's error
        source = Source(id=new_id, url=canonical, title=title, accessed=accessed)
        self.appended.append(source)
        self._appended_ids.add(new_id)
        self._new[url_key(canonical)] = source
        self.last_id = new_id
        self.dirty = True
        return source

    def high_water(self) -> int:
        """The ``last_id`` the file gets: the mark, never below any id."""
        return max(self.last_id, self._file_max)
