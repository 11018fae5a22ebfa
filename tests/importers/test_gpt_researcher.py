"""A real GPT Researcher report (tests/fixtures/corpora/agents/gpt-researcher/, origin and licence
in that folder's README) imported end to end: the draft cites, at each place, the page the report
linked there; it verifies; built to html, docx and pptx every mark links that page.

The report cites with inline ``([Site, 2025](url))`` links, lists them under ``## References``,
and (the experiment's script around it) lists the 68 pages the research read under
``## Sources``, some titles running over several lines."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from citeledger.ledger import load_ledger
from citeledger.ledger.urls import url_key

from .test_outputs import _check, _import
from .test_storm import AGENTS

REPORT = AGENTS / "gpt-researcher" / "p0_d2_b3.md"
_INLINE = re.compile(r"\[([^\[\]\n]*)\]\((https?://[^\s)]+)\)")


def _imported(tmp_path: Path) -> tuple[str, str]:
    answer = Path(shutil.copy(REPORT, tmp_path / "report.md"))
    draft = _import(tmp_path, answer).read_text(encoding="utf-8")
    return draft, REPORT.read_text(encoding="utf-8")


def _url(tmp_path: Path, sid: int) -> str:
    return url_key(load_ledger(tmp_path / "l.json").source(sid).url)


def _linked_after(original: str, words: str) -> list[str]:
    """The URLs the report links right after ``words`` (the citation that follows them)."""
    at = original.index(words) + len(words)
    run = re.match(r"\s*\(((?:\[[^\]]*\]\([^)]*\)(?:;\s*)?)+)\)", original[at:])
    assert run, words
    return [url_key(u) for _t, u in _INLINE.findall(run.group(1))]


@pytest.mark.parametrize(
    "words",
    [
        "enhance supply chain visibility",
        "require significant architectural redesign and investment",
        "resource-intensive cross-chain integrations",
        "foster innovation and market confidence",
        "harmonizing standards across regions and certifiers remains a challenge",
        "Integrating IoT devices for real-time provenance tracking",
    ],
)
def test_each_marker_is_the_ledger_id_of_the_page_linked_there(tmp_path: Path, words: str) -> None:
    draft, original = _imported(tmp_path)
    marks = re.search(re.escape(words) + r"\.?((?:\[[0-9]+\])+)", draft)
    assert marks, words
    ids = [int(n) for n in re.findall(r"[0-9]+", marks.group(1))]
    assert [_url(tmp_path, i) for i in ids] == _linked_after(original, words)


def test_every_page_the_text_links_is_cited_and_its_lists_are_one_sources_block(
    tmp_path: Path,
) -> None:
    draft, original = _imported(tmp_path)
    text = original.split("\n## References\n")[0]
    linked = {url_key(u) for _t, u in _INLINE.findall(text)}
    body, block = draft.split("\n## Sources\n")
    cited = {int(n) for n in re.findall(r"\[([0-9]+)\]", body)}
    assert {_url(tmp_path, i) for i in cited} == linked and len(linked) == 13
    assert "## References" not in draft and "Works without a link" not in draft
    assert "](http" not in body
    # The closing remark after the References list is the report's text and stays.
    assert "*This report is current as of July 18, 2025.*" in body
    # The rules around the References list leave one, not two in a row.
    assert "\n---\n\n---\n" not in body and body.count("\n---\n") == 12
    # The References list names each page: its title, not the link's "CoinLaw, 2025".
    book = load_ledger(tmp_path / "l.json")
    coinlaw = book.find_url("https://coinlaw.io/blockchain-interoperability-statistics/")
    assert coinlaw is not None
    assert coinlaw.title == "CoinLaw - Blockchain Interoperability Statistics 2025"
    assert f"[{coinlaw.id}] https://coinlaw.io/blockchain-interoperability-statistics" in block


def test_the_table_source_stays_under_the_table(tmp_path: Path) -> None:
    """``([CoinLaw, 2025](url))`` is a paragraph of its own under a table: its marker stays
    there, not on the next section's heading."""
    draft, _original = _imported(tmp_path)
    coinlaw = load_ledger(tmp_path / "l.json").find_url(
        "https://coinlaw.io/blockchain-interoperability-statistics/"
    )
    assert coinlaw is not None
    assert "\n### 3.2 Centralization Risks\n" in draft
    table_end = "| Gaming interoperability          | 12              |\n"
    assert f"{table_end}\n[{coinlaw.id}]\n\n### 3.2" in draft


def test_the_pages_the_research_read_are_registered_not_cited(tmp_path: Path) -> None:
    """The 68 pages of the closing ``## Sources`` list: the 13 the text cites and 51 more
    (four listed twice), the latter registered after the cited ones and cited nowhere; a
    title that runs over three lines is one title."""
    draft, original = _imported(tmp_path)
    book = load_ledger(tmp_path / "l.json")
    listed = original.split("\n## Sources\n")[1]
    urls = {url_key(u) for u in re.findall(r"\]\((https?://[^\s)]+)\)", listed)}
    assert {url_key(s.url) for s in book.sources} == urls | {
        url_key(u) for _t, u in _INLINE.findall(original.split("\n## Sources\n")[0])
    }
    assert len(book.sources) == 64
    body = draft.split("\n## Sources\n")[0]
    assert max(int(n) for n in re.findall(r"\[([0-9]+)\]", body)) == 13
    emerald = book.find_url(
        "https://www.emerald.com/insight/content/doi/10.1108/scm-02-2024-0138/full/html"
    )
    assert emerald is not None and emerald.id > 13
    assert emerald.title == (
        "Overcoming technological barriers for blockchain adoption in supply chains: a "
        "diffusion of innovation (DOI)-informed framework proposal | Emerald Insight"
    )


def test_importing_it_again_changes_nothing(tmp_path: Path) -> None:
    draft, _original = _imported(tmp_path)
    ledger = (tmp_path / "l.json").read_bytes()
    again = _import(tmp_path, tmp_path / "report.md").read_text(encoding="utf-8")
    assert again == draft and (tmp_path / "l.json").read_bytes() == ledger


@pytest.mark.slow
def test_built_each_mark_links_the_page_the_report_linked_there(tmp_path: Path) -> None:
    draft, _original = _imported(tmp_path)
    book = load_ledger(tmp_path / "l.json")
    body = draft.split("\n## Sources\n")[0]
    wanted = [book.source(int(n)).url for n in re.findall(r"\[([0-9]+)\]", body)]
    assert len(wanted) == 27
    _check(tmp_path, tmp_path / "d.md", wanted)


def test_a_report_its_model_fenced_as_markdown_is_named_with_the_fence_lines(
    tmp_path: Path,
) -> None:
    """Another report of the same pull request (p0_d2_b5.md) holds its whole text inside a
    ```` ```markdown ```` fence: read as code it cites nothing, and the import says why, with
    the lines to delete. Here the same fence around this report's text."""
    from ..helpers.run import run_citeledger

    text = REPORT.read_text(encoding="utf-8")
    head, rest = text.split("## Report Content\n\n", 1)
    report, sources = rest.split("\n## Sources\n", 1)
    fenced = f"{head}## Report Content\n\n```markdown\n{report}\n```\n\n## Sources\n{sources}"
    (tmp_path / "r.md").write_text(fenced, encoding="utf-8")
    first = fenced[: fenced.index("```markdown")].count("\n") + 1
    last = fenced[: fenced.index("\n```\n") + 1].count("\n") + 1
    done = run_citeledger("import", "r.md", cwd=tmp_path, ledger=tmp_path / "l.json")
    assert done.returncode == 1
    assert f"inside a ```markdown fence (lines {first}-{last})" in done.stderr
    assert f"delete the fence's lines ({first} and {last})" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "r.cited.md").exists()
