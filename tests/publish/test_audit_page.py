"""``citeledger audit DRAFT -o audit.html`` without a browser: what the page holds, what it
escapes, and where it refuses to write."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from tests.helpers import ROOT

REPORT = ROOT / "examples" / "report"


@pytest.fixture
def report(tmp_path: Path) -> Path:
    # The example, with one sentence drifted from its evidence for the check to find: a city
    # none of its sources names.
    text = (REPORT / "report.md").read_text(encoding="utf-8")
    drifted = text.replace(
        "so savings where summers are\nmilder", "so savings in Riverton's\nmilder summers"
    )
    assert drifted != text
    (tmp_path / "report.md").write_text(drifted, encoding="utf-8")
    shutil.copy(REPORT / "ledger.json", tmp_path / "ledger.json")
    return tmp_path


def test_audit_writes_one_item_per_cited_sentence_with_its_verdict(report, cli) -> None:
    done = cli("audit", "report.md", "-o", "audit.html")
    assert done.code == 0, done.err
    page = (report / "audit.html").read_text(encoding="utf-8")
    verified = json.loads(cli("verify", "report.md", "--support", "--format", "json").out)
    items = re.findall(r'<li class="claim" id="claim-(\d+)" data-outcome="([a-z-]+)"', page)
    assert len(items) == verified["stats"]["claims_checked"] == 30
    assert sum(o != "supported" for _, o in items) == verified["stats"]["claims_to_look_at"]
    assert f"wrote audit.html: 30 cited sentence(s), {verified['stats']['claims_to_look_at']}" in (
        done.out
    )
    # The detail the check found is marked in its sentence.
    assert "<mark>Riverton</mark>" in page


def test_the_pages_script_and_style_are_the_only_ones_its_policy_runs(report, cli) -> None:
    cli("audit", "report.md", "-o", "audit.html")
    page = (report / "audit.html").read_text(encoding="utf-8")
    script = re.search(r"<script>(.*?)</script>", page, re.S)
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    assert script and style
    for body in (script.group(1), style.group(1)):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in page
    assert "default-src 'none'" in page


def test_ledger_text_on_the_page_stays_text(report, cli) -> None:
    ledger = json.loads((report / "ledger.json").read_text(encoding="utf-8"))
    ledger["sources"][0]["title"] = '<img src=x onerror="alert(1)">Heat'
    ledger["sources"][0]["quotes"][0]["text"] += " <script>alert(2)</script>"
    (report / "ledger.json").write_text(json.dumps(ledger), encoding="utf-8")
    cli("audit", "report.md", "-o", "audit.html")
    page = (report / "audit.html").read_text(encoding="utf-8")
    assert "<img" not in page and "<script>alert" not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;Heat" in page


@pytest.mark.parametrize("target", ["report.md", "ledger.json"])
def test_audit_never_writes_over_the_draft_or_the_ledger(report, cli, target: str) -> None:
    before = (report / target).read_bytes()
    done = cli("audit", "report.md", "-o", target)
    assert done.code == 2 and len(done.err.strip().splitlines()) == 1
    assert (report / target).read_bytes() == before


def test_audit_of_a_missing_draft_is_one_line(report, cli) -> None:
    done = cli("audit", "absent.md", "-o", "audit.html")
    assert done.code == 2 and "no such draft: absent.md" in done.err
    assert not (report / "audit.html").exists()
