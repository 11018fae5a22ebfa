"""The fast lane of ``citeledger quote N --text T --from FILE`` (see :mod:`~.lane`): a quote
checked against a saved text page and attached, with built-in modules alone.

The matching rules (:mod:`~.quotes`) are regular expressions, but on most text they do nothing:
a page without a hyphen at a line's end, a ``[`` or a backslash needs only NFKC, the typography
table, ``casefold``, dash runs and white space, which ``str`` methods do exactly
(:func:`matching_form`; ``tests/ledger/test_lane_quote.py`` holds it to
``normalize_for_match``). So the lane takes:

- a quote of at least three words (as ``word_count`` counts them; no CJK) and at most
  ``MAX_QUOTE`` characters, for a source of a small ordinary ledger (:mod:`~.lane`);
- evidence given as a file under 1 MB that ``read_evidence`` reads as plain UTF-8 text: no PDF
  mark, no ``<`` in its first 64 KB, no HTML name, no byte-order mark, no NUL;
- found on the page as it stands (a refusal, with its nearest passage, is the core's);
- the ledger's evidence folder already made, a folder of its own.

It keeps the page text in that folder and attaches the quote as ``ledger.attach.attach_quote``
does: the page first, then the ledger under its lock; the same quote (under the matching
rules) is stored once. Anything else returns None, with nothing written, for the core.
"""

from __future__ import annotations

import os

from .lane import held
from .lane_file import LANE_BYTES, dumped, parsed, read_text, write_file

# Read by type checkers only: ``typing`` is no cost of a quick verb (``light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .checked_texts import Key

# As in the core (tests/ledger/test_lane_quote.py holds them equal).
MIN_WORDS = 3
MAX_QUOTE = 4_000
BREAK = "\x01"
HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml")
EVIDENCE_SUFFIX = ".txt"
# Below the core's windowed search (quotes.WINDOWED_FROM) and its OpenSSL hash (light.py).
PAGE_BYTES = (1 << 20) - 1
TYPOGRAPHY: tuple[tuple[str, str], ...] = (
    *((ch, "'") for ch in "\u2018\u2019\u201a\u201b\u2032\u02bc\uff07"),
    *((ch, '"') for ch in "\u201c\u201d\u201e\u201f\u2033\uff02"),
    *((ch, "-") for ch in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"),
    *((ch, "") for ch in "\u00ad\u200b\u200c\u200d\u2060\ufeff"),
    *((ch, "") for ch in "*_`~"),
)
_HYPHENS = "-\u00ad\u2010\u2011"
# quotes._CJK_RANGES, as (first, last) code points.
CJK = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F))


def matching_form(text: str, *, page: bool = False) -> str | None:
    """``quotes.normalize_for_match(text)`` (``page``: ``page_form``) where no rule of it needs
    a regular expression; None where one might."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text)
    if "[" in text or "\\" in text or (page and (BREAK in text or _line_end_hyphen(text))):
        return None
    for old, new in TYPOGRAPHY:
        if old in text:
            text = text.replace(old, new)
    text = text.casefold()
    while "--" in text:
        text = text.replace("--", "-")
    return " ".join(text.split())


def _line_end_hyphen(text: str) -> bool:
    """Whether a hyphen stands before a line break (white space between them aside): where the
    page form may mark a hyphenated line break (``quotes._LINE_BREAK_HYPHEN``)."""
    if "\n" not in text:
        return False
    for hyphen in _HYPHENS:
        at = text.find(hyphen)
        while at >= 0:
            end = at + 1
            while text.startswith((" ", "\t"), end):
                end += 1
            if text.startswith(("\n", "\r\n"), end):
                return True
            at = text.find(hyphen, at + 1)
    return False


def word_count(text: str) -> int | None:
    """``quotes.word_count(text)``, or None for text holding CJK (counted by the core)."""
    for ch in text:
        if ch >= "\u3040":
            code = ord(ch)
            if any(first <= code <= last for first, last in CJK):
                return None
    return sum(1 for token in text.split() if any(c.isalnum() or c == "_" for c in token))


def _page(evidence: str) -> tuple[bytes, str] | None:
    """The bytes and text of a plain UTF-8 text page at ``evidence``, or None."""
    if evidence.lower().endswith(HTML_SUFFIXES):
        return None
    text = read_text(evidence, PAGE_BYTES)  # "" for no file: the core names it
    if not text:
        return None
    data = text.encode("utf-8")
    if b"%PDF-" in data[:1024] or b"<" in data[:65536] or b"\x00" in data[:8192]:
        return None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    return data, text


def quote(explicit: str | None, id_text: str, text: str, evidence: str | None) -> list[str] | None:
    """``citeledger quote ID --text TEXT --from FILE``: the line it prints, the page kept and
    the quote attached; None (nothing done) for the core."""
    sid_text = id_text.strip().strip("[]")
    if not (sid_text.isascii() and sid_text.isdigit() and 1 <= len(sid_text) <= 6):
        return None
    sid = int(sid_text)
    text = text.strip()
    count = word_count(text)
    if count is None or count < MIN_WORDS or len(text) > MAX_QUOTE or sid < 1:
        return None
    if evidence is None or evidence == "-":
        return None
    needle = matching_form(text)
    read = _page(evidence)
    if not needle or read is None:
        return None
    data, page = read
    form = matching_form(page, page=True)
    if form is None or needle not in form:
        return None
    got = held(explicit)
    if got is None:
        return None
    path, fd, mode, ledger, key = got
    try:
        changing = _source(ledger, sid, path, key) if ledger else None
        if changing is None:
            return None
        source, after = changing
        return _attach(path, source, after, text, needle, evidence, data, mode)
    finally:
        os.close(fd)


def _source(
    ledger: str, sid: int, path: str, key: Key | None
) -> tuple[dict[str, Any], Callable[[], str]] | None:
    """Source ``sid`` of the ledger text (read from ``path`` with ``key``) as parsed JSON, and
    what makes the file's text once that source is changed; None for a ledger the lane does
    not take or no such source."""
    if len(ledger) > LANE_BYTES:  # characters: at least as many bytes
        from .lane_large import entry, with_entry

        where = entry(ledger, sid, path, key)
        if where is None:
            return None
        return where[0], lambda: with_entry(ledger, where, path)
    book = parsed(ledger)
    if not book:
        return None
    source = next((s for s in book["sources"] if s["id"] == sid), None)
    if source is None:
        return None

    def after() -> str:
        sources = book["sources"]
        book["last_id"] = max(book.get("last_id", 0), max(s["id"] for s in sources))
        return dumped(book) + "\n"

    return source, after


def _attach(
    path: str,
    source: dict[str, Any],
    after: Callable[[], str],
    text: str,
    needle: str,
    origin: str,
    data: bytes,
    mode: int,
) -> list[str] | None:
    sid = source["id"]
    held = [matching_form(q["text"]) for q in source["quotes"]]
    if None in held:
        return None
    from .light import sha256_hex

    digest = sha256_hex(data)
    if not _keep(path, digest, data):
        return None
    if needle not in held:
        import time

        source["quotes"].append(
            {
                "text": text,
                "added": time.strftime("%Y-%m-%d"),
                "sha256": digest,
                "origin": origin,
                "text_sha256": digest,
            }
        )
        if not write_file(path, after(), mode):
            return None
    return [f"[{sid}] evidence attached ({len(source['quotes'])} quote(s))"]


def _keep(path: str, digest: str, data: bytes) -> bool:
    """The page kept in the ledger's evidence folder under its digest, as
    ``evidence_store.store_text`` keeps it (nothing written when the file holds it already);
    False, with nothing written, when the folder is not made yet or is not a folder of its own."""
    name = os.path.basename(path)
    folder = os.path.join(os.path.dirname(path) or ".", name[: -len(".json")] + ".evidence")
    if os.path.islink(folder) or not os.path.isdir(folder):
        return False
    kept = os.path.join(folder, digest + EVIDENCE_SUFFIX)
    try:
        st = os.lstat(kept)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return write_file(kept, data, 0o666 & ~umask)
    except OSError:
        return False
    if (st.st_mode & 0o170000) != 0o100000:
        return False
    if st.st_size == len(data):
        try:
            with open(kept, "rb") as handle:
                if handle.read() == data:
                    return True
        except OSError:
            return False
    return write_file(kept, data, st.st_mode & 0o7777)
