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

import functools
import json
import os
from collections.abc import Sequence
from pathlib import Path

from . import formats
from . import pandoc_start as start
from .errors import PandocError, ToolMissing
from .files import check_archive
from .formats import Version
from .formats.capabilities import MINIMUM, SANDBOX, Capability, reading, writing
from .ledger.light import pattern, record
from .pandoc_start import ENV, MEMORY_ENV, SANDBOX_ARG, located
from .tree import PandocDoc

# The pypandoc-binary release whose pandoc (3.9) does everything the commands use; pyproject
# requires it, and the gate's fix for an old embedded pandoc names it.
WHEEL_REQUIREMENT = "pypandoc-binary>=1.17"
INSTALL_HINT = f"pip install '{WHEEL_REQUIREMENT}', or set {ENV} to a pandoc binary"


@record(frozen=True)
class Pandoc:
    path: str
    origin: str  # "env" | "wheel" | "path"


@functools.cache
def _find(env_value: str | None) -> Pandoc:
    known = located(env_value)  # a path, or the wheel's: no search of PATH
    if known is not None:
        return Pandoc(*known)
    if env_value:
        from shutil import which  # only a named pandoc is looked for on PATH

        found = which(env_value)
        if found is None:
            raise ToolMissing(
                f"{ENV}={env_value} is not an executable pandoc",
                hint="point it at a pandoc binary or unset it",
            )
        return Pandoc(found, "env")
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
    pandoc = _current()
    return start.child_env((pandoc.path, pandoc.origin), env)


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
    ahead: start.Spawned | None = None,
) -> tuple[int, bytes, bytes]:
    """``cmd`` run under the time limit (``ahead``: started already); past it, one error line."""
    seconds = _time_limit()
    try:
        if ahead is not None or (data is None and cwd is None and hasattr(os, "posix_spawn")):
            return start.collect(ahead or start.spawn(cmd, child_env(env)), seconds)
        import subprocess

        try:
            return _run(cmd, data, cwd=cwd, env=child_env(env), timeout=seconds)
        except subprocess.TimeoutExpired:
            raise start.TimedOut from None
    except start.TimedOut:
        raise PandocError(
            f"pandoc took longer than {seconds:g} s on {what}: stopped",
            hint=f"simplify the document (a list nested thousands deep?), or raise {TIME_ENV}",
        ) from None


def read_ahead(path: Path, fmt: str, extra_args: Sequence[str] = ()) -> None:
    """Start the read :func:`read_json` will make of ``path`` (same ``fmt``, ``extra_args``):
    pandoc parses while this process loads the verifier, on the other core. ``read_json`` takes
    it; :func:`drop_reads_ahead` ends one never taken. Only a read that needs no probe."""
    cmd = _unprobed_cmd(_read_args(path, fmt, extra_args), fmt)
    if cmd is not None:
        pandoc = _current()
        start.start_ahead(cmd, (pandoc.path, pandoc.origin))


drop_reads_ahead = start.drop_reads_ahead


def _checked(
    returncode: int, stdout: bytes, stderr: bytes, what: str, sandboxed: bool = False
) -> bytes:
    """pandoc's stdout, or its failure as one line (``sandboxed``: run with ``--sandbox``)."""
    if returncode == 0 and b"include file" in stderr:
        from .includes import refuse_unread_include  # here: a read naming no include loads none

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


# Bounds on one pandoc run: a hostile draft (a list nested 3,000 deep) otherwise runs for many
# minutes and takes gigabytes. The memory bound is the GHC runtime's own (``+RTS -M``), used
# when the pandoc allows runtime options (the embedded one and Debian's do); ``--RTS`` after it
# ends the runtime's reading of the command line, so no later argument is taken as one.
TIME_ENV = "CITELEDGER_PANDOC_TIMEOUT"
DEFAULT_SECONDS = 600.0


def _time_limit() -> float:
    try:
        seconds = float(os.environ.get(TIME_ENV, "") or DEFAULT_SECONDS)
    except ValueError:
        seconds = DEFAULT_SECONDS
    return seconds if 0 < seconds < 1e7 else DEFAULT_SECONDS


_memory_limit = start.memory_limit


def _memory_args(path: str) -> list[str]:
    limit = _memory_limit()
    return start.runtime_args(limit) if _takes_rts(path, limit) else []


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
        with start.LIVE_LOCK:
            start.refuse_when_stopping()
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL if data is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=env,
                start_new_session=True,
            )
            start.LIVE.add(proc)
        stdout, stderr = proc.communicate(data, timeout=timeout)
    except BaseException:
        if proc is not None:
            start.kill(proc)
            proc.wait()
        raise
    finally:
        if proc is not None:
            with start.LIVE_LOCK:
                start.LIVE.discard(proc)
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


stop_children = start.stop_children


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
    return start.read_args(str(path), fmt, extra_args)


def _unprobed_cmd(args: list[str], fmt: str) -> list[str] | None:
    """The command of a read asking no more than :data:`MINIMUM`, run without the version probe
    (a second pandoc start, a third of a one-page verify): a tree of pandoc-types 1.22 or later
    comes from a pandoc 2.11 or later, all the gate asks. None: the probe is made already, or
    the format asks more (:func:`run_pandoc` reads it, gate first)."""
    if reading(fmt) is not None or formats.is_zip(fmt) or _probe.cache_info().currsize:
        return None
    return [pandoc_path(), *start.runtime_args(_memory_limit()), *args]


def _tree_unprobed(args: list[str], fmt: str, what: str) -> PandocDoc | None:
    """The tree of an unprobed read (:func:`_unprobed_cmd`), started ahead or now. None: pandoc
    failed or gave no tree that new (old or false: the gate, in :func:`run_pandoc`, names it)."""
    cmd = _unprobed_cmd(args, fmt)
    if cmd is None:
        return None
    ahead = start.take_ahead(cmd)
    returncode, stdout, stderr = _timed_run(cmd, None, None, None, what, ahead)
    if returncode == 0 and b"include file" in stderr:
        from .includes import refuse_unread_include  # here: a read naming no include loads none

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
