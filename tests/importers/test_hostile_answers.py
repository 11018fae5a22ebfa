"""An answer is web content: what it cites and how it titles it reaches the ledger and the
draft only as the ledger allows (http(s) pages, titles escaped), and a malformed answer is one
line, never a traceback."""

from __future__ import annotations

import json
import re
from pathlib import Path

from citeledger.ledger import load_ledger


def _answer(tmp_path: Path, content: str, citations: list[object]) -> Path:
    data = {"choices": [{"message": {"role": "assistant", "content": content}}]}
    data["citations"] = citations  # type: ignore[assignment]
    (tmp_path / "a.json").write_text(json.dumps(data), encoding="utf-8")
    return tmp_path / "a.json"


def test_a_script_address_gets_no_id_and_its_claim_no_marker(cli, tmp_path: Path) -> None:
    _answer(
        tmp_path,
        "Safe claim.[1] Risky claim.[2]",
        ["https://ok.example.org/a", "javascript:alert(1)"],
    )
    done = cli("--ledger", "l.json", "import", "a.json", "-o", "d.md")
    assert "citation left out" in done.err
    assert [s.url for s in load_ledger(tmp_path / "l.json").sources] == ["https://ok.example.org/a"]
    draft = (tmp_path / "d.md").read_text(encoding="utf-8")
    assert "javascript" not in draft and "Risky claim.\n" in draft + "\n"


def test_a_hostile_title_is_escaped_in_the_sources_block(cli, tmp_path: Path) -> None:
    data = {
        "output": [
            {
                "type": "message",
                "content": [
                    {
                        "type": "output_text",
                        "text": "A claim.",
                        "annotations": [
                            {
                                "type": "url_citation",
                                "start_index": 0,
                                "end_index": 8,
                                "url": "https://ok.example.org/a",
                                "title": "x](https://evil.example.org) <script>alert(1)</script>",
                            }
                        ],
                    }
                ],
            }
        ]
    }
    (tmp_path / "a.json").write_text(json.dumps(data), encoding="utf-8")
    done = cli("--ledger", "l.json", "import", "a.json", "-o", "d.md")
    assert done.code == 0, done.out + done.err
    draft = (tmp_path / "d.md").read_text(encoding="utf-8")
    assert not re.search(r"(?<!\\)\]\(https://evil", draft) and "<script>" not in draft


def test_malformed_shapes_are_one_line_and_write_nothing(cli, tmp_path: Path) -> None:
    for raw in (
        '{"choices": [{"message": 3}], "citations": 5}',
        "{not json",
        '{"candidates": [{}]}',
    ):
        (tmp_path / "a.json").write_text(raw, encoding="utf-8")
        done = cli("--ledger", "l.json", "import", "a.json", "-o", "d.md")
        assert done.code in (1, 2), (raw, done.out, done.err)
        assert len(done.err.strip().splitlines()) == 1, done.err
        assert "Traceback" not in done.err
        assert not (tmp_path / "d.md").exists()
