"""The one message sink: where a run says its lines (findings, warnings, per-output errors).

A build or a filter run never prints: it is handed a :class:`Say` and calls it with whole lines,
each carrying its own prefix (``warn: ...``, ``FAIL ...``). The CLI edge and the console filter
hand it :func:`to_stderr`; a test or a script that wants quiet hands it a function that keeps or
drops the lines.
"""

from __future__ import annotations

import sys
from typing import Protocol


class Say(Protocol):
    def __call__(self, line: str, /) -> None: ...


def to_stderr(line: str) -> None:
    print(line, file=sys.stderr)
