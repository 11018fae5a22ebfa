"""chunkedhtml: ``pandoc -t chunkedhtml --filter pandoc-citeledger`` gives each chunk its own
Sources list holding only the ids that chunk cites, with links that stay in the chunk."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from citeledger.pandoc import pandoc_path
from tests.helpers import make_ledger, require_writer

DRAFT = """\
# Alpha

Ice floats.[1] Water is denser.[2][1]

# Beta

Only two here.[2]

## Beta detail

Still two.[2]

# Gamma

Nothing cited.
"""


def build(tmp: Path) -> Path:
    require_writer("chunkedhtml")
    sources = [
        {
            "id": i,
            "url": f"https://example.org/{i}",
            "title": f"Paper {i}",
            "accessed": "2025-01-01",
        }
        for i in (1, 2, 3)
    ]
    make_ledger(tmp / "ledger.json", sources)
    (tmp / "draft.md").write_text(DRAFT)
    pandoc_filter = shutil.which("pandoc-citeledger")
    assert pandoc_filter, "pandoc-citeledger is not on PATH: pip install -e ."
    proc = subprocess.run(
        [pandoc_path(), "draft.md", "-t", "chunkedhtml", "--filter", pandoc_filter, "-o", "site"],
        cwd=tmp,
        env={**os.environ, "CITELEDGER_LEDGER": "ledger.json"},
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return tmp / "site"


def entries(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<div id="c\d+-src-(\d+)"', html)]


def test_each_chunk_lists_only_the_ids_it_cites(tmp_path: Path) -> None:
    site = build(tmp_path)
    assert entries((site / "1-alpha.html").read_text()) == [1, 2]
    assert entries((site / "2-beta.html").read_text()) == [2]
    gamma = (site / "3-gamma.html").read_text()
    assert entries(gamma) == [] and ">Sources<" not in gamma


def test_citations_and_back_links_stay_inside_their_chunk(tmp_path: Path) -> None:
    site = build(tmp_path)
    beta = (site / "2-beta.html").read_text()
    hrefs = re.findall(r'href="([^"]+)"', beta)
    cites = [h for h in hrefs if "src-" in h or "cite-" in h]
    # The card's link to its entry is raw HTML, which pandoc leaves as written: the same page.
    assert cites and all(h.startswith(("2-beta.html#", "#c1-src-")) for h in cites)
    assert beta.count('class="citeledger-back"') == 2  # two citations of [2] in this chunk


def test_the_list_heading_does_not_open_a_chunk_of_its_own(tmp_path: Path) -> None:
    site = build(tmp_path)
    assert sorted(p.name for p in site.glob("*.html")) == [
        "1-alpha.html",
        "2-beta.html",
        "3-gamma.html",
        "index.html",
    ]
