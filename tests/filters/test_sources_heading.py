"""The Sources heading as a reader of the built file meets it: at the level of the document's
own top sections, in every format that writes one, and titled in the document's language."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from tests.helpers import make_ledger, run_citeledger

DRAFT = """---
title: Eis
{meta}
---

{top}## Erstens

Eis schwimmt auf Wasser.[1]

## Zweitens

Es schmilzt im Sommer.[1]
"""


def build(folder: Path, out: str, *, meta: str = "", top: str = "", flags: tuple = ()) -> str:
    make_ledger(folder / "ledger.json", [(1, "https://example.org/ice", "Ice", "2024-05-01")])
    (folder / "draft.md").write_text(DRAFT.format(meta=meta, top=top), encoding="utf-8")
    proc = run_citeledger(
        "convert", "draft.md", "--ledger", "ledger.json", *flags, "-o", out, cwd=folder
    )
    assert proc.returncode == 0, proc.stderr
    if out.endswith(".docx"):
        with zipfile.ZipFile(folder / out) as zf:
            return zf.read("word/document.xml").decode("utf-8")
    return (folder / out).read_text(encoding="utf-8")


def sources_level(fmt: str, text: str, title: str) -> int:
    if fmt == "html":
        found = re.search(rf"<h([1-6])[^>]*>{title}</h", text)
    elif fmt == "typ":
        found = re.search(rf"#heading\(level: (\d)[^)]*\)\[{title}\]", text)
    elif fmt == "tex":
        names = {"section": 1, "subsection": 2, "subsubsection": 3}
        hit = re.search(rf"\\(\w+)\*\{{{title}\}}", text)
        return names[hit.group(1)] if hit else 0
    else:  # docx: the paragraph's heading style
        found = re.search(rf'<w:pStyle w:val="Heading(\d)"/>(?:(?!</w:p>).)*{title}', text)
    return int(found.group(1)) if found else 0


@pytest.mark.parametrize("fmt", ["html", "typ", "tex", "docx"])
def test_sources_heading_at_the_level_of_the_top_sections(fmt: str, tmp_path: Path) -> None:
    flags = ("--notes", "list") if fmt == "docx" else ()
    text = build(tmp_path, f"out.{fmt}", flags=flags)
    assert sources_level(fmt, text, "Sources") == 2


def test_a_single_title_heading_above_the_sections_is_not_a_section(tmp_path: Path) -> None:
    text = build(tmp_path, "out.html", top="# Bericht\n\n")
    assert sources_level("html", text, "Sources") == 2


@pytest.mark.parametrize(("lang", "title"), [("de-AT", "Quellen"), ("es", "Fuentes")])
def test_sources_title_follows_lang(lang: str, title: str, tmp_path: Path) -> None:
    text = build(tmp_path, "out.html", meta=f"lang: {lang}")
    assert sources_level("html", text, title) == 2


def test_a_set_title_wins_over_lang(tmp_path: Path) -> None:
    text = build(tmp_path, "out.html", meta="lang: de", flags=("--sources-title", "Belege"))
    assert sources_level("html", text, "Belege") == 2


def test_the_drafts_own_block_takes_the_level_of_the_top_sections(tmp_path: Path) -> None:
    make_ledger(tmp_path / "ledger.json", [(1, "https://example.org/ice", "Ice", "2024-05-01")])
    draft = "# One\n\nIce floats.[1]\n\n# Two\n\nMore.[1]\n\n## Sources\n\n[1] https://example.org/ice\n"
    (tmp_path / "draft.md").write_text(draft, encoding="utf-8")
    proc = run_citeledger(
        "convert", "draft.md", "--ledger", "ledger.json", "-o", "out.html", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        sources_level("html", (tmp_path / "out.html").read_text(encoding="utf-8"), "Sources") == 1
    )
