"""Provider quotes (Anthropic's ``cited_text``, STORM's snippets) are evidence of another kind:
``verify --evidence`` says which kind each cited source carries, and only
``--provider-quotes accept`` (a flag or the project file, never a draft's front matter) lets
them pass the gate."""

from __future__ import annotations

import json
from pathlib import Path

from ..helpers.ledgers import make_ledger

DRAFT = """Shannon was born in 1916.[1] He founded information theory.[2]

## Sources

[1] https://en.wikipedia.org/wiki/Claude_Shannon
[2] https://www.britannica.com/biography/Claude-Shannon
"""


def _ledger(tmp_path: Path) -> None:
    make_ledger(
        tmp_path / "l.json",
        [
            (1, "https://en.wikipedia.org/wiki/Claude_Shannon", "W", "2026-01-01"),
            (2, "https://www.britannica.com/biography/Claude-Shannon", "B", "2026-01-01"),
        ],
    )
    data = json.loads((tmp_path / "l.json").read_text(encoding="utf-8"))
    data["sources"][0]["provider_quotes"] = [
        {
            "text": "Claude Elwood Shannon (April 30, 1916 – February 24, 2001)",
            "added": "2026-01-01",
            "provider": "anthropic",
            "origin": "cited_text of a web_search_result_location in a.json",
        }
    ]
    data["sources"][1]["quotes"] = [{"text": "laid the theoretical foundations", "added": "x"}]
    (tmp_path / "l.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")


def test_evidence_names_each_cited_sources_kind_and_refuses_provider_quotes(
    cli, tmp_path: Path
) -> None:
    _ledger(tmp_path)
    done = cli("--ledger", "l.json", "verify", "--evidence", "d.md")
    assert done.code == 1
    assert (
        "info: evidence: page-checked quotes [2]; provider quotes only (not page-checked) [1]"
        in done.out
    )
    assert "[1] carries only provider quotes (anthropic)" in done.err
    assert "--provider-quotes accept" in done.err


def test_provider_quotes_pass_only_when_accepted_by_a_flag(cli, tmp_path: Path) -> None:
    _ledger(tmp_path)
    done = cli("--ledger", "l.json", "verify", "--evidence", "--provider-quotes", "accept", "d.md")
    assert done.code == 0, done.out + done.err


def test_front_matter_cannot_accept_provider_quotes(cli, tmp_path: Path) -> None:
    _ledger(tmp_path)
    text = "---\nciteledger:\n  provider-quotes: accept\n---\n\n" + DRAFT
    (tmp_path / "d.md").write_text(text, encoding="utf-8")
    done = cli("--ledger", "l.json", "verify", "--evidence", "d.md")
    assert done.code == 1
    assert "accept ignored" in done.out + done.err


def test_a_provider_quote_is_not_counted_as_evidence_in_the_stats(cli, tmp_path: Path) -> None:
    _ledger(tmp_path)
    done = cli("--ledger", "l.json", "verify", "d.md")
    assert "2 in ledger (1 with evidence quotes)" in done.out
