"""Tools a test needs from the machine (TeX, LibreOffice, fonts, an old pandoc) and which pandoc
runs: a missing tool skips, except under CI=true, where .ci/run installs it and it fails."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

OLD_PANDOC_ENV = "CITELEDGER_TEST_OLD_PANDOC"


def in_ci() -> bool:
    return os.environ.get("CI") == "true"


def need(present: bool, what: str) -> None:
    """Skip when ``what`` is missing, except in CI (CI=true), where .ci/run installs it and a
    missing one fails."""
    if present:
        return
    if in_ci():
        pytest.fail(f"{what} is missing, and CI=true requires it (install it in .ci/run)")
    pytest.skip(f"{what} is not installed")


def has_font_for(lang: str) -> bool:
    """Whether fontconfig knows a font for ``lang`` (``fc-list :lang=ja``): typst and xelatex
    draw CJK text only with such a font on the machine."""
    if shutil.which("fc-list") is None:
        return False
    proc = subprocess.run(
        ["fc-list", f":lang={lang}", "family"], capture_output=True, text=True, check=False
    )
    return proc.returncode == 0 and bool(proc.stdout.strip())


def require_cjk_font() -> None:
    """For a test whose document holds Chinese or Japanese text: Debian's fonts-noto-cjk."""
    need(has_font_for("ja") and has_font_for("zh-cn"), "a CJK font (Debian: fonts-noto-cjk)")


def pandoc_version_of(path: str) -> tuple[int, ...]:
    out = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    first = out.stdout.split("\n", 1)[0].split()
    try:
        return tuple(int(p) for p in first[-1].split("."))
    except (IndexError, ValueError):
        return (0,)


def find_old_pandoc() -> str:
    """A real pandoc older than the typst writer (3.1.2): ``$CITELEDGER_TEST_OLD_PANDOC``, else
    a ``pandoc`` on PATH that old (CI installs Debian's 2.17 there)."""
    named = os.environ.get(OLD_PANDOC_ENV)
    candidates = [named] if named else []
    on_path = shutil.which("pandoc")
    if on_path:
        candidates.append(on_path)
    for candidate in candidates:
        found = shutil.which(candidate) if candidate else None
        if found and (0,) < pandoc_version_of(found) < (3, 1, 2):
            return found
    need(False, f"a pandoc older than 3.1.2 (Debian's pandoc, or set {OLD_PANDOC_ENV})")
    raise AssertionError("unreachable")


def running_pandoc_version() -> tuple[int, ...]:
    from citeledger.pandoc import pandoc_version

    return pandoc_version()


def require_writer(fmt: str) -> None:
    """Skip a test of ``fmt`` output under a pandoc whose writer predates it (the side runs of
    .ci/run test the filter under older pandocs): that is the pandoc under test, not a missing
    tool."""
    from citeledger.pandoc import writing

    capability = writing(fmt)
    version = running_pandoc_version()
    if capability is not None and version < capability.since:
        since = ".".join(map(str, capability.since))
        pytest.skip(f"pandoc {'.'.join(map(str, version))} has no {fmt} writer ({since}+)")


def require_tool(name: str) -> str:
    """The path of the program ``name``, through :func:`need`."""
    found = shutil.which(name)
    need(found is not None, name)
    assert found is not None
    return found
