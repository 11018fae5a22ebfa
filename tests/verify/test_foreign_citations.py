"""A draft whose citations name no ledger id (a Perplexity export's URL footnotes, ChatGPT's
``([Site][n])`` reference links) cites nothing verify can check: it fails, and the fix names
``citeledger import``. Before, verify said "citations OK" over the export's footnotes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..helpers.ledgers import make_ledger

EXPORT = """# Solar power in Germany

Germany installed 14 GW of solar capacity in 2023.[^1] It was a record year.[^2]

[^1]: https://www.example.org/solar-2023
[^2]: [Germany PV](https://www.energy-news.example.com/germany-pv?utm_source=perplexity)
"""
CHATGPT = """Germany installed 14 GW of solar capacity in 2023. ([Example][1])

[1]: https://www.example.org/solar-2023?utm_source=chatgpt.com "Solar 2023"
"""
REMARKS = """A paragraph with a note.[^a] And a [quoted link][1] in the prose.

[^a]: This note says more than a title: it explains a point at length and only mentions
    https://example.org/a in passing, as remarks in a manual do.

[1]: https://example.org/b
"""


@pytest.mark.parametrize(("text", "seen"), [(EXPORT, "footnote"), (CHATGPT, "[Example][1]")])
def test_citations_verify_cannot_see_fail_with_import_as_the_fix(
    cli, tmp_path: Path, text: str, seen: str
) -> None:
    (tmp_path / "d.md").write_text(text, encoding="utf-8")
    done = cli("--ledger", "l.json", "verify", "d.md")
    assert done.code == 1, done.out + done.err
    assert "citations OK" not in done.out
    line = next(ln for ln in done.err.splitlines() if "by no ledger id" in ln)
    assert seen in line and "`citeledger import d.md`" in line


def test_footnotes_that_are_remarks_and_links_in_prose_are_not_citations(
    cli, tmp_path: Path
) -> None:
    (tmp_path / "d.md").write_text(REMARKS, encoding="utf-8")
    done = cli("--ledger", "l.json", "verify", "d.md")
    assert "by no ledger id" not in done.out + done.err


def test_the_imported_draft_of_the_export_verifies(cli, tmp_path: Path) -> None:
    (tmp_path / "d.md").write_text(EXPORT, encoding="utf-8")
    done = cli("--ledger", "l.json", "import", "d.md")
    assert done.code == 0, done.out + done.err
    assert cli("--ledger", "l.json", "verify", "d.cited.md").code == 0


def test_a_draft_citing_ledger_ids_keeps_its_footnote_warning(cli, tmp_path: Path) -> None:
    make_ledger(tmp_path / "l.json", [(1, "https://www.example.org/solar-2023", "S", "2026-01-01")])
    text = (
        EXPORT.replace("2023.[^1]", "2023.[1]")
        + "\n## Sources\n\n[1] https://www.example.org/solar-2023\n"
    )
    (tmp_path / "d.md").write_text(text, encoding="utf-8")
    done = cli("--ledger", "l.json", "verify", "d.md")
    assert "by no ledger id" not in done.out + done.err
    assert "footnote links to https://www.energy-news.example.com/germany-pv" in done.out
