"""The support check's judge as a command loads it (``verify``, ``audit``), and its progress
bar: on a terminal, on standard error (standard output may be a report a parser reads whole).

The judge comes from the flags and the project file only (:meth:`Options.effective`), never
from a draft's front matter: a draft does not choose what runs on the reviewer's machine.
Naming a judge turns the check on.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..ledger.light import contextmanager
from ..options import Options
from ._console import QUIET

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from ..verify.support.judge import Judge, Progress

# Below this many pairs a bar would only flicker.
PROGRESS_MIN_PAIRS = 16


def support_options(options: Options) -> Options:
    """``options`` with ``support`` on when a judge is named."""
    trusted = options.effective()
    if (trusted.support_model or trusted.support_judge) and not options.support:
        return options.replaced(support=True, given=options.given | {"support"})
    return options


def load_support_judge(options: Options) -> Judge | None:
    """The judge the flags or the project file name (None: none); one line when it cannot
    be loaded (:class:`~citeledger.errors.JudgeError`)."""
    trusted = options.effective()
    if not (trusted.support_model or trusted.support_judge):
        return None
    from ..verify.support.judge import load_judge

    return load_judge(trusted.support_model, trusted.support_judge or None)


def judge_progress(judge: Judge | None, level: int) -> AbstractContextManager[Progress | None]:
    """A progress bar for the judge's pairs on a terminal's standard error (None: no bar)."""
    if judge is None or level <= QUIET or not sys.stderr.isatty():
        return _NO_BAR
    return _bar()


class _NoBar:
    """No progress bar: entered as None (a verify without a judge loads no ``contextlib``)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_BAR = _NoBar()


@contextmanager
def _bar() -> Iterator[Progress]:
    from rich.console import Console
    from rich.progress import Progress as Bar

    # rich's own escape codes go to the terminal itself, past the CLI's escaping stream.
    console = Console(file=getattr(sys.stderr, "raw", sys.stderr))
    with Bar(console=console, transient=True) as bar:
        task = bar.add_task("judging claims", total=None)

        def advance(done: int, total: int) -> None:
            if total >= PROGRESS_MIN_PAIRS:
                bar.update(task, completed=done, total=total)

        yield advance
