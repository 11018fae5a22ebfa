"""What a one-page verify starts besides its own pandoc parse: one probe of pandoc (its version
and whether it takes runtime limits, from one ``--version`` run), not one per question."""

from __future__ import annotations

import stat
from pathlib import Path

from citeledger.pandoc import pandoc_path
from tests.helpers import run_citeledger


def test_one_page_verify_starts_pandoc_twice(tmp_path: Path) -> None:
    log = tmp_path / "runs.log"
    wrapper = tmp_path / "pandoc"
    wrapper.write_text(
        f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{pandoc_path()}" "$@"\n', encoding="utf-8"
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    assert run_citeledger("add", "https://example.org/a", cwd=tmp_path).returncode == 0
    (tmp_path / "draft.md").write_text(
        "Sea ice floats on water.[1]\n\n## Sources\n\n[1] https://example.org/a\n",
        encoding="utf-8",
    )
    done = run_citeledger(
        "verify", "draft.md", cwd=tmp_path, extra_env={"CITELEDGER_PANDOC": str(wrapper)}
    )
    assert done.returncode == 0, done.stderr
    runs = log.read_text(encoding="utf-8").splitlines()
    assert len(runs) == 2, runs
    assert runs[0].endswith("--version") and "--version" not in runs[1]
