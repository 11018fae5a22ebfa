"""The frame of a wiki's html pages: the page's language, one <main>, navigation to the index,
the neighbours and the Sources page, the page's title as its h1 and its Sources list one level
below (issue 36, item 9)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import make_ledger, run_citeledger

DRAFT = """---
title: Guide
lang: en-GB
---

# Guide

## Part A

Ice floats on water.[1]

## Part B

Sea ice is thin.[1]
"""


def test_a_page_split_at_level_two_is_titled_by_its_h1_and_finds_its_way(tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text(DRAFT, encoding="utf-8")
    make_ledger(tmp_path / "ledger.json", [(1, "https://example.org/1", "One", "2024-05-01")])
    done = run_citeledger(
        "--ledger", "ledger.json", "wiki", "guide.md", "-t", "html", "--split-level", "2",
        "-o", "out", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "part-a.html").read_text("utf-8")
    assert '<html lang="en-GB">' in page
    assert page.count("<main>") == 1
    headings = re.findall(r"<h([1-6])[^>]*>([^<]*)", page)
    assert headings == [("1", "Part A"), ("2", "Sources")]
    nav = page[page.index("<nav") : page.index("</nav>")]
    hrefs = re.findall(r'href="([^"]+)"', nav)
    assert hrefs == ["index.html", "guide.html", "part-b.html", "sources.html"]
    assert 'rel="prev"' in nav and 'rel="next"' in nav
    assert "no `lang`" not in done.stderr
