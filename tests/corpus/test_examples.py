"""The examples double as tests: the README's main-job command builds every example, the built
files are read back and verify against their ledgers, and the Makefile's dependencies rebuild
exactly what a change touches.

Builds run in a copy of examples/ (and of README.md) under tmp_path, never in the checkout.
The README's first command is ``pip install -e . && make -C examples``: the install step is
checked to install this checkout (already installed, or this module could not import
citeledger) and the rest runs as written. Its second command, the test run, is only checked
for its form: running the tests from inside the tests would recurse.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.helpers import ROOT, require_tool

# Every test here reads what the README's main job builds (every example in every format, about
# 15 s): they run with --slow and in CI.
pytestmark = pytest.mark.slow

EXAMPLES = ROOT / "examples"
TEX_ENGINES = ("pdflatex", "xelatex", "lualatex")


def have_tex() -> bool:
    return any(shutil.which(e) for e in TEX_ENGINES)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    for var in ("CITELEDGER_LEDGER", "HERMES_CITATION_LEDGER", "MAKEFLAGS", "MFLAGS"):
        env.pop(var, None)
    # The console scripts (citeledger, pandoc-citeledger) live beside this interpreter.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHON"] = sys.executable
    return env


def run(cmd: str | list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd,
        cwd=cwd,
        shell=isinstance(cmd, str),
        capture_output=True,
        text=True,
        env=_env(),
        timeout=timeout,
        check=False,
    )


def copy_project(dest: Path) -> Path:
    """README.md and examples/ as a fresh clone has them (no out/ folders)."""
    dest.mkdir(parents=True, exist_ok=True)
    if (ROOT / "README.md").exists():
        shutil.copy2(ROOT / "README.md", dest / "README.md")
    shutil.copytree(EXAMPLES, dest / "examples", ignore=shutil.ignore_patterns("out"))
    return dest


def readme_commands() -> list[str]:
    """The commands of the fenced block at the very top of README.md, or the planned ones."""
    readme = ROOT / "README.md"
    if not readme.exists():
        return [
            "pip install -e . && make -C examples",
            "pip install -e '.[test]' && python -m pytest -q",
        ]
    text = readme.read_text(encoding="utf-8")
    match = re.match(r"\s*#[^\n]*\n+```[a-z]*\n(.*?)\n```", text, re.DOTALL)
    assert match, "README.md must open with a title and a fenced block of the set-up commands"
    return [ln.strip() for ln in match.group(1).splitlines() if ln.strip()]


def without_install(command: str) -> str:
    """The command minus its ``pip install -e .`` step, which must install this checkout."""
    steps = [s.strip() for s in command.split("&&")]
    kept = []
    for step in steps:
        words = shlex.split(step)
        if "pip" in words and "install" in words:
            assert words[-1] in (".", "-e.") or words[-2:] == ["-e", "."], step
            continue
        kept.append(step)
    return " && ".join(kept)


@dataclass
class Build:
    root: Path
    proc: subprocess.CompletedProcess[str]

    @property
    def examples(self) -> Path:
        return self.root / "examples"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """Every example built by the README's main-job command, in a copy of the project."""
    require_tool("make")
    root = copy_project(tmp_path_factory.mktemp("project"))
    command = without_install(readme_commands()[0])
    assert "make -C examples" in command or "citeledger convert" in command, command
    proc = run(command, cwd=root)
    assert proc.returncode == 0, f"{command}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return Build(root, proc)


def test_readme_opens_with_the_main_job_and_the_test_command() -> None:
    main_job, tests = readme_commands()[:2]
    assert "pip install" in main_job and "make -C examples" in main_job
    assert "pip install" in tests and "[test]" in tests and "pytest" in tests


EXPECTED = [
    "report/out/report.docx",
    "report/out/report.pdf",
    "deck/out/deck.pptx",
    "wiki/out/gfm/index.md",
    "wiki/out/gfm/sources.md",
    "wiki/out/mediawiki/index.wiki",
    "wiki/out/mediawiki/sources.wiki",
]


def test_readme_main_job_builds_every_output(built: Build) -> None:
    for rel in EXPECTED:
        path = built.examples / rel
        assert path.is_file() and path.stat().st_size > 0, f"{rel} was not built"
    latex_pdf = built.examples / "report/out/report-latex.pdf"
    if have_tex():
        assert latex_pdf.is_file(), "a TeX engine is installed but no LaTeX PDF was built"
    else:
        assert not latex_pdf.exists()
        require_tool("pdflatex")  # fails in CI, skips elsewhere


def test_every_draft_passed_the_gate_before_its_outputs_were_built(built: Build) -> None:
    out = built.proc.stdout + built.proc.stderr
    for draft in ("report.md", "deck.md", "compost-wiki.md"):
        assert re.search(rf"verify {draft} .*--evidence.*--min-coverage 0\.\d", out), draft
    assert out.count("citations OK") >= 3


def test_make_check_verifies_the_built_artifacts(built: Build) -> None:
    proc = run(["make", "-C", "examples", "check"], cwd=built.root)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "verify report/out/report.docx" in proc.stdout
    assert "verify deck/out/deck.pptx" in proc.stdout
    pages = len(list((built.examples / "wiki/out/gfm").glob("*.md")))
    assert (proc.stdout + proc.stderr).count("citations OK") == 2 + pages


def test_report_docx_is_built_as_convert_builds_it_and_verifies_back(built: Build) -> None:
    docx = built.examples / "report/out/report.docx"
    with zipfile.ZipFile(docx) as z:
        notes = z.read("word/footnotes.xml").decode("utf-8")
        body = z.read("word/document.xml").decode("utf-8")
        styles = z.read("word/styles.xml").decode("utf-8")
    ids = re.findall(r'<w:footnote (?:(?!w:type)[^>])*w:id="(\d+)"', notes)
    assert len(ids) == 35, "one footnote per citation (35 ids cited in the draft)"
    # The bundled reference document's look: A4, a footer (the page number), Cambria.
    assert '<w:pgSz w:h="16838" w:w="11906"/>' in body and "<w:footerReference" in body
    assert "Cambria" in styles
    proc = run(
        [
            sys.executable,
            "-m",
            "citeledger",
            "verify",
            "out/report.docx",
            "--ledger",
            "ledger.json",
        ],
        cwd=built.examples / "report",
    )
    assert proc.returncode == 0, proc.stderr
    assert "12 distinct source(s) cited" in proc.stdout


def _pdf_text(path: Path) -> str:
    # Without the word joiners typst keeps each mark on its word with (no glyph, no width).
    text = " ".join(page.extract_text() for page in PdfReader(path).pages).replace("\u2060", "")
    return " ".join(text.split())


def test_report_pdfs_cite_by_ledger_id_and_list_the_sources(built: Build) -> None:
    text = _pdf_text(built.examples / "report/out/report.pdf")
    assert "by up to 33 °C in field measurements.[2]" in text
    assert (
        "Sources" in text and "https://www.rivertoncity.org/building-code/section-7-roofs" in text
    )
    # Provenance as labels that say what they mean, never brackets that read as broken ids.
    assert "policy" in text and "unverified" in text and "tool: python" in text
    assert "[policy]" not in text and "[tool:python]" not in text
    latex = built.examples / "report/out/report-latex.pdf"
    if latex.exists():
        assert "https://doi.org/10.5555/citywide-albedo.2022.007" in _pdf_text(latex)


def test_japanese_deck_keeps_ids_in_bullets_and_ends_with_sources(built: Build) -> None:
    from pptx import Presentation

    deck = Presentation(str(built.examples / "deck/out/deck.pptx"))
    slides = list(deck.slides)
    titles = [s.shapes.title.text_frame.text if s.shapes.title is not None else "" for s in slides]
    assert titles[-1].startswith("Sources")
    body = " ".join(sh.text_frame.text for s in slides[:-1] for sh in s.shapes if sh.has_text_frame)
    assert "年間約236万トンと推計されている。[1]" in body
    assert "https://" not in body
    links = {
        run.hyperlink.address
        for sh in slides[-1].shapes
        if sh.has_text_frame
        for p in sh.text_frame.paragraphs
        for run in p.runs
        if run.hyperlink.address
    }
    assert len(links) == 6


def test_wiki_pages_each_list_only_their_own_sources(built: Build) -> None:
    gfm = built.examples / "wiki/out/gfm"
    pages = {p.stem: p.read_text(encoding="utf-8") for p in gfm.glob("*.md")}
    content = {k: v for k, v in pages.items() if k not in ("index", "sources")}
    assert len(content) >= 5
    bokashi = content["bokashi"]
    assert set(re.findall(r'id="src-(\d+)"', bokashi)) == {"5"}
    trouble = content["troubleshooting"]
    assert set(re.findall(r'id="src-(\d+)"', trouble)) == {"2", "5", "6"}
    assert "(hot-composting.md" in content["getting-started"], "cross-page link kept"
    assert len(list((built.examples / "wiki/out/mediawiki").glob("*.wiki"))) == len(pages)


def test_second_make_has_nothing_to_do(built: Build) -> None:
    proc = run(["make", "-C", "examples", "-q"], cwd=built.root)
    assert proc.returncode == 0, "make -q: something is out of date right after a build"


def _dry_run(root: Path) -> str:
    proc = run(["make", "-C", "examples", "-n"], cwd=root)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _touch(path: Path) -> None:
    later = time.time() + 60  # newer than anything the build wrote
    os.utime(path, (later, later))


@pytest.mark.parametrize(
    ("changed", "rebuilt", "untouched"),
    [
        ("report/ledger.json", ["out/report.docx", "out/report.pdf"], ["deck", "wiki"]),
        ("deck/pages/03-kigen-no-chigai.html", ["out/deck.pptx"], ["report", "wiki"]),
        ("wiki/compost-wiki.md", ["--format gfm", "--format mediawiki"], ["report", "deck"]),
        ("report/figure.png", ["out/report.docx", "out/report.pdf"], ["deck", "wiki"]),
    ],
)
def test_a_change_rebuilds_what_depends_on_it_and_nothing_else(
    built: Build, changed: str, rebuilt: list[str], untouched: list[str]
) -> None:
    target = built.examples / changed
    stamp = target.stat()
    try:
        _touch(target)
        plan = _dry_run(built.root)
    finally:
        os.utime(target, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    for what in rebuilt:
        assert what in plan, f"changing {changed} does not rebuild {what}:\n{plan}"
    for other in untouched:
        assert f"cd {other} &&" not in plan, f"changing {changed} rebuilds {other}:\n{plan}"
    if changed.endswith((".json", ".md", ".html")):
        assert "verify" in plan, "a changed input must be verified again"


def test_failing_draft_stops_its_own_outputs(tmp_path: Path) -> None:
    require_tool("make")
    root = copy_project(tmp_path)
    deck = root / "examples/deck/deck.md"
    text = deck.read_text(encoding="utf-8")
    deck.write_text(text.replace("推計されている。[1]", "推計されている。[99]"), encoding="utf-8")
    proc = run(["make", "-C", "examples", "deck/out/deck.pptx"], cwd=root)
    assert proc.returncode != 0
    assert "FAIL" in proc.stderr and "[99]" in proc.stderr
    assert not (root / "examples/deck/out/deck.pptx").exists()
    assert not (root / "examples/deck/out/verified.stamp").exists()


@pytest.mark.slow
def test_parallel_make_builds_the_same_files_as_a_serial_one(built: Build, tmp_path: Path) -> None:
    root = copy_project(tmp_path)
    proc = run(["make", "-C", "examples", "-j4", "all", "check"], cwd=root)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]

    def outputs(examples: Path) -> set[str]:
        return {str(p.relative_to(examples)) for p in examples.glob("*/out/**/*") if p.is_file()}

    assert outputs(root / "examples") == outputs(built.examples)
    leftovers = [p.name for p in (root / "examples").rglob("*") if p.name.startswith(".")]
    assert not leftovers, f"temporary files left behind: {leftovers}"
