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

``os`` and ``_blake2`` alone: the fast lane (:mod:`~.lane`) imports this.
"""

from __future__ import annotations

import os

NO_CACHE_VAR = "CITELEDGER_NO_CACHE"
_RECORD_BYTES = 64


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


def proven(ledger: str, data: bytes) -> int | None:
    """The high-water mark recorded for ``data`` (the bytes of the ledger at ``ledger``) when
    this user's citeledger proved these very bytes sound; None otherwise."""
    folder = _folder(create=False)
    if folder is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(_record_path(folder, ledger), flags)
    except OSError:
        return None
    try:
        record = os.read(fd, _RECORD_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    digest, _, high = record.decode("ascii", "replace").partition(" ")
    if len(record) > _RECORD_BYTES or not high.endswith("\n") or not high[:-1].isdigit():
        return None
    return int(high) if digest == _digest(data) else None


def record(ledger: str, data: bytes, high: int) -> None:
    """Note that ``data``, the bytes of the ledger at ``ledger``, were proven sound with
    high-water mark ``high`` (or written from a proven text and entries citeledger made). A
    failure records nothing: the next call proves the text again."""
    folder = _folder(create=True)
    if folder is None:
        return
    from ..atomic import commit, create, staged_name

    final = _record_path(folder, ledger)
    tmp = staged_name(final)
    try:
        fd = create(tmp)
        with open(fd, "wb", closefd=True) as handle:
            handle.write(f"{_digest(data)} {high}\n".encode("ascii"))
        commit(tmp, final, 0o600, durable=False)
    except OSError:
        try:  # noqa: SIM105 - contextlib is an import the lane does without
            os.unlink(tmp)
        except OSError:
            pass
