"""An untrusted draft's include directives (Org's ``#+INCLUDE``, LaTeX's ``\\input``,
reStructuredText's and AsciiDoc's ``include``). pandoc reads such a draft under ``--sandbox``
(``document/readers.py``), where an include reads nothing: pandoc only warns and leaves its
text out, which would lose it, and what it cites, with exit 0. :func:`refuse_unread_include`
makes the warning an error; :func:`vet_includes` lets the read run again unsandboxed when
every file the includes name, and the files those name, lies inside the draft's folder (a
draft reads only files inside its folder, DESIGN.md), and raises the error otherwise. A
trusted draft's include naming no file is the same error."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from .errors import DraftError
from .ledger.light import pattern
from .pandoc_start import SANDBOX_ARG as SANDBOX_ARG  # how an untrusted draft is read

_UNREAD_INCLUDE = pattern(r"Could not load include file (.+?) at (.*?) line (\d+) column (\d+)")
_FETCH = "Could not fetch resource"
_DEPTH = 16


class UnreadInclude(DraftError):
    """pandoc read none of the includes ``names`` ((name, the file naming it) each); ``stderr``
    is all it said, ``sandboxed`` whether it ran under ``--sandbox``."""

    def __init__(
        self,
        message: str,
        *,
        hint: str,
        names: list[tuple[str, str]],
        stderr: str,
        sandboxed: bool,
    ) -> None:
        super().__init__(message, hint=hint)
        self.names = names
        self.stderr = stderr
        self.sandboxed = sandboxed


def refuse_unread_include(stderr: bytes, what: str, sandboxed: bool) -> None:
    """Raise :class:`UnreadInclude` for the include directives pandoc did not read, the first
    placed: under ``--sandbox`` an untrusted draft's, which reads no file outside its folder;
    else a file not there."""
    said = stderr.decode("utf-8", "replace")
    found = list(_UNREAD_INCLUDE.finditer(said))
    if not found:
        return
    name, where, line, col = found[0].groups()
    where = where if where not in ("", "-") else what
    line_no, col_no = _directive_place(where, name, int(line), int(col))
    place = f"{where}:{line_no}:{col_no}"
    names = [(m.group(1), m.group(2) if m.group(2) not in ("", "-") else what) for m in found]
    if not sandboxed:
        message = f"{place}: the draft includes {name}, which pandoc could not read: its text "
        message += "would be lost"
        hint = "check the include's path, or paste the included text into the draft"
    else:
        message = f"{place}: the draft includes {name}, a file outside the draft's folder (or "
        message += "one naming such a file, or an address): its text, and what it cites, would "
        message += "be lost"
        hint = (
            "move the file into the draft's folder or paste its text into the draft, or pass "
            "--trust-draft if the draft and the file are yours; trust-draft = true in the "
            "project file does the same"
        )
    raise UnreadInclude(message, hint=hint, names=names, stderr=said, sandboxed=sandboxed)


def vet_includes(
    refused: UnreadInclude, draft: Path, fmt: str, read: Callable[[Path], str | None]
) -> None:
    """Return when every include ``refused`` names is a file inside ``draft``'s folder (links
    resolved), and so are those its files name, found by ``read`` (a sandboxed read of one
    file: pandoc's warnings, None when it failed), to a depth of 16; else raise ``refused``.
    A sandboxed read that also refused to fetch (a table's ``:url:``) is refused: the read
    that follows would fetch it."""
    if _FETCH in refused.stderr:
        raise refused
    folder = os.path.realpath(draft.parent)
    seen: set[str] = set()
    todo = [(name, where, 0) for name, where in refused.names]
    while todo:
        name, where, depth = todo.pop()
        files = _candidates(name, where, fmt)
        if depth > _DEPTH:
            raise refused
        if not files:
            raise _missing(name, where, fmt) from None
        for file in files:
            if os.path.commonpath([folder, file]) != folder or not os.path.isfile(file):
                raise refused
            if file in seen:
                continue
            seen.add(file)
            said = read(Path(file))
            if said is None or _FETCH in said:
                raise refused
            for m in _UNREAD_INCLUDE.finditer(said):
                todo.append(
                    (m.group(1), m.group(2) if m.group(2) not in ("", "-") else file, depth + 1)
                )


def _candidates(name: str, where: str, fmt: str) -> list[str]:
    """The file pandoc takes for the include ``name`` in the file ``where``: beside that file
    (Org, reStructuredText, AsciiDoc) or in the working folder (LaTeX, as latex itself does),
    a LaTeX name without a suffix with ``.tex`` too; those that exist, links resolved."""
    latex = fmt.startswith("latex")
    bases = [Path.cwd() / name] if latex else [Path(where).parent / name]
    if latex and not Path(name).suffix:
        bases.append(bases[0].with_name(bases[0].name + ".tex"))
    found = [os.path.realpath(b) for b in bases if os.path.lexists(b)]
    return sorted(set(found))


def _missing(name: str, where: str, fmt: str) -> DraftError:
    """An include naming no file, found while its draft is vetted: one line at its place."""
    line, col = _directive_place(where, name, 1 << 30, 0)
    place = f"{where}:{line}:{col}" if col else where
    hint = "check the include's path, or paste the included text into the draft"
    if fmt.startswith("latex"):
        hint = "LaTeX's \\input names a file from the folder citeledger runs in, as latex does: "
        hint += "run citeledger in the paper's folder"
    return DraftError(
        f"{place}: the draft includes {name}, which is not there: its text would be lost",
        hint=hint,
    )


def _directive_place(where: str, name: str, line: int, col: int) -> tuple[int, int]:
    """The line and column of the include naming ``name`` in the file ``where``: pandoc's
    place is where its reader stood after the directive (a line or two below it in Org and
    reStructuredText); the last line at or above it that names the file, else pandoc's."""
    try:
        lines = Path(where).read_text(encoding="utf-8", errors="replace").splitlines()
    except (OSError, ValueError):
        return line, col
    # LaTeX's \\input{intro} is reported as intro.tex.
    written = name.removesuffix(".tex")
    for number in range(min(line, len(lines)), 0, -1):
        at = lines[number - 1].find(written)
        if at >= 0:
            return number, at + 1
    return line, col
