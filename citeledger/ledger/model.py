"""The ledger in memory: sources with ids, titles and evidence quotes.

The on-disk shape is the grounded-citations ledger, so files written by ``sources.py`` load
unchanged::

    {"version": 1, "sources": [{"id": 1, "url": "...", "title": "...", "accessed": "YYYY-MM-DD",
                                "quotes": [{"text": "...", "added": "YYYY-MM-DD"}]}]}

Fields citeledger adds are optional on read: ``sha256`` and ``origin`` on a quote (the evidence
file it was checked against), ``text_sha256`` (the name of the text it was checked against, kept
in the evidence folder: ``ledger/evidence_store.py``), and a top-level ``last_id`` high-water
mark so an id stays retired even if someone deletes its entry by hand. A reference library adds
``author``, ``issued``, ``site`` and ``key`` to a source (``ledger/bibliography.py``), each
written only when set; so is ``archived``, the address of a copy of the page in a web archive
(``citeledger add --archived``, ``citeledger archive``), checked on load like ``url`` and shown
beside the URL in every Sources entry, against link rot. ``provider_quotes`` holds what an
answer API said the source holds, never matched against a page (``ledger/provided.py``).
``page_sha256`` and ``page_origin``
name a text of the page a search result carried (Tavily's ``raw_content``, Exa's ``text``, an
Anthropic ``web_fetch_result``), kept in the evidence folder by ``ingest``, and where it came
from: ``quote N --text ...`` checks against it when no ``--from`` is given. Keys this version does
not know are kept in ``extra`` and written back, so a newer tool's data survives a round trip
through an older one.
"""

from __future__ import annotations

import time

from ..errors import BadURL, LedgerError, LedgerShapeError, UnsafeLedgerEntry
from .bibliography import (
    MAX_ISSUED_SHOWN,
    MAX_SITE,
    Details,
    check_key,
    check_names,
    clean_names,
    lead,
    one_line,
)
from .display import display_text
from .light import field, pattern, record
from .provided import ProviderQuote, clip_provided, provider_quotes_from
from .quotes import normalize_for_match
from .urls import (
    all_canonical,
    any_tracking,
    is_legacy,
    normalize_url,
    published_url,
    stored_url_problem,
    url_key,
)

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

_SURROGATE_RE = pattern("[\ud800-\udfff]")

SCHEMA_VERSION = 1
# Ids are at most six digits: the marker grammar reads ``[1]`` to ``[999999]``.
MAX_ID = 999_999
# Titles come from search results: a longer one is cut when stored, and every output shows at
# most MAX_TITLE_SHOWN characters of whatever a ledger holds.
MAX_TITLE = 2_000
MAX_TITLE_SHOWN = 300
MAX_QUOTE_SHOWN = 2_000
MAX_ACCESSED_SHOWN = 64


def clip_title(title: str | None) -> str:
    """A title as the ledger stores it: one line, at most :data:`MAX_TITLE` characters."""
    one = " ".join(_SURROGATE_RE.sub("\ufffd", title or "").split())
    return one if len(one) <= MAX_TITLE else one[: MAX_TITLE - 1] + "\u2026"


def today() -> str:
    """The local date as the ledger writes it (``YYYY-MM-DD``)."""
    return time.strftime("%Y-%m-%d")  # the local date, as date.today() gives it


_QUOTE_KEYS = frozenset({"text", "added", "sha256", "origin", "text_sha256"})
_SOURCE_KEYS = frozenset(
    {"id", "url", "title", "accessed", "quotes", "author", "issued", "site", "key", "archived"}
    | {"page_sha256", "page_origin", "provider_quotes"}
)
# A source's fields that hold text when set, each checked on load.
_OPTIONAL_STR = frozenset(
    {"title", "accessed", "issued", "site", "key", "archived", "page_sha256", "page_origin"}
)
_PAGE_DIGEST = pattern(r"[0-9a-f]{64}")
_LEDGER_KEYS = frozenset({"version", "sources", "last_id"})


@record
class Quote:
    text: str
    added: str
    sha256: str | None = None
    origin: str | None = None
    text_sha256: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Quote:
        if not isinstance(data, dict):
            raise LedgerShapeError(f"{where} is not an object")
        text = data.get("text")
        if not isinstance(text, str):
            raise LedgerShapeError(f"{where}.text is missing or not a string")
        return cls(
            text=text,
            added=_optional_str(data, "added", where) or "",
            sha256=_optional_str(data, "sha256", where),
            origin=_optional_str(data, "origin", where),
            text_sha256=_optional_str(data, "text_sha256", where),
            extra={k: v for k, v in data.items() if k not in _QUOTE_KEYS},
        )

    @property
    def display_text(self) -> str:
        """The quote as outputs show it (see :func:`display_text`)."""
        return display_text(self.text, MAX_QUOTE_SHOWN)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "added": self.added}
        if self.sha256 is not None:
            out["sha256"] = self.sha256
        if self.origin is not None:
            out["origin"] = self.origin
        if self.text_sha256 is not None:
            out["text_sha256"] = self.text_sha256
        out.update((k, v) for k, v in self.extra.items() if k not in out)
        return out


@record
class Source:
    id: int
    url: str
    title: str
    accessed: str
    quotes: list[Quote] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    author: list[dict[str, Any]] | None = None
    issued: str | None = None
    site: str | None = None
    key: str | None = None
    archived: str | None = None
    page_sha256: str | None = None
    page_origin: str | None = None
    provider_quotes: list[ProviderQuote] = field(default_factory=list)

    def page_note(self, quote: Quote) -> str:
        """Where the text ``quote`` was checked against came from, when it is the page text
        ``ingest`` kept from a search result (its field and the file it was ingested from),
        on one line; "" for a page the agent saved and passed to ``quote --from``."""
        if not self.page_sha256 or quote.text_sha256 != self.page_sha256:
            return ""
        return display_text(self.page_origin or "a search result's page text", MAX_TITLE_SHOWN)

    @property
    def details(self) -> Details:
        return Details(self.author, self.issued, self.site, self.key)

    @property
    def display_lead(self) -> str:
        """What every Sources entry shows before the URL: ``Author (Year). Title. Site``, or the
        display title alone when the ledger knows no more (``bibliography.lead``)."""
        return lead(self.display_title, self.details)

    @property
    def lead_sentence(self) -> str:
        """:attr:`display_lead` ending in a full stop, as :attr:`title_sentence` does: how a
        note or a list entry opens, before the URL."""
        text = self.display_lead
        return text if not text or text.endswith((".", "?", "!")) else text + "."

    @property
    def display_title(self) -> str:
        """The title on one line, without control characters: what every output shows. XML
        (docx, pptx) cannot hold C0 controls, and a newline could start markup in markdown.
        Empty when the title is the URL itself: every output shows the URL already."""
        if self.title.strip().rstrip("/") == self.url.rstrip("/"):
            return ""
        return display_text(self.title, MAX_TITLE_SHOWN)

    @property
    def href(self) -> str:
        """The URL as outputs link it (:func:`~citeledger.ledger.urls.published_url`)."""
        return published_url(self.url)

    @property
    def archived_href(self) -> str:
        """The archived copy's address as outputs link it (as :attr:`href`), or ""."""
        return published_url(self.archived) if self.archived else ""

    @property
    def display_accessed(self) -> str:
        """The access date as outputs show it: a hand-edited ledger may hold anything there,
        so it gets the title's treatment (one line, no hidden characters, clipped)."""
        return display_text(self.accessed, MAX_ACCESSED_SHOWN)

    @property
    def title_sentence(self) -> str:
        """The display title ending in a full stop (unless it ends in one of ``. ? !``): how a
        note or a list entry opens, before the URL. Empty when there is no title."""
        title = self.display_title
        return title if not title or title.endswith((".", "?", "!")) else title + "."

    @classmethod
    def from_dict(cls, data: Any, where: str, *, url_checked: bool = False) -> Source:
        """A source read from a ledger file, every field checked (``url_checked``: the caller
        found its URL canonical already, :func:`~citeledger.ledger.urls.all_canonical`)."""
        if not isinstance(data, dict):
            raise LedgerShapeError(f"{where} is not an object")
        get = data.get
        sid = get("id")
        if type(sid) is not int or sid < 1:  # JSON makes exact types; a bool is no id
            raise LedgerShapeError(f"{where}.id is missing or not a positive whole number")
        if sid > MAX_ID:
            raise LedgerShapeError(f"{where}.id is larger than {MAX_ID}")
        url: Any = get("url")  # a string: checked below, or by the caller
        if not url_checked:
            if not isinstance(url, str) or not url.strip():
                raise LedgerShapeError(f"{where}.url is missing or not a string")
            problem = stored_url_problem(url)
            if problem:
                raise UnsafeLedgerEntry(f"{where}.url: {problem}")
        for name, value in data.items():
            if name in _OPTIONAL_STR and type(value) is not str and value is not None:
                raise LedgerShapeError(f"{where}.{name} is not a string")
        raw_quotes = get("quotes", ())
        if type(raw_quotes) is not list and raw_quotes != ():
            raise LedgerShapeError(f"{where}.quotes is not a list")
        if not raw_quotes:
            quotes: list[Quote] = []
        else:
            quotes = [Quote.from_dict(q, f"{where}.quotes[{i}]") for i, q in enumerate(raw_quotes)]
        author = get("author")
        if author is not None:
            problem = check_names(author, f"{where}.author")
            if problem:
                raise LedgerShapeError(problem)
        key = get("key")
        if key is not None and check_key(key):
            raise LedgerShapeError(f"{where}.key {check_key(key)}")
        archived = get("archived")
        if archived is not None:
            problem = archived_problem(archived)
            if problem:
                raise UnsafeLedgerEntry(f"{where}.archived: {problem}")
        page = get("page_sha256")
        if page is not None and not _PAGE_DIGEST.fullmatch(page):
            raise LedgerShapeError(f"{where}.page_sha256 is not a sha256 digest")
        return cls(
            sid,
            url,
            get("title") or "",
            get("accessed") or "",
            quotes,
            {} if data.keys() <= _SOURCE_KEYS else _unknown(data, _SOURCE_KEYS),
            author,
            get("issued"),
            get("site"),
            key,
            archived,
            page,
            get("page_origin"),
            provider_quotes_from(data, where),
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "url": self.url,
            "title": self.title,
            "accessed": self.accessed,
        }
        names = ("author", "issued", "site", "key", "archived", "page_sha256", "page_origin")
        for name in names:  # written only when set
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        out["quotes"] = [q.to_dict() for q in self.quotes]
        if self.provider_quotes:  # written only when held: a sources.py ledger stays as it was
            out["provider_quotes"] = [q.to_dict() for q in self.provider_quotes]
        out.update((k, v) for k, v in self.extra.items() if k not in out)
        return out


class Ledger:
    """All sources of one ledger file. Read it with ``load_ledger``; change it inside
    ``transaction`` (the mutators mark it dirty so the transaction knows to write)."""

    def __init__(
        self,
        path: Path,
        sources: list[Source] | None = None,
        *,
        version: int = SCHEMA_VERSION,
        last_id: int = 0,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.sources: list[Source] = list(sources or [])
        self.version = version
        self.last_id = last_id
        self.extra: dict[str, Any] = dict(extra or {})
        self.dirty = False
        self._index: tuple[dict[int, Source], dict[str, Source]] | None = None
        self._keys: dict[str, Source] | None = None
        self._max_id: int | None = None
        # Set by ``from_dict`` when every loaded URL is its own lookup key.
        self._keys_are_urls = False
        # Whether a change touched more than new sources appended at the end: the store then
        # writes the file whole, else it may add the new entries to the file it read.
        self.rewrite = False
        self.appended: list[Source] = []
        self._appended_ids: set[int] = set()
        # The ids of sources read from the file that a change touched.
        self.changed_ids: set[int] = set()
        # The file text this ledger was read from (``store.parse_ledger``), or None.
        self.loaded_text: str | None = None

    # -- reading -------------------------------------------------------------------------------

    def _indexes(self) -> tuple[dict[int, Source], dict[str, Source]]:
        """Id and URL indexes, built once per load so a 10,000-source ingest stays linear.
        The first source wins when an older tool stored two spellings of one page."""
        if self._index is None:
            by_url: dict[str, Source] = {}
            if self._keys_are_urls:
                for s in reversed(self.sources):
                    by_url[s.url] = s
            else:
                for s in self.sources:
                    by_url.setdefault(url_key(s.url), s)
            self._index = ({s.id: s for s in self.sources}, by_url)
        return self._index

    def get(self, id: int) -> Source | None:
        return self._indexes()[0].get(id)

    def source(self, id: int) -> Source:
        """The source with ``id``, which the caller knows is in the ledger."""
        return self._indexes()[0][id]

    def find_url(self, url: str) -> Source | None:
        """The source stored under ``url`` after normalisation."""
        return self._indexes()[1].get(url_key(url))

    def ids(self) -> list[int]:
        return sorted(s.id for s in self.sources)

    def quoted_ids(self) -> set[int]:
        """The ids of the sources that carry evidence quotes."""
        return {s.id for s in self.sources if s.quotes}

    def holds_pages(self) -> bool:
        """Whether a source names a kept evidence page (its own or a quote's): when none does,
        nothing needs the page store."""
        return any(s.page_sha256 or any(q.text_sha256 for q in s.quotes) for s in self.sources)

    def next_id(self) -> int:
        """max+1, never below the high-water mark: an id once handed out is never reused."""
        if self._max_id is None:
            self._max_id = max((s.id for s in self.sources), default=0)
        return max(self.last_id, self._max_id) + 1

    # -- changing --------------------------------------------------------------------------------

    def add(
        self,
        url: str,
        *,
        title: str = "",
        accessed: str | None = None,
        details: Details | None = None,
    ) -> tuple[Source, bool]:
        """Register ``url`` (normalised here) and return ``(source, created)``. An existing
        source keeps its id; a title, like each of ``details``, fills its field only when that
        is empty."""
        canonical = normalize_url(url)
        title = clip_title(title)
        existing = self.find_url(canonical)
        if existing is not None:
            self.fill_title(existing, title)
            if details:
                self.fill_details(existing, details)
            return existing, False
        source = self._append(canonical, title, accessed or today())
        if details:
            self.fill_details(source, details)
        return source, True

    def key_owner(self, key: str) -> Source | None:
        """The source that holds the citation key ``key``."""
        if self._keys is None:
            self._keys = {s.key: s for s in self.sources if s.key}
        return self._keys.get(key)

    def fill_details(self, source: Source, details: Details) -> None:
        """Fill each empty field of ``source`` from ``details`` (cleaned here); a key another
        source holds is not given twice."""
        author = clean_names(details.author)
        if author and not source.author:
            source.author = author
            self._changed(source)
        for name, limit in (("issued", MAX_ISSUED_SHOWN), ("site", MAX_SITE)):
            value = one_line(getattr(details, name) or "", limit)
            if value and not getattr(source, name):
                setattr(source, name, value)
                self._changed(source)
        key = details.key
        if key and not source.key and not check_key(key) and self.key_owner(key) is None:
            source.key = key
            if self._keys is not None:
                self._keys[key] = source
            self._changed(source)

    def carry_over(self, url: str, *, title: str, accessed: str) -> Source:
        """A new source, with the next id, for ``url`` as another ledger (being merged) stored
        it: canonical when it is a URL, as written when it is a sources.py entry without a
        scheme, whose citations must keep pointing at it (verify fails where one is cited).
        The caller has checked that the ledger does not hold it yet."""
        try:
            canonical = normalize_url(url)
        except BadURL:
            canonical = url
        return self._append(canonical, clip_title(title), accessed or today())

    def _append(self, canonical: str, title: str, accessed: str) -> Source:
        new_id = self.next_id()
        if new_id > MAX_ID:
            raise LedgerError(
                f"ledger {self.path} is full: ids stop at {MAX_ID} (markers are [1] to [{MAX_ID}])",
                hint="start another ledger for new work; merge reads one into another",
            )
        source = Source(id=new_id, url=canonical, title=title, accessed=accessed)
        by_id, by_url = self._indexes()
        self.sources.append(source)
        by_id[source.id] = source
        by_url[url_key(canonical)] = source
        self.last_id = self._max_id = source.id
        self.appended.append(source)
        self._appended_ids.add(source.id)
        self.dirty = True
        return source

    def _changed(self, source: Source) -> None:
        self.dirty = True
        if source.id not in self._appended_ids:
            self.changed_ids.add(source.id)

    def set_archived(self, source: Source, url: str) -> bool:
        """Store ``url`` (normalised here; ``BadURL`` when it is none) as the address of the
        source's archived copy; returns whether that changed the ledger."""
        canonical = normalize_url(url)
        if source.archived == canonical:
            return False
        source.archived = canonical
        self._changed(source)
        return True

    def set_page(self, source: Source, digest: str, origin: str) -> bool:
        """Name ``digest`` (a text kept in the evidence folder) as the page text of ``source``
        unless it has one: the first page stays, as the first title does, since quotes name
        the text they were checked against. Returns whether that changed the ledger."""
        if source.page_sha256 or not _PAGE_DIGEST.fullmatch(digest):
            return False
        source.page_sha256 = digest
        source.page_origin = clip_title(origin)
        self._changed(source)
        return True

    def fill_title(self, source: Source, title: str) -> None:
        """Give ``source`` a title if it has none: the first title a source got stays, so a later
        search result with a worse title cannot replace it."""
        title = clip_title(title)
        if title and not source.title:
            source.title = title
            self._changed(source)

    def add_quote(self, source: Source, quote: Quote) -> bool:
        """Attach ``quote`` unless the source already holds the same text (compared under the
        matching rules); returns whether it was added."""
        key = normalize_for_match(quote.text)
        if any(normalize_for_match(q.text) == key for q in source.quotes):
            return False
        source.quotes.append(quote)
        self._changed(source)
        return True

    def drop_quote(self, source: Source, index: int) -> Quote:
        """Take the quote at ``index`` off ``source`` and return it (``ledger/detach.py``)."""
        quote = source.quotes.pop(index)
        self._changed(source)
        return quote

    def add_provider_quote(self, source: Source, text: str, provider: str, origin: str) -> bool:
        """Attach words a provider said ``source`` holds (``ledger/provided.py``) unless the
        source holds the same words already, of either kind; returns whether it was added.
        Nothing else of the source changes."""
        text = clip_provided(text)
        key = normalize_for_match(text)
        if not key:
            return False
        held = [q.text for q in source.quotes] + [q.text for q in source.provider_quotes]
        if any(normalize_for_match(t) == key for t in held):
            return False
        source.provider_quotes.append(ProviderQuote(text, today(), provider, origin))
        self._changed(source)
        return True

    # -- serialising -----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": self.version,
            "sources": [s.to_dict() for s in self.sources],
        }
        high = max(self.last_id, max((s.id for s in self.sources), default=0))
        if high:
            out["last_id"] = high
        out.update((k, v) for k, v in self.extra.items() if k not in out)
        return out

    @classmethod
    def from_dict(cls, path: Path, data: Any) -> Ledger:
        if not isinstance(data, dict):
            raise LedgerShapeError("the top level is not an object")
        version = data.get("version", SCHEMA_VERSION)
        if isinstance(version, bool) or not isinstance(version, int):
            raise LedgerShapeError("version is not a whole number")
        if version > SCHEMA_VERSION:
            raise LedgerShapeError(f"version {version} is newer than this citeledger reads")
        raw_sources = data.get("sources")
        if not isinstance(raw_sources, list):
            raise LedgerShapeError("sources is missing or not a list")
        # Every URL is checked on load (a ledger file is untrusted input): in one pass when all
        # are canonical, the common case; else each on its own, which names the bad one.
        urls = [s.get("url") if isinstance(s, dict) else None for s in raw_sources]
        checked = all(type(u) is str for u in urls) and all_canonical(urls)  # type: ignore[arg-type]
        sources = [
            Source.from_dict(s, f"sources[{i}]", url_checked=checked)
            for i, s in enumerate(raw_sources)
        ]
        seen: set[int] = set()
        keys: set[str] = set()
        for s in sources:
            if s.id in seen:
                raise LedgerShapeError(f"id {s.id} appears twice in sources")
            seen.add(s.id)
            if s.key is not None:
                if s.key in keys:
                    raise LedgerShapeError(f"key {s.key!r} appears twice in sources")
                keys.add(s.key)
        last_id = data.get("last_id", 0)
        if isinstance(last_id, bool) or not isinstance(last_id, int):
            raise LedgerShapeError("last_id is not a whole number")
        extra = {k: v for k, v in data.items() if k not in _LEDGER_KEYS}
        ledger = cls(path, sources, version=version, last_id=last_id, extra=extra)
        # Canonical URLs without tracking parameters are their own lookup keys.
        ledger._keys_are_urls = checked and not any_tracking(urls)  # type: ignore[arg-type]
        return ledger


def archived_problem(url: str) -> str | None:
    """Why a stored ``archived`` address must not be used, or None: the checks of ``url``,
    without the scheme-less form sources.py allowed (an archive address always has one)."""
    problem = stored_url_problem(url)
    if problem is None and is_legacy(url):
        return f"{url.strip()[:80]!r} is not an http(s) address"
    return problem


def _unknown(data: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The keys of ``data`` this version does not know (kept and written back)."""
    return {k: v for k, v in data.items() if k not in known}


def _optional_str(data: dict[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise LedgerShapeError(f"{where}.{key} is not a string")
    return value
