"""The MCP server's verify tool takes ``support``: the agent's own check that each cited
sentence says what its quotes say, in-process as the server runs it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from citeledger import mcp
from tests.helpers import need


def _draft(folder: Path) -> None:
    quote = {"text": "Ice is about 9% less dense than liquid water.", "added": "2026-12-01"}
    source = {"id": 1, "url": "https://a.example/ice", "title": "Ice", "quotes": [quote]}
    (folder / "ledger.json").write_text(json.dumps({"version": 1, "sources": [source]}))
    (folder / "draft.md").write_text(
        "Ice is about 12% less dense than water.[1]\n\n## Sources\n\n[1] https://a.example/ice\n",
        encoding="utf-8",
    )


def test_verify_tool_with_support_reports_the_detail_the_quote_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _draft(tmp_path)
    monkeypatch.chdir(tmp_path)
    plain = mcp.verify(["draft.md"], ledger="ledger.json")
    assert plain["ok"] and plain["result"]["findings"] == []
    checked = mcp.verify(["draft.md"], ledger="ledger.json", support=True)
    found = checked["result"]["findings"]
    assert checked["ok"] and [f["code"] for f in found] == ["unsupported-detail"]
    assert "\u201c12%\u201d" in found[0]["message"] and "citeledger quote 1" in found[0]["fix"]
    assert checked["result"]["stats"]["claims_to_look_at"] == 1


def test_the_verify_tools_schema_offers_support() -> None:
    need(importlib.util.find_spec("mcp") is not None, "the mcp package (the test extra)")
    tools = {tool.name: tool for tool in mcp.server()._tool_manager.list_tools()}
    assert "support" in tools["verify"].parameters["properties"]
