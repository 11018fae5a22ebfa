"""The project file: a project's options written once, in ``citeledger.toml`` or the
``[tool.citeledger]`` table of its ``pyproject.toml``.

:func:`load_project` takes the first such file found walking up from the working directory
(:func:`find_project`: up to the repository's root, never above it, above the user's home, or
into a folder another user owns) and checks it through the options table, so a bad key or value
is refused in one line naming the file, the key and the fix, as a bad flag is. A project file
is untrusted like a draft when it comes with a clone: TOML types are checked (``ledger = 5`` is
refused, not a file named "5"), and the ledger and the ``drafts`` globs it names must lie inside
the project (a ledger elsewhere is given by ``--ledger`` or ``$CITELEDGER_LEDGER``).

Besides the table's keys the file may hold ``drafts``, the globs ``citeledger verify`` with no
file checks. The flags' :class:`Options` carry the project's as ``beneath`` (see
:meth:`Options.merged`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from ..errors import BadInput
from ..ledger.light import record
from . import BY_KEY, Option, Options

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PROJECT_FILE = "citeledger.toml"
PYPROJECT = "pyproject.toml"
PROJECT_ONLY = ("drafts",)  # keys of the project file that are no option of a document


@record(frozen=True)
class Project:
    """The project settings in force: the file they came from (None: no project file), its
    options (a relative ``ledger`` made relative to the file's folder) and its ``drafts``
    globs, which ``citeledger verify`` with no file checks."""

    path: Path | None = None
    options: Options = Options()
    drafts: tuple[str, ...] = ()
    inside_repository: bool = False  # see :class:`ProjectFile`
    root: Path | None = None

    @property
    def folder(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def draft_files(self) -> list[Path]:
        """The files the ``drafts`` globs match, relative to the project file's folder; a
        match that is a symlink leading out of the project is left out."""
        found: dict[Path, None] = {}
        top = Path(os.path.realpath(self.root or self.folder))
        for pattern in self.drafts:
            for match in sorted(self.folder.glob(pattern)):
                if match.is_file() and _within(Path(os.path.realpath(match)), top):
                    found[match] = None
        return list(found)


@record(frozen=True)
class ProjectFile:
    """Where the project file was looked for and what was found: ``path`` (None: none),
    ``inside_repository`` (the file lies inside the repository being built: a folder holding
    ``.git`` at or above it, reached without leaving the user's own folders) and ``root`` (the
    folder a project file's paths must stay inside: the repository's root, else the file's own
    folder)."""

    path: Path | None
    inside_repository: bool = False
    root: Path | None = None


def find_project(start: Path | None = None, *, uid: int | None = None) -> ProjectFile:
    """The first ``citeledger.toml``, or ``pyproject.toml`` holding ``[tool.citeledger]``,
    walking up from ``start`` (the working directory); in one folder the first wins.

    The walk never leaves what the user building owns: it stops after the repository's root
    (the folder holding ``.git``), after the user's home, and before a folder (or file) owned
    by another user (``uid``, default the process's) or writable by anyone: a clone's
    ``../citeledger.toml`` is someone else's choice, not the project's."""
    here = (start or Path.cwd()).absolute()
    me = _uid() if uid is None else uid
    home = _home()
    found: Path | None = None
    for folder in (here, *here.parents):
        if not _owned(folder, me):
            break
        if found is None:
            found = _project_file_in(folder, me)
        if _is_repository_root(folder):
            if found is None:
                return ProjectFile(None)
            return ProjectFile(found, inside_repository=True, root=folder)
        if folder == home:
            break
    if found is None:
        return ProjectFile(None)
    return ProjectFile(found, inside_repository=False, root=found.parent)


def find_project_file(start: Path | None = None) -> Path | None:
    """The project file :func:`find_project` finds, or None."""
    return find_project(start).path


def _project_file_in(folder: Path, me: int | None) -> Path | None:
    own = folder / PROJECT_FILE
    if own.is_file() and _owned(own, me):
        return own
    pyproject = folder / PYPROJECT
    if pyproject.is_file() and _owned(pyproject, me) and _has_tool_table(pyproject):
        return pyproject
    return None


def _is_repository_root(folder: Path) -> bool:
    # A clone's .git is a folder; a worktree's or a submodule's a file naming the real one.
    return os.path.lexists(folder / ".git")


def _uid() -> int | None:
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else None


def _home() -> Path | None:
    try:
        return Path.home().absolute()
    except (RuntimeError, KeyError, OSError):
        return None


def _owned(path: Path, me: int | None) -> bool:
    """Whether ``path`` is the user's own: owned by ``me`` and writable by no one else (an
    open folder such as /tmp lets anyone plant a project file there)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if me is not None and st.st_uid != me:
        return False
    return not st.st_mode & stat.S_IWOTH


def _has_tool_table(path: Path) -> bool:
    # A cheap look before a parse: most pyproject.toml files on the way up are not ours.
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "tool.citeledger" in text or ("[tool]" in text and "citeledger" in text)


def load_project(start: Path | None = None) -> Project:
    """The project settings found from ``start`` (see :func:`find_project`), checked through
    the options table; a bad key or value (a wrong TOML type, a path that leads outside the
    project) is one line naming the file, the key and the fix."""
    where = find_project(start)
    path = where.path
    if path is None:
        return Project()
    root = where.root or path.parent
    table = _read_table(path)
    known: dict[str, Any] = {}
    drafts: tuple[str, ...] = ()
    for raw_key, value in table.items():
        key = str(raw_key).replace("_", "-")
        if key == "drafts":
            drafts = _globs(path, value)
            continue
        option = BY_KEY.get(key)
        if option is None:
            keys = ", ".join([*BY_KEY, *PROJECT_ONLY])
            raise BadInput(
                f"{path}: unknown key {raw_key!r}", hint=f"remove it; the keys are {keys}"
            )
        value = _typed(path, option, value)
        try:
            parsed = option.parse(value, f"{path}: {key}")
        except BadInput as exc:
            raise BadInput(exc.message, hint=f"write e.g. {_example(option)}") from None
        if key == "ledger" and parsed is not None:
            parsed = str(_ledger_inside(path, root, parsed))
        known[key] = parsed
    return Project(path, Options().updated(known), drafts, where.inside_repository, root)


# What each kind of option is in TOML: a wrong type is refused, never taken as its text
# (``ledger = 5`` is no file named "5").
_TOML_TYPES: dict[str, tuple[type, ...]] = {
    "path": (str,),
    "text": (str,),
    "choice": (str,),
    "bool": (bool,),
    "fraction": (int, float),
}


def _typed(path: Path, option: Option, value: Any) -> Any:
    """``value`` if its TOML type fits ``option``; a list of host names for ``fetch-allow``
    joined; else one line naming the key and the type wanted."""
    hosts = value if option.key == "fetch-allow" and isinstance(value, list) else None
    if hosts is not None and all(isinstance(v, str) and v.strip() and _plain(v) for v in hosts):
        return " ".join(hosts)
    fits = isinstance(value, _TOML_TYPES[option.kind])
    if option.kind == "fraction" and isinstance(value, bool):
        fits = False  # TOML's true is no number, though Python's bool is an int
    if not fits or (isinstance(value, str) and not _plain(value)):
        shown = _shown(value)
        kind = {"bool": "true or false", "fraction": "a number"}.get(option.kind, "a string")
        raise BadInput(
            f"{path}: {option.key}: {shown} is not {kind}", hint=f"write e.g. {_example(option)}"
        )
    return value


def _plain(text: str) -> bool:
    """No NUL or other control character: a path holding one is no file anyone means."""
    return not any(ord(c) < 32 or ord(c) == 127 for c in text)


def _shown(value: Any) -> str:
    """A TOML value as one short line: a string quoted (its control characters escaped), a
    number as written, an array or a table by its kind."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (str, int, float)):
        text = repr(value)
    elif isinstance(value, list):
        text = "an array"
    elif isinstance(value, dict):
        text = "a table"
    else:
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def _ledger_inside(path: Path, root: Path, value: str) -> Path:
    """The ledger a project file names, relative to the file's folder, refused unless it lies
    inside the project (``root``), also through a symlink: a cloned project's
    ``ledger = "~/.bash_profile"`` would have ``ingest`` write the user's login script."""
    hint = (
        'name a ledger inside the project (e.g. ledger = "ledger.json"), or give one '
        "outside it with --ledger or $CITELEDGER_LEDGER"
    )
    if value.startswith("~"):
        raise BadInput(
            f"{path}: ledger: {value!r} is in a home folder, outside the project", hint=hint
        )
    ledger = Path(os.path.normpath(path.parent / value))
    real = Path(os.path.realpath(ledger))
    top = Path(os.path.realpath(root))
    if ledger.is_absolute() and not _within(ledger, root.absolute()) or not _within(real, top):
        raise BadInput(f"{path}: ledger: {value!r} lies outside the project {root}", hint=hint)
    return ledger


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _read_table(path: Path) -> Mapping[str, Any]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef,import-not-found,unused-ignore]
        except ImportError:
            raise BadInput(
                f"{path}: reading a TOML project file needs Python 3.11, or tomli on 3.10",
                hint="pip install tomli, or run citeledger on Python 3.11 or later",
            ) from None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BadInput(f"{path}: not readable TOML ({exc})", hint="fix the file") from None
    except RecursionError:
        raise BadInput(
            f"{path}: not readable TOML (arrays or tables nested too deep)",
            hint="a project file holds key = value lines; fix the file",
        ) from None
    if path.name == PYPROJECT:
        data = data.get("tool", {}).get("citeledger", {})
        where = "[tool.citeledger]"
    else:
        where = "the file"
    if not isinstance(data, dict):
        raise BadInput(f"{path}: {where} is not a table", hint="write key = value lines")
    return data


def _globs(path: Path, value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str) and i.strip() for i in items):
        raise BadInput(
            f"{path}: drafts: {_shown(value)} is not a list of globs",
            hint='write e.g. drafts = ["drafts/*.md"]',
        )
    for item in items:
        parts = Path(item).parts
        if not _plain(item) or Path(item).is_absolute() or item.startswith("~") or ".." in parts:
            raise BadInput(
                f"{path}: drafts: {_shown(item)} leads outside the project's folder",
                hint='write globs relative to the project file, e.g. drafts = ["drafts/*.md"]',
            )
    return tuple(items)


def _example(option: Option) -> str:
    if option.kind == "choice":
        return f'{option.key} = "{option.choices[0]}"'
    if option.kind == "bool":
        return f"{option.key} = true"
    if option.kind == "fraction":
        return f"{option.key} = 0.6"
    return f'{option.key} = "{option.default or "ledger.json"}"'
