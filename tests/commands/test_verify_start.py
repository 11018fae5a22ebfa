"""A one-page verify starts pandoc once: the tree it reads names its own ``pandoc-api-version``,
so the version probe (``pandoc --version``, a second start, a third of the call's time) runs
only when that read fails or gives no tree the gate would pass (issue 33). What a failing or
false pandoc is told stays the gate's one line (``test_pandoc_gate.py``)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from citeledger.pandoc import pandoc_path
from tests.helpers import ROOT

DRAFT = "Sea ice floats on water.[1]\n\n## Sources\n\n[1] https://example.org/ice — Ice\n"
LEDGER = '{"version": 1, "sources": [{"id": 1, "url": "https://example.org/ice", "title": "Ice"}]}'


def _logging_pandoc(folder: Path, real: str) -> Path:
    """A pandoc that writes each of its command lines to ``runs.log``, then runs ``real``."""
    script = folder / "pandoc-logged"
    log = folder / "runs.log"
    script.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _verify(folder: Path, pandoc: Path, draft: str = "draft.md") -> subprocess.CompletedProcess:
    env = dict(os.environ, CITELEDGER_PANDOC=str(pandoc), PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "citeledger", "--ledger", "ledger.json", "verify", draft],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _runs(folder: Path) -> list[str]:
    log = folder / "runs.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def test_verify_of_a_markdown_draft_starts_pandoc_once(tmp_path: Path) -> None:
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    (tmp_path / "ledger.json").write_text(LEDGER, encoding="utf-8")
    done = _verify(tmp_path, _logging_pandoc(tmp_path, pandoc_path()))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "citations OK"
    runs = _runs(tmp_path)
    assert len(runs) == 1, runs
    assert "--version" not in runs[0] and "-t json" in runs[0]
    # The memory bound is on the read all the same.
    assert runs[0].startswith("+RTS -M4G -RTS --RTS ")


def test_a_pandoc_without_runtime_options_still_reads(tmp_path: Path) -> None:
    """A pandoc built without ``-rtsopts`` refuses ``+RTS``: the first read fails, the probe
    learns why, and the draft is read again without them."""
    real = _logging_pandoc(tmp_path, pandoc_path())
    strict = tmp_path / "pandoc-no-rts"
    strict.write_text(
        '#!/bin/sh\nif [ "$1" = "+RTS" ]; then echo "pandoc: Most RTS options are disabled." >&2;'
        f' exit 1; fi\nexec "{real}" "$@"\n',
        encoding="utf-8",
    )
    strict.chmod(strict.stat().st_mode | stat.S_IXUSR)
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    (tmp_path / "ledger.json").write_text(LEDGER, encoding="utf-8")
    done = _verify(tmp_path, strict)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "citations OK"
    runs = _runs(tmp_path)
    assert runs[0] == "--version" and "+RTS" not in runs[1] and "-t json" in runs[1], runs
