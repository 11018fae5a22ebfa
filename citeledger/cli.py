"""The ``citeledger`` command line. Thin: parse, call the parts, print.

Start-up must stay light (``citeledger add`` runs at every retrieval): the command modules
import only the ledger core at module level; pandoc, panflute and office code load inside the
commands that need them.
"""

from __future__ import annotations

import sys

import typer

from .errors import CiteledgerError

app = typer.Typer(
    name="citeledger",
    help="A citation ledger, a pandoc filter and one verifier for grounded research.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _register() -> None:
    from .commands import ledger_cmds

    ledger_cmds.register(app)
    for name in ("verify_cmd", "convert_cmd", "finish_cmd", "wiki_cmd"):
        try:
            module = __import__(f"citeledger.commands.{name}", fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != f"citeledger.commands.{name}":
                raise
            continue
        module.register(app)


_register()


def main(argv: list[str] | None = None) -> None:
    """Console entry point: every CiteledgerError becomes one line and its exit code."""
    try:
        app(args=argv, prog_name="citeledger")
    except CiteledgerError as exc:
        print(f"citeledger: error: {exc.line()}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        print("citeledger: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
