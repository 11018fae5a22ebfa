"""pandoc's reading options, shared by ``convert`` and ``verify`` so the gate sees the document
the build places: the user's filters (in the order the command line gave them), a defaults file,
citeproc and its bibliography and style, and where pandoc looks for resources. Declared once
here and added to a command by :func:`with_pipeline`, which hands it one ``pipeline`` argument.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from ._common import flag

if TYPE_CHECKING:
    from ..document.pipeline import Pipeline

F = TypeVar("F", bound=Callable[..., Any])

# pandoc's own names and short flags.
_FILTER_HELP = "A JSON filter, run on the draft before citeledger (pandoc's --filter); repeatable."
FilterOpt = Annotated[list[str] | None, flag("--filter", "PROGRAM", _FILTER_HELP, "-F")]
_LUAFILTER_HELP = "A Lua filter, run on the draft before citeledger; repeatable."
LuaFilterOpt = Annotated[list[str] | None, flag("--lua-filter", "SCRIPT", _LUAFILTER_HELP, "-L")]
CiteprocOpt = Annotated[
    bool,
    typer.Option(
        "--citeproc",
        "-C",
        help="Resolve [@key] citations (also on when a bibliography is named).",
    ),
]
BibliographyOpt = Annotated[
    list[str] | None,
    typer.Option("--bibliography", metavar="FILE", help="A bibliography for citeproc."),
]
CslOpt = Annotated[
    str | None, typer.Option("--csl", metavar="FILE", help="A CSL style for citeproc.")
]
_DEFAULTS_HELP = "A pandoc defaults file, applied while the draft is read."
DefaultsOpt = Annotated[list[str] | None, flag("--defaults", "FILE", _DEFAULTS_HELP, "-d")]
_RESOURCEPATH_HELP = (
    "Where pandoc looks for images, bibliographies and styles (default: the draft's "
    "folder, then this one)."
)
ResourcePathOpt = Annotated[str | None, flag("--resource-path", "PATHS", _RESOURCEPATH_HELP)]


def _pipeline_from(
    filters: list[str] | None,
    lua_filters: list[str] | None,
    citeproc: bool,
    bibliography: list[str] | None,
    csl: str | None,
    defaults: list[str] | None,
    resource_path: str | None,
) -> Pipeline:
    """The user's pandoc steps, the filters in the order the command line gave them."""
    from ..document.pipeline import Pipeline, filter_order

    return Pipeline(
        filters=filter_order(sys.argv[1:], filters or [], lua_filters or []),
        citeproc=citeproc,
        bibliography=tuple(bibliography or ()),
        csl=csl,
        defaults=tuple(defaults or ()),
        resource_path=resource_path,
    )


# The parameters with_pipeline adds, and their defaults.
_PARAMETERS: tuple[tuple[str, Any, Any], ...] = (
    ("filters", FilterOpt, None),
    ("lua_filters", LuaFilterOpt, None),
    ("citeproc", CiteprocOpt, False),
    ("bibliography", BibliographyOpt, None),
    ("csl", CslOpt, None),
    ("defaults", DefaultsOpt, None),
    ("resource_path", ResourcePathOpt, None),
)


def with_pipeline(func: F) -> F:
    """Give a typer command pandoc's reading options; it receives them as one ``pipeline``."""
    signature = inspect.signature(func, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.name != "pipeline"]
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        for name, kind, default in _PARAMETERS
    ]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = [kwargs.pop(name) for name, _kind, _default in _PARAMETERS]
        return func(*args, pipeline=_pipeline_from(*values), **kwargs)

    wrapper.__signature__ = signature.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in [*kept, *added]}
    return wrapper  # type: ignore[return-value]
