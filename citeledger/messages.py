"""The one message sink: where a run says its lines (findings, warnings, per-output errors).

A build or a filter run never prints: it is handed a :class:`Say` and calls it with whole lines,
each carrying its own prefix (``warn: ...``, ``FAIL ...``). The CLI edge and the console filter
hand it :func:`to_stderr`; a test or a script that wants quiet hands it a function that keeps or
drops the lines.
"""

from __future__ import annotations

import sys

# ``typing`` loads only for a run that asks for ``Say`` (a build, a filter): a quick verb
# imports this module for :func:`to_stderr` alone. Type checkers read this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Say(Protocol):
        def __call__(self, line: str, /) -> None: ...


def __getattr__(name: str) -> object:
    if name != "Say":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Protocol

    class Say(Protocol):  # the protocol above, made on first use
        def __call__(self, line: str, /) -> None: ...

    globals()["Say"] = Say
    return Say


def to_stderr(line: str) -> None:
    print(line, file=sys.stderr)
