"""``citeledger ingest`` on the result shapes agents receive (``tests/fixtures/results``): only
sources get ids, in the ranked order of each shape, one id per page whatever tracking
parameters the tool appended, one line per source, and the page texts results carry kept as
evidence."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from citeledger.ledger import load_ledger
from citeledger.ledger.ingest import ingest_results, parse_results
from citeledger.ledger.noise import expires, noise_kind
from citeledger.ledger.urls import normalize_url
from tests.helpers import FIXTURES, Result

Cli = Callable[..., Result]
RESULTS = FIXTURES / "results"


def ingest(cli: Cli, tmp_path: Path, name: str, *flags: str) -> Result:
    shutil.copy(RESULTS / name, tmp_path / name)
    return cli("ingest", name, *flags)


def urls(tmp_path: Path) -> list[str]:
    return [s.url for s in load_ledger(tmp_path / "ledger.json").sources]


def test_tavily_images_and_favicons_get_no_id(cli: Cli, tmp_path: Path) -> None:
    result = ingest(cli, tmp_path, "tavily.json")
    assert result.code == 0, result.err
    assert urls(tmp_path) == [
        "https://polar-notes.example/why-ice-floats",
        "https://limnology.example/lake-ice",
    ]


def test_serpapi_organic_results_come_first_and_search_and_ad_pages_stay_out(
    cli: Cli, tmp_path: Path
) -> None:
    result = ingest(cli, tmp_path, "serpapi.json")
    assert result.code == 0, result.err
    assert urls(tmp_path) == [
        "https://arctic-data.example/extent",
        "https://remote-sensing.example/sea-ice",
    ]


def test_brave_is_read_in_its_mixed_main_order_without_profiles_or_thumbnails(
    cli: Cli, tmp_path: Path
) -> None:
    assert ingest(cli, tmp_path, "brave.json").code == 0
    assert urls(tmp_path) == [
        "https://glaciology.example/retreat",
        "https://mountains.example/mass-balance",
        "https://video.example/watch?v=glacier1",
    ]


def test_perplexity_citation_strings_are_read_in_their_order_with_titles_from_search_results(
    cli: Cli, tmp_path: Path
) -> None:
    assert ingest(cli, tmp_path, "perplexity.json").code == 0
    book = load_ledger(tmp_path / "ledger.json")
    assert [(s.url, s.title) for s in book.sources] == [
        ("https://ocean-heat.example/content-2025", "Ocean heat content reaches a new high"),
        ("https://argo-floats.example/how-they-work", "How Argo floats work"),
        ("https://sea-level.example/budget", ""),
    ]


def test_anthropic_search_result_location_is_read_by_its_source(cli: Cli, tmp_path: Path) -> None:
    assert ingest(cli, tmp_path, "anthropic-search.json").code == 0
    book = load_ledger(tmp_path / "ledger.json")
    assert [(s.url, s.title) for s in book.sources] == [
        ("https://albedo.example/snow", "Snow albedo basics"),
        ("https://kb.polar.example/articles/soot-on-snow", "Soot on snow"),
    ]


def test_anthropic_web_fetch_result_gets_its_title_from_one_level_down(
    cli: Cli, tmp_path: Path
) -> None:
    assert ingest(cli, tmp_path, "anthropic-fetch.json").code == 0
    [source] = load_ledger(tmp_path / "ledger.json").sources
    assert (source.url, source.title) == ("https://icecores.example/vostok", "The Vostok ice core")


def test_gemini_grounding_redirects_are_registered_with_a_warning_that_they_expire(
    cli: Cli, tmp_path: Path
) -> None:
    result = ingest(cli, tmp_path, "gemini.json")
    assert result.code == 0, result.err
    assert [u.rsplit("/", 1)[1] for u in urls(tmp_path)] == ["AUZIYQGx1a2b3c4d", "AUZIYQHy5e6f7g8h"]
    warnings = [line for line in result.err.splitlines() if "expires" in line]
    assert len(warnings) == 2 and warnings[0].startswith("citeledger: warning: [1] ")
    assert "citeledger add" in warnings[0]


def test_json_inside_an_mcp_text_content_is_read(cli: Cli, tmp_path: Path) -> None:
    assert ingest(cli, tmp_path, "mcp-text.json").code == 0
    assert urls(tmp_path) == [
        "https://melt-ponds.example/overview",
        "https://melt-ponds.example/albedo",
    ]


def test_results_an_mcp_tool_listed_as_text_are_read_by_their_url_lines(
    cli: Cli, tmp_path: Path
) -> None:
    # Title:/URL: blocks, as most search servers write for a model; the address in the
    # description's prose is no result.
    done = ingest(cli, tmp_path, "mcp-text-listing.json")
    assert done.code == 0, done.err
    book = load_ledger(tmp_path / "ledger.json")
    assert [(s.url, s.title) for s in book.sources] == [
        ("https://melt-ponds.example/overview", "Melt ponds overview"),
        ("https://melt-ponds.example/albedo", "Pond albedo"),
        ("https://reports.example/ice-shelves-2025", "Ice shelves report"),
    ]


def test_an_mcp_tool_error_is_named_as_such_not_as_missing_urls(cli: Cli, tmp_path: Path) -> None:
    done = ingest(cli, tmp_path, "mcp-error.json")
    assert done.code == 1
    assert done.err.strip() == (
        "citeledger: error: mcp-error.json is a tool's error (isError), not search results: "
        "Error: rate limit exceeded, retry in 30 s (run the search again; nothing was added)"
    )
    assert not (tmp_path / "ledger.json").exists()


def test_an_mcp_resource_link_is_read_by_its_uri(cli: Cli, tmp_path: Path) -> None:
    assert ingest(cli, tmp_path, "mcp-resource-link.json").code == 0
    [source] = load_ledger(tmp_path / "ledger.json").sources
    assert (source.url, source.title) == (
        "https://reports.example/ice-shelves-2025",
        "Ice shelves report 2025",
    )


def test_json_lines_are_refused_with_a_pointer_to_add_stdin(cli: Cli, tmp_path: Path) -> None:
    result = ingest(cli, tmp_path, "results.jsonl")
    assert result.code == 2
    assert "JSON lines" in result.err and "citeledger add -" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert not (tmp_path / "ledger.json").exists()


def test_each_source_is_one_line_saying_new_or_known_with_its_title(
    cli: Cli, tmp_path: Path
) -> None:
    cli("add", "https://limnology.example/lake-ice")
    result = ingest(cli, tmp_path, "tavily.json")
    assert result.out.splitlines() == [
        "[2] https://polar-notes.example/why-ice-floats (new) \u2014 Why Ice Floats - Polar Data "
        "Notes (page text kept as evidence)",
        "[1] https://limnology.example/lake-ice (known) \u2014 Lake ice and the density maximum",
    ]


def test_dry_run_prints_what_would_be_added_and_writes_nothing(cli: Cli, tmp_path: Path) -> None:
    cli("add", "https://remote-sensing.example/sea-ice")
    before = (tmp_path / "ledger.json").read_bytes()
    result = ingest(cli, tmp_path, "serpapi.json", "--dry-run")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "[2] https://arctic-data.example/extent (new) \u2014 Sea Ice Extent Index",
        "[1] https://remote-sensing.example/sea-ice (known) \u2014 How sea ice is measured from "
        "orbit",
    ]
    assert "dry run: nothing written" in result.err
    assert (tmp_path / "ledger.json").read_bytes() == before
    assert not (tmp_path / "ledger.evidence").exists()


def test_a_tracking_parameter_gives_no_second_id(cli: Cli, tmp_path: Path) -> None:
    cli("add", "https://argo-floats.example/how-they-work")
    assert ingest(cli, tmp_path, "perplexity.json").code == 0
    assert urls(tmp_path).count("https://argo-floats.example/how-they-work") == 1
    assert len(urls(tmp_path)) == 3


def test_a_ledger_entry_stored_with_a_tracking_parameter_is_found_by_its_clean_form(
    cli: Cli, tmp_path: Path
) -> None:
    stored = "https://polar-notes.example/why-ice-floats?utm_source=openai&id=4"
    (tmp_path / "ledger.json").write_text(
        json.dumps(
            {"version": 1, "sources": [{"id": 1, "url": stored, "title": "", "quotes": []}]}
        ),
        encoding="utf-8",
    )
    result = cli("add", "https://polar-notes.example/why-ice-floats?id=4")
    assert (result.code, result.out) == (0, f"[1] {stored}\n")


@pytest.mark.parametrize(
    ("url", "clean"),
    [
        ("https://a.example/p?utm_source=openai", "https://a.example/p"),
        ("https://a.example/p?id=3&utm_medium=email&utm_campaign=x", "https://a.example/p?id=3"),
        ("https://a.example/p?gclid=1&fbclid=2&mc_eid=3&msclkid=4", "https://a.example/p"),
        ("https://a.example/p?page=2", "https://a.example/p?page=2"),
        ("https://a.example/p?utm=keep", "https://a.example/p?utm=keep"),
    ],
)
def test_tracking_parameters_are_not_part_of_url_identity(url: str, clean: str) -> None:
    assert normalize_url(url) == clean
    assert normalize_url(clean) == clean


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://www.google.com/search?q=sea+ice", "search"),
        ("https://www.google.co.uk/aclk?sa=l&ai=x", "ad"),
        ("https://www.google.com/url?q=https://a.example", "redirect"),
        ("https://www.bing.com/search?q=ice", "search"),
        ("https://duckduckgo.com/?q=ice", "search"),
        ("https://encrypted-tbn0.gstatic.com/images?q=tbn:x", "image"),
        ("https://a.example/favicon.ico", "image"),
        ("https://a.example/img/chart.PNG", "image"),
        ("https://vertexaisearch.cloud.google.com/grounding-api-redirect/AB", "expiring"),
        ("https://news.google.com/articles/abc", None),
        ("https://a.example/search", None),
        ("https://duckduckgo.com/about", None),
    ],
)
def test_the_noise_table_names_what_is_not_a_source(url: str, kind: str | None) -> None:
    assert noise_kind(url) == kind
    assert expires(url) == (kind == "expiring")


@pytest.mark.parametrize(
    "url",
    [
        "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AB",
        "HTTPS://VertexAISearch.Cloud.Google.com/grounding-api-redirect/AB",
        "https://x.vertexaisearch.cloud.google.com/grounding-api-redirect/AB",
        "https://vertexaisearch.cloud.google.com/other",
        "https://a.example/?u=vertexaisearch.cloud.google.com/grounding-api-redirect",
        "https://vertexaisearch.cloud.google.com.a.example/grounding-api-redirect/AB",
    ],
)
def test_expires_is_the_noise_tables_expiring_kind(url: str) -> None:
    assert expires(url) == (noise_kind(url) == "expiring")


def test_a_result_pointing_at_a_search_page_is_left_out_and_named(cli: Cli, tmp_path: Path) -> None:
    payload = {
        "results": [
            {"url": "https://www.google.com/search?q=ice", "title": "ice - Google Search"},
            {"url": "https://a.example/ice", "title": "Ice"},
        ]
    }
    (tmp_path / "r.json").write_text(json.dumps(payload), encoding="utf-8")
    result = cli("ingest", "r.json")
    assert result.out == "[1] https://a.example/ice (new) \u2014 Ice\n"
    assert "left out 1 search-engine result page(s)" in result.err


def test_a_redirect_naming_its_page_registers_that_page(cli: Cli, tmp_path: Path) -> None:
    # Google's /url?q= (a Google Docs export wraps every link in it), Facebook's l.php?u=,
    # DuckDuckGo's /l/?uddg=: the page they name is the source. Bing's /ck/a hides it.
    payload = {
        "results": [
            {
                "url": "https://www.google.com/url?q=https://a.example/ice&sa=D&usg=AF",
                "title": "Ice",
            },
            {
                "url": "https://l.facebook.com/l.php?u=https%3A%2F%2Fb.example%2Fsea&h=AT0",
                "title": "Sea",
            },
            {
                "url": "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fc.example%2F&rut=x",
                "title": "C",
            },
            {"url": "https://www.google.com/url?q=https://www.google.com/search?q%3Dice"},
            {"url": "https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9kLmV4YW1wbGU", "title": "D"},
        ]
    }
    (tmp_path / "r.json").write_text(json.dumps(payload), encoding="utf-8")
    result = cli("ingest", "r.json")
    assert result.code == 0, result.err
    assert urls(tmp_path) == [
        "https://a.example/ice",
        "https://b.example/sea",
        "https://c.example",
    ]
    assert "left out 1 search-engine result page(s)" in result.err
    assert "left out 1 redirect link(s)" in result.err


def test_only_noise_is_nothing_found(cli: Cli, tmp_path: Path) -> None:
    payload = {"results": [{"url": "https://www.google.com/search?q=ice"}]}
    (tmp_path / "r.json").write_text(json.dumps(payload), encoding="utf-8")
    result = cli("ingest", "r.json")
    assert result.code == 1 and "only images, search, redirect or ad pages" in result.err


# -- page texts carried by results ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "sid", "quote", "field"),
    [
        ("tavily.json", 1, "nine percent less dense than the liquid water", "raw_content"),
        ("exa.json", 1, "Microbes decompose the thawed organic matter", "text"),
        (
            "anthropic-fetch.json",
            1,
            "Air bubbles trapped in the ice record the atmosphere",
            "web_fetch_result content",
        ),
    ],
)
def test_a_page_text_in_a_result_is_kept_so_quote_needs_no_saved_file(
    cli: Cli, tmp_path: Path, name: str, sid: int, quote: str, field: str
) -> None:
    assert ingest(cli, tmp_path, name).code == 0
    result = cli("quote", str(sid), "--text", quote)
    assert (result.code, result.out) == (0, f"[{sid}] evidence attached (1 quote(s))\n"), result.err
    source = load_ledger(tmp_path / "ledger.json").source(sid)
    assert source.page_note(source.quotes[0]).startswith(f"the {field} of a search result ({name}")
    evidence = cli("render", "--style", "evidence").out
    assert f"(text: the {field.replace('_', chr(92) + '_')} of a search result ({name}" in evidence
    refused = cli("quote", str(sid), "--text", "words this page never held at all")
    assert refused.code == 1 and f"a search result ({name}" in refused.err


def test_no_pages_keeps_no_page_text(cli: Cli, tmp_path: Path) -> None:
    assert ingest(cli, tmp_path, "tavily.json", "--no-pages").code == 0
    assert "page text" not in cli("ingest", "tavily.json", "--dry-run", "--no-pages").out
    assert load_ledger(tmp_path / "ledger.json").source(1).page_sha256 is None
    result = cli("quote", "1", "--text", "nine percent less dense than the liquid water")
    assert result.code == 2 and "--from" in result.err


def test_ingest_is_callable_without_the_command_line(tmp_path: Path) -> None:
    warnings: list[str] = []
    payload = parse_results((RESULTS / "gemini.json").read_text(encoding="utf-8"), "gemini.json")
    done = ingest_results(tmp_path / "l.json", payload, where="gemini.json", warn=warnings.append)
    assert [(d.id, d.new, d.expiring) for d in done] == [(1, True, True), (2, True, True)]
    again = ingest_results(tmp_path / "l.json", payload, where="gemini.json")
    assert [(d.id, d.new) for d in again] == [(1, False), (2, False)]
