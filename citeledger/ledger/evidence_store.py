"""The evidence trail: the text every quote was checked against, kept beside the ledger.

A quote is evidence only as long as someone can see the text it was found in. ``quote`` keeps
that text in the ledger's evidence folder, ``<ledger stem>.evidence/`` beside the ledger
(``ledger.json`` keeps ``ledger.evidence/``; through a symlinked ledger, beside the file it
points at, so every path to one ledger finds one folder), one file per text, named by content::

    ledger.evidence/<sha256 of the file's bytes>.txt

What is stored is the *text the match ran on* (what ``evidence_pages.read_evidence``
returned: the visible text of an HTML page, the text layer of a PDF, a text file as decoded),
as UTF-8, not the fetched bytes. So a recheck re-runs exactly the match ``quote`` ran, with the
matcher alone: no HTML scanner or PDF library whose next version might extract a page
differently and report a change that is not there, and nothing a browser would run is kept. The
quote records the file's name as ``text_sha256``; its ``sha256`` stays what it was, the digest
of the fetched bytes (for a UTF-8 text file without a BOM the two are equal).

Files are written once per digest, through the one safe write (``citeledger.files``): two
quotes from one page share a file, and a file is never rewritten while it still holds its text.
The folder only grows: nothing in it is deleted, since any quote of any merged ledger may name
any file.

A digest read from a ledger is web-adjacent input (a merged ledger is someone else's file): it
names a file only when it is 64 lower-case hex digits, so ``../../x`` can never become a path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..errors import EvidenceError
from ..files import write_bytes
from .files import make_folder, read_file
from .light import field, pattern, record, sha256_hex
from .model import Ledger, Quote, Source
from .quotes import found_in, normalize_for_match, page_form

SUFFIX = ".txt"
# read_evidence reads at most 200 MB; decoded cp1252 or UTF-16 can grow as UTF-8, up to 3x.
MAX_TEXT_BYTES = 600 * 1024 * 1024
_DIGEST = pattern(r"[0-9a-f]{64}")


def evidence_dir(ledger_path: Path) -> Path:
    """The evidence folder of the ledger at ``ledger_path``."""
    path = Path(ledger_path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    return path.with_name(f"{path.stem}.evidence")


def is_digest(value: object) -> bool:
    return isinstance(value, str) and _DIGEST.fullmatch(value) is not None


def evidence_path(folder: Path, digest: str) -> Path:
    if not is_digest(digest):
        raise EvidenceError(f"{digest[:80]!r} is not a sha256 digest")
    return folder / f"{digest}{SUFFIX}"


def _ensure_folder(folder: Path) -> None:
    """Create the folder, or say in one line why it cannot be (a file in its place, a link)."""
    if folder.is_symlink():
        # A link would carry the texts wherever its maker pointed it (a cloned repository's
        # ``ledger.evidence -> ~/.config``); the folder is the ledger's own, beside it.
        raise EvidenceError(
            f"evidence folder {folder} is a link to {os.path.realpath(folder)}: refusing to "
            "write through it",
            hint=f"replace the link by a folder of its own (mv it aside, then mkdir {folder})",
        )
    try:
        mode = folder.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise EvidenceError(
            f"cannot reach evidence folder {folder}: {exc.strerror or exc}"
        ) from None
    if mode is not None and not stat.S_ISDIR(mode):
        raise EvidenceError(
            f"evidence folder {folder} is a file, not a folder",
            hint="move that file aside: citeledger keeps the texts quotes were checked against "
            "there",
        )
    if mode is None:
        make_folder(
            folder,
            what="evidence folder",
            error=EvidenceError,
            hint="check the permissions of the ledger's folder",
        )


def store_text(folder: Path, text: str, *, encoded: tuple[bytes, str] | None = None) -> str:
    """Keep ``text`` in ``folder`` under its digest and return the digest (see the module
    docstring). Nothing is written when the file already holds that text. ``encoded``: the
    text's UTF-8 bytes and their sha256, when the caller has them (a UTF-8 page read from a file
    is those bytes: a 50 MB page is not encoded and hashed a second time)."""
    if encoded is not None:
        data, digest = encoded
    else:
        # A lone surrogate (no decoder citeledger uses makes one) cannot be UTF-8: stored as "?".
        data = text.encode("utf-8", "replace")
        digest = sha256_hex(data)
    _store(folder, digest, data)  # hashed above: not twice (a page may be 50 MB)
    return digest


def store_bytes(folder: Path, digest: str, data: bytes) -> bool:
    """Write ``data``, whose sha256 is ``digest``, unless the file holds it already; returns
    whether it wrote. A file under that name holding anything else (edited, truncated) is
    replaced: the name promises these bytes."""
    if sha256_hex(data) != digest:
        raise ValueError("data does not match its digest")  # a caller's slip, not user input
    return _store(folder, digest, data)


def _store(folder: Path, digest: str, data: bytes) -> bool:
    path = evidence_path(folder, digest)
    _ensure_folder(folder)
    if _holds(path, data):
        return False
    write_bytes(
        path,
        data,
        error=EvidenceError,
        shown=f"evidence file {path}",
        hint="check the folder's permissions and free space",
    )
    return True


def _holds(path: Path, data: bytes) -> bool:
    """Whether the regular file at ``path`` holds exactly ``data``: its size, then its bytes
    compared a megabyte at a time (hashing them again would cost more, and a 50 MB page is not
    held twice in memory). Anything else (missing, a FIFO, unreadable) does not hold it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        view = memoryview(data)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            for at in range(0, len(data), _CHUNK):
                if handle.read(_CHUNK) != view[at : at + _CHUNK]:
                    return False
            return handle.read(1) == b""
    except OSError:
        return False
    finally:
        os.close(fd)


_CHUNK = 1 << 20


@record(frozen=True)
class Stored:
    """What the evidence folder holds under one digest. ``status``: ``ok``, ``missing``,
    ``altered`` (the bytes no longer hash to their name), ``invalid`` (the ledger names no
    digest), ``unreadable`` (a folder, a FIFO, no permission). ``text`` only when ``ok``."""

    status: str
    digest: str
    path: Path | None
    text: str | None = None
    detail: str = ""


def read_stored(folder: Path, digest: str) -> Stored:
    if not is_digest(digest):
        return Stored("invalid", digest, None, detail="not a sha256 digest")
    path = evidence_path(folder, digest)
    try:
        data = read_file(path, limit=MAX_TEXT_BYTES, what="evidence file", error=EvidenceError)
    except FileNotFoundError:
        return Stored("missing", digest, path)
    except EvidenceError as exc:
        return Stored("unreadable", digest, path, detail=exc.message)
    actual = sha256_hex(data)
    if actual != digest:
        return Stored("altered", digest, path, detail=f"its bytes now hash to {actual}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:  # not a file citeledger wrote, though named by its own hash
        return Stored("unreadable", digest, path, detail="not UTF-8 text")
    return Stored("ok", digest, path, text)


# Rechecking quotes against the stored texts ---------------------------------------------------


@record(frozen=True)
class QuoteCheck:
    """One quote rechecked against its stored text. ``status``: ``ok``, ``not-stored`` (the
    quote names no text: sources.py's quotes and those from before the trail), ``not-found``
    (the text is intact and the quote is not in it: the quote was edited), or a
    :class:`Stored` status other than ``ok``."""

    source: Source
    quote: Quote
    status: str
    stored: Stored | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class StoredTexts:
    """The evidence folder read through a cache: a page quoted ten times is read, hashed and
    normalised once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._seen: dict[str, tuple[Stored, str | None]] = {}

    def get(self, digest: str) -> tuple[Stored, str | None]:
        """The stored file and, when it is intact, its text in matching form."""
        if digest not in self._seen:
            stored = read_stored(self.folder, digest)
            normal = page_form(stored.text) if stored.text is not None else None
            self._seen[digest] = (stored, normal)
        return self._seen[digest]

    def check(self, source: Source, quote: Quote) -> QuoteCheck:
        if quote.text_sha256 is None:
            return QuoteCheck(source, quote, "not-stored")
        stored, normal = self.get(quote.text_sha256)
        if normal is None:
            return QuoteCheck(source, quote, stored.status, stored)
        found = found_in(normalize_for_match(quote.text), normal)
        return QuoteCheck(source, quote, "ok" if found else "not-found", stored)


def recheck_stored(ledger: Ledger, ids: Iterable[int] | None = None) -> list[QuoteCheck]:
    """Every quote of the sources ``ids`` (all when None), in id order, rechecked against the
    text it was checked against when it was added."""
    texts = StoredTexts(evidence_dir(ledger.path))
    wanted = None if ids is None else set(ids)
    out: list[QuoteCheck] = []
    for source in sorted(ledger.sources, key=lambda s: s.id):
        if wanted is not None and source.id not in wanted:
            continue
        out.extend(texts.check(source, q) for q in source.quotes)
    return out


# Copying texts along with a merged ledger ----------------------------------------------------


@record
class Copied:
    """What :func:`copy_texts` did: files written, and the digests it could not copy (with
    the status of the other folder's file), which ``recheck`` will then report."""

    written: int = 0
    kept: int = 0
    lost: list[tuple[int, Stored]] = field(default_factory=list)


def copy_texts(other: Ledger, into_folder: Path, *, dry_run: bool = False) -> Copied:
    """Copy the texts the quotes of ``other`` name from its evidence folder into
    ``into_folder``: only intact files (their bytes hash to their name), each once."""
    source_folder = evidence_dir(other.path)
    done = Copied()
    seen: set[str] = set()
    for source in sorted(other.sources, key=lambda s: s.id):
        for quote in source.quotes:
            digest = quote.text_sha256
            if digest is None or digest in seen:
                continue
            seen.add(digest)
            if is_digest(digest) and read_stored(into_folder, digest).status == "ok":
                done.kept += 1
                continue
            theirs = read_stored(source_folder, digest)
            if theirs.status != "ok" or theirs.text is None:
                done.lost.append((source.id, theirs))
                continue
            if not dry_run:
                store_bytes(into_folder, digest, theirs.text.encode("utf-8"))
            done.written += 1
    return done
