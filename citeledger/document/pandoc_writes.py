"""Files pandoc itself would write for the user's options and defaults files, checked by the
output guard before pandoc runs.

The user's pandoc options (``--pandoc-arg``) and defaults files (``-d``) can name files pandoc
writes besides citeledger's own output: ``log-file: ledger.json`` in a defaults file overwrote
the ledger with ``[]``. So the options are read for every file pandoc would write, defaults
files (and those they name under ``defaults:``) included, and each goes through the guard.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import OutputError
from ..files import Guard

# Options naming a file pandoc writes (``--extract-media``: a folder it writes into).
_WRITES = {"-o": "output", "--output": "output", "--log": "log", "--extract-media": "media"}
# The same in a defaults file, and ``defaults:``, which names more defaults files.
_DEFAULTS_KEYS = {"output-file": "output", "log-file": "log", "extract-media": "media"}
_MAX_DEFAULTS = 16


def pandoc_writes(args: Iterable[str]) -> list[tuple[str, Path]]:
    """The files (``output``, ``log``) and folders (``media``) pandoc would write for
    ``args``, its defaults files (``-d``) read for the same keys. A defaults file that cannot be
    read is left to pandoc to report."""
    items = list(args)
    found: list[tuple[str, Path]] = []
    defaults: list[Path] = []
    for k, arg in enumerate(items):
        name, eq, value = arg.partition("=")
        if arg.startswith("--") and eq and name in _WRITES:
            found.append((_WRITES[name], Path(value)))
        elif arg in _WRITES and k + 1 < len(items):
            found.append((_WRITES[arg], Path(items[k + 1])))
        elif arg in ("-d", "--defaults") and k + 1 < len(items):
            defaults.append(Path(items[k + 1]))
        elif name == "--defaults" and eq:
            defaults.append(Path(value))
        elif arg.startswith("-d") and len(arg) > 2 and not arg.startswith("--"):
            defaults.append(Path(arg[2:]))
    seen: set[str] = set()
    while defaults and len(seen) < _MAX_DEFAULTS:
        path = defaults.pop(0)
        if not path.suffix:
            path = path.with_suffix(".yaml")
        if str(path) in seen:
            continue
        seen.add(str(path))
        try:
            text = path.read_text(encoding="utf-8", errors="replace")[:1_000_000]
        except OSError:
            continue
        for key, value in _top_level_values(text):
            value = value.replace("${.}", str(path.parent))
            if key in _DEFAULTS_KEYS and value:
                found.append((_DEFAULTS_KEYS[key], Path(value)))
            elif key == "defaults" and value:
                defaults.append(path.parent / value)
    return found


def _top_level_values(text: str) -> list[tuple[str, str]]:
    """``key: value`` lines at the top level of a YAML file, values unquoted (enough for the
    few keys above, which take one path each; a list under ``defaults:`` is read item by item)."""
    out: list[tuple[str, str]] = []
    key_of_list = ""
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] not in " \t-":
            key, colon, value = line.partition(":")
            if not colon:
                continue
            key_of_list = key.strip() if not value.strip() else ""
            out.append((key.strip(), _unquoted(value)))
        elif key_of_list and line.lstrip().startswith("- "):
            out.append((key_of_list, _unquoted(line.lstrip()[2:])))
    return out


def _unquoted(value: str) -> str:
    value = value.split(" #", 1)[0].strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value


def check_pandoc_writes(guard: Guard, args: Iterable[str]) -> None:
    """Refuse, before any work, a file the user's pandoc options would have pandoc write onto
    one of the run's inputs (the ledger, the draft...), and an ``--extract-media`` folder that
    holds one; ``-o`` among them is refused outright (citeledger names the outputs)."""
    for kind, path in pandoc_writes(args):
        if str(path) == "-":  # standard output
            continue
        if kind == "output":
            raise OutputError(
                f"pandoc option output {path}: citeledger names the outputs itself",
                hint="give the output as citeledger's own -o, not in pandoc options or a "
                "defaults file",
            )
        if kind == "log":
            guard.check(path, what="pandoc's log file")
        else:
            # pandoc writes media under their own relative names (media/image1.png): the
            # draft's own folder is the usual place; the ledger's never.
            guard.check_folder(
                path,
                what="pandoc's --extract-media folder",
                besides=("the draft", "the reference document"),
            )
