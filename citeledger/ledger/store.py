"""The ledger on disk: where it is, how it is read, and how it is changed without losing data.

Many agents may add sources to one ledger at the same moment, and any of them may be killed
mid-write. So a change is one transaction:

1. take an OS lock on the ledger's lock file (:mod:`.lock_file`): a blocking ``flock`` where
   the OS has it (the same lock filelock takes, so both interoperate), filelock elsewhere
   (Windows, file systems without flock). The kernel drops the lock when its holder dies, so
   there is nothing stale to steal and no timeout: a waiter waits for a live holder rather than
   breaking its lock and losing its write. The lock file is never deleted, so all waiters lock
   the same inode;
2. read and validate the ledger. A file that does not parse or has the wrong shape raises
   ``LedgerError`` and is never written over: it may be a person's only copy;
3. write the new text through the one safe write (``citeledger.files``: a temporary file in
   the same folder, forced to disk, then renamed over the ledger), so a reader sees the old or
   the new ledger, never half. A temporary file left by a writer killed mid-write is
   deleted by the next lock holder.

Reading (``load_ledger``) takes no lock: thanks to step 3 a reader always sees a whole file.
"""

from __future__ import annotations

import errno
import gc
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import LedgerError, LedgerShapeError, UnsafeLedgerEntry
from ..files import Guard, remove_orphans, write_bytes
from .files import make_folder, read_file
from .layout import LayoutText, TextLedger, fast_ledger
from .light import contextmanager, pattern  # compiled on first use: start-up time
from .model import Ledger, Source

DEFAULT_NAME = "ledger.json"
# Far above any real ledger (10,000 sources with quotes is a few MB), low enough that a wrong
# path (a disk image) is refused before it fills memory.
MAX_LEDGER_BYTES = 256 * 1024 * 1024
_SURROGATE_ESCAPE = pattern(r"\\u[dD][89a-fA-F]")
_SURROGATE = pattern("[\ud800-\udfff]")
ENV_VARS = ("CITELEDGER_LEDGER", "HERMES_CITATION_LEDGER")
# Where the grounded-citations skill keeps its ledger, under $HERMES_HOME.
HERMES_SUBPATH = Path("cache", "citations", DEFAULT_NAME)
_RECOVER = "fix the file by hand, restore a backup, or run `citeledger reset` to start a new one"
# Where filelock has to poll, a waiter re-tries this often (parallel adds stay quick).
_POLL_SECONDS = 0.002
# flock errors meaning "this file system cannot flock": fall back to filelock.
_NO_FLOCK = {errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOLCK, errno.EINVAL}


def locate_ledger(explicit: str | Path | None = None) -> tuple[Path, str]:
    """The ledger to use and why, first that applies:

    1. ``--ledger PATH``;
    2. ``$CITELEDGER_LEDGER``, then ``$HERMES_CITATION_LEDGER`` (the grounded-citations
       variable, so existing set-ups keep working);
    3. ``$HERMES_HOME/cache/citations/ledger.json`` when ``$HERMES_HOME`` is set: inside a
       Hermes agent the skill tells the agent its ledger lives there, and sources.py put it there;
    4. ``./ledger.json``: a publishing project keeps its ledger beside its drafts. (sources.py
       falls back to ``~/.hermes``; outside Hermes a hidden per-user ledger would mix projects.)

    The reason is a phrase for messages such as ``list``'s empty-ledger line."""
    if explicit is not None and str(explicit).strip():
        return _usable(str(explicit), "--ledger"), "given by --ledger"
    for var in ENV_VARS:
        value = os.environ.get(var, "").strip()
        if value:
            return _usable(value, f"${var}"), f"given by ${var}"
    home = os.environ.get("HERMES_HOME", "").strip()
    if home:
        path = _usable(os.path.join(home, HERMES_SUBPATH), "$HERMES_HOME")
        return path, "the skill's place under $HERMES_HOME"
    return Path(DEFAULT_NAME), (
        "the working directory's, as none of --ledger, $CITELEDGER_LEDGER, "
        "$HERMES_CITATION_LEDGER, $HERMES_HOME is set"
    )


def ledger_guard(ledger: Path, others: Iterable[tuple[Path, str]] = ()) -> Guard:
    """What a file citeledger edits in place (a draft ``merge --rewrite`` or ``render
    --replace-in`` rewrites) must never be, also through a symlink or a hard link: the ledger,
    its lock file and lock folder, its evidence folder, and ``others``."""
    from .evidence_store import evidence_dir
    from .lock_file import lock_path  # here: a verify takes no lock

    guard = Guard([(ledger, "the ledger"), *others])
    lock = lock_path(ledger)
    guard.protect(lock, "the ledger's lock file")
    guard.protect_folder(lock.parent, "the ledger's lock folder")
    guard.protect_folder(evidence_dir(ledger), "the ledger's evidence folder")
    return guard


# POSIX's smallest limits are far lower; these are what Linux, macOS and Windows file systems
# take, and what a path past them fails with (ENAMETOOLONG) deep inside a read.
_NAME_MAX = 255
_PATH_MAX = 4096


def _usable(text: str, given: str) -> Path:
    """``text`` as a ledger path (``~`` expanded), or one ``LedgerError`` line saying why it
    can be none: an unknown user's ``~name``, a name or a path too long for any file system."""
    shown = text if len(text) <= 80 else text[:77] + "..."
    try:
        path = Path(text).expanduser()
    except RuntimeError:
        user = text[1:].split("/", 1)[0].split(os.sep, 1)[0]
        raise LedgerError(
            f"ledger path {shown} ({given}): no user {user!r} to find a home folder for",
            hint="write the path out in full",
        ) from None
    encoded = os.fsencode(path)
    longest = max((len(part) for part in encoded.split(os.fsencode(os.sep))), default=0)
    if longest > _NAME_MAX or len(encoded) > _PATH_MAX:
        what = f"a name of {longest} bytes" if longest > _NAME_MAX else f"{len(encoded)} bytes"
        raise LedgerError(
            f"ledger path {shown} ({given}) is too long: {what}",
            hint=f"names take at most {_NAME_MAX} bytes and paths {_PATH_MAX}: choose a "
            "shorter one",
        )
    return path


def resolve_ledger_path(explicit: str | Path | None = None) -> Path:
    """The ledger path alone (see ``locate_ledger`` for the order)."""
    return locate_ledger(explicit)[0]


_CREATE_HINT = "run `citeledger add URL` or `citeledger reset` to create it"


def load_ledger(path: Path, *, missing_ok: bool = False) -> Ledger:
    """Read and validate the ledger at ``path``. A missing file is an empty ledger when
    ``missing_ok``; everything else that is wrong raises ``LedgerError`` naming the path, the
    fault and the way out."""
    path = Path(path)
    if path.is_dir():
        raise _folder_error(path)
    try:
        raw = read_file(
            path,
            limit=MAX_LEDGER_BYTES,
            what="ledger",
            error=LedgerError,
            missing_hint=None if missing_ok else _CREATE_HINT,
        )
    except FileNotFoundError:
        return Ledger(path)
    return parse_ledger(path, raw)


def parse_ledger(path: Path, raw: bytes) -> Ledger:
    """Validate the bytes of a ledger file (see ``load_ledger``)."""
    # A ledger is tens of thousands of objects made at once and kept: the cyclic collector,
    # triggered by their count, would walk them all again and again (a 50,000-source load
    # spent most of its time there). They hold no cycle; collection resumes afterwards.
    if not gc.isenabled():
        return _parse_ledger(path, raw)
    gc.disable()
    try:
        return _parse_ledger(path, raw)
    finally:
        gc.enable()


def _parse_ledger(path: Path, raw: bytes) -> Ledger:
    if not raw.strip():
        raise LedgerError(
            f"ledger {path} is empty ({len(raw)} bytes), probably an interrupted write",
            hint=_RECOVER,
        )
    try:
        # What ``raw.decode("utf-8-sig")`` gives, offsets and all (counted after the mark),
        # without loading that codec's module.
        text = (raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LedgerError(
            f"ledger {path} is not UTF-8 text (bad byte at offset {exc.start})", hint=_RECOVER
        ) from None
    # The common ledger, in the layout citeledger writes, is checked in one pass (layout.py).
    fast = fast_ledger(path, text)
    if fast is not None:
        return fast
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LedgerError(
            f"ledger {path} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            hint=_RECOVER,
        ) from None
    except RecursionError:
        raise LedgerError(f"ledger {path} nests too deeply to be a ledger", hint=_RECOVER) from None
    except ValueError as exc:  # a number of thousands of digits, say
        raise LedgerError(f"ledger {path} is not a ledger ({exc})", hint=_RECOVER) from None
    # JSON can spell a lone surrogate (\ud800), which no file or terminal can print; only text
    # holding such an escape needs the walk.
    if _SURROGATE_ESCAPE.search(text) and (where := _lone_surrogate(data, "")):
        raise LedgerError(
            f"ledger {path} holds text that is not valid Unicode at {where.lstrip('.')}",
            hint=_RECOVER,
        )
    try:
        ledger = Ledger.from_dict(path, data)
    except UnsafeLedgerEntry as exc:
        raise LedgerError(
            f"ledger {path} holds an entry no reader should open: {exc}",
            hint="fix or remove that entry by hand (citeledger never rewrites a ledger it "
            "refuses), or run `citeledger reset`",
        ) from None
    except LedgerShapeError as exc:
        raise LedgerError(f"ledger {path} has the wrong shape: {exc}", hint=_RECOVER) from None
    ledger.loaded_text = text
    return ledger


def _lone_surrogate(node: object, where: str) -> str | None:
    """The place of the first string (key or value) holding a lone surrogate, or None."""
    stack: list[tuple[object, str]] = [(node, where)]
    while stack:
        cur, at = stack.pop()
        if isinstance(cur, str):
            if _SURROGATE.search(cur):
                return at or "the top level"
        elif isinstance(cur, dict):
            for key, value in cur.items():
                if _SURROGATE.search(key):
                    return f"{at}.{key!a}"
                stack.append((value, f"{at}.{key}"))
        elif isinstance(cur, list):
            stack.extend((item, f"{at}[{i}]") for i, item in enumerate(cur))
    return None


@contextmanager
def transaction(path: Path) -> Iterator[Ledger]:
    """Hold the ledger's lock, yield it for changes, and write it back atomically if a change
    marked it dirty. An exception inside the block writes nothing."""
    target = _real_target(Path(path))
    with _locked(target):
        _refuse_read_only(target, path)
        remove_orphans(target)  # only lock holders write the ledger: these writers died
        ledger = load_ledger(target, missing_ok=True)
        ledger.path = Path(path)
        yield ledger
        if ledger.dirty:
            _write(target, updated_text(ledger).encode("utf-8"), path)
            ledger.dirty = False
            ledger.loaded_text = None


def reset_ledger(path: Path) -> Path | None:
    """Replace the ledger by an empty one, under the lock. An unreadable old file is first
    copied aside (``<name>.corrupt-<time>``, never over an earlier copy) so the reset loses
    nothing; its path is returned. A read-only ledger, or a path that is not a regular file,
    is refused."""
    target = _real_target(Path(path))
    saved: Path | None = None
    with _locked(target):
        _refuse_read_only(target, path)
        try:
            raw = read_file(target, limit=MAX_LEDGER_BYTES, what="ledger", error=LedgerError)
        except FileNotFoundError:
            raw = None
        if raw is not None:
            try:
                parse_ledger(target, raw)
            except LedgerError:
                saved = _backup_name(target)
                _write(saved, raw, saved)
        _write(target, dump_ledger(Ledger(target)).encode("utf-8"), path)
    return saved


def _backup_name(target: Path) -> Path:
    """``<name>.corrupt-<time>``, with ``-2``, ``-3``... when a copy of that second exists."""
    import time

    stem = f"{target.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}"
    candidate = target.with_name(stem)
    n = 2
    while os.path.lexists(candidate):
        candidate = target.with_name(f"{stem}-{n}")
        n += 1
    return candidate


def _refuse_read_only(target: Path, shown: Path) -> None:
    """A ledger whose mode forbids writing is someone's decision (an archived ledger, a shared
    read-only copy): replacing it through the folder would override that, so refuse."""
    try:
        mode = target.stat().st_mode
    except OSError:
        return
    if not mode & 0o222:
        raise LedgerError(
            f"ledger {shown} is read-only",
            hint=f"citeledger will not replace it; chmod u+w {shown} to allow changes",
        )


def _write(target: Path, data: bytes, shown: Path) -> None:
    write_bytes(
        target,
        data,
        error=LedgerError,
        shown=str(shown),
        hint="check the folder's permissions and free space; the old ledger is intact",
    )


def dump_ledger(ledger: Ledger) -> str:
    """The file text: two-space indented JSON with non-ASCII kept readable, as sources.py wrote."""
    return json.dumps(ledger.to_dict(), indent=2, ensure_ascii=False) + "\n"


# How the file dump_ledger writes ends: the sources list closed, the high-water mark, the object.
_TAIL_START = '\n  ],\n  "last_id": '
_TAIL = pattern(r'\n  \],\n  "last_id": [0-9]+\n\}\n')


def updated_text(ledger: Ledger) -> str:
    """The file text after a transaction's changes. When the changes are new sources at the end
    of a ledger read from a file that ends as :func:`dump_ledger` writes it, and a few changed
    entries laid out as it writes them, the new and changed entries go into the text that was
    read (an add into 10,000 sources writes out one entry, not all): the same JSON value, byte
    for byte the same file when it was citeledger's."""
    if isinstance(ledger, TextLedger) and not ledger.whole:
        done = _text_ledger_text(ledger)
        if done is not None:
            return done
    old = ledger.loaded_text
    new = ledger.appended
    kept = len(ledger.sources) - len(new)
    if (
        old is None
        or ledger.rewrite
        or ledger.extra
        or kept < 1
        or not old.startswith('{\n  "version": ')
        or any(a is not b for a, b in zip(ledger.sources[kept:], new, strict=True))
    ):
        return dump_ledger(ledger)
    text = old
    if ledger.changed_ids:
        edited = _edited(ledger, old)
        if edited is None:
            return dump_ledger(ledger)
        text = edited
    if new:
        # The last member of the top-level object (the file ends with it) is last_id, and the
        # keys are version, sources and last_id alone (no extra): the list it follows is the
        # sources.
        cut = text.rfind(_TAIL_START)
        if cut < 0 or not _TAIL.fullmatch(text, cut):
            return dump_ledger(ledger)
        high = max(ledger.last_id, max(s.id for s in new))
        entries = "".join(",\n" + _entry_text(s) for s in new)
        text = f'{text[:cut]}{entries}\n  ],\n  "last_id": {high}\n}}\n'
    if ledger.changed_ids and not _proven(ledger, old, text):
        # An entry found by its opening lines is checked as a whole: the text must read back
        # as the ledger in memory (one C-speed parse and comparison, far cheaper than the
        # pure-Python indenting encoder), else the file is written whole.
        try:
            same = json.loads(text) == ledger.to_dict()
        except ValueError:
            same = False
        if not same:
            return dump_ledger(ledger)
    return text


def _text_ledger_text(ledger: TextLedger) -> str | None:
    """The file text of a :class:`~.layout.TextLedger` whose sources were not all built: the
    text read, each changed source's entry replaced (the layout proves each line ``    {``
    opens an entry of the sources list, so the one that opens with its id is its entry), the new
    entries inserted before the list closes, and the high-water mark written after it, as
    :func:`dump_ledger` writes them all. None when that does not apply (an empty ledger, many
    changed entries): the caller builds every source and goes the general way."""
    text: str = ledger._text
    if not ledger._ids or len(ledger.changed_ids) > _EDITS:
        return None
    for sid in sorted(ledger.changed_ids):
        start = text.find(f'\n    {{\n      "id": {sid},\n')
        end = text.find("\n    }", start + 1)
        text = text[: start + 1] + _entry_text(ledger.built[sid]) + text[end + 6 :]
    cut = text.rfind("\n  ]")
    entries = "".join(",\n" + _entry_text(s) for s in ledger.appended)
    return f'{text[:cut]}{entries}\n  ],\n  "last_id": {ledger.high_water()}\n}}\n'


def _proven(ledger: Ledger, old: str, text: str) -> bool:
    """Whether the edited ``text`` is known to read back as the ledger in memory without a
    parse: the text read was in the layout :func:`~.layout.layout` takes (so each line ``    {``
    opens an entry of the sources list, and every entry not edited reads back as the source it
    was built from), and the high-water mark it ends with is the one the ledger would write."""
    if not isinstance(old, LayoutText):
        return False
    tail = _TAIL_ID.search(text, max(0, len(text) - 64))
    high = max(ledger.last_id, max((s.id for s in ledger.sources), default=0))
    return tail is not None and int(tail.group(1)) == high


_TAIL_ID = pattern(r'\n  \],\n  "last_id": ([0-9]{1,18})\n\}\n\Z')


# At most this many changed entries are rewritten in place; more, and the file is written whole.
_EDITS = 16


def _edited(ledger: Ledger, old: str) -> str | None:
    """The text with each changed source's entry (a quote added, a title filled) replaced by
    its new text, where the file lays entries out as :func:`dump_ledger` does; None where it
    does not (the caller checks the result as a whole)."""
    if len(ledger.changed_ids) > _EDITS:
        return None
    text = old
    for sid in ledger.changed_ids:
        opening = f'\n    {{\n      "id": {sid},\n'
        start = text.find(opening)
        if start < 0 or text.find(opening, start + 1) >= 0:
            return None
        end = text.find("\n    }", start + 1)
        if end < 0:
            return None
        text = text[: start + 1] + _entry_text(ledger.source(sid)) + text[end + 6 :]
    return text


def _entry_text(source: Source) -> str:
    """One source as :func:`dump_ledger` writes it inside the sources list (a JSON string holds
    no raw line break, so each line of its own dump is indented by the list's depth)."""
    text = json.dumps(source.to_dict(), indent=2, ensure_ascii=False)
    return "    " + text.replace("\n", "\n    ")


def _folder_error(path: Path) -> LedgerError:
    return LedgerError(
        f"ledger path {path} is a folder",
        hint=f"point --ledger at a file, e.g. {path / DEFAULT_NAME}",
    )


def _real_target(path: Path) -> Path:
    """Where writes go: through a symlinked ledger to its file (the link stays a link), and
    into a folder that exists. A folder given as the ledger is refused before any lock file."""
    if path.is_dir():
        raise _folder_error(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if target is not path and target.suffix.lower() != ".json":
        # The lock folder goes beside the link's target: a ledger linked to /etc/hostname
        # would make /etc/.citeledger-lock/. A ledger is a .json file wherever it lives.
        raise LedgerError(
            f"ledger {path} is a link to {target}, which is no .json file: nothing is locked "
            "or written there",
            hint="point --ledger at the ledger's .json file",
        )
    folder = target.parent if str(target.parent) else Path(".")
    make_folder(
        folder,
        what="folder",
        error=LedgerError,
        hint=f"it would hold ledger {path}; choose another --ledger path",
    )
    return target


@contextmanager
def _locked(target: Path) -> Iterator[None]:
    from .lock_file import prepare_lock_path

    try:
        lock_path = str(prepare_lock_path(target))
    except OSError as exc:
        raise _lock_error(target, exc) from None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        with _filelock(lock_path):
            yield
        return
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        raise _lock_error(target, exc) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # blocks; EINTR is retried by Python (PEP 475)
            flocked = True
        except OSError as exc:
            if exc.errno not in _NO_FLOCK:
                raise _lock_error(target, exc) from None
            flocked = False
        if flocked:
            yield
        else:
            with _filelock(lock_path):
                yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


@contextmanager
def _filelock(lock_path: str) -> Iterator[None]:
    from filelock import FileLock

    lock = FileLock(lock_path, timeout=-1)
    try:
        lock.acquire(poll_interval=_POLL_SECONDS)
    except OSError as exc:
        raise _lock_error(Path(lock_path), exc) from None
    try:
        yield
    finally:
        lock.release()


def _lock_error(target: Path, exc: OSError) -> LedgerError:
    return LedgerError(
        f"cannot lock ledger {target}: {exc.strerror or exc}",
        hint="check that its folder is writable",
    )
