"""``citeledger config [DRAFT]``: every option's effective value and where it came from.

The layers, most specific first: a flag (any option's, as convert, verify, wiki or finish take
it), the front matter of DRAFT when one is given, the project file (``citeledger.toml``, or
``[tool.citeledger]`` in ``pyproject.toml``, the first found walking up from the working
directory), the default. The lines are TOML (``key = value  # origin``), so a project file can
start as a copy of them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..messages import to_stderr
from ..options import Options, from_meta
from ..options.manual import Setting, settings
from ..options.project import load_project
from ..options.trust import tightened, vet_front_matter
from ._common import FromOpt, global_ledger, ledger_location
from ._flags import with_flags


@with_flags("config")
def config_command(
    ctx: typer.Context,
    draft: Annotated[
        Path | None,
        typer.Argument(
            metavar="DRAFT", help="Also read this draft's front matter.", show_default=False
        ),
    ] = None,
    from_format: FromOpt = None,
    *,
    options: Options,
) -> None:
    """Print every option's effective value and where it came from."""
    project = load_project()
    flags = global_ledger(ctx, options)
    front = None
    if draft is not None:
        from ..document.draft import open_draft
        from ..errors import DraftError

        if not draft.is_file():
            raise DraftError(f"no such draft: {draft}", hint="check the path")
        trusted = flags.effective().trust_draft
        doc = open_draft(draft, from_format=from_format, trusted=trusted).tree
        meta = doc.get("meta", {})
        if not flags.effective().trust_draft:  # what a build takes of it (options/trust.py)
            vet_front_matter(meta, str(draft), draft.parent, to_stderr)
        front = tightened(from_meta(meta, to_stderr), flags.beneath)
    if project.path is None:
        print(f"# no project file ({_searched()})")
    else:
        print(f"# project file: {project.path}")
    for setting in settings(project, front, str(draft), flags):
        print(_line(setting, ctx))


def _searched() -> str:
    return (
        "no citeledger.toml or [tool.citeledger] in pyproject.toml from here up to the "
        "repository's root"
    )


def _line(setting: Setting, ctx: typer.Context) -> str:
    value: Any = setting.value
    origin = setting.origin
    if setting.key == "ledger" and origin == "default":
        path, why = ledger_location(ctx)
        return f"ledger = {json.dumps(str(path))}  # default: {why}"
    if value is None:
        return f"# {setting.key}: not set  # {origin}"
    return f"{setting.key} = {_toml(value)}  # {origin}"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def register(app: typer.Typer) -> None:
    app.command("config")(config_command)
