"""A pandoc started, reaped or killed, with nothing heavier than ``os`` loaded: where the
embedded binary is, the one way citeledger starts a pandoc without ``subprocess``, the register
of every pandoc still running, and the reads of a draft started ahead of their turn.

A one-page verify is two halves that can run side by side on two cores: pandoc parsing the
draft, and Python loading the verifier (``pathlib``, ``re``, ``json``, the option table, the
checks). The quick verify (:mod:`citeledger.commands._quick_verify`) starts the read here,
before any of those load (:func:`read_markdown_ahead`), with the command line the read in its
turn makes (:func:`citeledger.pandoc.read_json`); that read takes it when the two are the same,
and every read never taken is killed and reaped (:func:`drop_reads_ahead`), so what verify sees
is always what the builds read. :mod:`citeledger.pandoc` runs pandoc through this module.

Standard library's ``os`` and ``sys``, the C modules, the error tree and the formats table.
"""

from __future__ import annotations

import _signal as signal  # not ``signal``, which makes enums of them at import (cli.py)
import _thread
import os
import sys
import time

from .errors import PandocError
from .formats import is_zip, reader_for_suffix
from .formats.capabilities import reading

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Sequence

ENV = "CITELEDGER_PANDOC"
MEMORY_ENV = "CITELEDGER_PANDOC_MEMORY"
DEFAULT_MEMORY = "4G"
# How an untrusted draft is read (``citeledger/includes.py``): its includes read no file.
SANDBOX_ARG = "--sandbox"


def wheel_pandoc() -> str | None:
    """The pandoc of the pypandoc-binary wheel, or None."""
    # pypandoc's folder as the import system finds it: the first on sys.path that holds it
    # (importlib.util is a share of a short verify's start), else the finders' (an editable's).
    folders = [
        f
        for e in sys.path
        if os.path.isfile(os.path.join(f := os.path.join(e or ".", "pypandoc"), "__init__.py"))
    ][:1]
    if not folders:
        import importlib.util

        spec = importlib.util.find_spec("pypandoc")
        folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        for name in ("pandoc", "pandoc.exe"):
            candidate = os.path.join(folder, "files", name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    return None


def located(env_value: str | None) -> tuple[str, str] | None:
    """The pandoc to run and where it came from (``"env"`` or ``"wheel"``) when no search of
    PATH is needed: ``$CITELEDGER_PANDOC`` naming a file by its path (what ``shutil.which``
    gives for it), else the wheel's. None: PATH must be searched, or nothing is there."""
    if env_value:
        if not os.path.dirname(env_value):
            return None
        usable = os.path.exists(env_value) and not os.path.isdir(env_value)
        return (env_value, "env") if usable and os.access(env_value, os.X_OK) else None
    wheel = wheel_pandoc()
    return None if wheel is None else (wheel, "wheel")


def child_env(pandoc: tuple[str, str], env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for ``pandoc`` (see :func:`citeledger.pandoc.child_env`): the embedded
    pandoc's folder first on PATH; anything else leaves PATH as it is."""
    out = dict(os.environ if env is None else env)
    path, origin = pandoc
    if origin != "wheel":
        return out
    folder = os.path.dirname(path)
    rest = [p for p in out.get("PATH", "").split(os.pathsep) if p and p != folder]
    out["PATH"] = os.pathsep.join([folder, *rest])
    return out


def memory_limit() -> str:
    """The GHC runtime's memory bound for a pandoc run: ``$CITELEDGER_PANDOC_MEMORY`` when it
    reads as one (1 to 6 digits, the first not 0, then k, m or g), else 4G."""
    text = os.environ.get(MEMORY_ENV, "").strip()
    digits, unit = text[:-1], text[-1:]
    number = 0 < len(digits) <= 6 and digits[0] != "0" and all(c in "0123456789" for c in digits)
    return text if number and unit in ("k", "K", "m", "M", "g", "G") else DEFAULT_MEMORY


def runtime_args(limit: str) -> list[str]:
    """The runtime's bound on a run; ``--RTS`` after it ends the runtime's reading of the
    command line, so no later argument is taken as one."""
    return ["+RTS", f"-M{limit}", "-RTS", "--RTS"]


def read_args(path: str, fmt: str, extra_args: Sequence[str]) -> list[str]:
    """pandoc's arguments for reading ``path`` as ``fmt`` into its JSON tree, ``extra_args``
    first (a defaults file among them must not override ``-f``/``-t``)."""
    # After "--", a draft named like an option (``--ledger=x.md``) is read as the file it is.
    return [*extra_args, "-t", "json", "-f", fmt, "--", path]


def draft_resources(draft: str) -> str:
    """The resource path a draft is read with when the user gives none: its folder, resolved
    (``Path(draft).parent.resolve()``: ``draft`` is a path as ``str(Path(...))`` writes it),
    then the working folder."""
    return os.pathsep.join([os.path.realpath(os.path.dirname(draft) or "."), "."])


# Every pandoc citeledger has started and not yet reaped, from any thread (the wiki build runs
# several at once from a thread pool). Each runs in a session of its own, so killing its process
# group takes what it started too (a LaTeX engine under --pdf-engine); the terminal's Ctrl-C
# therefore reaches only citeledger, whose handler (cli.py) kills them all.
LIVE: set[subprocess.Popen[bytes] | Spawned] = set()
LIVE_LOCK = _thread.RLock()  # re-entrant: the signal handler may run while it is held
_stopping = False


def refuse_when_stopping() -> None:
    """No new run once citeledger is told to stop; called with :data:`LIVE_LOCK` held."""
    if _stopping:
        raise PandocError("citeledger is stopping: no new pandoc run")


class TimedOut(Exception):
    """A run went past its time limit (and was killed)."""


class Spawned:
    """A pandoc :func:`spawn` started (in :data:`LIVE` as a ``Popen``), its pipes, its start."""

    def __init__(self, pid: int, out: int, err: int) -> None:
        self.pid, self.out, self.err, self.started = pid, out, err, time.monotonic()
        self.returncode: int | None = None  # the code once reaped

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)


def spawn(cmd: list[str], env: dict[str, str]) -> Spawned:
    """``cmd`` started as ``subprocess.Popen`` would start it for
    :func:`citeledger.pandoc.run_pandoc` (stdin from /dev/null, its own process group), with
    ``posix_spawn`` (a vfork: no copy of this process's memory, no ``subprocess`` import)."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    actions: list[tuple[int | str, ...]] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    actions += [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    # The signals Python ignores for itself go back to their defaults, as Popen does.
    reset = [getattr(signal, n) for n in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, n)]
    try:
        with LIVE_LOCK:
            refuse_when_stopping()
            # A group of its own (setsid may be missing): no terminal's Ctrl-C, killed whole.
            pid = os.posix_spawn(
                cmd[0], cmd, env, file_actions=actions, setpgroup=0, setsigdef=reset
            )
            child = Spawned(pid, out_r, err_r)
            LIVE.add(child)
    except BaseException:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (out_w, err_w):
            os.close(fd)
    return child


def collect(child: Spawned, seconds: float, *, stop: bool = False) -> tuple[int, bytes, bytes]:
    """``child``'s exit code and output; killed with its group past ``seconds`` (raising
    :class:`TimedOut`), or at once with ``stop``."""
    import select

    chunks: dict[int, list[bytes]] = {child.out: [], child.err: []}
    reading = 0 if stop else 2
    try:
        poller = select.poll()
        for fd in chunks:
            poller.register(fd, select.POLLIN)
        deadline = child.started + seconds
        while reading:
            if time.monotonic() > deadline:
                raise TimedOut
            for fd, _event in poller.poll((deadline - time.monotonic()) * 1000):
                chunks[fd].append(os.read(fd, 1 << 16))
                if not chunks[fd][-1]:
                    poller.unregister(fd)
                    reading -= 1
    finally:
        if reading or stop:  # stopped early (time limit, a signal, not wanted): kill the group
            kill(child)
        code = child.returncode = os.waitstatus_to_exitcode(os.waitpid(child.pid, 0)[1])
        with LIVE_LOCK:
            LIVE.discard(child)
        for fd in (child.out, child.err):
            os.close(fd)
    return code, b"".join(chunks[child.out]), b"".join(chunks[child.err])


def kill(proc: subprocess.Popen[bytes] | Spawned) -> None:
    """Kill ``proc`` and its process group (what it started), if still there."""
    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # no process groups (Windows), or already gone
        try:  # noqa: SIM105 - contextlib is an import a verify does without
            proc.kill()
        except OSError:
            pass


def stop_children() -> None:
    """Kill every pandoc citeledger is running and refuse to start another: called when
    citeledger itself is told to stop (SIGTERM, Ctrl-C), from the signal handler."""
    global _stopping
    with LIVE_LOCK:
        _stopping = True
        running = list(LIVE)
    for proc in running:
        kill(proc)


# Reads of a draft started ahead of their turn, by command line: the read in its turn takes
# the one started with its own command line (``citeledger.pandoc._tree_unprobed``).
AHEAD: dict[tuple[str, ...], Spawned] = {}


def start_ahead(cmd: list[str], pandoc: tuple[str, str]) -> None:
    """Start ``cmd`` (a read of a draft, pandoc first) unless it is started already."""
    if hasattr(os, "posix_spawn") and tuple(cmd) not in AHEAD:
        AHEAD[tuple(cmd)] = spawn(cmd, child_env(pandoc))


def take_ahead(cmd: list[str]) -> Spawned | None:
    """The read started ahead with ``cmd``, now the caller's to collect; None if none was."""
    return AHEAD.pop(tuple(cmd), None)


def drop_reads_ahead() -> None:
    """Kill and reap every read started ahead and not taken."""
    while AHEAD:
        collect(AHEAD.popitem()[1], 0, stop=True)


def read_markdown_ahead(word: str, *, sandbox: bool) -> None:
    """Start the read :func:`citeledger.pandoc.read_json` makes of the draft ``word`` when it
    is read as a default pipeline reads it (no filters, no defaults file, no ``--from``), with
    nothing loaded but this module: a file named by a plain path (one ``str(Path(word))``
    writes as it is) whose suffix the formats table reads without a version probe; ``sandbox``:
    read as an untrusted draft is. Anything else starts nothing here; a read started and not
    taken is dropped by the caller."""
    pandoc = located(os.environ.get(ENV) or None)
    parts = word.split("/")
    plain = parts[0] != "." and all(p not in ("", ".") for p in parts[1:])
    if pandoc is None or not plain or not os.path.isfile(word):
        return
    name = parts[-1]
    dot = name.rfind(".")
    fmt = reader_for_suffix(name[dot:] if 0 < dot < len(name) - 1 else "")
    if fmt is None or reading(fmt) is not None or is_zip(fmt):
        return
    with open(word, "rb") as handle:  # a zip with a text suffix is read as what it holds
        if handle.read(4) == b"PK\x03\x04":
            return
    extra = ["--resource-path", draft_resources(word), *([SANDBOX_ARG] if sandbox else [])]
    start_ahead([pandoc[0], *runtime_args(memory_limit()), *read_args(word, fmt, extra)], pandoc)
