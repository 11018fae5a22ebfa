"""The draft's own text inside its Sources section (a "### Notes on method" after the list, the
section's title in the draft's language) survives every rewrite of the block: the block ends
after its last entry, and its heading text stays."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from citeledger.document.sources_lines import replace_in_text
from tests.helpers import run_citeledger

DRAFT = """# Report

A claim [1].

## Quellen

- [1] A. https://a.example/x

### Notes on method

We read every page twice.

## Appendix

More.
"""


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    return run_citeledger(*args, cwd=cwd, env=env, timeout=300)


def _source(n: int, host: str) -> dict[str, object]:
    url = f"https://{host}/x"
    return {"id": n, "url": url, "title": host, "accessed": "2026-01-01", "quotes": []}


def _kept(text: str) -> None:
    assert "## Quellen" in text and "## Sources" not in text, text
    assert "### Notes on method\n\nWe read every page twice.\n" in text, text
    assert text.endswith("## Appendix\n\nMore.\n"), text
    assert text.index("### Notes on method") > text.index("## Quellen")


def test_render_replace_in_keeps_the_notes_after_the_list_and_the_title(tmp_path: Path) -> None:
    (tmp_path / "ledger.json").write_text(
        json.dumps({"version": 1, "sources": [_source(1, "a.example")]})
    )
    (tmp_path / "d.md").write_text(DRAFT)
    done = cli("render", "--replace-in", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    first = (tmp_path / "d.md").read_text()
    _kept(first)
    cli("render", "--replace-in", "d.md", cwd=tmp_path)
    assert (tmp_path / "d.md").read_text() == first  # a second run changes nothing


def test_merge_rewrite_keeps_the_notes_after_the_list_and_the_title(tmp_path: Path) -> None:
    ours = {"version": 1, "sources": [_source(1, "b.example")]}
    (tmp_path / "ours.json").write_text(json.dumps(ours))
    (tmp_path / "theirs.json").write_text(
        json.dumps({"version": 1, "sources": [_source(1, "a.example")]})
    )
    (tmp_path / "d.md").write_text(DRAFT)
    done = cli("merge", "theirs.json", "--rewrite", "d.md", "--ledger", "ours.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "d.md").read_text()
    _kept(text)
    assert "A claim [2]." in text


@pytest.mark.parametrize(
    "tail",
    [
        "\n### Notes on method\n\nWe read every page twice.\n",
        "\nWe read every page twice.\n",
        "\n[^1]: A note.\n\nSome closing words.\n",
    ],
)
def test_text_after_the_last_entry_stays_in_order(tail: str) -> None:
    draft = "# R\n\nA claim [1].\n\n## Sources\n\n- [1] old\n" + tail + "\n## End\n"
    out = replace_in_text(draft, "## Sources\n\n- [1] new")
    assert "- [1] new\n" + tail + "\n## End\n" in out, out
    assert "old" not in out
