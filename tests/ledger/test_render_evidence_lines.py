"""``render --style evidence`` keeps sources.py's line shape: each quote is exactly its
``    > "quote"`` line and, with ``--digests``, the digest of the kept text goes on a line of its
own below it, so a caller that parses sources.py's quote lines finds every quote; citeledger
reads the block back (``--replace-in`` again, ``verify``) as before. The manual lists the
difference."""

from __future__ import annotations

import hashlib
import json
import re

from tests.helpers import ROOT

SOURCES_PY_PAGE = ROOT / "docs" / "agents" / "sources-py.md"
DIGEST = hashlib.sha256(b"kept page text").hexdigest()
LEDGER = {
    "version": 1,
    "sources": [
        {
            "id": 1,
            "url": "https://a.org/ice",
            "title": "Ice",
            "accessed": "2026-01-01",
            "quotes": [
                {"text": "Ice is less dense than water.", "added": "2026-01-02"},
                {"text": "It floats.", "added": "2026-01-02", "text_sha256": DIGEST},
            ],
        },
        {"id": 2, "url": "https://a.org/sea", "title": "Sea", "accessed": "2026-01-01"},
    ],
}
# How a script written for sources.py reads its evidence lines.
SOURCES_PY_QUOTE = re.compile(r'^    > "(.*)"$')


def test_each_quote_line_is_sources_pys_and_its_digest_is_the_next_line(cli, tmp_path) -> None:
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    done = cli("render", "--style", "evidence", "--digests")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    quotes = [m.group(1) for m in map(SOURCES_PY_QUOTE.match, lines) if m]
    assert quotes == ["Ice is less dense than water.", "It floats."]
    at = lines.index('    > "It floats."')
    assert lines[at + 1] == f"      (sha256 {DIGEST})"
    assert lines[at - 1] == '    > "Ice is less dense than water."'  # no digest kept: no line
    assert sum("sha256" in line for line in lines) == 1


def test_the_evidence_style_prints_no_digest_unless_asked(cli, tmp_path) -> None:
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    done = cli("render", "--style", "evidence")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert '    > "It floats."' in lines
    assert not any("sha256" in line for line in lines)
    kept = json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8"))
    assert kept["sources"][0]["quotes"][1]["text_sha256"] == DIGEST  # the trail keeps it


def test_digests_outside_the_evidence_style_is_refused_in_one_line(cli, tmp_path) -> None:
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    done = cli("render", "--style", "plain", "--digests")
    assert done.code == 2
    assert len(done.err.strip().splitlines()) == 1 and "--style evidence" in done.err


def test_a_draft_with_an_evidence_block_is_replaced_in_place_and_verifies(cli, tmp_path) -> None:
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    draft = tmp_path / "d.md"
    draft.write_text("# Ice\n\nIce floats on the sea.[1] The sea is salt.[2]\n", encoding="utf-8")
    assert cli("render", "--replace-in", "d.md", "--style", "evidence", "--digests").code == 0
    once = draft.read_text(encoding="utf-8")
    assert f"\n      (sha256 {DIGEST})\n" in once
    assert cli("render", "--replace-in", "d.md", "--style", "evidence", "--digests").code == 0
    assert draft.read_text(encoding="utf-8") == once  # the block was found again, not added
    verified = cli("verify", "d.md")
    assert verified.code == 0, verified.out + verified.err
    assert verified.out.strip().splitlines()[-1] == "citations OK"


def test_the_manual_lists_the_evidence_lines_and_the_refused_credentials() -> None:
    text = SOURCES_PY_PAGE.read_text(encoding="utf-8")
    section = re.search(r"^# Coming from sources\.py\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section
    rows = {row.split("|")[1].strip(): row for row in section.group(1).splitlines() if "|" in row}
    evidence = rows["`render --style evidence`"]
    assert '`    > "quote"`' in evidence and "line of its own" in evidence
    credentials = rows["`add https://user:pw@host/…`"]
    assert "refused" in credentials and "exit 2" in credentials
