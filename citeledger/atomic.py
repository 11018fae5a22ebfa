"""The steps of the one safe write, on plain paths and with ``os`` alone: a new file beside the
target, made exclusively and never through a link, its bytes forced to disk, then renamed over
the target, and the rename forced too.

:mod:`citeledger.files` wraps them with each caller's error line (``write_bytes``, ``staged``);
the fast lane of ``add``, ``list`` and ``quote`` (``ledger/lane_file.py``), which imports no
``pathlib``, calls them as they are. No other module renames or forces a file
(``tests/ground/test_safe_write.py``)."""

from __future__ import annotations

import os

O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_BINARY = getattr(os, "O_BINARY", 0)


def staged_name(final: str) -> str:
    """The temporary file's name beside ``final``: ``.NAME.PID.HEX.tmp.EXT`` (a killed writer's
    is recognised, and removed, by its process id)."""
    folder, name = os.path.split(final)
    dot = name.rfind(".")
    ext = name[dot:] if 0 < dot < len(name) - 1 else ""  # as Path.suffix reads it
    return os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp{ext}")


def create(tmp: str | os.PathLike[str]) -> int:
    """A new file at ``tmp``, only for this writer (never an existing file or a link)."""
    return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW | O_BINARY, 0o600)


def commit(
    tmp: str | os.PathLike[str], final: str | os.PathLike[str], mode: int, durable: bool
) -> None:
    """``tmp`` given ``mode``, forced to disk (``durable``), and renamed over ``final``; then the
    folder forced, so that the rename survives a crash. ``OSError`` when a step before the
    rename fails (``final`` is then as it was)."""
    fd = os.open(tmp, os.O_RDONLY | O_NOFOLLOW | O_BINARY)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, final)
    if durable:
        fsync_folder(os.path.dirname(os.fspath(final)) or ".")


def fsync_folder(folder: str | os.PathLike[str]) -> None:
    """Make a rename in ``folder`` durable. Not every platform can open a folder (Windows
    cannot); there the rename is as durable as the OS makes it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
