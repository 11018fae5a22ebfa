"""The options a command's flags give, gathered into one :class:`~citeledger.options.Options`
above the project file's: what :func:`citeledger.commands._flags.with_flags` hands a typer
command, and what the quick verify (:mod:`citeledger.commands._quick_verify`) builds without
typer, through the same code.
"""

from __future__ import annotations

from ..messages import to_stderr
from ..options import OPTIONS, Option, Options, parse_values
from ..options.project import Project, load_project
from ..options.trust import project_vouches

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def flagged(command: str) -> list[Option]:
    """The options ``command`` takes as flags; ``config`` shows what any of them would do."""
    return [o for o in OPTIONS if command in o.commands or command == "config"]


def options_from_flags(given: dict[str, Any]) -> Options:
    """The flags given (option key to the value as typed, ``True`` for a switch) above the
    project file's options."""
    under = _project_options(load_project())
    parsed = Options(beneath=under if under.given else None)
    return parsed.updated(parse_values(given, lambda o: o.flag))


def _project_options(project: Project) -> Options:
    """The project file's options; its ``trust-draft`` only when the file may vouch for drafts
    (:func:`~citeledger.options.trust.project_vouches`: inside the repository being built)."""
    under = project.options
    if not under.trust_draft or project_vouches(project.path):
        return under
    to_stderr(
        f"warn: {project.path}: trust-draft ignored: the project file is not inside the "
        "repository being built (pass --trust-draft to trust the draft)"
    )
    return Options().updated(
        {k: getattr(under, k.replace("-", "_")) for k in under.given - {"trust-draft"}}
    )
