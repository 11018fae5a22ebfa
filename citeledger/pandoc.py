"""Find pandoc in one place, know what it can do, and run it.

Which pandoc: ``$CITELEDGER_PANDOC`` when set, else the binary shipped in the pypandoc-binary
wheel (the embedded default, as pypandoc and Quarto run their own). A ``pandoc`` on PATH does not
win over the wheel: it is whatever the system packaged (Debian bookworm: 2.17, which has no typst
writer), and a build must not change with what else is installed. It stands in only when the
wheel is missing, a broken install; the gate below then holds it to what it can do.

What it can do: :data:`MINIMUM` and the rows of :mod:`citeledger.formats` (``reads_since``,
``writes_since``) are the version gate, what needs which pandoc. :func:`require` checks a
capability before the work starts (``convert`` for every output up front; :func:`run_pandoc`
for each call from its ``-f``/``-t``); a pandoc too old for it gets one line naming its version,
what needs what, and the fix, instead of pandoc's bare "Unknown output format typst".

Not gated: typst page numbers. pandoc 3.6 added the ``page-numbering`` variable to its typst
writer (3.5 sets none), and the bundled template (templates/report.typst) numbers pages itself
unless told otherwise, so every pandoc with a typst writer numbers them.

The wheel is located without importing pypandoc, whose import is slow and would cost every
command that never runs pandoc.
"""

from __future__ import annotations

import _signal as signal  # not ``signal``, which makes enums of them at import (cli.py)
import _thread
import contextlib
import functools
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from . import formats
from .errors import PandocError, ToolMissing
from .files import check_archive
from .formats import Version
from .formats.capabilities import MINIMUM, SANDBOX, Capability, reading, writing
from .includes import SANDBOX_ARG, refuse_unread_include
from .ledger.light import pattern, record
from .tree import PandocDoc

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess

ENV = "CITELEDGER_PANDOC"
# The pypandoc-binary release whose pandoc (3.9) does everything the commands use; pyproject
# requires it, and the gate's fix for an old embedded pandoc names it.
WHEEL_REQUIREMENT = "pypandoc-binary>=1.17"
INSTALL_HINT = f"pip install '{WHEEL_REQUIREMENT}', or set {ENV} to a pandoc binary"


def _wheel_pandoc() -> str | None:
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
            candidate = Path(folder) / "files" / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return None


@record(frozen=True)
class Pandoc:
    path: str
    origin: str  # "env" | "wheel" | "path"


@functools.cache
def _find(env_value: str | None) -> Pandoc:
    if env_value:
        from shutil import which  # only a named pandoc is looked for on PATH

        found = which(env_value)
        if found is None:
            raise ToolMissing(
                f"{ENV}={env_value} is not an executable pandoc",
                hint="point it at a pandoc binary or unset it",
            )
        return Pandoc(found, "env")
    wheel = _wheel_pandoc()
    if wheel is not None:
        return Pandoc(wheel, "wheel")
    from shutil import which

    found = which("pandoc")
    if found is None:
        raise ToolMissing("pandoc not found", hint=INSTALL_HINT)
    return Pandoc(found, "path")


def _current() -> Pandoc:
    return _find(os.environ.get(ENV) or None)


def pandoc_path() -> str:
    """The pandoc binary citeledger runs (cached per value of ``$CITELEDGER_PANDOC``)."""
    return _current().path


@functools.cache
def _version(path: str) -> Version:
    # The runtime-options probe prints the version too: one pandoc start answers both.
    stdout = _probe(path, _memory_limit())[0]
    if "MacFarlane" not in stdout:  # every pandoc names its author; true(1) has a version too
        return (0,)
    first = stdout.split("\n", 1)[0].split()
    try:
        return tuple(int(p) for p in first[-1].split("."))
    except (IndexError, ValueError):
        return (0,)


def child_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a pandoc citeledger starts: ``env`` (default: this process's), with
    the embedded pandoc's folder first on PATH, so a filter that runs ``pandoc`` itself
    (pandoc-include, a JSON filter converting a snippet) gets the same pandoc on a pip-only
    machine, where no pandoc is on PATH at all. The wheel's folder holds pandoc alone, so
    nothing else is shadowed; a ``$CITELEDGER_PANDOC`` or a pandoc found on PATH leaves PATH
    as it is (the user chose it, and its folder may hold anything)."""
    out = dict(os.environ if env is None else env)
    pandoc = _current()
    if pandoc.origin != "wheel":
        return out
    folder = str(Path(pandoc.path).parent)
    rest = [p for p in out.get("PATH", "").split(os.pathsep) if p and p != folder]
    out["PATH"] = os.pathsep.join([folder, *rest])
    return out


def pandoc_version() -> Version:
    return _version(pandoc_path())


def _dotted(version: Version) -> str:
    return ".".join(map(str, version))


def _fix(pandoc: Pandoc) -> str:
    if pandoc.origin == "env":
        return f"unset {ENV} to use the embedded pandoc, or point it at a newer pandoc"
    if pandoc.origin == "wheel":
        return f"pip install -U '{WHEEL_REQUIREMENT}', or set {ENV} to a newer pandoc"
    return f"pip install '{WHEEL_REQUIREMENT}' (the embedded pandoc), or set {ENV}"


def _origin(pandoc: Pandoc) -> str:
    return {
        "env": f"{ENV}={pandoc.path}",
        "wheel": "the embedded pandoc",
        "path": "the pandoc on PATH",
    }[pandoc.origin]


def gate_message(version: Version, capability: Capability, pandoc: Pandoc) -> str | None:
    """The one line a pandoc of ``version`` gets for ``capability``, or None when it has it."""
    if version >= capability.since:
        return None
    return (
        f"pandoc {_dotted(version)} ({_origin(pandoc)}) is too old: {capability.what} needs "
        f"pandoc {_dotted(capability.since)} or later"
    )


def require(*, reads: str | None = None, writes: str | None = None) -> None:
    """Refuse, in one line, a pandoc too old for the tree, for reading ``reads`` or for writing
    ``writes`` (pandoc format names, extensions allowed). Formats the table does not name need
    only the minimum."""
    pandoc = _current()
    version = _version(pandoc.path)
    if version == (0,):
        raise ToolMissing(
            f"{_origin(pandoc)} does not answer --version as pandoc does",
            hint=_fix(pandoc).replace("a newer pandoc", "a pandoc binary"),
        )
    wanted = [MINIMUM, reading(reads or ""), writing(writes or "")]
    for capability in wanted:
        if capability is None:
            continue
        message = gate_message(version, capability, pandoc)
        if message is not None:
            raise ToolMissing(message, hint=_fix(pandoc))


def require_sandbox() -> None:
    """Refuse, in one line, a pandoc without ``--sandbox`` for an untrusted draft's build."""
    pandoc = _current()
    message = gate_message(_version(pandoc.path), SANDBOX, pandoc)
    if message is not None:
        raise ToolMissing(message, hint=f"{_fix(pandoc)}; or pass --trust-draft for your own draft")


_FROM = ("-f", "--from", "-r", "--read")
_TO = ("-t", "--to", "-w", "--write")


def _option(args: Sequence[str], names: tuple[str, ...]) -> str | None:
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args):
            return args[i + 1]
        for name in names:
            if name.startswith("--") and arg.startswith(name + "="):
                return arg[len(name) + 1 :]
    return None


_UNKNOWN_FORMAT = pattern(r"Unknown (input|output) format (\S+)")


def run_pandoc(
    args: Sequence[str],
    *,
    stdin: str | bytes | None = None,
    cwd: str | Path | None = None,
    what: str = "the input",
    env: dict[str, str] | None = None,
) -> bytes:
    """Run pandoc with ``args``; return its stdout. The gate runs first on the formats ``args``
    name; a refusal becomes one PandocError line."""
    require(reads=_option(args, _FROM), writes=_option(args, _TO))
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    path = pandoc_path()
    cmd = [path, *_memory_args(path), *args]
    returncode, stdout, stderr = _timed_run(cmd, data, cwd, env, what)
    return _checked(returncode, stdout, stderr, what, SANDBOX_ARG in args)


def pandoc_said(args: Sequence[str], what: str) -> str | None:
    """What pandoc wrote to stderr running ``args`` (its warnings), or None when it failed."""
    path = pandoc_path()
    code, _out, err = _timed_run([path, *_memory_args(path), *args], None, None, None, what)
    return err.decode("utf-8", "replace") if code == 0 else None


def _timed_run(
    cmd: list[str],
    data: bytes | None,
    cwd: str | Path | None,
    env: dict[str, str] | None,
    what: str,
    ahead: _Spawned | None = None,
) -> tuple[int, bytes, bytes]:
    """``cmd`` run under the time limit (``ahead``: started already); past it, one error line."""
    seconds = _time_limit()
    try:
        if ahead is not None or (data is None and cwd is None and hasattr(os, "posix_spawn")):
            return _collect(ahead or _spawn(cmd, child_env(env)), seconds)
        import subprocess

        try:
            return _run(cmd, data, cwd=cwd, env=child_env(env), timeout=seconds)
        except subprocess.TimeoutExpired:
            raise _TimedOut from None
    except _TimedOut:
        raise PandocError(
            f"pandoc took longer than {seconds:g} s on {what}: stopped",
            hint=f"simplify the document (a list nested thousands deep?), or raise {TIME_ENV}",
        ) from None


class _TimedOut(Exception):
    """A run went past its time limit (and was killed)."""


class _Spawned:
    """A pandoc :func:`_spawn` started (in ``_LIVE`` as a ``Popen``), its pipes, its start."""

    def __init__(self, pid: int, out: int, err: int) -> None:
        self.pid, self.out, self.err, self.started = pid, out, err, time.monotonic()
        self.returncode: int | None = None  # the code once reaped

    def kill(self) -> None:
        os.kill(self.pid, signal.SIGKILL)


def _spawn(cmd: list[str], env: dict[str, str]) -> _Spawned:
    """``cmd`` started as :func:`_run` starts it, without ``subprocess`` (a tenth of a verify)."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    actions: list[tuple[int | str, ...]] = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    actions += [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    # The signals Python ignores for itself go back to their defaults, as Popen does.
    reset = [getattr(signal, n) for n in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, n)]
    try:
        with _LIVE_LOCK:
            if _stopping:
                raise PandocError("citeledger is stopping: no new pandoc run")
            # A group of its own (setsid may be missing): no terminal's Ctrl-C, killed whole.
            pid = os.posix_spawn(
                cmd[0], cmd, env, file_actions=actions, setpgroup=0, setsigdef=reset
            )
            child = _Spawned(pid, out_r, err_r)
            _LIVE.add(child)
    except BaseException:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (out_w, err_w):
            os.close(fd)
    return child


def _collect(child: _Spawned, seconds: float, *, stop: bool = False) -> tuple[int, bytes, bytes]:
    """``child``'s exit code and output; killed with its group past ``seconds``, or ``stop``."""
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
                raise _TimedOut
            for fd, _event in poller.poll((deadline - time.monotonic()) * 1000):
                chunks[fd].append(os.read(fd, 1 << 16))
                if not chunks[fd][-1]:
                    poller.unregister(fd)
                    reading -= 1
    finally:
        if reading or stop:  # stopped early (time limit, a signal, not wanted): kill the group
            _kill(child)
        code = child.returncode = os.waitstatus_to_exitcode(os.waitpid(child.pid, 0)[1])
        with _LIVE_LOCK:
            _LIVE.discard(child)
        for fd in (child.out, child.err):
            os.close(fd)
    return code, b"".join(chunks[child.out]), b"".join(chunks[child.err])


# Reads of a draft started ahead of their turn (:func:`read_ahead`), by command line.
_AHEAD: dict[tuple[str, ...], _Spawned] = {}


def read_ahead(path: Path, fmt: str, extra_args: Sequence[str] = ()) -> None:
    """Start the read :func:`read_json` will make of ``path`` (same ``fmt``, ``extra_args``):
    pandoc parses while this process loads the verifier, on the other core. ``read_json`` takes
    it; :func:`drop_reads_ahead` ends one never taken. Only a read that needs no probe."""
    cmd = _unprobed_cmd(_read_args(path, fmt, extra_args), fmt)
    if cmd is not None and hasattr(os, "posix_spawn") and tuple(cmd) not in _AHEAD:
        _AHEAD[tuple(cmd)] = _spawn(cmd, child_env(None))


def drop_reads_ahead() -> None:
    """Kill and reap every read started ahead and not taken."""
    while _AHEAD:
        _collect(_AHEAD.popitem()[1], 0, stop=True)


def _checked(
    returncode: int, stdout: bytes, stderr: bytes, what: str, sandboxed: bool = False
) -> bytes:
    """pandoc's stdout, or its failure as one line (``sandboxed``: run with ``--sandbox``)."""
    if returncode == 0 and b"include file" in stderr:
        refuse_unread_include(stderr, what, sandboxed)
    if returncode != 0:
        if SANDBOX_ARG.encode() in stderr:  # a pandoc older than --sandbox: the gate's line
            require_sandbox()
        err = stderr.decode("utf-8", "replace").strip()
        if "Heap exhausted" in err:
            raise PandocError(
                f"pandoc needed more than {_memory_limit()} of memory for {what}: stopped",
                hint=f"simplify the document, or raise {MEMORY_ENV} (e.g. 8G)",
            )
        unknown = _UNKNOWN_FORMAT.search(err)
        if unknown is not None:
            # A format the gate has no version for: still one line naming the pandoc.
            pandoc = _current()
            role = "reader" if unknown.group(1) == "input" else "writer"
            hint = f"check the name against pandoc --list-{unknown.group(1)}-formats"
            if pandoc.origin == "env":
                hint += f", or unset {ENV} to use the embedded pandoc"
            elif pandoc.origin == "path":
                hint += f", or pip install '{WHEEL_REQUIREMENT}' for the embedded pandoc"
            raise ToolMissing(
                f"pandoc {_dotted(_version(pandoc.path))} ({_origin(pandoc)}) has no "
                f"{unknown.group(2)} {role}",
                hint=hint,
            )
        lines = [ln for ln in err.splitlines() if ln.strip()]
        # A filter that failed already printed its own findings; keep every line of them.
        detail = " | ".join(lines[-12:]) if lines else f"exit {returncode}"
        raise PandocError(f"pandoc could not convert {what}: {detail}")
    return stdout


# Every pandoc citeledger has started and not yet reaped, from any thread (the wiki build runs
# several at once from a thread pool). Each runs in a session of its own, so killing its process
# group takes what it started too (a LaTeX engine under --pdf-engine); the terminal's Ctrl-C
# therefore reaches only citeledger, whose handler (cli.py) kills them all.
_LIVE: set[subprocess.Popen[bytes] | _Spawned] = set()
_LIVE_LOCK = _thread.RLock()  # re-entrant: the signal handler may run while it is held
_stopping = False


# Bounds on one pandoc run: a hostile draft (a list nested 3,000 deep) otherwise runs for many
# minutes and takes gigabytes. The memory bound is the GHC runtime's own (``+RTS -M``), used
# when the pandoc allows runtime options (the embedded one and Debian's do); ``--RTS`` after it
# ends the runtime's reading of the command line, so no later argument is taken as one.
TIME_ENV = "CITELEDGER_PANDOC_TIMEOUT"
MEMORY_ENV = "CITELEDGER_PANDOC_MEMORY"
DEFAULT_SECONDS = 600.0
DEFAULT_MEMORY = "4G"
_MEMORY = pattern(r"[1-9][0-9]{0,5}[kKmMgG]")


def _time_limit() -> float:
    try:
        seconds = float(os.environ.get(TIME_ENV, "") or DEFAULT_SECONDS)
    except ValueError:
        seconds = DEFAULT_SECONDS
    return seconds if 0 < seconds < 1e7 else DEFAULT_SECONDS


def _memory_limit() -> str:
    text = os.environ.get(MEMORY_ENV, "").strip()
    return text if text and _MEMORY.fullmatch(text) else DEFAULT_MEMORY


def _memory_args(path: str) -> list[str]:
    limit = _memory_limit()
    return ["+RTS", f"-M{limit}", "-RTS", "--RTS"] if _takes_rts(path, limit) else []


def _takes_rts(path: str, limit: str) -> bool:
    """Whether the pandoc at ``path`` takes runtime options (see :func:`_probe`)."""
    return _probe(path, limit)[1]


@functools.lru_cache(maxsize=8)
def _probe(path: str, limit: str) -> tuple[str, bool]:
    """What ``--version`` prints and whether the pandoc at ``path`` takes runtime options: one
    ``--version`` run with them, and one without only when that fails (cached). Every command
    that runs pandoc asks both, and each pandoc start is a share of a short verify's time."""
    import subprocess

    try:
        done = subprocess.run(
            [path, "+RTS", f"-M{limit}", "-RTS", "--RTS", "--version"],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=60,
            check=False,
        )
        if done.returncode == 0:
            return done.stdout, True
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, errors="replace", check=False
        )
    except OSError:
        return "", False
    return out.stdout, False


def _run(
    cmd: list[str],
    data: bytes | None,
    *,
    cwd: str | Path | None,
    env: dict[str, str] | None,
    timeout: float | None = None,
) -> tuple[int, bytes, bytes]:
    import subprocess

    proc: subprocess.Popen[bytes] | None = None
    try:
        with _LIVE_LOCK:
            if _stopping:
                raise PandocError("citeledger is stopping: no new pandoc run")
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL if data is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=env,
                start_new_session=True,
            )
            _LIVE.add(proc)
        stdout, stderr = proc.communicate(data, timeout=timeout)
    except BaseException:
        if proc is not None:
            _kill(proc)
            proc.wait()
        raise
    finally:
        if proc is not None:
            with _LIVE_LOCK:
                _LIVE.discard(proc)
    return proc.returncode, stdout, stderr


def run_child(
    cmd: list[str],
    data: bytes | None,
    *,
    cwd: str | Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> tuple[int, bytes, bytes]:
    """Another tool run as pandoc is (the typst compiler's process): in a session of its own,
    killed with what it started when citeledger is told to stop or ``timeout`` passes
    (``subprocess.TimeoutExpired``). Returns the exit code, stdout and stderr."""
    return _run(cmd, data, cwd=cwd, env=env, timeout=timeout)


def _kill(proc: subprocess.Popen[bytes] | _Spawned) -> None:
    """Kill ``proc`` and its process group (what it started), if still there."""
    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # no process groups (Windows), or already gone
        with contextlib.suppress(OSError):
            proc.kill()


def stop_children() -> None:
    """Kill every pandoc citeledger is running and refuse to start another: called when
    citeledger itself is told to stop (SIGTERM, Ctrl-C), from the signal handler."""
    global _stopping
    with _LIVE_LOCK:
        _stopping = True
        running = list(_LIVE)
    for proc in running:
        _kill(proc)


def read_json(
    path: str | Path,
    *,
    from_format: str | None = None,
    extra_args: Sequence[str] = (),
) -> PandocDoc:
    """Parse ``path`` with pandoc and return the document as pandoc JSON (plain dicts).
    ``extra_args`` come first: a defaults file among them must not override ``-f``/``-t``."""
    fmt = from_format or format_for(path)
    if formats.is_zip(fmt):
        check_archive(path)
    args = _read_args(path, fmt, extra_args)
    quick = _tree_unprobed(args, fmt, str(path))
    if quick is not None:
        return quick
    out = run_pandoc(args, what=str(path))
    try:
        doc: PandocDoc = json.loads(out)
    except ValueError:
        raise PandocError(
            f"{pandoc_path()} gave no document tree for {path}", hint=f"check {ENV}"
        ) from None
    return doc


def _read_args(path: str | Path, fmt: str, extra_args: Sequence[str]) -> list[str]:
    # After "--", a draft named like an option (``--ledger=x.md``) is read as the file it is.
    return [*extra_args, "-t", "json", "-f", fmt, "--", str(path)]


def _unprobed_cmd(args: list[str], fmt: str) -> list[str] | None:
    """The command of a read asking no more than :data:`MINIMUM`, run without the version probe
    (a second pandoc start, a third of a one-page verify): a tree of pandoc-types 1.22 or later
    comes from a pandoc 2.11 or later, all the gate asks. None: the probe is made already, or
    the format asks more (:func:`run_pandoc` reads it, gate first)."""
    if reading(fmt) is not None or formats.is_zip(fmt) or _probe.cache_info().currsize:
        return None
    return [pandoc_path(), "+RTS", f"-M{_memory_limit()}", "-RTS", "--RTS", *args]


def _tree_unprobed(args: list[str], fmt: str, what: str) -> PandocDoc | None:
    """The tree of an unprobed read (:func:`_unprobed_cmd`), started ahead or now. None: pandoc
    failed or gave no tree that new (old or false: the gate, in :func:`run_pandoc`, names it)."""
    cmd = _unprobed_cmd(args, fmt)
    if cmd is None:
        return None
    ahead = _AHEAD.pop(tuple(cmd), None)
    returncode, stdout, stderr = _timed_run(cmd, None, None, None, what, ahead)
    if returncode == 0 and b"include file" in stderr:
        refuse_unread_include(stderr, what, SANDBOX_ARG in cmd)
    if returncode != 0:
        require(reads=fmt, writes="json")
        if not _takes_rts(cmd[0], _memory_limit()):  # the runtime options were what it refused
            return None
        _checked(returncode, stdout, stderr, what)
    try:
        doc: PandocDoc = json.loads(stdout)
    except ValueError:
        return None
    version = doc.get("pandoc-api-version") if isinstance(doc, dict) else None
    if not isinstance(version, list) or tuple(version[:2]) < (1, 22):  # MINIMUM's tree
        return None
    return doc


def format_for(path: str | Path) -> str:
    return formats.reader_for(path)
