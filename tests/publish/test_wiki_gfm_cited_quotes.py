"""``citeledger wiki --format gfm`` on cited paragraphs that hold a "quoted phrase" or inline math.

The gfm link rewriting walks every element's content as if it were an inline list, and a Quoted
or Math element's content starts with its quote or math type: ``AttributeError: 'list' object
has no attribute 'get'``. pandoc's MANUAL and changelog hit it. The link rewriting of the wiki
package (``citeledger/publish/wiki/links.py``) walks inline lists only.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import make_ledger, run_citeledger

DRAFT = """\
# Quoting

He called it "the best tool" in his review.[1]

# Math

The area grows as $r^2$ when the radius grows.[2]
"""


def test_gfm_wiki_builds_pages_whose_cited_paragraphs_quote_or_hold_math(tmp_path: Path) -> None:
    sources = [
        {"id": i, "url": f"https://example.org/{i}", "title": f"Source {i}", "accessed": ""}
        for i in (1, 2)
    ]
    ledger = make_ledger(tmp_path / "ledger.json", sources)
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    done = run_citeledger(
        "wiki", "draft.md", "-o", "site", "--format", "gfm", cwd=tmp_path, ledger=ledger
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    quoting = (tmp_path / "site" / "quoting.md").read_text(encoding="utf-8")
    assert "the best tool" in quoting and "#src-1" in quoting
