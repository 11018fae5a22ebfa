"""The research agent's walk (issues 33 and 34), end to end, as an agent runs it: every command
is the CLI in its own process, on search results built from each provider's documented fields
(Tavily, Exa, Brave, SerpAPI, Perplexity, Anthropic's web search and web fetch, Gemini, an MCP
tool result), pages saved as HTML and as a typst PDF whose words are hyphenated across lines, a
draft with the mistakes LLMs make, fixed by following only the fix lines the findings print,
and a delivery whose Word footnotes are read back. What is asserted is what an agent relies on:
exit codes, the one-line messages and fixes, and that each citation points at the ledger's URL.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import docx
import pytest

from tests.helpers.run import CITELEDGER, OWN_VARS, citeledger_env, run_citeledger

pytestmark = pytest.mark.slow

NSIDC = "https://nsidc.org/learn/parts-cryosphere/sea-ice/science-sea-ice"
NSIDC_TEXT = (
    "Sea ice has a high albedo, reflecting up to 80 percent of incoming sunlight. Open ocean "
    "absorbs about 94 percent of the sunlight that reaches it."
)
TAVILY = {
    "query": "sea ice albedo",
    "answer": None,
    "images": [{"url": "https://images.example-cdn.com/ice1.jpg", "description": "ice"}],
    "results": [
        {
            "title": "Sea ice and albedo - NSIDC",
            "url": NSIDC + "?utm_source=tavily",
            "content": "Sea ice has a high albedo.",
            "score": 0.91,
            "raw_content": NSIDC_TEXT,
            "favicon": "https://nsidc.org/favicon.ico",
        }
    ],
    "response_time": 1.2,
}
EXA = {
    "requestId": "b5947044",
    "results": [
        {
            "id": "https://www.carbonbrief.org/arctic-albedo",
            "url": "https://www.carbonbrief.org/arctic-albedo",
            "title": "Arctic albedo loss explained",
            "publishedDate": "2023-08-01T00:00:00.000Z",
            "author": None,
            "text": "The darkening of the Arctic has added warming equal to a quarter of the CO2 "
            "effect over the same period.",
            "image": "https://www.carbonbrief.org/wp-content/uploads/ice.jpg",
        }
    ],
}
BRAVE = {
    "type": "search",
    "mixed": {
        "type": "mixed",
        "main": [{"type": "web", "index": 0}, {"type": "videos", "all": True}],
    },
    "videos": {"results": [{"url": "https://www.youtube.com/watch?v=abc123", "title": "Video"}]},
    "web": {
        "results": [
            {
                "title": "Albedo - Wikipedia",
                "url": "https://en.wikipedia.org/wiki/Albedo",
                "profile": {"name": "Wikipedia", "url": "https://en.wikipedia.org/wiki/Albedo"},
                "thumbnail": {"src": "https://imgs.search.brave.com/t.jpg"},
            }
        ]
    },
}
SERPAPI = {
    "search_metadata": {"google_url": "https://www.google.com/search?q=sea+ice"},
    "ads": [{"title": "Buy ice", "link": "https://www.googleadservices.com/pagead/aclk?sa=L"}],
    "organic_results": [
        {
            "position": 1,
            "title": "Albedo - Wikipedia",
            "link": "https://en.wikipedia.org/wiki/Albedo",
        },
        {"position": 2, "title": "NSIDC", "link": NSIDC + "?utm_source=serpapi&gclid=x1"},
    ],
    "related_searches": [{"query": "ice", "link": "https://www.google.com/search?q=ice"}],
}
NOAA = "https://www.noaa.gov/arctic-sea-ice"
PERPLEXITY = {
    "id": "abc",
    "model": "sonar",
    "citations": [NOAA],
    "search_results": [{"title": "Arctic sea ice | NOAA", "url": NOAA, "date": "2024-03-01"}],
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "It shrinks [1]."}}],
}
IPCC = "https://www.ipcc.ch/srocc/chapter/chapter-3-2/"
ANTHROPIC = {
    "type": "message",
    "role": "assistant",
    "content": [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_fetch",
            "input": {"url": IPCC},
        },
        {
            "type": "web_fetch_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {
                "type": "web_fetch_result",
                "url": IPCC,
                "retrieved_at": "2025-08-25T10:30:00Z",
                "content": {
                    "type": "document",
                    "source": {
                        "type": "text",
                        "media_type": "text/plain",
                        "data": "September sea ice reductions are very likely 12.8 plus or minus "
                        "2.3 percent per decade.",
                    },
                    "title": "Polar Regions - IPCC SROCC",
                },
            },
        },
    ],
}
GEMINI_URI = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZ"
GEMINI = {
    "candidates": [
        {
            "content": {"parts": [{"text": "Arctic ice shrinks."}], "role": "model"},
            "groundingMetadata": {
                "groundingChunks": [
                    {
                        "web": {
                            "uri": GEMINI_URI,
                            "title": "wmo.int",
                        }
                    }
                ],
            },
        }
    ]
}
MCP_RESULT = {
    "jsonrpc": "2.0",
    "id": 3,
    "result": {
        "content": [
            {
                "type": "text",
                "text": json.dumps(
                    {
                        "results": [
                            {"title": "Report card", "url": "https://arctic.noaa.gov/report-card/"}
                        ]
                    }
                ),
            },
            {
                "type": "resource_link",
                "uri": "https://www.copernicus.eu/en/sea-ice",
                "name": "sea ice",
            },
        ],
        "isError": False,
    },
}
PAGE = (
    "<html><head><title>Sea ice</title><script>var x = 1;</script></head><body><article>"
    "<p>Arctic sea ice extent in September has declined by about 13&nbsp;percent per decade "
    "since 1979.</p><p>Thin first-year ice now dominates the Arctic Ocean.</p></article></body>"
    "</html>"
)
WIKI = (
    "<html><body><p>Albedo is the fraction of sunlight that is diffusely reflected.</p>"
    "</body></html>"
)
# Narrow and justified: typst hyphenates words across lines (a soft hyphen in the PDF).
PAPER = """#set page(width: 6cm, height: 12cm, margin: 5mm)
#set text(hyphenate: true, lang: "en")
#set par(justify: true)
The albedo feedback is an uncontroversial and extraordinarily consequential mechanism: darker
open water absorbs considerably more incoming shortwave radiation than the surrounding
snow-covered multiyear ice.
"""

MISTAKES = """# Arctic sea ice

Sea ice reflects up to 80 percent of incoming sunlight [1]. The darkening of the Arctic has
added warming equal to a quarter of the CO2 effect.[1, 2] Albedo is the fraction of sunlight
that is diffusely reflected.[3]

Arctic sea ice extent in September has declined by about 13 percent per decade since 1979.
Reductions are very likely 12.8 percent per decade. The albedo feedback is an extraordinarily
consequential mechanism.[4][5][6]

The NOAA page at https://www.noaa.gov/arctic-sea-ice tracks it. Arctic ice shrinks.[7]
"""


def _run(folder: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_citeledger(
        *args, cwd=folder, unset=OWN_VARS, stdin=stdin, extra_env={"NO_COLOR": "1"}
    )


def _ok(folder: Path, *args: str) -> str:
    done = _run(folder, *args)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


def _ledger(folder: Path) -> dict[int, dict[str, Any]]:
    data = json.loads((folder / "ledger.json").read_text(encoding="utf-8"))
    return {s["id"]: s for s in data["sources"]}


def _id_of(folder: Path, url: str) -> int:
    ids = [i for i, s in _ledger(folder).items() if s["url"].rstrip("/") == url.rstrip("/")]
    assert len(ids) == 1, (url, _ledger(folder))
    return ids[0]


def _findings(folder: Path, draft: str, *flags: str) -> tuple[int, list[dict[str, Any]]]:
    done = _run(folder, "verify", draft, "--format", "json", *flags)
    return done.returncode, json.loads(done.stdout)["findings"]


def _register(folder: Path) -> None:
    """Step 1: every search result registered as it arrives, noise left out."""
    shapes = {
        "tavily": TAVILY,
        "exa": EXA,
        "brave": BRAVE,
        "serpapi": SERPAPI,
        "perplexity": PERPLEXITY,
        "anthropic": ANTHROPIC,
        "gemini": GEMINI,
        "mcp": MCP_RESULT,
    }
    printed: dict[str, str] = {}
    for name, shape in shapes.items():
        (folder / f"{name}.json").write_text(json.dumps(shape), encoding="utf-8")
        dry = _run(folder, "ingest", f"{name}.json", "--dry-run")
        assert dry.returncode == 0 and "nothing written" in dry.stderr, dry.stderr
        done = _run(folder, "ingest", f"{name}.json")
        assert done.returncode == 0, (name, done.stderr)
        printed[name] = done.stdout
        printed[name + ".err"] = done.stderr
    urls = [s["url"] for s in _ledger(folder).values()]
    # Images, favicons, thumbnails, search pages and ads got no id; tracking parameters gave
    # the NSIDC page one id, found again from SerpAPI's link.
    noise = ("www.google", "googleads", "images.", "favicon", "imgs.search.brave", "utm_")
    assert not [u for u in urls if any(word in u for word in noise)], urls
    assert printed["tavily"].startswith(f"[1] {NSIDC} (new) — Sea ice and albedo - NSIDC")
    assert "(page text kept as evidence)" in printed["tavily"]
    assert f"{NSIDC} (known)" in printed["serpapi"]
    # Brave in its ranked order (mixed.main): the web result before the video.
    wiki, video = (
        _id_of(folder, "https://en.wikipedia.org/wiki/Albedo"),
        _id_of(folder, "https://www.youtube.com/watch?v=abc123"),
    )
    assert wiki < video
    assert "Polar Regions - IPCC SROCC" in printed["anthropic"]
    assert "Arctic sea ice | NOAA" in printed["perplexity"]
    assert "expires" in printed["gemini.err"] and "citeledger add" in printed["gemini.err"]
    _id_of(folder, "https://www.copernicus.eu/en/sea-ice")
    _id_of(folder, "https://arctic.noaa.gov/report-card/")
    # A trailing slash is kept as registered (another resource to many servers), in the
    # ledger and in what ingest printed.
    assert IPCC in urls and "https://arctic.noaa.gov/report-card/" in urls
    assert f"{IPCC} (known)" in printed["anthropic"] or f"{IPCC} (new)" in printed["anthropic"]


def _concurrent_adds(folder: Path) -> None:
    """Six subagents add at once: no id lost or given twice."""
    env = citeledger_env(unset=OWN_VARS)
    procs = [
        subprocess.Popen(
            [*CITELEDGER, "add", f"https://example.org/par/{n}", "--title", f"Par {n}"],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(6)
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    ids = sorted(_ledger(folder))
    assert ids == list(range(1, len(ids) + 1))
    for n in range(6):
        _id_of(folder, f"https://example.org/par/{n}")


def test_the_research_agents_walk_from_search_results_to_a_verified_word_file(
    tmp_path: Path,
) -> None:
    import typst

    assert _run(tmp_path, "reset").returncode == 0
    _register(tmp_path)
    _concurrent_adds(tmp_path)
    nsidc = _id_of(tmp_path, NSIDC)
    brief = _id_of(tmp_path, "https://www.carbonbrief.org/arctic-albedo")
    wiki = _id_of(tmp_path, "https://en.wikipedia.org/wiki/Albedo")
    noaa = _id_of(tmp_path, NOAA)
    ipcc = _id_of(tmp_path, IPCC)
    wmo = int(
        _ok(tmp_path, "add", "https://public.wmo.int/sea-ice", "--title", "WMO")[1:].split("]")[0]
    )

    # Step 2: quotes, against the pages ingest kept and pages the agent saved.
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    (tmp_path / "wiki.html").write_text(WIKI, encoding="utf-8")
    (tmp_path / "paper.typ").write_text(PAPER, encoding="utf-8")
    typst.compile(str(tmp_path / "paper.typ"), output=str(tmp_path / "paper.pdf"))
    _ok(tmp_path, "quote", str(nsidc), "--text", "reflecting up to 80 percent of incoming sunlight")
    _ok(
        tmp_path,
        "quote",
        str(brief),
        "--text",
        "The darkening of the Arctic has added warming equal to a quarter of the CO2 effect",
    )
    _ok(
        tmp_path,
        "quote",
        str(ipcc),
        "--text",
        "very likely 12.8 plus or minus 2.3 percent per decade",
    )
    _ok(
        tmp_path,
        "quote",
        str(wiki),
        "--text",
        "Albedo is the fraction of sunlight",
        "--from",
        "wiki.html",
    )
    # The wrong page passed for Wikipedia: accepted, since its words are there, and found later.
    _ok(
        tmp_path,
        "quote",
        str(wiki),
        "--text",
        "Thin first-year ice now dominates",
        "--from",
        "page.html",
    )
    # A PDF's hyphenated line breaks: the quote's whole words match.
    for words in (
        "extraordinarily consequential mechanism",
        "absorbs considerably more incoming shortwave radiation",
    ):
        _ok(tmp_path, "quote", str(wmo), "--text", words, "--from", "paper.pdf")
    # A quote cut with an ellipsis is no passage: refused, saying each part is on the page.
    cut = _run(
        tmp_path,
        "quote",
        str(nsidc),
        "--text",
        "Sea ice has a high albedo ... Open ocean absorbs about 94 percent",
    )
    assert cut.returncode == 1 and "attach each part as its own quote" in cut.stderr
    refused = _run(
        tmp_path,
        "quote",
        str(noaa),
        "--text",
        "Arctic sea ice extent in September has declined by about 12 percent per decade",
        "--from",
        "page.html",
    )
    assert refused.returncode == 1
    assert "differs: “12” where the page has “13”" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    _ok(
        tmp_path,
        "quote",
        str(noaa),
        "--text",
        "declined by about 13 percent per decade since 1979",
        "--from",
        "page.html",
    )
    _ok(
        tmp_path,
        "quote",
        str(noaa),
        "--text",
        "Thin first-year ice now dominates",
        "--from",
        "page.html",
    )

    # Step 3: the draft with an LLM's mistakes.
    draft = MISTAKES.replace("[1]", f"[{nsidc}]").replace("[1, 2]", f"[{brief}, {wiki}]")
    draft = draft.replace("[3]", f"[{wiki}]").replace("[4][5][6]", f"[{noaa}][{ipcc}][{wmo}]")
    redirect = _id_of(tmp_path, GEMINI_URI)
    draft = draft.replace("[7]", f"[{redirect}]")
    (tmp_path / "draft.md").write_text(draft, encoding="utf-8")
    _ok(tmp_path, "render", "--replace-in", "draft.md")
    gate = ("--strict", "--min-coverage", "0.5", "--evidence")
    code, findings = _findings(tmp_path, "draft.md", *gate)
    assert code == 1
    codes = {f["code"] for f in findings}
    for expected in (
        "marker-before-punctuation",
        "expiring-source-cited",
        "group-marker",
        "ids-at-paragraph-end",
        "raw-url-in-prose",
        "quote-from-other-source",
    ):
        assert expected in codes, (expected, codes)
    assert all(f["fix"] for f in findings if f["level"] != "info"), findings
    # `sunlight [1].` is one mistake: one finding, whose fix is the corrected text.
    assert "space-before-marker" not in codes
    spaced = next(f for f in findings if f["code"] == "marker-before-punctuation")
    assert spaced["fix"] == f"write `sunlight.[{nsidc}]`"
    expiring = next(f for f in findings if f["code"] == "expiring-source-cited")
    assert expiring["ids"] == [redirect] and "`citeledger add` the address" in expiring["fix"]
    typed = next(f for f in findings if f["code"] == "raw-url-in-prose")
    assert typed["fix"] == f"replace the URL with [{noaa}] after the sentence it supports"
    wrong = next(f for f in findings if f["code"] == "quote-from-other-source")
    assert f"`citeledger quote {noaa} --text" in wrong["fix"]
    assert wrong["fix"].endswith(f"(`citeledger quote {wiki} --drop 2`)")
    take_back = ("quote", str(wiki), "--drop", "2")

    # Step 4: fixed by following the fix lines only.
    fixed = f"""# Arctic sea ice

Sea ice reflects up to 80 percent of incoming sunlight.[{nsidc}] The darkening of the Arctic
has added warming equal to a quarter of the CO2 effect.[{brief}] Albedo is the fraction of
sunlight that is diffusely reflected.[{wiki}]

Arctic sea ice extent in September has declined by about 13 percent per decade since
1979.[{noaa}] Reductions are very likely 12.8 percent per decade.[{ipcc}] The albedo feedback
is an extraordinarily consequential mechanism.[{wmo}] Thin first-year ice now dominates.[{noaa}]
According to NOAA, sea ice extent declined by about 13 percent per decade.[{noaa}]
"""
    (tmp_path / "draft.md").write_text(fixed, encoding="utf-8")
    # The wrong quote taken back by the command its finding printed.
    took_back = _ok(tmp_path, *take_back)
    assert took_back.startswith(f"[{wiki}] quote 2 dropped (1 quote(s) left): “Thin first-year")
    _ok(tmp_path, "render", "--replace-in", "draft.md")
    passed = _run(tmp_path, "verify", "draft.md", *gate)
    assert passed.returncode == 0, passed.stderr
    assert passed.stdout.strip().endswith("citations OK")
    assert _run(tmp_path, "verify", "draft.md", *gate, "--support").returncode == 0

    # Step 5: delivered; the Word file's footnotes point at the ledger's URLs.
    _ok(
        tmp_path,
        "convert",
        "draft.md",
        "-o",
        "report.docx",
        "-o",
        "report.pdf",
        "-o",
        "report.html",
    )
    cited = {nsidc, brief, wiki, noaa, ipcc, wmo}
    urls = {_ledger(tmp_path)[i]["url"] for i in cited}
    document = docx.Document(str(tmp_path / "report.docx"))
    notes = next(
        part
        for part in document.part.package.iter_parts()
        if part.partname.endswith("/footnotes.xml")
    )
    targets = {rel.target_ref for rel in notes.rels.values() if rel.is_external}
    assert targets == urls
    assert (tmp_path / "report.pdf").read_bytes().startswith(b"%PDF")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert all(f'href="{url}"' in html for url in urls)


def test_an_agents_mistakes_the_render_step_cannot_hide(tmp_path: Path) -> None:
    """A Sources list written with the search tool's numbers, a stale list beside the rendered
    one, and every claim re-marked [unverified]: each fails the gate with its fix."""
    (tmp_path / "perplexity.json").write_text(json.dumps(PERPLEXITY), encoding="utf-8")
    _ok(tmp_path, "add", "https://nsidc.org/arcticseaicenews/", "--title", "News")
    _ok(tmp_path, "ingest", "perplexity.json")
    (tmp_path / "own.md").write_text(
        f"# Ice\n\nArctic sea ice is declining.[1]\n\n## Sources\n\n[1] {NOAA}\n", encoding="utf-8"
    )
    code, findings = _findings(tmp_path, "own.md")
    number = next(f for f in findings if f["code"] == "search-result-number")
    assert code == 1 and number["fix"].startswith("write [2] where the draft cites [1]")

    (tmp_path / "stale.md").write_text(
        f"# Ice\n\nArctic sea ice is declining.[2]\n\n## References\n\n1. NOAA. {NOAA}\n",
        encoding="utf-8",
    )
    _ok(tmp_path, "render", "--replace-in", "stale.md")
    code, findings = _findings(tmp_path, "stale.md")
    assert code == 1
    assert [f["code"] for f in findings if f["level"] != "info"] == ["second-sources-block"]

    (tmp_path / "unverified.md").write_text(
        "# Ice\n\nArctic sea ice is declining fast.[unverified] Thin ice now dominates the "
        "ocean.[unverified]\n",
        encoding="utf-8",
    )
    code, findings = _findings(tmp_path, "unverified.md", "--strict", "--min-coverage", "0.5")
    assert "all-claims-unverified" in {f["code"] for f in findings}
    assert (
        _run(tmp_path, "verify", "unverified.md", "--strict", "--min-coverage", "0.5").returncode
        == 1
    )


OPENAI_TEXT = (
    "Arctic sea ice hit a record low in 2012 ([nsidc.org](https://nsidc.org/arcticseaicenews/"
    "2012/09/?utm_source=openai)). Since then the minimum has stayed low "
    "([climate.nasa.gov](https://climate.nasa.gov/vital-signs/arctic-sea-ice/?utm_source=openai))."
)


def _openai_answer() -> dict[str, Any]:
    first_end = OPENAI_TEXT.index(")).") + 2
    second = OPENAI_TEXT.index("Since")
    spans = [
        (0, first_end, "https://nsidc.org/arcticseaicenews/2012/09/?utm_source=openai", "Record"),
        (
            second,
            len(OPENAI_TEXT) - 1,
            "https://climate.nasa.gov/vital-signs/arctic-sea-ice/?utm_source=openai",
            "NASA",
        ),
    ]
    notes = [
        {"type": "url_citation", "start_index": s, "end_index": e, "url": u, "title": t}
        for s, e, u, t in spans
    ]
    return {
        "id": "resp_1",
        "object": "response",
        "output": [
            {"type": "web_search_call", "id": "ws_1", "status": "completed"},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": OPENAI_TEXT, "annotations": notes}],
            },
        ],
    }


def test_an_openai_answer_imported_after_search_results_keeps_the_ledgers_ids(
    tmp_path: Path,
) -> None:
    _ok(tmp_path, "add", "https://climate.nasa.gov/vital-signs/arctic-sea-ice/", "--title", "NASA")
    (tmp_path / "answer.json").write_text(json.dumps(_openai_answer()), encoding="utf-8")
    done = _run(tmp_path, "import", "answer.json", "-o", "report.md")
    assert done.returncode == 0, done.stderr  # verify's verdict on the draft it wrote
    assert "[1] https://climate.nasa.gov/vital-signs/arctic-sea-ice/ (known)" in done.stdout
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert text.startswith(
        "Arctic sea ice hit a record low in 2012.[2] Since then the minimum has stayed low.[1]"
    )
    assert "utm_source" not in text and "](" not in text
    again = (tmp_path / "ledger.json").read_bytes()
    _run(tmp_path, "import", "answer.json", "-o", "report.md")
    assert (tmp_path / "ledger.json").read_bytes() == again
    _ok(tmp_path, "verify", "report.md")
    _ok(tmp_path, "convert", "report.md", "-o", "report.docx")
    document = docx.Document(str(tmp_path / "report.docx"))
    notes = next(
        part
        for part in document.part.package.iter_parts()
        if part.partname.endswith("/footnotes.xml")
    )
    assert {rel.target_ref for rel in notes.rels.values() if rel.is_external} == {
        _ledger(tmp_path)[1]["url"],
        _ledger(tmp_path)[2]["url"],
    }


def test_the_same_loop_through_the_mcp_server(tmp_path: Path) -> None:
    """The loop as an agent that calls tools: results handed over as they came (a dict, and a
    search server's text listing), a quote against the result's own page text, the Sources
    block written, and the gate passed, each answer's status saying what the exit code says."""
    anyio = pytest.importorskip("anyio")
    pytest.importorskip("mcp")
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    listing = "Title: Albedo - Wikipedia\nURL: https://en.wikipedia.org/wiki/Albedo\n"
    draft = "# Ice\n\nSea ice reflects up to 80 percent of incoming sunlight.[1]\n"
    (tmp_path / "draft.md").write_text(draft, encoding="utf-8")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("ingest", {"text": TAVILY}),
        ("ingest", {"text": json.dumps({"content": [{"type": "text", "text": listing}]})}),
        (
            "quote",
            {"source_id": 1, "text": "80 percent of incoming sunlight", "page_text": NSIDC_TEXT},
        ),
        (
            "quote",
            {"source_id": 1, "text": "90 percent of incoming sunlight", "page_text": NSIDC_TEXT},
        ),
        ("render", {"replace_in": "draft.md"}),
        ("verify", {"files": ["draft.md"], "strict": True, "min_coverage": 0.5, "evidence": True}),
    ]

    async def walk() -> list[dict[str, Any]]:
        server = StdioServerParameters(
            command=CITELEDGER[0],
            args=[*CITELEDGER[1:], "--ledger", "ledger.json", "mcp"],
            env=citeledger_env(unset=OWN_VARS),
            cwd=tmp_path,
        )
        out = []
        with anyio.fail_after(120):
            async with stdio_client(server) as streams, ClientSession(*streams) as session:
                await session.initialize()
                for name, arguments in calls:
                    done = await session.call_tool(name, arguments)
                    out.append(done.structured_content or {})
        return out

    results = anyio.run(walk)
    statuses = [(r["exit_code"], r["status"]) for r in results]
    assert statuses == [(0, "ok"), (0, "ok"), (0, "ok"), (1, "check failed"), (0, "ok"), (0, "ok")]
    assert results[0]["output"].startswith(f"[1] {NSIDC} (new)")
    assert (
        "[2] https://en.wikipedia.org/wiki/Albedo (new) — Albedo - Wikipedia"
        in results[1]["output"]
    )
    assert "differs: “90” where the page has “80”" in results[3]["error"]
    assert results[5]["ok"] is True
    assert [f for f in results[5]["result"]["findings"] if f["level"] != "info"] == []
    assert f"[1] {NSIDC}" in (tmp_path / "draft.md").read_text(encoding="utf-8")
