"""The audit page in a real browser (Debian's chromium, driven by playwright), checked with
axe-core (from the npm registry, ``npm pack`` into pytest's temporary folder, as the reveal.js
tests fetch reveal.js): every cited sentence of a real report listed once with its sources,
quotes and verdict; no serious or critical axe finding (WCAG 2.2 AA rules) in either state of
the filter; usable on a 320 px screen."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citeledger.document.draft import open_draft
from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.verify import verify
from tests.helpers import FIXTURES, ROOT, need, run_citeledger

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CHROMIUM = "/usr/bin/chromium"
REPORTS = {
    # A real LLM deep-research report (real2 corpus), its ledger with no quotes: every verdict
    # says so.
    "odr": (FIXTURES / "support" / "odr-report", "odr-did-report.md", "odr-did-report.ledger.json"),
    # The example report, whose ledger carries quotes from its pages.
    "example": (ROOT / "examples" / "report", "report.md", "ledger.json"),
}
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


@pytest.fixture(scope="session")
def axe(tmp_path_factory: pytest.TempPathFactory) -> str:
    need(shutil.which("npm") is not None, "npm (Debian: npm), which fetches axe-core")
    root = tmp_path_factory.mktemp("axe-core")
    done = subprocess.run(
        ["npm", "pack", "axe-core@4", "--silent"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    need(done.returncode == 0, f"axe-core from the npm registry ({done.stderr.strip()})")
    with tarfile.open(root / done.stdout.split()[-1]) as tar:
        tar.extractall(root, filter="data")
    return (root / "package" / "axe.min.js").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    present = shutil.which("chromium") is not None or Path(CHROMIUM).exists()
    try:
        import playwright  # noqa: F401
    except ImportError:
        present = False
    need(present, "chromium and playwright (Debian: chromium; pip: playwright)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        exe = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module", params=sorted(REPORTS))
def audited(request: pytest.FixtureRequest, tmp_path_factory) -> tuple[Path, Any]:
    folder, draft, ledger = REPORTS[request.param]
    work = tmp_path_factory.mktemp(f"audit-{request.param}")
    shutil.copy(folder / draft, work / draft)
    shutil.copy(folder / ledger, work / "ledger.json")
    done = run_citeledger("audit", draft, "-o", "audit.html", "--ledger", "ledger.json", cwd=work)
    assert done.returncode == 0, done.stderr
    # What the page must list: the support check's verdicts, read in-process.
    read = open_draft(work / draft, name=draft)
    report = verify(
        read.tree,
        load_ledger(work / "ledger.json"),
        Options(support=True),
        source_name=draft,
        source_text=read.text,
    )
    return work / "audit.html", report


def open_page(browser: Any, path: Path, width: int = 1024) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 800}, bypass_csp=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.as_uri())
    page.errors = errors
    return page


def test_every_cited_sentence_is_listed_once_with_sources_quotes_and_verdict(
    browser, audited
) -> None:
    path, report = audited
    ledger = load_ledger(path.parent / "ledger.json")
    page = open_page(browser, path)
    items = page.eval_on_selector_all(
        ".claim",
        """els => els.map(el => ({
            sentence: el.querySelector('.sentence').innerText,
            verdict: el.querySelector('.verdict').innerText,
            links: [...el.querySelectorAll('.sources > li > a')].map(a => a.href),
            quotes: [...el.querySelectorAll('.quotes q')].length,
        }))""",
    )
    assert len(report.claims) > 20
    assert [i["sentence"] for i in items] == [c.sentence for c in report.claims]
    assert len({(c.location, c.sentence) for c in report.claims}) == len(report.claims)
    for item, claim in zip(items, report.claims, strict=True):
        assert item["verdict"]
        sources = [ledger.source(i) for i in claim.ids]
        assert item["links"] == [s.url for s in sources]
        assert item["quotes"] == sum(len(s.quotes) for s in sources)
    assert page.errors == []


def test_no_serious_axe_finding_in_either_state_of_the_filter(browser, audited, axe) -> None:
    path, _report = audited
    page = open_page(browser, path)
    page.add_script_tag(content=axe)
    for state in ("#show-all", "#show-look"):
        page.check(state)
        found = page.evaluate(
            "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS
        )
        serious = [
            (v["id"], v["help"], [n["target"] for n in v["nodes"][:3]])
            for v in found["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        assert serious == [], json.dumps(serious, indent=1)


def test_usable_at_320_px(browser, audited) -> None:
    path, report = audited
    page = open_page(browser, path, width=320)
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    look = sum(1 for c in report.claims if c.needs_look)
    # The filter is a thumb's width tall and filters to what needs a look, and says so.
    box = page.locator("label:has(#show-look)").bounding_box()
    assert box is not None and box["height"] >= 24 and box["width"] <= 320
    page.click("label:has(#show-look)")
    visible = page.eval_on_selector_all(".claim", "els => els.filter(e => e.offsetParent).length")
    assert visible == look
    assert page.inner_text("#shown") == f"Showing the {look} cited sentences needing a look."
    page.click("label:has(#show-all)")
    visible = page.eval_on_selector_all(".claim", "els => els.filter(e => e.offsetParent).length")
    assert visible == len(report.claims)
    # Text no narrower than a phone needs: 16 px body type.
    assert page.evaluate("parseFloat(getComputedStyle(document.body).fontSize)") >= 16
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
