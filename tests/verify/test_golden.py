"""Golden cases of ``citeledger verify``: one folder per rule (tests/golden/verify/<case>/), run
through the real command line and real pandoc, compared as the JSON report. The named tests
below pin one rule each on top of the byte comparison, so a regenerated golden file cannot
quietly drop the finding a case exists for."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from citeledger.cli import app
from tests.helpers import GOLDEN_ROOT

CASES_ROOT = GOLDEN_ROOT / "verify"
CASES = sorted(p.name for p in CASES_ROOT.iterdir() if (p / "options.yaml").is_file())


def run_case(name: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, dict[str, Any]]:
    folder = CASES_ROOT / name
    options = yaml.safe_load((folder / "options.yaml").read_text(encoding="utf-8")) or {}
    draft = next(p.name for p in sorted(folder.iterdir()) if p.stem == "input")
    monkeypatch.chdir(folder)
    monkeypatch.delenv("CITELEDGER_LEDGER", raising=False)
    monkeypatch.delenv("HERMES_CITATION_LEDGER", raising=False)
    args = ["verify", draft, "--ledger", "ledger.json", "--format", "json", *options["args"]]
    result = CliRunner().invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, json.loads(result.stdout)


def codes(report: dict[str, Any], level: str | None = None) -> list[str]:
    return [f["code"] for f in report["findings"] if level is None or f["level"] == level]


def finding(report: dict[str, Any], code: str) -> dict[str, Any]:
    found = [f for f in report["findings"] if f["code"] == code]
    assert found, f"no {code} finding in {codes(report)}"
    return found[0]


@pytest.mark.parametrize("name", CASES)
def test_golden_case_matches_expected_json(
    name: str, monkeypatch: pytest.MonkeyPatch, golden: Callable[[str | Path, str], None]
) -> None:
    exit_code, stdout, report = run_case(name, monkeypatch)
    assert exit_code == (0 if report["ok"] else 1)
    golden(CASES_ROOT / name / "expected.json", stdout)


def test_clean_draft_passes_with_no_findings(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("clean", monkeypatch)
    assert code == 0 and report["findings"] == []
    assert report["cited_ids"] == [1, 2, 3]
    assert report["stats"]["coverage"] == 1.0


def test_cited_id_missing_from_ledger_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("unknown-id", monkeypatch)
    f = finding(report, "unknown-id")
    assert code == 1 and f["level"] == "FAIL" and f["ids"] == [7]
    assert f["location"] == "input.md:4:80"


def test_citations_without_sources_block_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("missing-sources-block", monkeypatch)
    assert code == 1 and codes(report, "FAIL") == ["missing-sources-block"]


def test_id_cited_but_absent_from_sources_block_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("missing-from-sources-block", monkeypatch)
    f = finding(report, "missing-from-sources-block")
    assert code == 1 and f["ids"] == [3] and f["location"] == "input.md:4:47"


def test_sources_block_url_differing_from_ledger_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("sources-url-mismatch", monkeypatch)
    mismatched = [f for f in report["findings"] if f["code"] == "sources-url-mismatch"]
    # A trailing slash and a fragment are the same page; another path is not.
    assert code == 1 and [f["ids"] for f in mismatched] == [[2]]
    assert mismatched[0]["location"] == "input.md:9:3"


def test_sources_block_entry_not_in_ledger_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("sources-entry-not-in-ledger", monkeypatch)
    f = finding(report, "sources-entry-not-in-ledger")
    assert code == 1 and f["ids"] == [9] and f["location"] == "input.md:11:1"


def test_coverage_below_min_coverage_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("low-coverage", monkeypatch)
    f = finding(report, "low-coverage")
    assert code == 1 and "40% is below the required 60%" in f["message"]
    assert report["stats"]["unverified_sentences"] == 1


def test_evidence_flag_fails_cited_source_without_quotes(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("missing-evidence", monkeypatch)
    # Only numeric URL citations need quotes: [tool:...] is not one.
    assert code == 1 and [f["ids"] for f in report["findings"]] == [[3]]


def test_listed_but_never_cited_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("listed-not-cited", monkeypatch)
    f = finding(report, "listed-not-cited")
    assert code == 0 and f["level"] == "warn" and f["ids"] == [3]


def test_ledger_source_not_cited_without_evidence_is_info(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("uncited-ledger-source", monkeypatch)
    f = finding(report, "uncited-ledger-source")
    assert code == 0 and f["level"] == "info" and f["ids"] == [3]
    assert report["stats"]["uncited_unquoted"] == 1


def test_more_than_three_ids_in_one_sentence_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("too-many-ids", monkeypatch)
    f = finding(report, "too-many-ids")
    assert code == 0 and f["ids"] == [1, 2, 3, 4] and f["location"] == "input.md:3:55"


def test_space_before_marker_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("space-before-marker", monkeypatch)
    spaced = [f for f in report["findings"] if f["code"] == "space-before-marker"]
    assert code == 0 and [f["location"] for f in spaced] == ["input.md:4:48"]
    # `water [1].`: the space and the place are one mistake, one finding with one fix.
    [both] = [f for f in report["findings"] if f["location"] == "input.md:3:55"]
    assert both["code"] == "marker-before-punctuation" and both["fix"] == "write `water.[1]`"


def test_several_ids_in_one_bracket_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("group-marker", monkeypatch)
    groups = [f for f in report["findings"] if f["code"] == "group-marker"]
    assert code == 0 and [f["ids"] for f in groups] == [[1, 2], [1, 2, 3]]
    assert report["cited_ids"] == [1, 2, 3]


def test_marker_before_terminal_punctuation_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("marker-before-punctuation", monkeypatch)
    before = [f for f in report["findings"] if f["code"] == "marker-before-punctuation"]
    assert code == 0 and [f["ids"] for f in before] == [[1], [2]]


def test_figures_flag_is_the_support_check_under_its_old_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, report = run_case("unsupported-figure", monkeypatch)
    details = [f for f in report["findings"] if f["code"] == "unsupported-detail"]
    # 9%, 4, 1805 and 999.97 are in the quotes; 12% and 1893 are not; [3] holds no quote at
    # all, which is never support.
    assert code == 0
    shown = [f["message"].split(" (a")[0] for f in details]
    assert shown == ["\u201c12%\u201d", "\u201c1893\u201d"]
    assert codes(report, "warn")[-1] == "unsupported-claim"
    assert report["findings"][-1]["ids"] == [3]


def test_support_finds_changed_dates_names_numbers_and_negations_across_spellings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, report = run_case("unsupported-detail", monkeypatch)
    found = [f for f in report["findings"] if f["code"] == "unsupported-detail"]
    # Line 3-4: 1969-07-20 = 20 July 1969, "six hundred million" = 600 million, 24 July 1969 =
    # July 24, 1969: all supported. Then one drift a sentence.
    assert code == 0
    assert [f["location"].split(":")[1] for f in found] == ["6", "6", "7", "7", "8"]
    messages = " ".join(f["message"] for f in found)
    for drift in ("Aldrin", "21 July 1969", "twelve percent", "not", "1.2 million"):
        assert drift in messages
    assert all("citeledger quote 1" in f["fix"] or "quote 2" in f["fix"] for f in found)
    assert report["stats"]["claims_checked"] == 8 and report["stats"]["claims_to_look_at"] == 5


def test_strict_turns_warnings_into_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("strict", monkeypatch)
    assert code == 1 and not report["ok"] and codes(report, "FAIL") == []


def test_cjk_sentences_split_and_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("cjk", monkeypatch)
    assert code == 0 and report["findings"] == []
    assert report["stats"]["sentences"] == 5 and report["stats"]["cited_sentences"] == 3


def test_tool_policy_and_unverified_markers_declare_provenance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, report = run_case("provenance-markers", monkeypatch)
    stats = report["stats"]
    assert (stats["tool_sentences"], stats["policy_sentences"]) == (1, 1)
    assert stats["unverified_sentences"] == 1 and stats["covered"] == 4
    assert code == 1 and codes(report, "FAIL") == ["low-coverage"]


def test_brackets_in_code_math_links_and_tables_are_not_citations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, report = run_case("not-markers", monkeypatch)
    # [3] sits in a table cell: a citation the finder sees; the rest are not citations.
    assert report["cited_ids"] == [1, 2, 3]
    assert "unknown-id" not in codes(report)


def test_sentences_do_not_break_at_abbreviations_decimals_or_ellipses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, _, report = run_case("sentence-splitting", monkeypatch)
    stats = report["stats"]
    assert (stats["sentences"], stats["cited_sentences"]) == (6, 4)


def test_pandoc_testsuite_has_zero_citations(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("testsuite", monkeypatch)
    assert code == 0 and report["cited_ids"] == [] and report["findings"] == []
    assert report["stats"]["markers"] == 0


def test_pandoc_notes_docx_reads_with_zero_citations(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("notes-docx", monkeypatch)
    assert code == 0 and report["cited_ids"] == [] and report["findings"] == []


def test_docx_footnote_holding_ledger_url_is_a_citation(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("docx-footnotes", monkeypatch)
    assert report["cited_ids"] == [1, 2]
    assert "missing-sources-block" not in codes(report)
    assert codes(report, "warn") == ["footnote-url-not-in-ledger"]
    assert codes(report, "info") == ["uncited-ledger-source"]
    assert code == 0


@pytest.mark.parametrize("fmt", ["html", "org", "rst", "tex", "odt"])
def test_other_input_formats_verify_like_markdown(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, report = run_case(f"format-{fmt}", monkeypatch)
    assert report["cited_ids"] == [1, 2]
    assert codes(report) == ["uncited-ledger-source"] and code == 0


def test_docx_written_by_convert_verifies_back(monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, report = run_case("docx-from-convert", monkeypatch)
    # Three sentences, the third citing [1] again through a link back to its footnote.
    assert report["stats"]["cited_sentences"] == 3 and report["cited_ids"] == [1, 2]
    assert codes(report) == ["uncited-ledger-source"] and code == 0
