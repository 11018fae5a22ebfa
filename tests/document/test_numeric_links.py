"""A link whose text is a number is a citation only when written as one (issue 20, section 5):
attached to the text it supports (``water.[7]``), defined in the Sources block (``[7]: url``),
or pointing at the ledger's URL for that id (or an id the ledger holds). ``See issue
[1328](...)`` and ``Shipped in [2023](...)`` are ordinary links."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import run_citeledger

NUMBERS = (
    "See issue [1328](https://github.com/x/y/issues/1328) for details.\n\n"
    "Shipped in [2023](https://example.org/news).\n"
)


def citeledger(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, ledger=cwd / "ledger.json")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    done = citeledger("add", "https://example.com/a", "--title", "A", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path


def test_issue_numbers_and_years_as_link_text_are_ordinary_links(folder: Path) -> None:
    (folder / "n.md").write_text(NUMBERS, encoding="utf-8")
    done = citeledger("convert", "n.md", "-o", "n.html", cwd=folder)
    assert done.returncode == 0, done.stderr
    html = " ".join((folder / "n.html").read_text(encoding="utf-8").split())
    assert '<a href="https://github.com/x/y/issues/1328">1328</a>' in html
    assert '<a href="https://example.org/news">2023</a>' in html
    assert "citeledger-cite" not in html
    assert citeledger("verify", "n.md", cwd=folder).returncode == 0


def test_ordinary_numeric_links_beside_citations_stay_links(folder: Path) -> None:
    text = "Ice floats on water.[1] See issue [1328](https://github.com/x/y/issues/1328).\n\n"
    (folder / "d.md").write_text(text + "## Sources\n\n[1] https://example.com/a — A\n")
    assert citeledger("verify", "d.md", cwd=folder).returncode == 0
    done = citeledger("convert", "d.md", "-o", "d.html", cwd=folder)
    assert done.returncode == 0, done.stderr
    html = " ".join((folder / "d.html").read_text(encoding="utf-8").split())
    assert '<a href="https://github.com/x/y/issues/1328">1328</a>' in html
    assert html.count('class="citeledger-cite"') == 1


@pytest.mark.parametrize(
    ("text", "unknown"),
    [
        # attached to the text it supports
        ("Ice floats on water.[7](https://x.example/7)\n", "[7]"),
        # spaced, but defined in the closing definitions
        ("Ice floats on water [7] as seen.\n\n[7]: https://x.example/7\n", "[7]"),
        # spaced, pointing at the ledger's URL under another id
        ("Ice floats on water [12](https://example.com/a) as seen.\n", "[12]"),
    ],
)
def test_a_numeric_link_written_as_a_citation_is_held_to_the_ledger(
    folder: Path, text: str, unknown: str
) -> None:
    (folder / "d.md").write_text(text, encoding="utf-8")
    done = citeledger("verify", "d.md", cwd=folder)
    assert done.returncode == 1
    assert f"citations not in the ledger (hallucinated or renumbered): {unknown}" in done.stderr
    built = citeledger("convert", "d.md", "-o", "d.html", cwd=folder)
    assert built.returncode == 1
    assert not (folder / "d.html").exists()
