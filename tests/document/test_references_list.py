"""A numbered or bulleted list under a References title whose entries are ledger URLs is the
draft's Sources block: a build replaces it by the list it renders (one list, live links, a
``doi:`` too) and verify reads it as the block (issue 32, item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import make_ledger
from tests.helpers.outputs import build_all, verify

A = "https://example.org/a"
DOI = "https://doi.org/10.1234/xyz"
BODY = "Ice floats on water today.[1] Sea ice is thin this year.[2]\n\n"


def _ledger(tmp_path: Path) -> Path:
    sources = [(1, A, "Ice", "2024-01-01"), (2, DOI, "Sea ice", "2024-01-01")]
    return make_ledger(tmp_path / "ledger.json", sources)


@pytest.mark.parametrize(
    "listing",
    [
        f"## References\n\n1. Roe, J. Ice. {A}\n2. Doe, J. Sea ice. doi:10.1234/xyz\n",
        f"## Works cited\n\n- Roe, J. Ice. <{A}>\n- Doe, J. Sea ice. doi:10.1234/xyz\n",
    ],
)
def test_reference_list_of_ledger_urls_is_the_sources_block(tmp_path: Path, listing: str) -> None:
    ledger = _ledger(tmp_path)
    draft = tmp_path / "f.md"
    draft.write_text(BODY + listing, encoding="utf-8")
    code, said = verify(draft, ledger)
    assert code == 0, said
    built = build_all(draft, ledger)
    for text in (built.html, built.word_body, " ".join(built.deck), built.wiki, built.filtered):
        assert "Roe, J." not in text  # the draft's list is replaced, not doubled
    assert f'href="{DOI}"' in built.html and f'href="{DOI}"' in built.filtered
    assert DOI in built.word_notes
    assert DOI in built.deck[-1]
    assert DOI in built.wiki


def test_reference_list_naming_a_url_outside_the_ledger_stays_the_drafts_text(
    tmp_path: Path,
) -> None:
    ledger = _ledger(tmp_path)
    draft = tmp_path / "f.md"
    draft.write_text(
        BODY + f"## References\n\n1. Roe, J. Ice. {A}\n2. Elsewhere. https://example.net/z\n",
        encoding="utf-8",
    )
    built = build_all(draft, ledger)
    assert "Elsewhere." in built.html


def test_numbered_points_with_links_under_a_citations_section_stay_prose(tmp_path: Path) -> None:
    """A bookdown chapter's "Citations" section opens with a numbered list of two ways to cite,
    each linking ledger pages in its prose and one citing [2]: a list of points, not of works.
    Read as a second Sources block, it failed verify and the build."""
    ledger = _ledger(tmp_path)
    draft = tmp_path / "f.md"
    draft.write_text(
        BODY + "## Citations\n\n"
        f"1. The default is [a helper]({A}) that follows [a specification]({DOI}).\n\n"
        f"1. Users may also choose [another package]({DOI}).[2] It needs BibTeX files.\n\n"
        f"## Sources\n\n[1] {A} — Ice\n[2] {DOI} — Sea ice\n",
        encoding="utf-8",
    )
    code, said = verify(draft, ledger)
    assert code == 0, said
    built = build_all(draft, ledger)
    assert "The default is" in built.html and "Users may also choose" in built.html
