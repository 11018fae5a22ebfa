"""gfm builds write each Sources entry once and put its text into every page that lists it
(``citeledger/publish/wiki/entries.py``): a page must read exactly as if pandoc had written the
entry in place, whatever the title holds."""

from __future__ import annotations

import json
from pathlib import Path

from citeledger.filters.run import apply
from citeledger.ledger import Ledger, load_ledger
from citeledger.options import Options
from citeledger.pandoc import read_json
from citeledger.publish.wiki import FORMATS, Page, build_wiki
from citeledger.publish.wiki.build import sources_page
from citeledger.publish.wiki.entries import WrittenEntries
from citeledger.publish.wiki.links import GfmLinks
from citeledger.publish.wiki.writer import PageWriter
from citeledger.tree import Json

# Titles whose gfm escaping could depend on what surrounds them: markup at either end, a
# trailing backslash or bang (before the URL's link), raw HTML, a control character, none.
TITLES = [
    "Ice <paper> [[with]] ''wiki'' {{markup}}",
    "Ends with a backslash \\",
    "Why?",
    "Wow!",
    "",
    "# looks like a heading",
    "1. looks like a list",
    "*stars* and _underscores_ and `ticks` and ~~strikes~~",
    "<!-- a comment --> <b>bold</b> &amp; an entity",
    "| a | table |",
    "![an image](x.png) and [a link](y)",
    "a\u0007bell and   spaces  ",
    "氷の論文 and עברית",
    "Trailing bracket ]",
]


def hostile_ledger(path: Path) -> Ledger:
    sources = [
        {
            "id": i,
            "url": f"https://example.org/p/{i}_(x)?q=[{i}]&r=*",
            "title": title,
            "accessed": "2025-03-01" if i % 3 else "",
            "quotes": [],
        }
        for i, title in enumerate(TITLES, 1)
    ]
    path.write_text(json.dumps({"version": 1, "sources": sources}), encoding="utf-8")
    return load_ledger(path)


def copied(blocks: list[Json]) -> list[Json]:
    result: list[Json] = json.loads(json.dumps(blocks))
    return result


def page_blocks(ledger: Ledger, tmp_path: Path, markdown: str) -> tuple[list[Json], int, Json]:
    """A page after the filter, its body's links rewritten for gfm; with the index where its
    Sources list starts, and the pandoc API version."""
    draft = tmp_path / "page.md"
    draft.write_text(markdown, encoding="utf-8")
    doc = read_json(draft)
    own = len(doc["blocks"])
    opts = Options().updated({"numbering": "ledger"})
    apply(doc, "gfm", options=opts, ledger=ledger, verify=False)
    GfmLinks().blocks(doc["blocks"][:own])
    return doc["blocks"], own, doc["pandoc-api-version"]


def gfm_links(blocks: list[Json]) -> None:
    GfmLinks().blocks(blocks)


def in_place(blocks: list[Json]) -> list[Json]:
    """The page as written without WrittenEntries: its list's links rewritten where it is."""
    result = copied(blocks)
    gfm_links(result)
    return result


def test_an_entry_written_once_reads_as_if_written_on_each_page(tmp_path: Path) -> None:
    ledger = hostile_ledger(tmp_path / "ledger.json")
    cites = " ".join(f"Claim {s.id}.[{s.id}]" for s in ledger.sources)
    first, own_first, api = page_blocks(ledger, tmp_path, f"# One\n\n{cites}\n\nAgain.[1][2][4]\n")
    second, own_second, _api = page_blocks(ledger, tmp_path, "# Two\n\nOnce.[1] Twice.[2][2]\n")
    writer = PageWriter(FORMATS["gfm"], api, [])
    try:
        expected = writer.texts([in_place(first), in_place(second)])
        entries = len(first) - own_first - 1 + len(second) - own_second - 1  # headings aside
        assert entries == len(ledger.sources) + 2
        once = WrittenEntries(writer, gfm_links)
        once.swap(first, own_first)
        once.swap(second, own_second)
        assert len(once.numbers) == entries - 1  # [2], cited twice on both pages, is one
        assert [b["t"] for b in second[own_second:]] == ["Header", "RawBlock"]
        pages = [Page("One", "one", first, {}, ""), Page("Two", "two", second, {}, "")]
        for page in pages:
            writer.add(page)
        writer.wait()
        once.fill(pages)
    finally:
        writer.close()
    assert [p.text for p in pages] == expected
    assert "↩ [1](#cite-2-1) [2](#cite-2-2)" in pages[1].text


def test_a_gfm_build_leaves_no_placeholder_and_lists_each_pages_own_ids(tmp_path: Path) -> None:
    ledger = hostile_ledger(tmp_path / "ledger.json")
    draft = tmp_path / "draft.md"
    draft.write_text(
        "# One\n\nA.[1] B.[2][3]\n\n# Two\n\nC.[3][5] D.[3]\n\n# Three\n\nNo citations.\n",
        encoding="utf-8",
    )
    result = build_wiki([draft], tmp_path / "out", ledger, fmt="gfm", say=lambda _l: None)
    assert [(p.slug, p.ids) for p in result.pages] == [
        ("one", [1, 2, 3]),
        ("two", [3, 5]),
        ("three", []),
    ]
    for path in result.files:
        assert "citeledger-entry-" not in path.read_text(encoding="utf-8"), path.name
    two = (tmp_path / "out" / "two.md").read_text(encoding="utf-8")
    assert '<a id="src-3"></a>\\[3\\]' in two and "↩ [1](#cite-3-1) [2](#cite-3-2)" in two


def test_the_sources_page_reads_the_same_with_each_link_written_once(tmp_path: Path) -> None:
    ledger = hostile_ledger(tmp_path / "ledger.json")
    headings = [
        "Ends with a backslash \\\\",
        "1. looks like a list",
        "Wow!",
        "<b>bold</b> &amp; more",
        "[a link](y) and `ticks`",
        "| a | table |",
        "氷と水",
    ]
    draft = tmp_path / "draft.md"
    draft.write_text(
        "\n\n".join(f"# {h}\n\nClaim.[{k % 5 + 1}][{k % 3 + 6}]" for k, h in enumerate(headings)),
        encoding="utf-8",
    )
    result = build_wiki([draft], tmp_path / "out", ledger, fmt="gfm", say=lambda _l: None)
    fmt = FORMATS["gfm"]
    opts = Options().updated({"numbering": "ledger"})
    in_place = sources_page(result.pages, result.cited_by, ledger, fmt, opts, None)
    writer = PageWriter(fmt, [1, 23, 1], [])
    try:
        expected = writer.texts([in_place.blocks])[0]
    finally:
        writer.close()
    assert (tmp_path / "out" / "sources.md").read_text(encoding="utf-8") == expected
    assert expected.count("](") > len(headings)  # the links are there, several per entry
