"""The one Sources-block recognizer: the same block found in pandoc's tree and in a draft's
raw lines, in every form people and tools write its title, and replaced exactly once."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from citeledger.document.sources_block import find_sources_block
from citeledger.document.sources_lines import find_sources_lines, replace_in_text
from citeledger.document.sources_titles import is_sources_title, titles_for
from citeledger.pandoc import read_json
from tests.helpers import make_ledger, run_citeledger

BLOCK = "## Sources\n\n[1] https://a.org — A"


@pytest.mark.parametrize(
    "draft",
    [
        "# Title\n\nIce floats.[1]\n",
        "# Title\n\nIce floats.[1]",
        "# Title\n\nIce floats.[1]\n\n",
        "",
    ],
)
def test_replace_in_appends_once_and_is_idempotent(draft: str) -> None:
    once = replace_in_text(draft, BLOCK)
    assert once.startswith(draft.rstrip("\n"))
    assert once.endswith(BLOCK + "\n")
    assert replace_in_text(once, BLOCK) == once


@pytest.mark.parametrize(
    "heading", ["## Sources", "Sources:", "Sources", "**Sources**", "### sources:"]
)
def test_replace_in_rewrites_only_the_trailing_block(heading: str) -> None:
    body = "# Report\n\nIce floats.[1]  \nTrailing  spaces\tkept.\n\n"
    draft = body + heading + "\n\n[1] https://old.example/x\n[9] stale\n"
    # A heading keeps its level, so the new block ends where the old one did.
    level = "###" if heading.startswith("###") else "##"
    expected = body + BLOCK.replace("##", level, 1) + "\n"
    assert replace_in_text(draft, BLOCK) == expected


def test_replace_in_uses_the_last_heading_outside_code_fences() -> None:
    body = "## Sources\n\nan early section\n\n```\nSources:\n```\n\ntext\n\n"
    draft = body + "Sources:\n[1] x\n"
    assert replace_in_text(draft, BLOCK) == body + BLOCK + "\n"
    fenced_only = "text\n\n```\n## Sources\n```\n"
    assert replace_in_text(fenced_only, BLOCK) == fenced_only + "\n" + BLOCK + "\n"


def test_replace_in_keeps_crlf_drafts_crlf() -> None:
    draft = "Ice floats.[1]\r\n\r\nSources:\r\n[1] old\r\n"
    out = replace_in_text(draft, BLOCK)
    assert out == "Ice floats.[1]\r\n\r\n## Sources\r\n\r\n[1] https://a.org — A\r\n"
    assert replace_in_text(out, BLOCK) == out


# One recognizer for the tree and the raw lines -------------------------------------------

BODY = "# Report\n\nIce floats.[1]\n\n"
ENTRIES = "[1] https://a.org — A\n"
FORMS = [
    "## Sources",
    "## Sources ##",
    "### sources:",
    "# SOURCES #####",
    "Sources\n-------",
    "Sources\n=======",
    "**Sources:**",
    "**Sources**",
    "**Sources**:",
    "__Sources__",
    "Sources:",
    "Sources",
]


def _tree(text: str, tmp_path: Path) -> dict:
    draft = tmp_path / "d.md"
    draft.write_text(text, encoding="utf-8")
    return read_json(draft)


@pytest.mark.parametrize("title", FORMS)
def test_tree_and_lines_find_the_same_block_in_every_title_form(title: str, tmp_path: Path) -> None:
    text = BODY + title + "\n\n" + ENTRIES + "\n# After\n\nMore text.\n"
    blocks = _tree(text, tmp_path)["blocks"]
    found = find_sources_block(blocks)
    assert found is not None, title
    # The block ends at the next heading of the same or a higher level: "After" is kept.
    after = [b for b in blocks[found.end :] if b["t"] == "Header"]
    assert [b["c"][2][0]["c"] for b in after] == ["After"]
    lines = text.split("\n")
    span = find_sources_lines(lines)
    assert span is not None
    assert lines[span.start] == title.split("\n")[0]
    assert "# After" in lines[span.end :]


@pytest.mark.parametrize(
    "text", ["Sources of funding are listed below.", "Sources: see the appendix.", "# Resources"]
)
def test_prose_that_mentions_sources_opens_no_block(text: str, tmp_path: Path) -> None:
    assert find_sources_block(_tree(text + "\n", tmp_path)["blocks"]) is None
    assert find_sources_lines(text.split("\n")) is None


def test_the_configured_title_is_recognized_beside_sources(tmp_path: Path) -> None:
    titles = titles_for("Belege")
    text = BODY + "## Belege\n\n" + ENTRIES
    assert find_sources_block(_tree(text, tmp_path)["blocks"], titles) is not None
    assert find_sources_block(_tree(text, tmp_path)["blocks"]) is None
    assert find_sources_lines(text.split("\n"), titles) is not None


@pytest.mark.parametrize("title", ["Sources (1/2)", "Sources (2/2)", "Quellen (3 / 12)"])
def test_paginated_slide_titles_are_sources_titles(title: str) -> None:
    assert is_sources_title(title, titles_for("Quellen"))


def test_closing_hashes_heading_is_replaced_not_appended() -> None:
    draft = BODY + "## Sources ##\n\n[1] https://old.example/x\n"
    out = replace_in_text(draft, BLOCK)
    assert out == BODY + BLOCK + "\n"
    assert out.count("Sources") == 1


def test_replace_in_keeps_sections_after_the_block() -> None:
    draft = BODY + "## Sources\n\n[1] https://old.example/x\n\n## License\n\nMIT.\n"
    out = replace_in_text(draft, BLOCK)
    assert out == BODY + BLOCK + "\n\n## License\n\nMIT.\n"
    assert replace_in_text(out, BLOCK) == out


def _citeledger(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, timeout=120)


def _ledger(folder: Path) -> Path:
    return make_ledger(folder / "ledger.json", [(1, "https://a.org", "A", "2026-01-01")])


def test_render_replace_in_rewrites_a_closing_hashes_sources_heading(tmp_path: Path) -> None:
    _ledger(tmp_path)
    draft = tmp_path / "d.md"
    draft.write_text("Ice floats on water.[1]\n\n## Sources ##\n\n[1] https://old.example\n")
    done = _citeledger("render", "--replace-in", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = draft.read_text()
    assert text.count("Sources") == 1
    assert "old.example" not in text
    assert _citeledger("verify", "d.md", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("title", ["**Sources:**", "**Sources**", "Sources:"])
def test_verify_accepts_every_block_header_render_accepts(title: str, tmp_path: Path) -> None:
    _ledger(tmp_path)
    draft = tmp_path / "d.md"
    draft.write_text(f"Ice floats on water.[1]\n\n{title}\n\n[1] https://a.org — A\n")
    done = _citeledger("verify", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
