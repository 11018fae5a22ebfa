"""``render`` writes a block that reads back as written (issue 20, section 4): titles with a lone
quote do not pair with the next entry's under pandoc's ``smart`` extension, and ``--replace-in``
reads its result back, leaving the draft untouched when the new block would not verify."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers import run_citeledger

DRAFT = "# T\n\nOne claim here.[1] Two claim here.[2] Three claim here.[3]\n\n## Sources\n"


def citeledger(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, ledger=cwd / "ledger.json")


def test_titles_with_lone_quotes_read_back_as_written(tmp_path: Path) -> None:
    titles = ['"Aggregating effects', '"Another title', "Others' views"]
    for k, title in enumerate(titles):
        url = f"https://example.com/{'abc'[k]}"
        assert citeledger("add", url, "--title", title, cwd=tmp_path).returncode == 0
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    done = citeledger("render", "--replace-in", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    checked = citeledger("verify", "d.md", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    text = citeledger("convert", "d.md", "-o", "d.txt", cwd=tmp_path)
    assert text.returncode == 0, text.stderr


def test_replace_in_leaves_the_draft_untouched_when_the_block_does_not_read_back(
    tmp_path: Path,
) -> None:
    # A ledger sources.py wrote may hold an entry that is no URL; markdown cannot write it so
    # that it reads back as that entry's URL.
    sources = [
        {"id": 1, "url": "https://example.com/a", "title": "A", "accessed": "2026-01-01"},
        {"id": 2, "url": "example.com/<b>", "title": "B", "accessed": "2026-01-01"},
    ]
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}))
    draft = tmp_path / "d.md"
    text = "# T\n\nOne claim here.[1] Two claim here.[2]\n\n## Sources\n\n[1] old\n"
    draft.write_text(text, encoding="utf-8")
    done = citeledger("render", "--replace-in", "d.md", cwd=tmp_path)
    assert done.returncode != 0
    assert draft.read_text(encoding="utf-8") == text
    errors = [line for line in done.stderr.splitlines() if line.startswith("citeledger: error")]
    assert len(errors) == 1 and "[2]" in errors[0], done.stderr
