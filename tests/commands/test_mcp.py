"""``citeledger mcp``: the server spoken to by the MCP SDK's own client over stdio, as an agent's
host would start it (``python -m citeledger mcp``): the tools it lists, an agent's walk (add,
ingest, quote, list, verify, render) and the results of a refused call."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers.run import CITELEDGER, OWN_VARS, citeledger_env

pytest.importorskip("mcp")

from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

PAGE = "Sea ice floats on the ocean because frozen water is less dense than liquid water.\n"


def _session(folder: Path, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Start the server in ``folder``, list its tools, make ``calls`` in order; the tool names
    and each call's structured result."""

    async def talk() -> dict[str, Any]:
        with anyio.fail_after(120):
            return await walk()

    async def walk() -> dict[str, Any]:
        server = StdioServerParameters(
            command=CITELEDGER[0],
            args=[*CITELEDGER[1:], "--ledger", "ledger.json", "mcp"],
            env=citeledger_env(unset=OWN_VARS),
            cwd=folder,
        )
        async with stdio_client(server) as streams, ClientSession(*streams) as session:
            await session.initialize()
            listed = await session.list_tools()
            results = []
            for name, arguments in calls:
                done = await session.call_tool(name, arguments)
                assert not done.is_error, done.content
                results.append(done.structured_content)
            return {"tools": [tool.name for tool in listed.tools], "results": results}

    return anyio.run(talk)


def test_the_server_lists_the_six_tools_with_typed_arguments(tmp_path: Path) -> None:
    seen = _session(tmp_path, [])
    assert seen["tools"] == ["add", "ingest", "quote", "list", "render", "verify"]


def test_an_agents_walk_through_the_tools_writes_the_ledger_the_cli_reads(tmp_path: Path) -> None:
    (tmp_path / "page.txt").write_text(PAGE, encoding="utf-8")
    (tmp_path / "draft.md").write_text("Sea ice floats.[1] Ice is old.[2]\n", encoding="utf-8")
    search = {"results": [{"url": "https://b.example/ice", "title": "Old ice"}]}
    quoted = "frozen water is less dense than liquid water"
    add, ingest, quote, listed, render, verify = _session(
        tmp_path,
        [
            ("add", {"urls": ["https://a.example/sea-ice"], "titles": ["Sea ice"]}),
            ("ingest", {"text": json.dumps(search)}),
            ("quote", {"source_id": 1, "text": quoted, "evidence": "page.txt"}),
            ("list", {}),
            ("render", {"replace_in": "draft.md"}),
            ("verify", {"files": ["draft.md"], "strict": True}),
        ],
    )["results"]
    assert add["status"] == "ok" and add["result"][0]["id"] == 1
    assert ingest["ok"] and ingest["output"] == "[2] https://b.example/ice (new) \u2014 Old ice\n"
    assert quote["output"] == "[1] evidence attached (1 quote(s))\n"
    assert [(s["id"], len(s["quotes"])) for s in listed["result"]] == [(1, 1), (2, 0)]
    assert render["output"] == "Sources block rewritten in draft.md\n"
    assert "[1] https://a.example/sea-ice" in (tmp_path / "draft.md").read_text(encoding="utf-8")
    assert (verify["exit_code"], verify["status"]) == (0, "ok")
    assert verify["messages"] == ["citations OK"]
    assert verify["result"]["stats"]["distinct_cited"] == 2
    on_disk = subprocess.run(
        [*CITELEDGER, "--ledger", "ledger.json", "list"],
        cwd=tmp_path,
        env=citeledger_env(unset=OWN_VARS),
        capture_output=True,
        text=True,
        check=True,
    )
    assert on_disk.stdout.splitlines()[0] == "[1] https://a.example/sea-ice  Sea ice  (1 quote)"


def test_refused_calls_carry_the_exit_codes_meaning_the_error_and_its_fix(tmp_path: Path) -> None:
    (tmp_path / "draft.md").write_text("Sea ice floats.[7]\n", encoding="utf-8")
    (tmp_path / "page.txt").write_text(PAGE, encoding="utf-8")
    bad_url, add, paraphrase, invented, stdin = _session(
        tmp_path,
        [
            ("add", {"urls": ["javascript:alert(1)"]}),
            ("add", {"urls": ["https://a.example/sea-ice"]}),
            ("quote", {"source_id": 1, "text": "ice is lighter than the sea", "page_text": PAGE}),
            ("verify", {"files": ["draft.md"]}),
            ("quote", {"source_id": 1, "text": "frozen water is less dense", "evidence": "-"}),
        ],
    )["results"]
    assert (bad_url["ok"], bad_url["exit_code"], bad_url["status"]) == (False, 2, "bad input")
    assert "javascript" in bad_url["error"] and bad_url["fix"]
    assert add["ok"]
    assert (paraphrase["exit_code"], paraphrase["status"]) == (1, "check failed")
    assert "not found verbatim" in paraphrase["error"] and "paraphrase" in paraphrase["fix"]
    assert (invented["exit_code"], invented["status"]) == (1, "check failed")
    assert invented["result"]["ok"] is False
    assert stdin["status"] == "bad input" and "standard input" in stdin["error"]


def test_without_the_extra_mcp_says_in_one_line_how_to_install_it(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "sys.modules['mcp'] = None  # as on an install without the extra\n"
        "from citeledger.cli import main\n"
        "main(['mcp'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=citeledger_env(unset=OWN_VARS),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "citeledger: error: citeledger mcp needs the mcp package "
        "(install the extra: pip install 'citeledger[mcp]')"
    ]


def test_quote_with_no_evidence_checks_the_page_ingest_kept(tmp_path: Path) -> None:
    # A result that carried the page's text (Tavily's raw_content) keeps it as evidence: an
    # agent on MCP quotes against it as `citeledger quote N --text ...` does.
    result = {
        "results": [
            {
                "url": "https://a.example/sea-ice",
                "title": "Sea ice",
                "raw_content": PAGE,
            }
        ]
    }
    ingest, quote, both = _session(
        tmp_path,
        [
            ("ingest", {"text": result}),
            ("quote", {"source_id": 1, "text": "frozen water is less dense than liquid water"}),
            ("quote", {"source_id": 1, "text": "x", "evidence": "p.txt", "page_text": "x"}),
        ],
    )["results"]
    assert ingest["ok"], ingest
    assert quote["ok"] and quote["output"] == "[1] evidence attached (1 quote(s))\n", quote
    assert both["status"] == "bad input" and "not both" in both["error"]


def test_the_quote_tool_takes_a_wrong_quote_back(tmp_path: Path) -> None:
    # The agent that attached a quote to the wrong source takes it back through the same tool,
    # by its number or its text; a number the source does not hold is bad input naming those
    # it does.
    (tmp_path / "page.txt").write_text(PAGE, encoding="utf-8")
    first, second = "Sea ice floats on the ocean", "frozen water is less dense than liquid water"
    results = _session(
        tmp_path,
        [
            ("add", {"urls": ["https://a.example/sea-ice"]}),
            ("quote", {"source_id": 1, "text": first, "evidence": "page.txt"}),
            ("quote", {"source_id": 1, "text": second, "evidence": "page.txt"}),
            ("quote", {"source_id": 1, "drop": 3}),
            ("quote", {"source_id": 1, "drop": 1}),
            ("quote", {"source_id": 1, "drop_text": second.upper()}),
            ("quote", {"source_id": 1}),
            ("list", {}),
        ],
    )["results"]
    missing, by_number, by_text, neither, listed = results[3:]
    assert (missing["exit_code"], missing["status"]) == (2, "bad input")
    assert "[1] has no quote 3: it holds 2: 1 \u201cSea ice floats" in missing["error"]
    assert missing["fix"] == "`citeledger quote 1 --drop K` with K from 1 to 2"
    assert by_number["ok"] and by_number["output"].startswith("[1] quote 1 dropped (1 quote(s)")
    assert by_text["ok"] and by_text["output"].startswith("[1] quote 1 dropped (0 quote(s)")
    assert neither["status"] == "bad input" and "drop" in neither["error"]
    assert listed["result"][0]["quotes"] == []
