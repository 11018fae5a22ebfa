"""A committed file named like an option (``--ledger=x.md``) is read by the pre-commit hooks as
the draft it is, never as an option choosing the ledger: otherwise a bad draft passes against
a ledger of the committer's choosing. The hooks are run as pre-commit runs them: the entry, the
hook's args, then the file names."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers import ROOT

HOOKS = ROOT / ".pre-commit-hooks.yaml"


def _source(n: int) -> dict[str, object]:
    url = f"https://example.com/{n}"
    return {"id": n, "url": url, "title": f"S{n}", "accessed": "2026-01-01", "quotes": []}


@pytest.mark.parametrize(
    "hook",
    [h for h in yaml.safe_load(HOOKS.read_text()) if h.get("pass_filenames", True)],
    ids=lambda h: h["id"],
)
def test_a_file_named_like_an_option_never_chooses_the_ledger(
    hook: dict[str, object], tmp_path: Path
) -> None:
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": [_source(1)]}))
    # The committer's own ledger, holding the source the bad draft cites.
    (tmp_path / "x.md").write_text(json.dumps({"version": 1, "sources": [_source(5)]}))
    (tmp_path / "--ledger=x.md").write_text("# Notes\n\nA claim [1].\n")
    suffix = ".Rmd" if "rmarkdown" in str(hook["id"]) else ".md"
    # Verifies against the committer's ledger, Sources block and all; never against ours.
    (tmp_path / f"bad{suffix}").write_text(
        "# Bad\n\nA claim from nowhere.[5]\n\n## Sources\n\n[5] https://example.com/5 — S5\n"
    )
    entry = shlex.split(str(hook["entry"]))
    assert entry[0] == "citeledger"
    args = [str(a) for a in hook.get("args", [])]  # type: ignore[attr-defined]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    done = subprocess.run(
        [sys.executable, "-m", "citeledger", *entry[1:], *args, "--ledger=x.md", f"bad{suffix}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "citations not in the ledger (hallucinated or renumbered): [5]" in done.stderr
