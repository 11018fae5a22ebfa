"""The ``citeledger`` command line. Thin: parse, call the parts, print.

Start-up must stay light (``citeledger add`` runs at every retrieval, once per source): the
plain forms of ``add`` and ``list`` run without typer
(:mod:`citeledger.commands._quick`); any other run imports only its own verb's module
(:func:`citeledger.commands._app.app_for`), the command modules import only the ledger core at
module level, and pandoc, panflute and office code load inside the commands that need them.
Text and flag parameters skip typer's pydantic coercion (``commands._common.plain_coercion``).

What it prints goes through :class:`_TerminalSafe` (web content made inert, then the verdict words
coloured on a terminal: :mod:`citeledger.commands._console`). A reader that goes away (``| head``)
ends the run quietly, as ``git log | head`` does.
"""

from __future__ import annotations

# The C module under ``signal``, which wraps it in enums: ``enum`` alone is a third of a bare
# Python start, and the fast lane of ``add`` and ``list`` loads no module that needs it.
import _signal as signal
import errno
import os
import sys

from .commands._console import colour_wanted, paint
from .commands._quick import run_quick
from .errors import BadInput, CiteledgerError

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO


def _typer_run(args: list[str]) -> Any:
    """The verb through its typer command, with only that verb's module imported."""
    from .commands._app import app_for

    return app_for(args, _edge())(args=args, prog_name="citeledger", standalone_mode=False)


def _edge() -> dict[str, Any]:
    """The verbs defined here, above the commands: ``mcp`` runs them."""
    from .commands._app import ledger_command

    return {"mcp": ledger_command(_serve_mcp, _MCP_HELP)}


_MCP_HELP = """Serve add, ingest, quote, list, render and verify to an agent as MCP tools over
stdio, run in this process (needs the extra: pip install 'citeledger[mcp]')."""


def _serve_mcp(ledger: str | None) -> None:
    from .mcp import serve

    serve(ledger)


def __getattr__(name: str) -> Any:
    """``citeledger.cli.app`` (every verb, built on first use) and ``VERBS``: typer loads only
    for a run that needs it."""
    if name not in ("app", "VERBS"):  # importlib asks for __path__ and the like
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .commands import _app

    if name == "app":
        return _app.app_for([], _edge())
    return _app.VERBS


# The ASCII characters printed as they are: tab, new line and the printable ones.
_PLAIN_ASCII = b"\t\n" + bytes(range(0x20, 0x7F))


class _TerminalSafe:
    """A text stream that prints web content inert: every line citeledger prints may hold a
    title, a URL or a quote, and ESC, CSI or a bidirectional override in one of them must show
    as text, not move the cursor or reorder the screen (``citeledger.escape.terminal_text``)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._colour = colour_wanted(stream)

    def write(self, text: str) -> int:
        # Colour after the escaping: only citeledger's own fixed sequences reach the terminal.
        # Printable text (new lines and tabs aside) holds nothing to escape: no import needed.
        # ASCII text is checked a byte at a time against a table (a 50,000-line list: a
        # fraction of isprintable's time).
        if text.isascii():
            plain = not text.encode("ascii").translate(None, _PLAIN_ASCII)
        else:
            plain = text.replace("\n", "").replace("\t", "").isprintable()
        if plain:
            safe = text
        else:
            from .escape import terminal_text

            safe = terminal_text(text)
        return self._stream.write(paint(safe) if self._colour else safe)

    @property
    def raw(self) -> TextIO:
        """The stream itself, for a progress display that writes its own escape codes."""
        return self._stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Terminated(BaseException):
    """SIGTERM or Ctrl-C, raised where the program stands so that the command unwinds and
    says so. Not an Exception, as KeyboardInterrupt is not: no ``except Exception`` on the way
    may take it for a failure of its own (the usage-error handler below did, and printed a
    traceback); and not a KeyboardInterrupt, which typer turns into a silent exit 130."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM or Ctrl-C: every pandoc still running is killed first (a wiki build runs them
    from worker threads, which an exception in the main thread never reaches), then the
    command unwinds from where it stands."""
    started = sys.modules.get("citeledger.pandoc_start")  # never imported: nothing was started
    if started is not None:
        started.stop_children()
    raise _Terminated(signum)


def _handle_stop_signals() -> dict[int, Any]:
    """Install :func:`_terminate` for SIGTERM, and for SIGINT unless it is ignored (a job
    started in the background); returns the handlers to put back."""
    previous: dict[int, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGINT):
        current = signal.getsignal(signum)
        if signum == signal.SIGINT and current is not signal.default_int_handler:
            continue
        try:
            signal.signal(signum, _terminate)
        except ValueError:  # not the main thread, the only one that may handle signals
            break
        previous[signum] = current
    return previous


def _undecodable_argument(argv: list[str]) -> int | None:
    """The position of the first argument that was not valid UTF-8 (Python keeps such bytes
    as lone surrogates), or None."""
    for k, arg in enumerate(argv, 1):
        if any("\ud800" <= ch <= "\udfff" for ch in arg):
            return k
    return None


def main(argv: list[str] | None = None) -> None:
    """Console entry point: every CiteledgerError becomes one line and its exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    sys.stdout = _TerminalSafe(sys.stdout)
    sys.stderr = _TerminalSafe(sys.stderr)
    previous = _handle_stop_signals()
    try:
        bad = _undecodable_argument(args)
        if bad is not None:
            raise BadInput(
                f"argument {bad} is not valid UTF-8 text",
                hint="pass file names and text as UTF-8; check the shell's locale",
            )
        code = run_quick(args, ending=argv is None)
        quick = code is not None
        if code is None:
            code = _typer_run(args)
    except SystemExit:
        # click meets a closed pipe itself where it prints (help, usage) and exits 1; the run
        # ends the same way as one that met it in a command.
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            _reader_gone()
        raise
    except CiteledgerError as exc:
        print(f"citeledger: error: {exc.line()}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except OSError as exc:  # BrokenPipeError, or EPIPE as a plain OSError from a C extension
        if exc.errno != errno.EPIPE:
            raise
        _reader_gone()
    except Exception as exc:
        if type(exc).__name__ == "Abort":  # typer's (its own click's): Ctrl-C at a prompt
            print("citeledger: interrupted", file=sys.stderr)
            sys.exit(130)
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `citeledger`: the help, as before
            print(getattr(exc, "format_message", str)())
            sys.exit(2)
        line = _usage_error(exc, args)
        if line is None:
            raise
        print(f"citeledger: error: {line}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("citeledger: interrupted", file=sys.stderr)
        sys.exit(130)
    except _Terminated as stop:
        if stop.signum == signal.SIGINT:
            print("citeledger: interrupted", file=sys.stderr)
            sys.exit(130)
        print("citeledger: terminated", file=sys.stderr)
        sys.exit(143)
    finally:
        for signum, handler in previous.items():
            if handler is not None:
                signal.signal(signum, handler)
        sys.stdout = sys.stdout._stream if isinstance(sys.stdout, _TerminalSafe) else sys.stdout
        sys.stderr = sys.stderr._stream if isinstance(sys.stderr, _TerminalSafe) else sys.stderr
    try:
        sys.stdout.flush()  # what is still buffered meets a closed pipe here, not at exit
    except BrokenPipeError:
        _reader_gone()
    if argv is None and quick and not _TEARDOWN_MATTERS.intersection(sys.modules):
        _leave(code if isinstance(code, int) else 0)
    if isinstance(code, int) and code:
        sys.exit(code)


# Modules whose objects do work at the interpreter's exit: threads are joined, temporary
# folders removed, pools shut down.
_TEARDOWN_MATTERS = frozenset({"threading", "tempfile", "concurrent.futures", "multiprocessing"})


def _leave(code: int) -> None:
    """End a quick verb's process without the interpreter's teardown, which frees every object
    of every module one by one (a tenth of a one-page verify): the command's files are written
    and closed, its children waited for, its output flushed here, and nothing of it runs at
    exit. Only the console's own run (``main()`` with no ``argv``) ends so."""
    try:  # noqa: SIM105 - contextlib is an import a quick verb does without
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)


# A program that writes to a pipe its reader closed is ended by SIGPIPE in C: the shell sees
# 128 + 13. Python ignores the signal and raises instead; this is the same ending, quietly.
EXIT_PIPE_CLOSED = 141


def _reader_gone() -> None:
    """stdout's reader went away (``citeledger list | head -1``): stop without a traceback.
    stdout is pointed at /dev/null so that the interpreter's last flush finds nowhere to fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(EXIT_PIPE_CLOSED)


def _usage_error(exc: Exception, args: list[str]) -> str | None:
    """A command-line mistake (unknown option, missing argument, bad value) as one line, in
    place of click's usage block; None for anything else. Duck-typed: typer vendors its own
    copy of click, so the exception classes depend on typer's version."""
    message = getattr(exc, "format_message", None)
    if not callable(message) or not isinstance(getattr(exc, "exit_code", None), int):
        return None
    from .commands._app import VERBS

    verb = next((a for a in args if a in VERBS), "")
    where = f"citeledger {verb} --help" if verb else "citeledger --help"
    return f"{' '.join(str(message()).split())} (see {where})"


if __name__ == "__main__":
    main()
