"""Find pandoc in one place and run it.

Order: ``$CITELEDGER_PANDOC``, then a ``pandoc`` on PATH, then the binary shipped in the
pypandoc-binary wheel (the embedded default). The wheel is located without importing pypandoc,
whose import is slow and would cost every command that never runs pandoc.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import PandocError, ToolMissing

INSTALL_HINT = "pip install pypandoc-binary, or set CITELEDGER_PANDOC to a pandoc binary"


def _wheel_pandoc() -> str | None:
    spec = importlib.util.find_spec("pypandoc")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        for name in ("pandoc", "pandoc.exe"):
            candidate = Path(folder) / "files" / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return None


@functools.cache
def _find(env_value: str | None) -> str:
    if env_value:
        found = shutil.which(env_value)
        if found is None:
            raise ToolMissing(
                f"CITELEDGER_PANDOC={env_value} is not an executable pandoc",
                hint="point it at a pandoc binary or unset it",
            )
        return found
    found = shutil.which("pandoc") or _wheel_pandoc()
    if found is None:
        raise ToolMissing("pandoc not found", hint=INSTALL_HINT)
    return found


def pandoc_path() -> str:
    """The pandoc binary citeledger runs (cached per value of ``$CITELEDGER_PANDOC``)."""
    return _find(os.environ.get("CITELEDGER_PANDOC") or None)


@functools.cache
def _version(path: str) -> tuple[int, ...]:
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    first = out.stdout.split("\n", 1)[0].split()
    try:
        return tuple(int(p) for p in first[-1].split("."))
    except (IndexError, ValueError):
        return (0,)


def pandoc_version() -> tuple[int, ...]:
    return _version(pandoc_path())


def run_pandoc(
    args: Sequence[str],
    *,
    stdin: str | bytes | None = None,
    cwd: str | Path | None = None,
    what: str = "the input",
    env: dict[str, str] | None = None,
) -> bytes:
    """Run pandoc with ``args``; return its stdout. A refusal becomes one PandocError line."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [pandoc_path(), *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        check=False,
        env=env,
    )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        lines = [ln for ln in err.splitlines() if ln.strip()]
        # A filter that failed already printed its own findings; keep every line of them.
        detail = " | ".join(lines[-12:]) if lines else f"exit {proc.returncode}"
        raise PandocError(f"pandoc could not convert {what}: {detail}")
    return proc.stdout


def read_json(
    path: str | Path,
    *,
    from_format: str | None = None,
    extra_args: Sequence[str] = (),
) -> dict[str, Any]:
    """Parse ``path`` with pandoc and return the document as pandoc JSON (plain dicts)."""
    args = ["-t", "json"]
    fmt = from_format or format_for(path)
    args += ["-f", fmt, *extra_args, str(path)]
    return json.loads(run_pandoc(args, what=str(path)))


FORMATS_BY_SUFFIX = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "markdown",
    ".docx": "docx",
    ".odt": "odt",
    ".html": "html",
    ".htm": "html",
    ".org": "org",
    ".rst": "rst",
    ".tex": "latex",
    ".latex": "latex",
    ".ipynb": "ipynb",
    ".epub": "epub",
    ".json": "json",
    ".typ": "typst",
    ".wiki": "mediawiki",
    ".textile": "textile",
}


def format_for(path: str | Path) -> str:
    return FORMATS_BY_SUFFIX.get(Path(path).suffix.lower(), "markdown")


TEXT_FORMATS = frozenset(
    {"markdown", "commonmark", "commonmark_x", "gfm", "markdown_strict", "markdown_mmd"}
)


def read_text_draft(path: str | Path, fmt: str) -> str | None:
    """The draft's text when ``fmt`` is a markdown flavour, refusing what is not UTF-8 text
    before pandoc sees it (pandoc falls back to latin1 on a binary file and chews on it for
    minutes); None for other formats."""
    from .errors import DraftError

    if fmt.split("+", 1)[0].split("-", 1)[0] not in TEXT_FORMATS:
        return None
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DraftError(f"cannot read {path}: {exc}", hint="save it as UTF-8 text") from None
    if "\x00" in text:
        raise DraftError(f"{path} is not text (it holds NUL bytes)", hint="check the path")
    return text
