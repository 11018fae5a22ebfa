"""A record of the large ledger texts this user's citeledger has proven sound, so that the next
call on the same bytes skips the one-pass pattern (:mod:`~.layout_pattern`) and ``re`` itself.

Every call reads the whole ledger and checks every URL in it (issue 37). On a ledger of 10,000
sources the proof (importing ``re``, compiling the pattern and running it over 1.6 MB) costs
more than the rest of an ``add``; an agent then adds one source and calls again on a text that
differs from the proven one only by the entry citeledger itself wrote. The proof is a function
of the text alone, so it is kept as a digest of the proven text (BLAKE2b, 160 bits): a call
whose text has that digest holds the same bytes, already proven, and needs no second proof. Any
other text (changed by hand, by another tool, truncated, another file) is proven again.

The record is the user's, never the project's: a project, a cloned repository or a shared
folder is untrusted input (DESIGN.md), and a record it shipped could vouch for a ledger nobody
checked. It lives in the user's cache folder (``$XDG_CACHE_HOME/citeledger/checked``, else
``~/.cache/citeledger/checked``), made private (0700); a folder another user owns, or one others
may write, is not read or written. One record per ledger path, named by the digest of its
absolute path: ``DIGEST HIGH`` (the text's digest and its high-water mark). Where the folder
cannot be made or written (a read-only home, Windows without ``getuid``), or with
``CITELEDGER_NO_CACHE`` set, nothing is recorded and every call proves its text.

Hashing the text is itself a pass over every byte (a fifth of ``list`` on 50,000 sources), so a
record also names the file the text was read from as the descriptor read tells it (device,
inode, size, modification and change times: :data:`Key`), as git's index and make trust a file
unchanged: a call whose file shows the same key holds the same bytes, and needs no digest. A
change time cannot be set by a user (``os.utime`` sets it to now), so a ledger edited in place
(its modification time put back or not), truncated, replaced by a rename, copied or restored
shows another key. A change within the clock's step of the last one may leave the times as they
were, so, as git's "racily clean" rule, the key is trusted only for a file whose times are older
than the moment the proven text was read by more than a step of its file system's clock: a
file whose times both show a part of a second has a fine clock (Linux stamps a change with the
clock of its last tick, at most 10 ms old), :data:`FINE_NS`; any other, :data:`SETTLED_NS`
(FAT's step is two seconds). A newer file is judged by its digest, and its record gets its key
once a later call finds it settled and the same: an agent's ``list`` right after its ``add``
(or an editor's save) hashes the text once more, the calls after it do not.

``os`` and ``_blake2`` alone: the fast lane (:mod:`~.lane`) imports this.
"""

from __future__ import annotations

import os

NO_CACHE_VAR = "CITELEDGER_NO_CACHE"
# ``DIGEST HIGH`` or ``DIGEST HIGH DEV INO SIZE MTIME CTIME ASKED``: each number at most 20
# digits (64 bits), the whole at most 40 + 7 * 21 + 1 bytes.
_RECORD_BYTES = 256
# Longer than any file system's step of time stamps (FAT's two seconds), so that a change after
# the read cannot show the times the read saw; FINE_NS where the times show a fine clock.
SETTLED_NS = 3_000_000_000
FINE_NS = 100_000_000

# Read by type checkers only: ``typing`` is no cost of a quick verb (``light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    # st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns of the descriptor the text was read
    # from, before and after the read alike, and time.time_ns() before the first of them.
    Key = tuple[int, ...]


def _digest(data: bytes) -> str:
    from _blake2 import blake2b

    return blake2b(data, digest_size=20).hexdigest()


def _folder(create: bool) -> str | None:
    """The private record folder, or None where there is none this user alone may write."""
    if os.environ.get(NO_CACHE_VAR) or not hasattr(os, "getuid"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        home = os.environ.get("HOME") or ""
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    folder = os.path.join(base, "citeledger", "checked")
    try:
        st = os.stat(folder, follow_symlinks=False)
    except FileNotFoundError:
        if not create:
            return None
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            st = os.stat(folder, follow_symlinks=False)
        except OSError:
            return None
    except OSError:
        return None
    if (st.st_mode & 0o170000) != 0o040000 or st.st_uid != os.getuid() or st.st_mode & 0o022:
        return None
    return folder


def _record_path(folder: str, ledger: str) -> str:
    return os.path.join(folder, _digest(os.path.abspath(ledger).encode("utf-8", "surrogatepass")))


def settled(key: Key) -> bool:
    """Whether the file's times in ``key`` are older than its read by more than a step of the
    file system's clock (see the module's docstring)."""
    if len(key) != 6:
        return False
    fine = key[3] % 1_000_000_000 and key[4] % 1_000_000_000
    return max(key[3], key[4]) < key[5] - (FINE_NS if fine else SETTLED_NS)


def _recorded(ledger: str) -> tuple[str, int, Key | None] | None:
    """The record of ``ledger``: the digest, the high-water mark and the key of the proven
    text; None for no record, or one that is not this user's or not well formed."""
    folder = _folder(create=False)
    if folder is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(_record_path(folder, ledger), flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (st.st_mode & 0o170000) != 0o100000 or st.st_uid != os.getuid():
            return None
        record = os.read(fd, _RECORD_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(record) > _RECORD_BYTES or not record.endswith(b"\n"):
        return None
    fields = record[:-1].decode("ascii", "replace").split(" ")
    numbers = fields[1:]
    if len(fields) not in (2, 8) or not all(n.isdigit() for n in numbers):
        return None
    key = tuple(map(int, fields[2:])) or None
    return fields[0], int(fields[1]), key


def proven(ledger: str, data: str | bytes, key: Key | None = None) -> int | None:
    """The high-water mark recorded for ``data`` (the text, or its UTF-8 bytes, of the ledger
    at ``ledger``, read with ``key``, see :func:`~.lane_file.read_keyed`) when this user's
    citeledger proved these very bytes sound; None otherwise."""
    found = _recorded(ledger)
    if found is None:
        return None
    digest, high, known = found
    if key is not None and known is not None and key[:5] == known[:5] and settled(known):
        return high  # the same file, unchanged since the proven text was read
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if digest != _digest(raw):
        return None
    if key is not None and settled(key):
        _write(ledger, digest, high, key)  # the next call needs no digest
    return high


def record(ledger: str, data: str | bytes, high: int, key: Key | None = None) -> None:
    """Note that ``data``, the text or bytes of the ledger at ``ledger`` (read with ``key``),
    were proven sound with high-water mark ``high`` (or written from a proven text and entries
    citeledger made). A failure records nothing: the next call proves the text again."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    _write(ledger, _digest(raw), high, key)


def _write(ledger: str, digest: str, high: int, key: Key | None) -> None:
    folder = _folder(create=True)
    if folder is None:
        return
    from ..atomic import commit, create, staged_name

    line = f"{digest} {high}"
    if key is not None and len(key) == 6 and all(0 <= n < 2**64 for n in key) and high < 2**64:
        line += " " + " ".join(map(str, key))
    final = _record_path(folder, ledger)
    tmp = staged_name(final)
    try:
        fd = create(tmp)
        with open(fd, "wb", closefd=True) as handle:
            handle.write(f"{line}\n".encode("ascii"))
        commit(tmp, final, 0o600, durable=False)
    except OSError:
        try:  # noqa: SIM105 - contextlib is an import the lane does without
            os.unlink(tmp)
        except OSError:
            pass
