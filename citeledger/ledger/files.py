"""Bounded reads of files citeledger is handed: ledgers, evidence pages, tool output, drafts.

Any of these paths can be a trap: a FIFO blocks a reader forever, ``/dev/zero`` never ends, and
``st_size`` says nothing true about either. So a read opens without blocking, refuses anything
that is not a regular file, and counts the bytes it actually reads against a cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from ..errors import CiteledgerError

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
) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them; ``error`` (with
    ``what`` naming the file's role) for anything else. ``FileNotFoundError`` and other
    ``OSError`` from opening pass through for the caller to word."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
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
