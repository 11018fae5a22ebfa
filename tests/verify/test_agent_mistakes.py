"""The research agent's gate (issue 33): an honest draft over a real research ledger passes
``verify --strict --min-coverage 0.5 --evidence``, and the mistakes an agent makes that used to
pass are named where they are, each with the fix it can act on. Real ledgers, real pages
quoted through ``citeledger quote``, real pandoc."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeledger.verify.rules import RULES

GATE = ("--strict", "--min-coverage", "0.5", "--evidence")
ICE_PAGE = "<html><body><p>Sea ice is less dense than liquid sea water.</p></body></html>"
SEA_PAGE = "<html><body><p>The ocean covers about 71 percent of the planet.</p></body></html>"


def _ledger(tmp_path: Path, *sources: dict[str, Any]) -> None:
    rows = []
    for n, source in enumerate(sources, 1):
        rows.append({"id": n, "title": f"Source {n}", "accessed": "2026-01-01", **source})
    data = {"version": 1, "sources": rows}
    (tmp_path / "ledger.json").write_text(json.dumps(data), encoding="utf-8")


def _quoted(text: str) -> list[dict[str, str]]:
    return [{"text": text, "added": "2026-01-02"}]


def _findings(cli, draft: str, *flags: str) -> tuple[int, list[dict[str, Any]]]:
    done = cli("verify", draft, "--format", "json", *flags)
    return done.code, json.loads(done.out)["findings"]


def _codes(findings: list[dict[str, Any]]) -> list[str]:
    return [f["code"] for f in findings]


# 1. A gate an honest draft passes -------------------------------------------------------------

HONEST = """# Ice

Sea ice floats on the ocean.[1] The ocean covers most of the planet.[2]

## Sources

[1] https://a.org/ice — Source 1
[2] https://a.org/sea — Source 2
"""


def test_search_results_never_cited_nor_quoted_do_not_fail_the_strict_gate(cli, tmp_path) -> None:
    _ledger(
        tmp_path,
        {"url": "https://a.org/ice", "quotes": _quoted("Sea ice is less dense")},
        {"url": "https://a.org/sea", "quotes": _quoted("The ocean covers about 71 percent")},
        {"url": "https://a.org/unused-result"},
        {"url": "https://a.org/another-result"},
    )
    (tmp_path / "d.md").write_text(HONEST, encoding="utf-8")
    done = cli("verify", "d.md", *GATE)
    assert done.code == 0, done.out + done.err
    lines = done.out.splitlines()
    assert lines[0].endswith("; 2 registered without evidence and not cited (`-v` lists them)")
    assert not any("not cited in this draft" in line for line in lines)
    assert lines[-1] == "citations OK"
    verbose = cli("verify", "d.md", *GATE, "-v").out.splitlines()
    listed = [line for line in verbose if line.startswith("info: d.md: registered")]
    assert [line.split(" \u2014 ")[0] for line in listed] == [
        "info: d.md: registered in the ledger but not cited in this draft: [3]",
        "info: d.md: registered in the ledger but not cited in this draft: [4]",
    ]


def test_a_quoted_source_no_longer_cited_warns_and_fails_strict(cli, tmp_path) -> None:
    _ledger(
        tmp_path,
        {"url": "https://a.org/ice", "quotes": _quoted("Sea ice is less dense")},
        {"url": "https://a.org/sea", "quotes": _quoted("The ocean covers about 71 percent")},
        {"url": "https://a.org/salt", "quotes": _quoted("Sea water holds 35 grams of salt")},
    )
    (tmp_path / "d.md").write_text(HONEST, encoding="utf-8")
    code, findings = _findings(cli, "d.md")
    assert code == 0
    lost = [f for f in findings if f["code"] == "quoted-source-not-cited"]
    assert [(f["level"], f["ids"]) for f in lost] == [("warn", [3])]
    assert "a claim lost its source?" in lost[0]["message"]
    assert "Sea water holds 35 grams" in lost[0]["message"]
    assert cli("verify", "d.md", *GATE).code == 1


# 5. Mistakes named, with the fix --------------------------------------------------------------


def test_a_url_typed_into_the_prose_is_found_at_its_own_line_and_column(cli, tmp_path) -> None:
    _ledger(tmp_path, {"url": "https://a.org/ice"}, {"url": "https://a.org/sea"})
    draft = (
        "# Ice\n\nSea ice floats on the ocean.[1] It is described at https://a.org/sea in "
        "detail.\nSee also <https://b.org/page> and [a named link](https://c.org/x), "
        "and `https://d.org/code`.[1]\n\n## Sources\n\n[1] https://a.org/ice — Source 1\n"
    )
    (tmp_path / "d.md").write_text(draft, encoding="utf-8")
    code, findings = _findings(cli, "d.md")
    typed = [f for f in findings if f["code"] == "raw-url-in-prose"]
    assert [f["location"] for f in typed] == ["d.md:3:52", "d.md:4:11"]
    assert typed[0]["ids"] == [2]
    assert typed[0]["fix"] == "replace the URL with [2] after the sentence it supports"
    assert typed[1]["fix"].startswith("`citeledger add https://b.org/page`")
    assert code == 0 and cli("verify", "d.md", "--strict").code == 1


def test_a_stale_list_beside_the_rendered_one_is_one_finding_not_typed_urls(cli, tmp_path) -> None:
    # render --replace-in leaves an agent's numbered References list (its own numbers) and
    # writes the ledger's block after it: the stale list is named as a second block, with the
    # fix to delete it, and its addresses are not read as URLs typed into the prose.
    _ledger(tmp_path, {"url": "https://a.org/ice"}, {"url": "https://a.org/sea"})
    draft = (
        "# Ice\n\nSea ice floats on the ocean.[2]\n\n## References\n\n"
        "1. Source 2. https://a.org/sea\n"
    )
    (tmp_path / "d.md").write_text(draft, encoding="utf-8")
    assert cli("render", "--replace-in", "d.md").code == 0
    code, findings = _findings(cli, "d.md")
    assert code == 1
    assert [f["code"] for f in findings if f["level"] != "info"] == ["second-sources-block"]
    assert findings[0]["fix"].startswith("delete the earlier list")


def test_ids_piled_after_a_paragraphs_last_sentence_are_named_with_the_move(cli, tmp_path) -> None:
    _ledger(tmp_path, *({"url": f"https://a.org/{n}"} for n in range(1, 4)))
    entries = "".join(f"[{n}] https://a.org/{n} — Source {n}\n" for n in range(1, 4))
    draft = (
        "# Ice\n\nSea ice floats on the cold ocean. Water is densest at four degrees. "
        "Lakes freeze from the top down.[1][2][3]\n\n"
        "Polar bears hunt seals on the ice. They wait at breathing holes. "
        "Seals surface there every few minutes.[1]\n\n## Sources\n\n" + entries
    )
    (tmp_path / "d.md").write_text(draft, encoding="utf-8")
    code, findings = _findings(cli, "d.md")
    piled = [f for f in findings if f["code"] == "ids-at-paragraph-end"]
    assert [(f["location"], f["ids"]) for f in piled] == [("d.md:3:100", [1, 2, 3])]
    assert piled[0]["fix"] == "move each of [1], [2], [3] after the sentence it supports"
    assert code == 0 and cli("verify", "d.md", "--strict").code == 1


def test_a_draft_whose_claims_were_all_re_marked_unverified_fails_the_gate(cli, tmp_path) -> None:
    _ledger(tmp_path, {"url": "https://a.org/ice", "quotes": _quoted("Sea ice is less dense")})
    draft = (
        "# Ice\n\nSea ice floats on the ocean.[unverified] Water is densest at four "
        "degrees.[unverified]\n"
    )
    (tmp_path / "d.md").write_text(draft, encoding="utf-8")
    code, findings = _findings(cli, "d.md")
    assert code == 0
    assert "all-claims-unverified" in _codes(findings)
    assert cli("verify", "d.md", *GATE).code == 1


def test_a_quote_attached_to_the_wrong_source_names_the_source_whose_page_holds_it(
    cli, tmp_path
) -> None:
    (tmp_path / "ice.html").write_text(ICE_PAGE, encoding="utf-8")
    (tmp_path / "sea.html").write_text(SEA_PAGE, encoding="utf-8")
    assert cli("add", "https://a.org/ice", "https://a.org/sea").code == 0
    for sid, text, page in (
        ("1", "Sea ice is less dense than liquid sea water", "ice.html"),
        ("2", "The ocean covers about 71 percent", "sea.html"),
        ("1", "covers about 71 percent of the planet", "sea.html"),  # the wrong source
    ):
        assert cli("quote", sid, "--text", text, "--from", page).code == 0
    (tmp_path / "d.md").write_text(HONEST, encoding="utf-8")
    code, findings = _findings(cli, "d.md", "--evidence")
    wrong = [f for f in findings if f["code"] == "quote-from-other-source"]
    assert [(f["ids"], f["location"]) for f in wrong] == [([1], "d.md:3:29")]
    assert "covers about 71 percent" in wrong[0]["message"] and "[2]" in wrong[0]["message"]
    assert wrong[0]["fix"].startswith("cite [2] for that claim")
    # The fix is a command the agent can run as printed, and says the wrong quote must go: a
    # second quote on [1] would leave this one where it is.
    fix = wrong[0]["fix"]
    assert '`citeledger quote 2 --text "covers about 71 percent of the planet" --from PAGE`' in fix
    assert fix.endswith("then take it back from [1] (`citeledger quote 1 --drop 2`)")
    assert code == 0 and cli("verify", "d.md", *GATE).code == 1
    # Run as printed, it takes back that quote and no other, and the finding is gone.
    assert cli("quote", "1", "--drop", "2").code == 0
    assert "quote-from-other-source" not in cli("verify", "d.md", *GATE).out


def test_a_quote_from_the_page_ingest_kept_for_another_result_is_the_wrong_source(
    cli, tmp_path
) -> None:
    # The agent saved search result 1's page text and quoted it for [2]: ingest kept that text
    # as [1]'s page, so it is [1]'s whoever quoted it, though no quote of [1] names it.
    page = "Open ocean absorbs about 94 percent of the sunlight that reaches it."
    results = {"results": [{"url": "https://a.org/ice", "title": "Ice", "raw_content": page}]}
    (tmp_path / "r.json").write_text(json.dumps(results), encoding="utf-8")
    (tmp_path / "saved.txt").write_text(page, encoding="utf-8")
    assert cli("ingest", "r.json").code == 0
    assert cli("add", "https://a.org/sea").code == 0
    assert cli("quote", "2", "--text", "absorbs about 94 percent", "--from", "saved.txt").code == 0
    draft = "# Sea\n\nOpen ocean absorbs about 94 percent of sunlight.[2]\n"
    (tmp_path / "d.md").write_text(draft, encoding="utf-8")
    _code, findings = _findings(cli, "d.md", "--evidence")
    wrong = [f for f in findings if f["code"] == "quote-from-other-source"]
    assert [f["ids"] for f in wrong] == [[2]]
    assert wrong[0]["fix"].startswith("cite [1] for that claim")


def test_two_sources_sharing_one_page_and_nothing_else_are_not_guessed_at(cli, tmp_path) -> None:
    (tmp_path / "sea.html").write_text(SEA_PAGE, encoding="utf-8")
    assert cli("add", "https://a.org/ice", "https://a.org/sea").code == 0
    assert cli("quote", "1", "--text", "The ocean covers about", "--from", "sea.html").code == 0
    assert cli("quote", "2", "--text", "71 percent of the planet", "--from", "sea.html").code == 0
    (tmp_path / "d.md").write_text(HONEST, encoding="utf-8")
    _code, findings = _findings(cli, "d.md", "--evidence")
    assert "quote-from-other-source" not in _codes(findings)


def test_citing_the_search_tools_number_names_the_ledgers_id_to_cite(cli, tmp_path) -> None:
    _ledger(
        tmp_path,
        {"url": "https://a.org/ice"},
        {"url": "https://a.org/sea"},
        {"url": "https://a.org/salt"},
    )
    text = "# Ice\n\nSea ice floats on the ocean.[1] Sea water holds salt.[2] {}\n\n"
    block = "## Sources\n\n[1] https://a.org/ice — Source 1\n[2] {} — Source 2\n"
    in_block = text.format("") + block.format("https://a.org/salt")
    linked = text.format("Salt lowers its freezing point.[2](https://a.org/salt)")
    for name, draft, where in (
        ("block.md", in_block, "block.md:8:1"),
        ("link.md", linked + block.format("https://a.org/sea"), "link.md:3:89"),
    ):
        (tmp_path / name).write_text(draft, encoding="utf-8")
        code, findings = _findings(cli, name)
        assert code == 1
        numbered = [f for f in findings if f["code"] == "search-result-number"]
        assert [(f["level"], f["ids"], f["location"]) for f in numbered] == [("FAIL", [2], where)]
        assert "which the ledger numbers [3]" in numbered[0]["message"]
        assert numbered[0]["fix"].startswith("write [3] where the draft cites [2]")
        assert "sources-url-mismatch" not in _codes(findings)
        assert "link-url-mismatch" not in _codes(findings)


def test_a_sources_entry_with_a_url_the_ledger_lacks_stays_a_url_mismatch(cli, tmp_path) -> None:
    _ledger(tmp_path, {"url": "https://a.org/ice"})
    draft = "# Ice\n\nSea ice floats on the ocean.[1]\n\n## Sources\n\n[1] https://z.org/other\n"
    (tmp_path / "d.md").write_text(draft, encoding="utf-8")
    _code, findings = _findings(cli, "d.md")
    assert _codes(findings) == ["sources-url-mismatch"]
    assert "`citeledger add URL`" in findings[0]["fix"]


def test_every_finding_says_its_fix_in_the_text_line_and_the_json(cli, tmp_path) -> None:
    _ledger(tmp_path, {"url": "https://a.org/ice"}, {"url": "https://a.org/sea"})
    draft = "# Ice\n\nSea ice floats [1,2]. Bears hunt seals.[9] See https://a.org/sea.[1]\n"
    (tmp_path / "d.md").write_text(draft, encoding="utf-8")
    code, findings = _findings(cli, "d.md", "--evidence")
    assert code == 1 and len(findings) >= 5
    assert all(f["fix"] for f in findings)
    done = cli("verify", "d.md", "--evidence")
    shown = [
        line for line in (done.out + done.err).splitlines() if line.startswith(("warn", "FAIL"))
    ]
    assert shown and all(" \u2014 fix: " in line for line in shown)
    assert any(line.endswith("fix: `citeledger render --replace-in d.md`") for line in shown)


def test_every_rule_of_the_table_has_a_fix() -> None:
    assert [code for code, rule in RULES.items() if not rule.fix] == []


def test_a_cited_grounding_redirect_is_named_with_the_fix_to_cite_its_landing_page(
    cli, tmp_path
) -> None:
    # Gemini's grounding link is the only handle its answer gives: ingest registers it with a
    # warning; cited, every build would publish a link that leads nowhere within days.
    redirect = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQGx7"
    _ledger(tmp_path, {"url": redirect, "quotes": _quoted("Arctic sea ice hit a low")})
    (tmp_path / "d.md").write_text(
        f"# Ice\n\nArctic sea ice hit a low in 2024.[1]\n\n## Sources\n\n[1] {redirect}\n",
        encoding="utf-8",
    )
    code, findings = _findings(cli, "d.md")
    [found] = [f for f in findings if f["code"] == "expiring-source-cited"]
    assert code == 0 and found["level"] == "warn" and found["location"] == "d.md:3:34"
    assert found["fix"] == (
        "open [1]'s URL, `citeledger add` the address it lands on, and cite the id it prints "
        "in place of [1]"
    )
    assert cli("verify", "d.md", *GATE).code == 1


def test_a_ledger_that_is_not_there_is_one_finding_not_an_accusation_per_id(cli, tmp_path) -> None:
    # An agent in another working folder, or a typed --ledger: every id was "hallucinated or
    # renumbered" and every Sources entry's fix was to rewrite the block from no ledger.
    (tmp_path / "d.md").write_text(HONEST, encoding="utf-8")
    code, findings = _findings(cli, "d.md", "--ledger", "elsewhere.json")
    assert code == 1
    assert _codes(findings) == ["ledger-not-found"]
    assert findings[0]["ids"] == [1, 2] and "elsewhere.json" in findings[0]["message"]
    assert "--ledger PATH" in findings[0]["fix"]
    # A draft that cites nothing is not held to a ledger.
    (tmp_path / "plain.md").write_text("# Notes\n\nNothing cited here.\n", encoding="utf-8")
    assert _findings(cli, "plain.md", "--ledger", "elsewhere.json")[0] == 0
