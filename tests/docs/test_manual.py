"""The manual cannot drift from the code: its reference pages are what docs/gen.py writes from
the code's tables, every shell and Python example of it (and of the README) is marked and the
marked ones run, its cited pages verify against their own ledger, and every picture it shows
exists and says in its alt text what it shows.

An example block is marked by an HTML comment on the line before its fence:

- ``<!-- run -->``: run in a fresh temporary folder (no ledger yet) holding docs/examples/ and
  ``heat-island.html`` (the bundled report's first page);
- ``<!-- run in examples/NAME -->``: run in a copy of that bundled example (its ledger beside it);
- ``<!-- run by tests/PATH.py -->``: run by that test (the named file must exist);
- ``<!-- not run: WHY -->``: shown only, for the reason given.

A ``sh`` block runs in bash with ``-e -o pipefail``, with ``citeledger`` the checkout's command;
a ``python`` block runs under this interpreter. Nothing is fetched: the blocks name no address a
command would open.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import ROOT, citeledger_env, require_tool

DOCS = ROOT / "docs"
EXAMPLES = ROOT / "examples"
PAGES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
RUNNABLE = ("sh", "bash", "console", "python")
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
MARK = re.compile(r"<!--\s*(run|run in [\w./-]+|run by [\w./-]+|not run:[^>]+?)\s*-->\s*\Z")
# The README's first block is the set-up tests/corpus/test_examples.py runs; a mark before it
# would break "a title, then the fenced block" that test reads.
README_SETUP = "python3 -m pip install -e . && make -C examples"


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    code: str
    mark: str  # "" when unmarked

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    out = []
    for match in FENCE.finditer(text):
        lang = match.group(1).lower()
        if lang not in RUNNABLE:
            continue
        before = text[: match.start()].rstrip()
        mark = MARK.search(before)
        line = text.count("\n", 0, match.start()) + 1
        out.append(Block(page, line, lang, match.group(2), mark.group(1) if mark else ""))
    return out


ALL = [b for page in PAGES for b in blocks(page)]
TO_RUN = [b for b in ALL if b.mark == "run" or b.mark.startswith("run in ")]


def load_gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_gen", DOCS / "gen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the reference pages ------------------------------------------------------------------------


def test_the_reference_pages_are_what_the_code_gives() -> None:
    gen = load_gen()
    stale = gen.stale()
    assert not stale, f"{', '.join(stale)} differ from the code: run `{gen.COMMAND}`"


def test_the_stale_check_sees_a_page_edited_by_hand(tmp_path: Path) -> None:
    gen = load_gen()
    gen.REFERENCE = tmp_path
    gen.PAGES = {"rules.md": gen.PAGES["rules.md"]}  # the quick one: no --help to run
    (tmp_path / "rules.md").write_text(gen.rules_page(), encoding="utf-8")
    assert gen.stale() == []
    rules = tmp_path / "rules.md"
    rules.write_text(rules.read_text(encoding="utf-8").replace("FAIL", "warn", 1), "utf-8")
    assert gen.stale() == ["docs/reference/rules.md"]


def test_every_verb_has_its_help_on_the_command_line_page() -> None:
    from citeledger.commands._app import VERBS

    page = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    for verb in VERBS:
        if verb != "pandoc":
            assert f"## citeledger {verb}\n" in page
            assert f"Usage: citeledger {verb} " in page


# -- the examples -------------------------------------------------------------------------------


def test_every_shell_and_python_example_is_marked() -> None:
    unmarked = [b.where for b in ALL if not b.mark and not b.code.startswith(README_SETUP + "\n")]
    assert not unmarked, (
        "mark each with <!-- run --> (a fresh folder), <!-- run in examples/NAME -->, "
        f"<!-- run by tests/....py --> or <!-- not run: why -->: {unmarked}"
    )
    for b in ALL:
        if b.mark.startswith("run by "):
            assert (ROOT / b.mark.removeprefix("run by ")).is_file(), b.where
        if b.mark.startswith("run in "):
            assert (ROOT / b.mark.removeprefix("run in ")).is_dir(), b.where


def test_the_readme_and_getting_started_each_run_an_example() -> None:
    pages = {b.page.name for b in TO_RUN}
    assert {"README.md", "getting-started.md"} <= pages


def shim(folder: Path) -> Path:
    """A ``citeledger`` command that runs this checkout under this interpreter."""
    folder.mkdir()
    script = folder / "citeledger"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m citeledger "$@"\n', "utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def workdir(block: Block, tmp_path: Path) -> Path:
    if block.mark == "run":
        work = tmp_path / "work"
        shutil.copytree(DOCS / "examples", work)
        pages = EXAMPLES / "report" / "pages"
        shutil.copy2(pages / "01-heat-island-basics.html", work / "heat-island.html")
        return work
    example = ROOT / block.mark.removeprefix("run in ")
    work = tmp_path / example.name
    shutil.copytree(example, work, ignore=shutil.ignore_patterns("out"))
    return work


def builds(block: Block) -> bool:
    """Whether the block builds outputs (seconds each): those run with the slow tests."""
    return bool(re.search(r"citeledger (convert|wiki) ", block.code))


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, marks=[pytest.mark.slow] if builds(b) else []) for b in TO_RUN],
    ids=lambda b: b.where,
)
def test_the_marked_example_runs(block: Block, tmp_path: Path) -> None:
    if "--pdf-engine xelatex" in block.code:
        require_tool("xelatex")
    work = workdir(block, tmp_path)
    bin_dir = shim(tmp_path / "bin")
    env = citeledger_env(unset=("CITELEDGER", "HERMES"))
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if block.lang == "python":
        argv = [sys.executable, "-c", block.code]
    else:
        argv = ["bash", "-e", "-o", "pipefail", "-c", block.code]
    done = subprocess.run(
        argv, cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, f"{block.where} exited {done.returncode}:\n{done.stderr}"
    if block.mark == "run" and "citeledger add " in block.code:
        assert (work / "ledger.json").is_file(), f"{block.where} wrote no ledger"


# -- the cited pages ------------------------------------------------------------------------------


def test_the_manuals_cited_pages_verify_against_their_own_ledger() -> None:
    cited = sorted((DOCS / "background").glob("*.md"))
    assert {p.name for p in cited} >= {"why-numbered-ids.md", "support-check.md"}
    done = subprocess.run(
        [sys.executable, "-m", "citeledger", "verify", *map(str, cited)]
        + ["--ledger", str(DOCS / "ledger.json"), "--evidence", "--recheck"],
        cwd=ROOT,
        env=citeledger_env(unset=("CITELEDGER", "HERMES")),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "citations OK"


# -- the pictures ---------------------------------------------------------------------------------

IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)|<img\b[^>]*>")
PICTURES = DOCS / "pictures"


def shown(page: Path) -> list[tuple[str, Path]]:
    """The local pictures a page shows, with their alt text (code blocks and spans left out)."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"(`+).+?\1", "", text, flags=re.S)
    out = []
    for match in IMAGE.finditer(text):
        if match.group(2) is not None:
            alt, src = match.group(1), match.group(2)
        else:
            tag = match.group(0)
            src_m = re.search(r'src="([^"]+)"', tag)
            alt_m = re.search(r'alt="([^"]*)"', tag)
            assert src_m, tag
            src, alt = src_m.group(1), alt_m.group(1) if alt_m else ""
        if not src.startswith(("http://", "https://")):
            out.append((alt, (page.parent / src).resolve()))
    return out


def test_every_picture_shown_exists_and_says_what_it_shows() -> None:
    seen = set()
    for page in PAGES:
        for alt, path in shown(page):
            assert path.is_file(), f"{page.relative_to(ROOT)} shows a missing {path.name}"
            assert len(alt.split()) >= 6, f"{page.relative_to(ROOT)}: alt text of {path.name}"
            seen.add(path)
    made = set(PICTURES.glob("*.png"))
    assert made and made <= seen, f"pictures no page shows: {sorted(p.name for p in made - seen)}"


def test_the_pictures_stay_small() -> None:
    total = sum(p.stat().st_size for p in PICTURES.glob("*.png"))
    assert total < 1_500_000, f"docs/pictures holds {total} bytes: optimise them"


# -- the landing page ---------------------------------------------------------------------------


def test_the_readme_is_a_landing_page_whose_links_reach_the_manual() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    links = re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", FENCE.sub("", text))
    local = [link for link in links if not link.startswith(("http://", "https://"))]
    assert any(link.startswith("docs/") for link in local)
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README.md links to missing files: {missing}"
