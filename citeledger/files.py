"""The one way citeledger writes a file: the ledger, the evidence texts kept beside it, and every
output (convert's documents, wiki pages, a draft that ``render --replace-in`` or ``merge``
rewrites, a file ``finish`` post-processes).

Standard library only: ``citeledger add`` writes the ledger through here and must start fast.

The output folder is untrusted like the ledger: a cloned wiki repository can hold
``site/index.md -> ~/.bashrc``, and a typo can name the ledger or the draft as the output. So:

- the targets are checked before any work (:class:`Guard`): none may be one of the run's inputs
  (the drafts, the ledger, its lock), also not through a symlink or a hard link, nor a folder,
  nor named twice;
- a file is written to a temporary file in the target's folder (never following a symlink:
  ``O_EXCL | O_NOFOLLOW``), flushed and fsynced, then renamed over the target, and the folder
  is fsynced, so a reader sees the old file or the new one, never half. A symlink at the target
  is replaced by the file, never written through, unless the caller edits an input in place
  (``follow=True``: the draft behind a symlinked draft is what its author means);
- the new file keeps the mode of the one it replaces (a ledger made ``0640`` stays so);
- any failure (a full disk, a read-only folder) leaves the old file as it was and becomes one
  line naming the target, not the temporary file: an output's own line, or the caller's error
  class and wording (the ledger's ``LedgerError``, the evidence trail's ``EvidenceError``).

The temporary file is ``.<name>.<pid>.<random>.tmp<suffix>``: hidden, and ending in the
target's suffix, since pandoc and the office libraries choose the format by it. A writer killed
mid-write leaves one behind; :func:`remove_orphans` deletes those of a file whose writers all
hold one lock (the ledger's), and :func:`staged` those of its target whose process is gone
(:func:`remove_stale_staged`: never a live build's).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from .errors import CiteledgerError, DraftError, OutputError

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import zipfile
    from contextlib import AbstractContextManager
    from typing import BinaryIO

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_UNCHANGED = "; the old file, if any, is unchanged"


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
        self._folders: dict[str, tuple[Path, str]] = {}
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

    def protect_folder(self, folder: Path, role: str) -> None:
        """Never write anything inside ``folder`` (the ledger's evidence folder, its lock's)."""
        self._folders[os.path.realpath(folder)] = (Path(folder), role)

    def check(self, target: Path, *, what: str = "output") -> None:
        """Refuse ``target`` (before any work) if writing it would lose an input, or if it is a
        folder, a device or another file that is not a regular one, or claimed twice in this
        run. ``what`` names the target in the refusal ("draft" for one edited in place)."""
        target = Path(target)
        real = os.path.realpath(target)
        hit = self._names.get(real)
        ident = _identity(target)
        if hit is None and ident is not None:
            hit = self._protected.get(ident)
        if hit is None:
            hit = next(
                (entry for folder, entry in self._folders.items() if _within(real, folder)), None
            )
        if hit is not None:
            path, role = hit
            via = "" if os.path.abspath(target) == os.path.abspath(path) else f" ({path})"
            action = "read or rewrite" if what == "draft" else "overwrite"
            raise OutputError(
                f"{what} {target} is {role}{via}: refusing to {action} it",
                hint="check the path" if what == "draft" else "choose another file name",
            )
        try:
            mode = os.lstat(target).st_mode
        except FileNotFoundError:
            mode = 0
        except OSError as exc:
            raise OutputError(f"cannot use output {target}: {exc.strerror or exc}") from None
        if stat.S_ISDIR(mode):
            raise OutputError(
                f"{what} {target} is a folder", hint="give a file name, e.g. report.docx"
            )
        _refuse_special(target, mode, what)
        if real in self._claimed:
            raise OutputError(
                f"output {target} is named twice", hint="give each output its own name"
            )
        self._claimed.add(real)

    def unclaimed(self) -> Guard:
        """A guard protecting the same files and folders, with no target claimed yet."""
        copy = Guard()
        copy._protected = dict(self._protected)
        copy._names = dict(self._names)
        copy._folders = dict(self._folders)
        return copy

    def check_folder(self, folder: Path, *, what: str, besides: tuple[str, ...] = ()) -> None:
        """Refuse a folder another program writes files into (pandoc's ``--extract-media``)
        when it holds an input of the run (a media file could take an input's name) or lies
        inside a protected folder; inputs whose role is one of ``besides`` may lie in it."""
        real = os.path.realpath(folder)
        for name, (path, role) in [*self._names.items(), *self._folders.items()]:
            if role in besides:
                continue
            if _within(name, real) or _within(real, name):
                raise OutputError(
                    f"{what} {folder} holds {role} ({path}): refusing to write into it",
                    hint="name a folder of its own, e.g. media",
                )


def _within(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def _refuse_special(target: Path, mode: int, what: str) -> None:
    """A device, a pipe or a socket at ``target`` (or a symlink to one) is never replaced by
    a file: ``-o /dev/null`` as root would turn the device into a document (``-o -`` writes
    to standard output)."""
    absolute = os.path.abspath(target)
    if absolute.startswith(_SYSTEM_FOLDERS) and not absolute.startswith("/dev/shm/"):
        # /dev/stdout links to whatever fd 1 is, a regular file too: the link is never ours.
        # (/dev/shm is a plain memory file system, written like any folder.)
        raise OutputError(
            f"{what} {target} is in a system folder, not a file to replace",
            hint="use -o - to write to standard output" if what == "output" else None,
        )
    if stat.S_ISLNK(mode):
        try:
            mode = os.stat(target).st_mode
        except OSError:
            return  # a dangling link: the rename replaces the link, never its target
        if stat.S_ISDIR(mode):
            raise OutputError(f"{what} {target} is a link to a folder", hint="give a file name")
    if mode and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        kind = next((name for test, name in _SPECIAL if test(mode)), "special file")
        hint = "use -o - to write to standard output" if what == "output" else "check the path"
        raise OutputError(f"{what} {target} is a {kind}, not a regular file", hint=hint)


_SYSTEM_FOLDERS = ("/dev/", "/proc/")
_SPECIAL = (
    (stat.S_ISCHR, "device"),
    (stat.S_ISBLK, "device"),
    (stat.S_ISFIFO, "named pipe"),
    (stat.S_ISSOCK, "socket"),
)


class _Told:
    """How a failed write is told: as an output (``OutputError``, adding that the old file is
    unchanged once the write has begun), or as the caller's ``error`` naming ``shown`` with
    ``hint``."""

    def __init__(
        self,
        target: Path,
        error: type[CiteledgerError] | None = None,
        shown: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.error = error
        self.shown = shown or str(target)
        self.hint = hint

    def __call__(
        self, exc: OSError, *, begun: bool = True, folder: bool = False
    ) -> CiteledgerError:
        what = f"create the folder of {self.shown}" if folder else f"write {self.shown}"
        line = f"cannot {what}: {exc.strerror or exc}"
        if self.error is None:
            return OutputError(line + (_UNCHANGED if begun and not folder else ""))
        return self.error(line, hint=self.hint)


def staged(
    target: Path, *, follow: bool = False, durable: bool = True
) -> AbstractContextManager[Path]:
    """A temporary file beside ``target`` for a writer that needs a path (pandoc ``-o``, the
    office libraries); renamed over ``target`` when the block ends without an exception, and
    removed otherwise. ``follow``: a symlink at ``target`` is written through (an input edited
    in place) instead of replaced. ``durable=False`` skips the fsyncs (still atomic: a reader
    sees the old file or the new one), for many small files a crash can simply rebuild."""
    import contextlib  # here: a verify, which loads this module, writes nothing

    return contextlib.contextmanager(_staged)(target, follow, durable)


def _staged(target: Path, follow: bool, durable: bool) -> Iterator[Path]:
    target = Path(target)
    told = _Told(target)
    final, tmp, mode = _begin(target, follow, told)
    remove_stale_staged(final.parent, [final.name])
    os.close(_create(tmp, told))
    try:
        yield tmp
        _commit(tmp, final, mode, durable, told)
    finally:
        try:  # noqa: SIM105 - contextlib is an import a verify does without
            os.unlink(tmp)
        except OSError:
            pass


def write_bytes(
    target: Path,
    data: bytes,
    *,
    follow: bool = False,
    durable: bool = True,
    error: type[CiteledgerError] | None = None,
    shown: str | None = None,
    hint: str | None = None,
) -> None:
    """Write ``data`` to ``target`` (see :func:`staged` for ``follow`` and ``durable``). A
    failure is an ``OutputError``, or ``error`` naming ``shown`` (default: the target) with
    ``hint`` when the caller gives one."""
    target = Path(target)
    told = _Told(target, error, shown, hint)
    final, tmp, mode = _begin(target, follow, told)
    fd = _create(tmp, told)
    try:
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            raise told(exc) from None
        _commit(tmp, final, mode, durable, told)
    finally:
        try:  # noqa: SIM105 - contextlib is an import a verify does without
            os.unlink(tmp)
        except OSError:
            pass


def fill(tmp: Path, data: bytes, target: Path) -> None:
    """Write ``data`` into the staged file ``tmp`` of ``target`` (errors name ``target``)."""
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC | _O_NOFOLLOW | _O_BINARY)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise _Told(Path(target))(exc) from None


def remove_orphans(target: Path) -> None:
    """Delete the temporary files that writers of ``target`` killed mid-write left beside it.
    Only for a file whose every writer holds one lock, called under that lock: then no
    temporary file of ``target`` belongs to a live writer."""
    prefix = f".{target.name}."
    endings = (".tmp", f".tmp{target.suffix}")
    try:
        entries = [e.path for e in os.scandir(target.parent) if e.name.startswith(prefix)]
    except OSError:
        return
    for entry in entries:
        if entry.endswith(endings):
            try:  # noqa: SIM105 - contextlib is an import a verify does without
                os.unlink(entry)
            except OSError:
                pass


def _begin(target: Path, follow: bool, told: _Told) -> tuple[Path, Path, int]:
    """The file to replace, its temporary file's name, and the mode the new file gets."""
    final = Path(os.path.realpath(target)) if follow else target
    try:
        mode = os.lstat(final).st_mode
    except OSError:
        mode = 0
    _refuse_special(final, mode, "output")
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise told(exc, folder=True) from None
    # Not tempfile.mkstemp: importing tempfile costs more start-up than `add` can spare.
    from . import atomic  # here: a verify, which reads and writes nothing, loads none of it

    tmp = Path(atomic.staged_name(str(final)))
    return final, tmp, _mode_for(final)


def _create(tmp: Path, told: _Told) -> int:
    from . import atomic

    try:
        return atomic.create(tmp)
    except OSError as exc:
        raise told(exc, begun=False) from None


def _commit(tmp: Path, final: Path, mode: int, durable: bool, told: _Told) -> None:
    from . import atomic

    try:
        atomic.commit(tmp, final, mode, durable)
    except OSError as exc:
        raise told(exc) from None


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


# --- staged files a killed build left ------------------------------------------------------------


def remove_stale_staged(folder: Path, names: Iterable[str]) -> list[Path]:
    """Delete, in ``folder``, the staged files (``.NAME.PID.HEX.tmp.EXT``) of the targets
    ``names`` that a writer killed mid-write left behind: only those whose process is gone, so
    a build running beside this one keeps its own. Returns the files removed."""
    wanted = {f".{name}." for name in names}
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        prefix = next((w for w in wanted if entry.name.startswith(w)), None)
        if prefix is None:
            continue
        parts = entry.name[len(prefix) :].split(".", 2)
        if len(parts) < 3 or not parts[0].isdigit() or not parts[2].startswith("tmp"):
            continue
        if not _is_hex(parts[1]) or _alive(int(parts[0])):
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        try:
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def _is_hex(text: str) -> bool:
    return len(text) == 12 and all(c in "0123456789abcdef" for c in text)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (one of another user's counts as running)."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


# --- zip archives handed to a reader ------------------------------------------------------------
#
# Zip archives handed to a reader (docx, pptx, odt, epub), sized before anything inflates them.
#
# A draft or a delivered file is a zip whoever made it chose: a 320 KB .docx can hold a
# ``document.xml`` of 300 MB (deflate packs a repeated byte about a thousand to one), and pandoc,
# handed it by ``citeledger verify``, took 2.5 GB of memory. So before pandoc or python-docx sees
# an archive, :func:`check_archive` reads its directory and refuses, in one line:
#
# - more than :data:`MAX_MEMBERS` files;
# - more than :data:`MAX_TOTAL` bytes declared in all (real documents, media included, stay far
#   below: the largest fixture inflates to 110 KB);
# - a member past :data:`BOMB_SIZE` that inflates more than :data:`BOMB_RATIO` to one (XML that
#   Word, PowerPoint or LibreOffice write packs 5 to 20 to one);
# - a member that inflates to more than it declares: the check is measured, not trusted. Each
#   deflated member is inflated here, in bounded steps, and stopped one byte past its declared
#   size, so the work is at most the declared total (which the caps bound) and no lie about a
#   size gets past.
#
# Not bounded here: pandoc's memory for an archive that passes (a heap cap, ``+RTS -M``, would
# need a figure right for every real document, and pandoc built without ``-rtsopts`` refuses the
# flag outright).


MAX_MEMBERS = 10_000
MAX_TOTAL = 1 << 30  # 1 GiB
BOMB_SIZE = 16 << 20  # 16 MiB
BOMB_RATIO = 100
_STEP = 1 << 20
_LOCAL_HEADER = "<4s22xHH"  # signature, ..., file name length, extra length
_HINT_HOSTILE = "do not open it elsewhere either; get the document again from whoever made it"


def check_archive(path: str | Path) -> None:
    """Refuse (``DraftError``) the zip at ``path`` if inflating it would cost more than a real
    document does (see the module docstring). A file that is no zip passes: its reader says
    what is wrong with it."""
    import zipfile  # here: every command imports this module, few open a zip

    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, ValueError):
        return
    with archive, open(path, "rb") as raw:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise DraftError(
                f"{path} holds {len(infos):,} files, more than the {MAX_MEMBERS:,} a document "
                "needs",
                hint="save it again from the program that made it",
            )
        total = sum(info.file_size for info in infos)
        if total > MAX_TOTAL:
            raise DraftError(
                f"{path} inflates to {total:,} bytes, more than {MAX_TOTAL:,}",
                hint="split the document, or take out large embedded media",
            )
        for info in infos:
            ratio = info.file_size // max(info.compress_size, 1)
            if info.file_size > BOMB_SIZE and ratio > BOMB_RATIO:
                raise DraftError(
                    f"{path} is a zip bomb: {info.filename} inflates {info.compress_size:,} "
                    f"bytes to {info.file_size:,} ({ratio:,} to 1)",
                    hint=_HINT_HOSTILE,
                )
        for info in infos:
            if info.compress_type == zipfile.ZIP_DEFLATED and _inflates_past(raw, info):
                raise DraftError(
                    f"{path}: {info.filename} inflates to more than the {info.file_size:,} "
                    "bytes it declares",
                    hint=_HINT_HOSTILE,
                )


def _inflates_past(handle: BinaryIO, info: zipfile.ZipInfo) -> bool:
    """Whether the member's deflate stream gives more than its declared size (inflating at
    most one step past it). A member too broken to read is left to the reader to report."""
    import struct  # here, as zipfile: loaded by zipfile already, by no other run
    import zlib

    local = struct.Struct(_LOCAL_HEADER)
    handle.seek(info.header_offset)
    header = handle.read(local.size)
    if len(header) < local.size:
        return False
    signature, name_len, extra_len = local.unpack(header)
    if signature != b"PK\x03\x04":
        return False
    handle.seek(info.header_offset + local.size + name_len + extra_len)
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    left, produced = info.compress_size, 0
    try:
        while left > 0 and not inflater.eof:
            data = handle.read(min(_STEP, left))
            if not data:
                break
            left -= len(data)
            while data:
                produced += len(inflater.decompress(data, _STEP))
                if produced > info.file_size:
                    return True
                data = inflater.unconsumed_tail
    except zlib.error:
        return False
    return False
