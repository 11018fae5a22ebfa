"""The one way citeledger writes an output file: convert's documents, wiki pages, a draft that
``render --replace-in`` rewrites, a file ``finish`` post-processes.

The output folder is untrusted like the ledger: a cloned wiki repository can hold
``site/index.md -> ~/.bashrc``, and a typo can name the ledger or the draft as the output. So:

- the targets are checked before any work: none may be one of the run's inputs (the drafts,
  the ledger, its lock), also not through a symlink or a hard link, nor a folder, nor named
  twice;
- a file is written to a temporary file in the target's folder (never following a symlink:
  ``O_EXCL | O_NOFOLLOW``), flushed and fsynced, then renamed over the target. A symlink at the
  target is replaced by the file, never written through, unless the caller edits an input in
  place (``follow=True``: the draft behind a symlinked draft is what its author means);
- any failure (a full disk, a read-only folder) leaves the old file as it was and becomes one
  line naming the target, not the temporary file.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .errors import BadInput

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class OutputError(BadInput):
    """An output that must not or cannot be written."""


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class Guard:
    """The files a run reads and must never overwrite, and the targets it has claimed."""

    def __init__(self, protected: Iterable[tuple[str | Path, str]] = ()) -> None:
        self._protected: dict[tuple[int, int], tuple[Path, str]] = {}
        self._names: dict[str, tuple[Path, str]] = {}
        self._claimed: set[str] = set()
        for path, role in protected:
            self.protect(Path(path), role)

    def protect(self, path: Path, role: str) -> None:
        """Never write onto ``path`` (``role`` names it in the refusal: "the ledger")."""
        entry = (path, role)
        ident = _identity(path)
        if ident is not None:
            self._protected[ident] = entry
        self._names[os.path.realpath(path)] = entry

    def check(self, target: Path) -> None:
        """Refuse ``target`` (before any work) if writing it would lose an input, or if it is a
        folder or claimed twice in this run."""
        target = Path(target)
        real = os.path.realpath(target)
        hit = self._names.get(real)
        ident = _identity(target)
        if hit is None and ident is not None:
            hit = self._protected.get(ident)
        if hit is not None:
            path, role = hit
            via = "" if os.path.abspath(target) == os.path.abspath(path) else f" ({path})"
            raise OutputError(
                f"output {target} is {role}{via}: refusing to overwrite it",
                hint="choose another output name",
            )
        try:
            mode = os.lstat(target).st_mode
        except FileNotFoundError:
            mode = 0
        except OSError as exc:
            raise OutputError(f"cannot use output {target}: {exc.strerror or exc}") from None
        if stat.S_ISDIR(mode):
            raise OutputError(
                f"output {target} is a folder", hint="give a file name, e.g. report.docx"
            )
        if real in self._claimed:
            raise OutputError(
                f"output {target} is named twice", hint="give each output its own name"
            )
        self._claimed.add(real)


@contextlib.contextmanager
def staged(target: Path, *, follow: bool = False, durable: bool = True) -> Iterator[Path]:
    """A temporary file beside ``target`` for a writer that needs a path (pandoc ``-o``, the
    office libraries); renamed over ``target`` when the block ends without an exception, and
    removed otherwise. ``follow``: a symlink at ``target`` is written through (an input edited
    in place) instead of replaced. ``durable=False`` skips the fsyncs (still atomic: a reader
    sees the old file or the new one), for many small files a crash can simply rebuild."""
    target = Path(target)
    final = Path(os.path.realpath(target)) if follow else target
    folder = final.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the folder of {target}: {exc.strerror or exc}") from None
    mode = _mode_for(final)
    # The suffix stays last: writers and renderers choose the format by it.
    tmp = folder / f".{final.name}.{os.getpid()}.{os.urandom(4).hex()}{final.suffix}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW, 0o600)
        os.close(fd)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        yield tmp
        _commit(tmp, final, mode, target, durable)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def write_bytes(target: Path, data: bytes, *, follow: bool = False, durable: bool = True) -> None:
    """Write ``data`` to ``target`` through :func:`staged`."""
    with staged(target, follow=follow, durable=durable) as tmp:
        fill(tmp, data, target)


def write_with(target: Path, produce: Callable[[Path], None], *, follow: bool = False) -> None:
    """Let ``produce`` write the staged file, then put it in place."""
    with staged(target, follow=follow) as tmp:
        produce(tmp)


def fill(tmp: Path, data: bytes, target: Path) -> None:
    """Write ``data`` into the staged file ``tmp`` of ``target`` (errors name ``target``)."""
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC | _O_NOFOLLOW)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise OutputError(_failed(target, exc)) from None


def _commit(tmp: Path, final: Path, mode: int, target: Path, durable: bool) -> None:
    try:
        fd = os.open(tmp, os.O_RDONLY | _O_NOFOLLOW)
        try:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, final)
    except OSError as exc:
        raise OutputError(_failed(target, exc)) from None
    if not durable:
        return
    with contextlib.suppress(OSError):
        dfd = os.open(final.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _failed(target: Path, exc: OSError) -> str:
    return f"cannot write {target}: {exc.strerror or exc}; the old file, if any, is unchanged"


def _mode_for(final: Path) -> int:
    """The mode of the file being replaced, else what the umask gives a new file."""
    try:
        st = os.stat(final)
        if stat.S_ISREG(st.st_mode):
            return st.st_mode & 0o7777
    except OSError:
        pass
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
