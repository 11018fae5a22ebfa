"""``citeledger mcp``: the verbs an agent calls (add, ingest, quote, list, render, verify) as
tools of a Model Context Protocol server over stdio, on the ``mcp`` SDK (the optional extra
``citeledger[mcp]``).

Each tool runs the verb's own command in this process (no interpreter started per call, so an
``add`` costs the ledger write, not a start-up): the flags, checks, ledger lock and messages are
the command line's, and the result is JSON that carries what the command line's exit code says
(``ok``, ``check failed``, ``bad input``) with the one error line and its fix. Calls run one at a
time, as the verbs' output is read from the process's streams while one runs. Standard input is
the protocol's: text an agent holds (a tool's JSON output, a fetched page) is passed as an
argument and handed to the verb as its ``-``.
"""

from __future__ import annotations

import functools
import io
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from typing import Any, TypedDict

from .commands._app import app_for
from .commands._quick import run_quick
from .errors import BadInput, CiteledgerError

INSTALL_HINT = "install the extra: pip install 'citeledger[mcp]'"
# The exit codes' meaning, as the command line's (0 ok, 1 check failed, 2 bad input).
STATUS = {0: "ok", 1: "check failed", 2: "bad input"}
# The verbs whose tools a server offers; their apps are built before the first call.
TOOL_VERBS = ("add", "ingest", "quote", "list", "render", "verify")


class Outcome(TypedDict, total=False):
    """A tool's result: the exit code and its meaning, what the verb printed, the error line
    and its fix when it failed, and the verb's JSON output when it has one."""

    ok: bool
    exit_code: int
    status: str
    output: str
    messages: list[str]
    error: str
    fix: str
    result: Any


@contextmanager
def _stdin_text(text: str | None) -> Iterator[None]:
    """``text`` as standard input while a verb reads ``-`` (the server's own is the protocol)."""
    if text is None:
        yield
        return
    previous = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = previous


def run_verb(args: list[str], stdin: str | None = None, parse_json: bool = False) -> Outcome:
    """One command line run in this process, its exit code and streams as an :class:`Outcome`;
    ``parse_json``: stdout is the verb's JSON output, returned as ``result``."""
    out, err = io.StringIO(), io.StringIO()
    code, failure = 0, None
    with redirect_stdout(out), redirect_stderr(err), _stdin_text(stdin):
        try:
            quick = run_quick(args)  # the exit code, or None for a form typer runs
            if quick is None:
                returned = app_for(args)(args=args, prog_name="citeledger", standalone_mode=False)
                code = returned if isinstance(returned, int) else 0
            else:
                code = quick
        except CiteledgerError as exc:
            code, failure = exc.exit_code, exc
        except Exception as exc:  # click's usage errors: duck-typed, typer vendors click
            message = getattr(exc, "format_message", None)
            if not callable(message) or not isinstance(getattr(exc, "exit_code", None), int):
                raise
            code = 2
            failure = BadInput(str(message()), hint=f"see citeledger {args[0]} --help")
    outcome: Outcome = {
        "ok": code == 0,
        "exit_code": code,
        "status": STATUS.get(code, "failed"),
        "output": out.getvalue(),
        "messages": err.getvalue().splitlines(),
    }
    if failure is not None:
        outcome["error"] = failure.message
        if failure.hint:
            outcome["fix"] = failure.hint
    if parse_json and out.getvalue().strip():
        outcome["result"] = json.loads(out.getvalue())
        outcome["output"] = ""
    return outcome


def _refuse_stdin(*values: str | None) -> Outcome | None:
    """``-`` names the server's standard input, which carries the protocol."""
    if "-" not in values:
        return None
    return {
        "ok": False,
        "exit_code": 2,
        "status": "bad input",
        "output": "",
        "messages": [],
        "error": "- (standard input) is the MCP protocol's here",
        "fix": "pass the text itself in the tool's text argument, or a file path",
    }


# The ledger ``citeledger --ledger L mcp`` names, for the calls that name none.
_served_ledger: list[str] = []


def _ledger(ledger: str | None) -> list[str]:
    ledger = ledger or next(iter(_served_ledger), None)
    return ["--ledger", ledger] if ledger else []


def add(
    urls: list[str],
    titles: list[str] | None = None,
    accessed: str | None = None,
    author: str | None = None,
    issued: str | None = None,
    site: str | None = None,
    key: str | None = None,
    archived: str | None = None,
    ledger: str | None = None,
) -> Outcome:
    """Register source URLs (http(s), doi:10.x/y or arXiv:id) at retrieval time; result: each
    source with its permanent id. titles: one per URL, in order. A batch is added whole or not
    at all. author, issued, site, key and archived apply to a one-URL call."""
    refused = _refuse_stdin(*urls)
    if refused:
        return refused
    args = ["add", *urls, "--json", *_ledger(ledger)]
    for title in titles or []:
        args += ["--title", title]
    named = {"--accessed": accessed, "--author": author, "--issued": issued, "--site": site}
    named.update({"--key": key, "--archived": archived})
    for flag, value in named.items():
        if value is not None:
            args += [flag, value]
    return run_verb(args, parse_json=True)


def ingest(
    text: str | dict[str, Any] | list[Any] | None = None,
    file: str | None = None,
    from_format: str = "auto",
    ledger: str | None = None,
) -> Outcome:
    """Register every URL of a search tool's JSON output or of a reference library (CSL-JSON,
    BibTeX, BibLaTeX, RIS): give the output itself as text (its JSON as it came, or as text),
    or a file path. from_format: auto, json, csljson, bibtex, biblatex or ris."""
    refused = _refuse_stdin(file)
    if refused:
        return refused
    if (text is None) == (file is None):
        return _one_of("text", "file")
    if text is not None and not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False)
    args = ["ingest", file or "-", "--from", from_format, *_ledger(ledger)]
    return run_verb(args, stdin=text)


def quote(
    source_id: int,
    text: str | None = None,
    evidence: str | None = None,
    page_text: str | None = None,
    ledger: str | None = None,
    drop: int | None = None,
    drop_text: str | None = None,
) -> Outcome:
    """Attach a verbatim quote (text) to source [source_id], checked against the fetched page:
    a file path (text, HTML or PDF) as evidence, or the page's text as page_text; with neither,
    the page ingest kept for that source (from a result that carried the page's text). Or take
    a quote back: drop, its number K (from 1, in the order list shows the source's quotes), or
    drop_text, its text."""
    refused = _refuse_stdin(evidence)
    if refused:
        return refused
    if drop is not None or drop_text is not None:
        args = ["quote", str(source_id), *_ledger(ledger)]
        if text is not None:
            args += ["--text", text]
        if evidence is not None or page_text is not None:
            args += ["--from", evidence or "-"]
        if drop is not None:
            args += ["--drop", str(drop)]
        if drop_text is not None:
            args += ["--drop-text", drop_text]
        return run_verb(args)
    if text is None:
        return {
            **_one_of("text", "drop"),
            "error": "give text (a quote to attach), or drop or drop_text (one to take back)",
            "fix": "pass text with the page's exact words; drop K removes the source's quote K",
        }
    if evidence is not None and page_text is not None:
        return {
            **_one_of("evidence", "page_text"),
            "error": "give evidence or page_text, not both",
            "fix": "pass one of them; with neither, the page ingest kept for the source is used",
        }
    args = ["quote", str(source_id), "--text", text, *_ledger(ledger)]
    if evidence is not None or page_text is not None:
        args += ["--from", evidence or "-"]
    return run_verb(args, stdin=page_text)


def list_sources(ledger: str | None = None) -> Outcome:
    """The ledger's sources (id, url, title, accessed, quotes) as JSON."""
    return run_verb(["list", "--json", *_ledger(ledger)], parse_json=True)


def render(
    style: str = "markdown",
    only: str | None = None,
    cited_in: str | None = None,
    replace_in: str | None = None,
    ledger: str | None = None,
) -> Outcome:
    """A Sources block (style: markdown, plain, footnotes, bibtex, evidence or csljson), for
    the ids in only (1,3,5-7) or those the draft cited_in cites; replace_in rewrites that
    draft's trailing Sources block in place."""
    args = ["render", "--style", style, *_ledger(ledger)]
    for flag, value in (("--only", only), ("--cited-in", cited_in), ("--replace-in", replace_in)):
        if value is not None:
            args += [flag, value]
    return run_verb(args)


def verify(
    files: list[str],
    strict: bool = False,
    min_coverage: float | None = None,
    evidence: bool = False,
    ledger: str | None = None,
    support: bool = False,
) -> Outcome:
    """The gate: check drafts' citations against the ledger (any format pandoc reads). result:
    the report (findings, stats, verdict); status "check failed" when the draft fails.
    support: check each cited sentence against its sources' quotes (a figure, date, name or
    negation they lack is an unsupported-detail; the project file's judge, if any, scores it)."""
    refused = _refuse_stdin(*files)
    if refused:
        return refused
    args = ["verify", *files, "--format", "json", *_ledger(ledger)]
    if strict:
        args.append("--strict")
    if evidence:
        args.append("--evidence")
    if support:
        args.append("--support")
    if min_coverage is not None:
        args += ["--min-coverage", str(min_coverage)]
    return run_verb(args, parse_json=True)


def _one_of(first: str, second: str) -> Outcome:
    return {
        "ok": False,
        "exit_code": 2,
        "status": "bad input",
        "output": "",
        "messages": [],
        "error": f"give one of {first} and {second}",
        "fix": f"pass {first} or {second}, not both and not neither",
    }


def _async(function: Any) -> Any:
    """``function`` as a coroutine the server awaits on its own thread: a verb's streams are
    the process's, so no two calls may run at once (a sync tool would run in a worker thread)."""

    @functools.wraps(function)
    async def call(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    return call


def server() -> Any:
    """The MCP server with citeledger's tools; ``ImportError`` without the ``mcp`` extra."""
    from mcp.server.mcpserver import MCPServer

    from . import __version__

    built = MCPServer(
        name="citeledger",
        version=__version__,
        instructions=(
            "Register every source when you retrieve it (add, ingest), attach verbatim quotes "
            "(quote), cite ids as [n] in the draft, and run verify before you deliver."
        ),
    )
    for name, function in (
        ("add", add),
        ("ingest", ingest),
        ("quote", quote),
        ("list", list_sources),
        ("render", render),
        ("verify", verify),
    ):
        built.add_tool(_async(function), name=name)
    return built


def serve(ledger: str | None = None) -> None:
    """Serve the tools over stdio until the client closes the connection; ``ledger``: the one
    a call that names none works on (else the command line's: environment, project file)."""
    try:
        built = server()
    except ImportError:
        raise BadInput("citeledger mcp needs the mcp package", hint=INSTALL_HINT) from None
    if ledger:
        _served_ledger[:] = [ledger]
    for verb in TOOL_VERBS:
        app_for([verb])  # the verbs' modules load now, not in the first call
    built.run("stdio")
