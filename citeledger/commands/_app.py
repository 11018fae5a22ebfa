"""The verb table and the typer app built from it, shared by the command line
(:mod:`citeledger.cli`) and the MCP server (:mod:`citeledger.mcp`), which runs a verb's own
command in-process so that its flags, output and errors are the command line's.

A run imports only its own verb's module (:func:`app_for`; the group's help, completion and a
mistake get every verb): each verb's module costs start-up time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import typer
from typer.core import TyperCommand

from ._common import Command, Group, LedgerOpt, main_callback

# Each verb and the module that defines it, in the order `citeledger --help` lists them.
VERBS = {
    "reset": "reset_cmd",
    "add": "add_cmd",
    "ingest": "ingest_cmd",
    "import": "import_cmd",
    "quote": "quote_cmd",
    "list": "list_cmd",
    "render": "render_cmd",
    "verify": "verify_cmd",
    "audit": "audit_cmd",
    "convert": "convert_cmd",
    "finish": "finish_cmd",
    "wiki": "wiki_cmd",
    "merge": "merge_cmd",
    "recheck": "recheck_cmd",
    "rewrite": "rewrite_cmd",
    "config": "config_cmd",
    "pandoc": "pandoc_cmd",
    "archive": "archive_cmd",
    # The MCP server sits above the commands (it runs them): the edge registers it.
    "mcp": "",
}
# The options taken before the verb that take a value (``citeledger --ledger L add ...``).
GLOBAL_VALUES = ("--ledger",)


Edge = Mapping[str, Callable[..., Any]]


def build_app(verbs: Iterable[str] = VERBS, edge: Edge | None = None) -> typer.Typer:
    """The typer app with ``verbs`` registered (every verb by default); ``edge`` holds the
    commands of the verbs the program's edge defines itself (``mcp``)."""
    built = typer.Typer(
        name="citeledger",
        help="A citation ledger, a pandoc filter and one verifier for grounded research.",
        add_completion=True,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        cls=Group,
    )
    built.callback()(main_callback)
    for verb in verbs:
        if not VERBS[verb]:
            if edge and verb in edge:
                built.command(verb)(edge[verb])
            continue
        module = __import__(f"citeledger.commands.{VERBS[verb]}", fromlist=["register"])
        module.register(built)
    for info in built.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = Command
    return built


def verb_in(args: list[str]) -> str | None:
    """The verb a command line runs, when it names one: the first word that is no option
    (nor the value of one) before it. None for ``--help``, completion or a mistake."""
    words = iter(args)
    for word in words:
        if word in GLOBAL_VALUES:
            next(words, None)
        elif not word.startswith("-"):
            return word if word in VERBS else None
    return None


_built: dict[str | None, typer.Typer] = {}


def app_for(args: list[str], edge: Edge | None = None) -> typer.Typer:
    """The app a run needs, built once per process: only its verb's module is imported (every
    verb for the group's help, completion and a word that names no verb)."""
    verb = verb_in(args)
    if verb not in _built:
        _built[verb] = build_app(edge=edge) if verb is None else build_app([verb], edge)
    return _built[verb]


def ledger_command(run: Callable[[str | None], None], doc: str) -> Callable[..., None]:
    """A verb of the edge that takes ``--ledger`` (here or before the verb) and hands it to
    ``run``: the ``mcp`` server, whose tools use that ledger unless a call names its own."""

    def command(ctx: typer.Context, ledger: LedgerOpt = None) -> None:
        root = ctx.find_root()
        run(ledger or (root.params or {}).get("ledger"))

    command.__doc__ = doc
    return command
