"""What every command shares: the global options (``--ledger``, ``--version``, ``-q``,
``-v``), where the ledger is, flag helpers, the input reader for files or stdin, and the two
line printers.

``--ledger PATH`` is accepted before the verb (``citeledger --ledger L add ...``) and after it
(``citeledger add --ledger L ...``); the one after the verb wins. Without it: the project
file's ``ledger`` (``citeledger.toml`` or ``[tool.citeledger]``, see
:func:`citeledger.options.project.load_project`), ``$CITELEDGER_LEDGER``,
``$HERMES_CITATION_LEDGER``, ``$HERMES_HOME/cache/citations/ledger.json`` when ``$HERMES_HOME``
is set, else ``./ledger.json`` (see ``locate_ledger``). ``-q``/``-v`` too are taken before the
verb and after it (on verify, convert and wiki).

Module-level imports stay light (``add`` runs at every retrieval).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from ..errors import BadInput
from ..options import Options, flag_help
from ._console import NORMAL, QUIET, VERBOSE
from ._io import MAX_INPUT_BYTES as MAX_INPUT_BYTES
from ._io import echo as echo
from ._io import parse_id as parse_id
from ._io import read_text_input as read_text_input
from ._io import warn as warn
from ._quick import where_ledger

LedgerOpt = Annotated[
    str | None, typer.Option("--ledger", metavar="FILE", help=flag_help("ledger"))
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of lines.")]
QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet", "-q", help="Only errors and the verdict: no stats, warnings or progress."
    ),
]
VerboseOpt = Annotated[
    bool, typer.Option("--verbose", "-v", help="Every warning on its own line, none grouped.")
]
FromOpt = Annotated[
    str | None,
    typer.Option(
        "--from", "-f", metavar="FORMAT", help="Pandoc input format (default: by extension)."
    ),
]
MetaOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--metadata",
        "-M",
        metavar="KEY=VAL",
        help="Document metadata, as pandoc's -M (citeledger.KEY=VAL sets an option).",
    ),
]


class _AsGiven:
    """Coercion of a text or flag parameter: the value as the command line gave it. typer
    0.29 coerces every parameter through a pydantic TypeAdapter built on the first call, and
    importing pydantic for it cost ``citeledger add`` about 90 ms of its start; a ``str``,
    ``list[str]`` or ``bool`` that is already one needs nothing of it. Anything else goes to
    typer's own coercion. The contract is typer's ``RuntimeParam.coerce``."""

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        many = param.multiple or param.nargs == -1
        if value is None:
            return () if many else None
        if many and isinstance(value, (list, tuple)):
            if all(isinstance(item, self.kind) for item in value):
                return list(value)
        elif not many and isinstance(value, self.kind):
            return value
        from typer._coercion import build_runtime_param

        return build_runtime_param(param.type_descriptor).coerce(value, param=param, ctx=ctx)


_AS_GIVEN = {str: _AsGiven(str), list[str]: _AsGiven(str), bool: _AsGiven(bool)}


def plain_coercion(params: list[Any]) -> None:
    """Text and flag parameters skip typer's pydantic coercion (see :class:`_AsGiven`).
    Duck-typed: a typer without ``type_descriptor`` coerces as it always did."""
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is not None and descriptor.annotation in _AS_GIVEN:
            param._runtime_param = _AS_GIVEN[descriptor.annotation]


class Group(TyperGroup):
    """The ``citeledger`` group: its options (``--ledger``, ``-q``, the completion flags
    typer adds after construction) coerced as given too."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        plain_coercion(self.get_params(ctx))
        return super().parse_args(ctx, args)


class Command(TyperCommand):
    """A verb whose help reads like pandoc's: an argument shows as its upper-case name
    (``DRAFT``, ``FILE...``), not with a Python type beside it (``<list[Path]>``), and the
    usage line as ``citeledger add [OPTIONS] URL...`` (optional ones in brackets)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        plain_coercion(self.get_params(ctx))  # --help is made on demand, after __init__
        return super().parse_args(ctx, args)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if isinstance(param, TyperArgument):
                name = param.metavar or (param.name or "ARG").upper()
                usage = name if param.required else f"[{name}]"
                # Set on the instance: typer's class always appends the type to an argument.
                param.display_type_rich = _no_type  # type: ignore[method-assign]
                param._rich_display_name = _constant(name)  # type: ignore[method-assign]
                param._usage_display_name = _constant(usage)  # type: ignore[method-assign]


def _no_type(ctx: Any) -> None:
    return None


def _constant(text: str) -> Callable[[], str]:
    return lambda: text


def flag(name: str, metavar: str, help: str, *short: str) -> Any:
    """A verb's option that takes a value, in one call (typer's keywords are long to repeat);
    ``short``: its one-letter spelling, pandoc's where pandoc has one (``-F``)."""
    return typer.Option(name, *short, metavar=metavar, help=help)


def ledger_location(ctx: typer.Context, explicit: str | None = None) -> tuple[Path, str]:
    """The ledger a command works on and why: its own ``--ledger``, else the one given before
    the verb, else the environment and default (``locate_ledger``)."""
    if explicit:
        return where_ledger(explicit, None)
    root = ctx.find_root()
    global_value = (root.params or {}).get("ledger") if root is not None else None
    return where_ledger(explicit, global_value)


def ledger_path(ctx: typer.Context, explicit: str | None = None) -> Path:
    """The ledger path alone. Other command modules (verify, wiki, finish) use this too."""
    return ledger_location(ctx, explicit)[0]


def global_ledger(ctx: typer.Context, options: Options) -> Options:
    """``options`` with the ledger given before the verb, when the command got none itself."""
    root = ctx.find_root()
    global_value = (root.params or {}).get("ledger") if root is not None else None
    if options.is_set("ledger") or not global_value:
        return options
    return options.updated({"ledger": global_value})


def verbosity(ctx: typer.Context, quiet: bool = False, verbose: bool = False) -> int:
    """How much a command says: its own -q/-v, else the ones given before the verb."""
    root = ctx.find_root()
    params = (root.params or {}) if root is not None else {}
    quiet = quiet or bool(params.get("quiet"))
    verbose = verbose or bool(params.get("verbose"))
    if quiet and verbose:
        raise BadInput("-q and -v ask for opposite things", hint="give one of them")
    return QUIET if quiet else VERBOSE if verbose else NORMAL


def _show_version(value: bool) -> None:
    """``citeledger --version``: this package, and the pandoc it runs (as ``ruff --version``
    prints its own and pandoc its own first line)."""
    if not value:
        return
    from .. import __date__, __version__
    from ..errors import CiteledgerError

    print(f"citeledger {__version__} ({__date__})")
    try:
        from ..pandoc import pandoc_path, pandoc_version

        path = pandoc_path()
        version = ".".join(map(str, pandoc_version()))
        print(f"pandoc {version} ({path})")
    except CiteledgerError as exc:
        print(f"pandoc: none ({exc.line()})")
    raise typer.Exit()


def main_callback(
    ctx: typer.Context,
    ledger: LedgerOpt = None,
    quiet: QuietOpt = False,
    verbose: VerboseOpt = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_show_version,
            help="Print the versions of citeledger and of the pandoc it runs.",
        ),
    ] = False,
) -> None:
    """A citation ledger, a pandoc filter and one verifier for grounded research."""
