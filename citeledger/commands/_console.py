"""How the command line talks to a person: how much it says, and colour on a terminal.

How much: ``-q/--quiet`` keeps errors and the verdict (a failing check's lines, ``citations
OK`` / ``verification failed``, ``citeledger: error:``) and drops the ``info:`` stats line,
warnings that do not fail the run, progress and the ``wrote ...`` lines; ``-v/--verbose`` says
every warning on a line of its own where the report groups them (one ``registered in the ledger
but not cited`` line naming many ids becomes one line per id). :class:`Sink` is the filter a
command hands a build as its ``say``.

Colour: the verdict words (``FAIL``, ``warn``, ``citations OK``, ``verification failed``,
``error``) on a stream that is a terminal. ``NO_COLOR`` (any value) switches it off and wins;
``FORCE_COLOR`` (any value but empty or ``0``) switches it on for a pipe, as CI logs that
render ANSI want. Colour is added by the CLI's output stream after
:func:`citeledger.escape.terminal_text` made the line inert, and only around those fixed words:
text from the web never produces an escape sequence.

Standard library and the ledger core only: ``citeledger add`` imports it at start-up.
"""

from __future__ import annotations

import os

from ..ledger.light import pattern, record

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TextIO

    from ..messages import Say

QUIET, NORMAL, VERBOSE = -1, 0, 1

_RED, _YELLOW, _GREEN, _BOLD_RED = "\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[1;31m"
_RESET = "\x1b[0m"
# The word that carries a line's verdict, at the start of the line, and its colour.
_PAINTED = (
    (pattern(r"(?m)^FAIL(?=[: ])"), _BOLD_RED),
    (pattern(r"(?m)^warn(?=:)"), _YELLOW),
    (pattern(r"(?m)^citations OK$"), _GREEN),
    (pattern(r"(?m)^verification failed$"), _BOLD_RED),
)
_PREFIXED = (
    (pattern(r"(?m)^(citeledger: )(error)(?=:)"), _RED),
    (pattern(r"(?m)^(citeledger: )(warning)(?=:)"), _YELLOW),
)
# A grouped finding: a message that ends in a list of several ids (then its fix).
_GROUPED = pattern(r"^((?:warn|info): .*?: )(\[\d+\](?:, \[\d+\])+)( \u2014 fix: .*)?$")


def colour_wanted(stream: TextIO) -> bool:
    """Whether to colour what goes to ``stream`` (see the module docstring)."""
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force and force != "0":
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def paint(text: str) -> str:
    """``text`` with its verdict words coloured; ``text`` must already be terminal-safe."""
    for words, colour in _PAINTED:
        text = words.sub(f"{colour}\\g<0>{_RESET}", text)
    for words, colour in _PREFIXED:
        text = words.sub(f"\\g<1>{colour}\\g<2>{_RESET}", text)
    return text


def ungrouped(line: str) -> list[str]:
    """A warning that names several ids as one line per id; any other line as it is."""
    match = _GROUPED.match(line)
    if match is None:
        return [line]
    fix = match.group(3) or ""
    return [f"{match.group(1)}{one}{fix}" for one in match.group(2).split(", ")]


def shown(line: str, level: int, *, strict: bool = False) -> list[str]:
    """The lines ``line`` becomes at ``level``: none when quiet drops it, several when
    verbose ungroups it. Under ``strict`` a warning fails the run, so quiet keeps it."""
    if level <= QUIET:
        if line.startswith("info:") or (line.startswith("warn:") and not strict):
            return []
        return [line]
    if level >= VERBOSE:
        return ungrouped(line)
    return [line]


def shown_all(lines: Iterable[str], level: int, *, strict: bool = False) -> list[str]:
    return [out for line in lines for out in shown(line, level, strict=strict)]


@record
class Sink:
    """A :class:`~citeledger.messages.Say` that passes on what ``level`` shows."""

    say: Say
    level: int
    strict: bool = False

    def __call__(self, line: str, /) -> None:
        for out in shown(line, self.level, strict=self.strict):
            self.say(out)
