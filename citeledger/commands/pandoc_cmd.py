"""``citeledger pandoc ARGS...``: the embedded pandoc, as ``quarto pandoc`` runs Quarto's.

A pip-only machine has the pypandoc-binary wheel's pandoc but no ``pandoc`` on PATH, so the
README's ``pandoc ... --filter pandoc-citeledger`` recipes would fail there. Every argument goes
to pandoc untouched (``--help`` and ``--version`` are pandoc's), pandoc reads and writes this
process's own stdin, stdout and stderr (it runs as a child), and its exit code is the
command's. The children pandoc
starts (filters that run ``pandoc`` themselves) find the same pandoc first on PATH
(:func:`citeledger.pandoc.child_env`).
"""

from __future__ import annotations

import subprocess
import sys

import typer
from typer.core import TyperCommand


class _Verbatim(TyperCommand):
    """A command that parses nothing: click would drop a leading ``--`` and answer ``--help``
    itself; pandoc must see the arguments exactly as typed."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        ctx.args = list(args)
        return ctx.args


def pandoc(ctx: typer.Context) -> None:
    """Run the embedded pandoc with every argument as given (pandoc's --help for its own)."""
    from .. import pandoc as tool

    cmd = [tool.pandoc_path(), *ctx.args]
    env = tool.child_env()
    sys.stdout.flush()
    sys.stderr.flush()
    # A child, not exec: `citeledger pandoc` may run inside a Python process that must go on
    # (the CLI called in-process, a test runner). pandoc inherits the streams as they are.
    code = subprocess.run(cmd, env=env, check=False).returncode
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("pandoc", cls=_Verbatim, add_help_option=False)(pandoc)
