"""Bounded reads of files citeledger is handed: ledgers, evidence pages, tool output, drafts.

Any of these paths can be a trap: a FIFO blocks a reader forever, ``/dev/zero`` never ends, and
``st_size`` says nothing true about either. So a read opens without blocking, refuses anything
that is not a regular file, and counts the bytes it actually reads against a cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import CiteledgerError

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

_CHUNK = 1 << 20
_KINDS = (
    (stat.S_ISDIR, "folder"),
    (stat.S_ISFIFO, "named pipe"),
    (stat.S_ISCHR, "device"),
    (stat.S_ISBLK, "device"),
    (stat.S_ISSOCK, "socket"),
)


def kind_of(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "special file"


def read_file(
    path: str | Path,
    *,
    limit: int,
    what: str,
    error: type[CiteledgerError],
    too_large_hint: str = "",
    missing_hint: str | None = None,
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them; ``error`` (with
    ``what`` naming the file's role) for anything else, worded here once for every caller.

    A missing file is ``error`` (``no <what> at <path>``, with ``missing_hint``) when the caller
    gives a hint; without one ``FileNotFoundError`` passes through, for callers to whom a missing
    file is no fault (an empty ledger, an evidence page not kept yet)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        if missing_hint is None:
            raise
        raise error(f"no {what} at {path}", hint=missing_hint or None) from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise error(
                f"{what} {path} is a {kind_of(mode)}, not a file",
                hint="give the path of a regular file",
            )
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return read_stream(
                handle, limit=limit, what=f"{what} {path}", error=error, hint=too_large_hint
            )
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_stream(
    stream: BinaryIO, *, limit: int, what: str, error: type[CiteledgerError], hint: str = ""
) -> bytes:
    """At most ``limit`` bytes of ``stream``; ``error`` when there are more."""
    parts: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        if total > limit:
            raise error(f"{what} is larger than {_size(limit)}", hint=hint or None)
    return b"".join(parts)


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB" if n >= 1024 * 1024 else f"{n} bytes"


def make_folder(folder: Path, *, what: str, error: type[CiteledgerError], hint: str) -> None:
    """Create ``folder`` (and its parents) unless it exists; ``error`` naming ``what`` if not."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise error(f"cannot create {what} {folder}: {exc.strerror or exc}", hint=hint) from None
