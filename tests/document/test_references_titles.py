"""A reference list under another title than "Sources" (issue 20, section 3): "References",
"Bibliography", "参考文献", "Quellen"... holding ``[n] url`` entries is the draft's Sources block
for verify, ``render --replace-in`` and ``convert``; a section of that name that lists no entries
stays prose."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers import run_citeledger

BODY = "# R\n\nIce floats on water.[1] Salt water is dense.[2]\n\n"
ENTRIES = "[1] https://example.com/a — A\n[2] https://example.com/b — B\n"


def citeledger(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, ledger=cwd / "ledger.json")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for url, title in (("https://example.com/a", "A"), ("https://example.com/b", "B")):
        done = citeledger("add", url, "--title", title, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    return tmp_path


@pytest.mark.parametrize(
    "title",
    ["References", "Bibliography", "Works cited", "参考文献", "Quellen", "Источники", "المراجع"],
)
def test_a_reference_list_under_a_common_title_is_the_sources_block(
    folder: Path, title: str
) -> None:
    (folder / "d.md").write_text(BODY + f"## {title}\n\n" + ENTRIES, encoding="utf-8")
    done = citeledger("verify", "d.md", cwd=folder)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Sources:` block" not in done.stderr


def test_replace_in_keeps_the_drafts_own_title(folder: Path) -> None:
    draft = folder / "d.md"
    draft.write_text(BODY + "## References\n\n[1] https://old.example/x\n", encoding="utf-8")
    done = citeledger("render", "--replace-in", "d.md", cwd=folder)
    assert done.returncode == 0, done.stderr
    text = draft.read_text(encoding="utf-8")
    assert text == BODY + "## References\n\n" + ENTRIES
    assert citeledger("verify", "d.md", cwd=folder).returncode == 0


def test_render_takes_the_sources_title_flag(folder: Path) -> None:
    done = citeledger("render", "--sources-title", "Works cited", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## Works cited\n\n[1] https://example.com/a")


def test_render_honours_the_front_matter_sources_title(folder: Path) -> None:
    draft = folder / "d.md"
    front = "---\nciteledger:\n  sources-title: Literaturverzeichnis\n---\n\n"
    draft.write_text(front + BODY, encoding="utf-8")
    for _run in range(2):  # the second run finds the block the first wrote
        done = citeledger("render", "--replace-in", "d.md", cwd=folder)
        assert done.returncode == 0, done.stderr
        assert draft.read_text(encoding="utf-8") == (
            front + BODY + "## Literaturverzeichnis\n\n" + ENTRIES
        )
    assert citeledger("verify", "d.md", cwd=folder).returncode == 0


def test_convert_renders_a_references_list_once(folder: Path) -> None:
    (folder / "d.md").write_text(BODY + "## References\n\n" + ENTRIES, encoding="utf-8")
    done = citeledger("convert", "d.md", "-o", "d.html", cwd=folder)
    assert done.returncode == 0, done.stderr
    html = (folder / "d.html").read_text(encoding="utf-8")
    # Two markers, two citation links: the old list's labels are not citations.
    assert len(re.findall(r'class="citeledger-cite"', html)) == 2
    assert html.replace("<wbr>", "").count("https://example.com/a</a>") == 1
    assert ">References</h" in html and ">Sources</h" not in html


def test_a_references_section_that_lists_no_entries_stays_prose(folder: Path) -> None:
    prose = "## References\n\nSee the manual of the tool for more.\n\n"
    draft = folder / "d.md"
    draft.write_text(BODY + prose, encoding="utf-8")
    done = citeledger("render", "--replace-in", "d.md", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert draft.read_text(encoding="utf-8") == BODY + prose + "## Sources\n\n" + ENTRIES


def test_a_deck_keeps_one_list_under_the_drafts_title(folder: Path) -> None:
    from pptx import Presentation

    text = "# R\n\n## Claims\n\nIce floats on water.[1] Salt water is dense.[2]\n\n"
    (folder / "d.md").write_text(text + "## References\n\n" + ENTRIES, encoding="utf-8")
    done = citeledger("convert", "d.md", "-o", "d.pptx", cwd=folder)
    assert done.returncode == 0, done.stderr
    titles = [s.shapes.title.text for s in Presentation(str(folder / "d.pptx")).slides]
    assert titles == ["R", "Claims", "References"]
    assert citeledger("verify", "d.pptx", cwd=folder).returncode == 0


def test_the_sources_title_flag_renames_the_drafts_block(folder: Path) -> None:
    draft = folder / "d.md"
    draft.write_text(BODY + "## References\n\n" + ENTRIES, encoding="utf-8")
    done = citeledger("render", "--replace-in", "d.md", "--sources-title", "Quellen", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert draft.read_text(encoding="utf-8") == BODY + "## Quellen\n\n" + ENTRIES
