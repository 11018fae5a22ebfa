"""The typer flags of the options table: one flag per option a command takes, and the flags
gathered back into one ``options: Options`` argument that carries the project file's options
beneath it.

The table itself (which command takes which option, how a value is checked, a flag's help text)
is :mod:`citeledger.options`; this is only how typer is told about it. ``citeledger add`` takes
no option of the table and does not import this.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from ..options import flag_help
from ._flag_options import flagged, options_from_flags

F = TypeVar("F", bound=Callable[..., Any])


def with_flags(command: str) -> Callable[[F], F]:
    """Give a typer command one flag per option the table assigns to ``command``; the command
    receives them as one ``options: Options`` argument (a flag left out is not given)."""

    def decorate(func: F) -> F:
        # Annotations resolved now: typer reads the wrapper's signature as it is given.
        signature = inspect.signature(func, eval_str=True)
        kept = [p for p in signature.parameters.values() if p.name != "options"]
        options = flagged(command)
        added: list[inspect.Parameter] = []
        annotations: dict[str, Any] = {p.name: p.annotation for p in kept}
        for o in options:
            if o.kind == "bool":
                annotation: Any = Annotated[bool, typer.Option(o.flag, help=flag_help(o.key))]
                default: Any = False
            else:
                annotation = Annotated[
                    str | None, typer.Option(o.flag, help=flag_help(o.key), metavar=o.metavar)
                ]
                default = None
            added.append(
                inspect.Parameter(
                    o.field, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
                )
            )
            annotations[o.field] = annotation

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            given = {}
            for o in options:
                value = kwargs.pop(o.field)
                if value is not None and value is not False:
                    given[o.key] = value
            return func(*args, options=options_from_flags(given), **kwargs)

        wrapper.__signature__ = signature.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
        wrapper.__annotations__ = annotations
        return wrapper  # type: ignore[return-value]

    return decorate
