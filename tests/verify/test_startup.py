"""What a one-page verify starts besides its own pandoc parse: nothing. The tree pandoc gives
names its own ``pandoc-api-version``, so the version probe (``pandoc --version``, a second
start, a third of a one-page verify's time) runs only when the read fails or gives no tree the
gate would pass (issue 33); what a failing, old or false pandoc is told stays the gate's one
line (``tests/commands/test_pandoc_gate.py``)."""

from __future__ import annotations

import stat
from pathlib import Path

from citeledger.pandoc import pandoc_path
from tests.helpers import run_citeledger

DRAFT = "Sea ice floats on water.[1]\n\n## Sources\n\n[1] https://example.org/a\n"


def _logging_pandoc(folder: Path) -> Path:
    """A pandoc that writes each of its command lines to ``runs.log``, then runs the real one."""
    wrapper = folder / "pandoc"
    wrapper.write_text(
        f'#!/bin/sh\necho "$*" >> "{folder / "runs.log"}"\nexec "{pandoc_path()}" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return wrapper


def _verify_with(folder: Path, pandoc: Path) -> list[str]:
    """The pandoc command lines of one verify of a one-page draft run with ``pandoc``."""
    assert run_citeledger("add", "https://example.org/a", cwd=folder).returncode == 0
    (folder / "draft.md").write_text(DRAFT, encoding="utf-8")
    done = run_citeledger(
        "verify", "draft.md", cwd=folder, extra_env={"CITELEDGER_PANDOC": str(pandoc)}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "citations OK"
    return (folder / "runs.log").read_text(encoding="utf-8").splitlines()


def test_one_page_verify_starts_pandoc_once(tmp_path: Path) -> None:
    runs = _verify_with(tmp_path, _logging_pandoc(tmp_path))
    assert len(runs) == 1, runs
    assert "--version" not in runs[0] and "-t json" in runs[0]
    # The memory bound is on the read all the same.
    assert runs[0].startswith("+RTS -M4G -RTS --RTS "), runs


def test_a_pandoc_without_runtime_options_still_reads(tmp_path: Path) -> None:
    """A pandoc built without ``-rtsopts`` refuses ``+RTS``: the first read fails, the probe
    learns why, and the draft is read again without them."""
    logged = _logging_pandoc(tmp_path)
    strict = tmp_path / "pandoc-no-rts"
    strict.write_text(
        '#!/bin/sh\nif [ "$1" = "+RTS" ]; then echo "pandoc: Most RTS options are disabled." >&2;'
        f' exit 1; fi\nexec "{logged}" "$@"\n',
        encoding="utf-8",
    )
    strict.chmod(strict.stat().st_mode | stat.S_IXUSR)
    runs = _verify_with(tmp_path, strict)
    assert len(runs) == 2 and runs[0] == "--version", runs
    assert "+RTS" not in runs[1] and "-t json" in runs[1], runs


def test_the_read_starts_before_the_verifier_loads(tmp_path: Path) -> None:
    """pandoc parses the draft while the process loads the verifier (two cores side by side):
    when it starts, no check is loaded yet; its output is the one the verify reads."""
    import subprocess
    import sys
    import textwrap

    from tests.helpers import ROOT

    assert run_citeledger("add", "https://example.org/a", cwd=tmp_path).returncode == 0
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    probe = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from citeledger import pandoc
        spawn, seen = pandoc._spawn, []

        def spying(cmd, env):
            seen.append("citeledger.verify.checks" in sys.modules)
            return spawn(cmd, env)

        pandoc._spawn = spying
        from citeledger.cli import main
        try:
            main(["verify", "draft.md"])
        finally:
            print("spawned", seen)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "citations OK" in done.stdout
    assert done.stdout.splitlines()[-1] == "spawned [False]", done.stdout
