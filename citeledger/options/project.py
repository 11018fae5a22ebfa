"""The project file: a project's options written once, in ``citeledger.toml`` or the
``[tool.citeledger]`` table of its ``pyproject.toml``.

:func:`load_project` takes the first such file found walking up from the working directory and
checks it through the options table, so a bad key or value is refused in one line naming the
file, the key and the fix, as a bad flag is. Besides the table's keys the file may hold
``drafts``, the globs ``citeledger verify`` with no file checks. The flags' :class:`Options`
carry the project's as ``beneath`` (see :meth:`Options.merged`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadInput
from . import BY_KEY, Option, Options

PROJECT_FILE = "citeledger.toml"
PYPROJECT = "pyproject.toml"
PROJECT_ONLY = ("drafts",)  # keys of the project file that are no option of a document


@dataclass(frozen=True)
class Project:
    """The project settings in force: the file they came from (None: no project file), its
    options (a relative ``ledger`` made relative to the file's folder) and its ``drafts``
    globs, which ``citeledger verify`` with no file checks."""

    path: Path | None = None
    options: Options = Options()
    drafts: tuple[str, ...] = ()

    @property
    def folder(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    def draft_files(self) -> list[Path]:
        """The files the ``drafts`` globs match, relative to the project file's folder."""
        found: dict[Path, None] = {}
        for pattern in self.drafts:
            for match in sorted(self.folder.glob(pattern)):
                if match.is_file():
                    found[match] = None
        return list(found)


def find_project_file(start: Path | None = None) -> Path | None:
    """The first ``citeledger.toml``, or ``pyproject.toml`` holding ``[tool.citeledger]``,
    walking up from ``start`` (the working directory); in one folder the first wins."""
    here = (start or Path.cwd()).absolute()
    for folder in (here, *here.parents):
        own = folder / PROJECT_FILE
        if own.is_file():
            return own
        pyproject = folder / PYPROJECT
        if pyproject.is_file() and _has_tool_table(pyproject):
            return pyproject
    return None


def _has_tool_table(path: Path) -> bool:
    # A cheap look before a parse: most pyproject.toml files on the way up are not ours.
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "tool.citeledger" in text or ("[tool]" in text and "citeledger" in text)


def load_project(start: Path | None = None) -> Project:
    """The project settings found from ``start`` (see :func:`find_project_file`), checked
    through the options table; a bad key or value is one line naming the file, the key and
    the fix."""
    path = find_project_file(start)
    if path is None:
        return Project()
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
        try:
            parsed = option.parse(value, f"{path}: {key}")
        except BadInput as exc:
            raise BadInput(exc.message, hint=f"write e.g. {_example(option)}") from None
        if key == "ledger" and parsed is not None:
            parsed = str(path.parent / Path(parsed).expanduser())
        known[key] = parsed
    return Project(path, Options().updated(known), drafts)


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
            f"{path}: drafts: {value!r} is not a list of globs",
            hint='write e.g. drafts = ["drafts/*.md"]',
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
