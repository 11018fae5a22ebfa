"""One way to run each of citeledger's entry points from a test: the CLI in its own process
(``run_citeledger``, ``start_citeledger``) or in this one (``call_main``), and the filter under
real pandoc (``run_filter``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# The command as a user runs it: the interpreter under test, so a child runs this checkout.
CITELEDGER = (sys.executable, "-m", "citeledger")

# Variables that pick a ledger; a test unsets them so only the folder or its own choice counts.
LEDGER_VARS = ("CITELEDGER_LEDGER", "HERMES_CITATION_LEDGER")
# Every variable citeledger reads (the ledger, the pandoc, HERMES_HOME): a run as on a machine
# that never set one.
OWN_VARS = ("CITELEDGER", "HERMES")


@dataclass
class Result:
    """What one citeledger command did: exit code and what it printed."""

    code: int
    out: str
    err: str

    @classmethod
    def of(cls, done: subprocess.CompletedProcess[bytes]) -> Result:
        """A child's result, its streams decoded as UTF-8 with newlines kept as written."""
        return cls(done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def citeledger_env(
    *,
    env: Mapping[str, str] | None = None,
    unset: Iterable[str] = (),
    ledger: Path | str | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """``env`` (default: this environment, which conftest keeps free of HERMES_HOME) without
    the variables whose names start with one of ``unset``, then ``ledger`` as $CITELEDGER_LEDGER
    and ``extra_env`` on top."""
    prefixes = tuple(unset)
    out = {
        k: v
        for k, v in (os.environ if env is None else env).items()
        if not (prefixes and k.startswith(prefixes))
    }
    if ledger is not None:
        out["CITELEDGER_LEDGER"] = str(ledger)
    out.update(extra_env or {})
    return out


def run_citeledger(
    *args: str | bytes | os.PathLike[str],
    cwd: Path,
    ledger: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    unset: Iterable[str] = (),
    extra_env: Mapping[str, str] | None = None,
    stdin: str | bytes | None = None,
    text: bool = True,
    timeout: float | None = None,
    preexec_fn: Callable[[], Any] | None = None,
    own_group: bool = False,
) -> subprocess.CompletedProcess[Any]:
    """``python -m citeledger ARGS`` in its own process, as a user runs it, in ``cwd`` with the
    environment of :func:`citeledger_env`; never raises on a non-zero exit. ``text`` decodes
    the streams as UTF-8 (else bytes). ``preexec_fn`` sets limits in the child (a small file
    size, a CPU budget). ``own_group`` starts the child in its own process group, and on a
    ``timeout`` kills that whole group (a pandoc the command started too) and fails the test."""
    command = [*CITELEDGER, *args]
    full_env = citeledger_env(env=env, unset=unset, ledger=ledger, extra_env=extra_env)
    encoding = "utf-8" if text else None
    if not own_group:
        return subprocess.run(
            command,
            cwd=cwd,
            env=full_env,
            input=stdin,
            capture_output=True,
            text=text,
            encoding=encoding,
            timeout=timeout,
            preexec_fn=preexec_fn,
            check=False,
        )
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=full_env,
        stdin=None if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=text,
        encoding=encoding,
        preexec_fn=preexec_fn,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        shown = " ".join(os.fsdecode(a) for a in args)
        pytest.fail(f"citeledger {shown} ran longer than {timeout:.0f} s")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def start_citeledger(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``python -m citeledger ARGS`` started and left running, streams piped as bytes: for a
    test that signals it while it works. Ctrl-C reaches it as it reaches a command run at a
    terminal, even when the tests themselves run as a background job (whose shell starts them
    with SIGINT ignored, which every child would inherit)."""
    import signal

    return subprocess.Popen(
        [*CITELEDGER, *args],
        cwd=cwd,
        env=dict(os.environ if env is None else env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509
    )


def call_main(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    """The console entry point in this process, its exit code and what it printed."""
    from citeledger.cli import main

    try:
        main(list(args))
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


def run_filter(*args: str, cwd: Path, ledger: Path) -> subprocess.CompletedProcess[str]:
    """``pandoc ARGS --filter pandoc-citeledger`` with the embedded pandoc (or
    $CITELEDGER_PANDOC) and ``ledger`` as $CITELEDGER_LEDGER."""
    from citeledger.pandoc import pandoc_path

    return subprocess.run(
        [pandoc_path(), *args, "--filter", "pandoc-citeledger"],
        cwd=cwd,
        env={**os.environ, "CITELEDGER_LEDGER": str(ledger)},
        capture_output=True,
        text=True,
        check=False,
    )


def one_error_line(done: subprocess.CompletedProcess[str], *words: str) -> str:
    """The one line a refused command printed (exit 2, no traceback), holding each of
    ``words``: how bad input is answered."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def loaded_by(
    folder: Path,
    args: list[str],
    *,
    bare: bool = True,
    paths: Iterable[str] = (),
    preload: str = "",
) -> tuple[str, set[str]]:
    """What ``citeledger ARGS`` prints in ``folder``, run in a Python of its own, and the
    modules it loads beyond those loaded before it started: the checkout first on the path
    (then ``paths``), ``preload`` imported first (``"re"``: as the console script pip writes
    does). ``bare``: without ``site``, whose start-up hooks (an editable install's finder, a
    ``.pth`` file) load modules of their own. The variables that pick a ledger are unset."""
    from textwrap import dedent

    from .paths import ROOT

    probe = dedent(
        f"""
        import sys
        sys.path[:0] = {[str(ROOT), *paths]!r}
        {f"import {preload}" if preload else "pass"}
        before = set(sys.modules)
        from citeledger.cli import main
        try:
            main({args!r})
        except SystemExit as stop:
            assert stop.code in (0, None), stop.code
        print("\\n" + " ".join(sorted(set(sys.modules) - before)))
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(OWN_VARS)}
    done = subprocess.run(
        [sys.executable, *(["-S"] if bare else []), "-c", probe],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, set(done.stdout.splitlines()[-1].split())


def marked_processes(marker: str) -> list[tuple[int, str]]:
    """Live processes (not zombies) whose environment holds ``CITELEDGER_TEST_MARK=marker``:
    citeledger and everything it started, reparented or not (a test sets the mark, to find
    what a run left behind)."""
    wanted = f"CITELEDGER_TEST_MARK={marker}".encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if wanted in environ and state != "Z":
            found.append((int(pid), cmdline.decode("utf-8", "replace")))
    return found
