"""An include directive pandoc did not read: an untrusted draft's, read under ``--sandbox``
(``document/readers.py``), which reads no other file; or a trusted draft's naming a file that
is not there. pandoc only warns and leaves the text out, so the text, and the citations in
it, would be lost with exit 0: :func:`refuse_unread_include` makes the warning one error line
at the directive's place."""

from __future__ import annotations

from pathlib import Path

from .errors import DraftError
from .ledger.light import pattern

# How an untrusted draft is read: its includes read no file, its iframes fetch nothing.
SANDBOX_ARG = "--sandbox"
_UNREAD_INCLUDE = pattern(r"Could not load include file (.+?) at (.*?) line (\d+) column (\d+)")


def refuse_unread_include(stderr: bytes, what: str, sandboxed: bool) -> None:
    """One line for the first include directive pandoc did not read, at its place: under
    ``--sandbox`` an untrusted draft's, which reads no other file; else a file not there."""
    m = _UNREAD_INCLUDE.search(stderr.decode("utf-8", "replace"))
    if m is None:
        return
    name, where, line, col = m.groups()
    line, col = _directive_place(where, name, int(line), int(col))
    place = f"{where if where not in ('', '-') else what}:{line}:{col}"
    if not sandboxed:
        raise DraftError(
            f"{place}: the draft includes {name}, which pandoc could not read: its text would "
            "be lost",
            hint="check the include's path, or paste the included text into the draft",
        )
    raise DraftError(
        f"{place}: the draft includes {name}, and an untrusted draft reads no other file: its "
        "text, and what it cites, would be lost",
        hint="paste the included text into the draft, or pass --trust-draft if the draft and "
        "the file are yours; trust-draft = true in the project file does the same",
    )


def _directive_place(where: str, name: str, line: int, col: int) -> tuple[int, int]:
    """The line and column of the include naming ``name`` in the file ``where``: pandoc's
    place is where its reader stood after the directive (a line or two below it in Org and
    reStructuredText); the last line at or above it that names the file, else pandoc's."""
    try:
        lines = Path(where).read_text(encoding="utf-8", errors="replace").splitlines()
    except (OSError, ValueError):
        return line, col
    for number in range(min(line, len(lines)), 0, -1):
        at = lines[number - 1].find(name)
        if at >= 0:
            return number, at + 1
    return line, col
