"""``--support-pages``: a source's evidence is also the page its quotes were checked against,
kept in the ledger's evidence folder by ``citeledger quote``; the chunk of it nearest the
sentence is taken, never the whole page."""

from __future__ import annotations

import json
from pathlib import Path

PAGE = (
    "Sea ice covers about 15 million square kilometres of the Arctic Ocean in March. "
    "By September it shrinks to about 4.5 million square kilometres.\n\n"
    + "Penguins live in the Southern Hemisphere and do not meet polar bears. " * 30
    + "\n\nThe Antarctic ice sheet holds about 26.5 million cubic kilometres of ice."
)
DRAFT = """# Ice

Arctic sea ice covers about 15 million km² in March.[1] In September it shrinks to roughly
4.5 million square kilometres.[1] The Antarctic ice sheet holds 30 million cubic kilometres
of ice.[1]

## Sources

[1] https://example.org/sea-ice — Sea ice
"""


def _project(folder: Path, cli) -> None:
    (folder / "page.txt").write_text(PAGE, encoding="utf-8")
    assert cli("add", "https://example.org/sea-ice", "--title", "Sea ice").code == 0
    quote = "Sea ice covers about 15 million square kilometres of the Arctic Ocean in March."
    assert cli("quote", "1", "--text", quote, "--from", "page.txt").code == 0
    (folder / "d.md").write_text(DRAFT, encoding="utf-8")


def _details(out: str) -> dict[int, str]:
    found = json.loads(out)["findings"]
    return {
        int(f["location"].split(":")[1]): f["message"]
        for f in found
        if f["code"] == "unsupported-detail"
    }


def test_the_kept_pages_nearest_chunk_carries_what_the_quotes_do_not(tmp_path, cli) -> None:
    _project(tmp_path, cli)
    (tmp_path / "page.txt").unlink()  # the kept copy is what counts, not the file quoted from
    quotes_only = _details(
        cli("verify", "d.md", "--ledger", "ledger.json", "--support", "--format", "json").out
    )
    # (Findings stand at the markers: lines 4 and 5.) 15 million is in the quote; 4.5 million
    # and 30 million are not.
    assert sorted(quotes_only) == [4, 5]
    with_pages = _details(
        cli(
            "verify",
            "d.md",
            "--ledger",
            "ledger.json",
            "--support",
            "--support-pages",
            "--format",
            "json",
        ).out
    )
    # The page says 4.5 million; it says 26.5 million, not 30, for the Antarctic sheet.
    assert list(with_pages) == [5] and "30 million" in with_pages[5]


def test_a_page_the_folder_lacks_leaves_the_quotes_and_the_audit_says_so(tmp_path, cli) -> None:
    _project(tmp_path, cli)
    for kept in (tmp_path / "ledger.evidence").iterdir():
        kept.unlink()
    done = cli(
        "verify",
        "d.md",
        "--ledger",
        "ledger.json",
        "--support",
        "--support-pages",
        "--format",
        "json",
    )
    assert sorted(_details(done.out)) == [4, 5]
    assert (
        cli("audit", "d.md", "--ledger", "ledger.json", "--support-pages", "-o", "audit.html").code
        == 0
    )
    page = (tmp_path / "audit.html").read_text(encoding="utf-8")
    assert "No kept page for [1]: its quotes alone were read." in page
