"""A draft's raw HTML and attributes are inert in HTML outputs (convert's HTML and EPUB, the
wiki's HTML pages): no script, no event handler, no ``javascript:`` link, while harmless markup
stays; only a flag or the project file, never the draft itself, keeps them as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.helpers import run_citeledger

HOSTILE = """# Report

Text <span dir="rtl" onclick="steal()">שלום</span> H<sub>2</sub>O<br>next.

<img src="chart.png" onerror="alert(1)">

<script>alert(document.cookie)</script>

<a href="javascript:alert(1)">click</a> <iframe src="https://evil.example/"></iframe>

[x]{onclick="a()" dir=rtl} and [y](javascript:alert(2)) ![i](chart.png){onerror="b()"}

<div dir="rtl">
مرحبا
</div>
"""
LIVE = re.compile(r"<script|<iframe|\bon[a-z]+\s*=|javascript:", re.IGNORECASE)


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    return run_citeledger(*args, cwd=cwd, env=env, timeout=300)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": []}))
    (tmp_path / "d.md").write_text(HOSTILE)
    return tmp_path


def _harmless_kept(html: str) -> None:
    assert '<span dir="rtl">שלום</span>' in html
    assert "<sub>2</sub>" in html and "<br" in html
    assert re.search(r'<div dir="rtl">\s*<p>مرحبا</p>\s*</div>', html), html


def _epub_pages(path: Path) -> str:
    with zipfile.ZipFile(path) as archive:
        return "".join(
            archive.read(n).decode("utf-8") for n in archive.namelist() if n.endswith(".xhtml")
        )


@pytest.mark.parametrize("suffix", [".html", ".epub"])
def test_script_and_event_handlers_in_a_draft_are_not_live_in_convert(
    suffix: str, project: Path
) -> None:
    done = cli("convert", "d.md", "-o", f"out{suffix}", cwd=project)
    assert done.returncode == 0, done.stderr
    out = project / f"out{suffix}"
    html = out.read_text() if suffix == ".html" else _epub_pages(out)
    body = html[html.index("<body") :]
    assert not LIVE.search(body), LIVE.search(body)
    _harmless_kept(body)


def test_script_in_a_draft_is_not_live_in_wiki_html_pages(project: Path) -> None:
    done = cli("wiki", "d.md", "-o", "site", "--format", "html", cwd=project)
    assert done.returncode == 0, done.stderr
    for page in (project / "site").glob("*.html"):
        body = page.read_text()[page.read_text().index("<body") :]
        assert not LIVE.search(body), (page.name, LIVE.search(body))
    _harmless_kept((project / "site" / "report.html").read_text())


def test_trusted_html_flag_keeps_the_draft_as_written(project: Path) -> None:
    done = cli("convert", "d.md", "-o", "out.html", "--trusted-html", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "<script>alert(document.cookie)</script>" in (project / "out.html").read_text()


def test_a_draft_cannot_declare_itself_trusted(project: Path) -> None:
    (project / "d.md").write_text("---\nciteledger:\n  trusted-html: true\n---\n\n" + HOSTILE)
    done = cli("convert", "d.md", "-o", "out.html", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "<script" not in (project / "out.html").read_text()


def test_the_project_file_may_trust_its_drafts(project: Path) -> None:
    (project / "citeledger.toml").write_text("trusted-html = true\n")
    done = cli("convert", "d.md", "-o", "out.html", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "<script>alert(document.cookie)</script>" in (project / "out.html").read_text()
