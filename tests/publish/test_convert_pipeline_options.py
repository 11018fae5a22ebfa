"""``convert`` and ``verify`` take part in a pandoc pipeline, with pandoc's own option names:
the user's filters run on the draft before citeledger reads it (so the gate sees what an
include filter adds), citeproc resolves ``[@key]`` beside the ledger's ``[n]``, and a filter
that runs pandoc itself finds the embedded one on a machine with no pandoc on PATH."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DRAFT = """# Heat

Cities stay warm at night [@oke1987].[1] Sea water freezes at lower temperatures.[3]
"""

BIB = """@book{oke1987, author = {Oke, T. R.}, title = {Boundary Layer Climates}, year = {1987}}
"""

# An include-style Lua filter: a paragraph that says INCLUDE becomes a cited sentence.
INCLUDE_LUA = """
function Para(p)
  if pandoc.utils.stringify(p) == "INCLUDE" then
    return pandoc.read("Roofs store a great deal of heat by day.[10]\\n", "markdown").blocks
  end
end
"""

# A JSON filter that adds a sentence, and one that runs `pandoc` itself to make it.
ADD_PY = """#!/usr/bin/env python3
import json, sys
doc = json.load(sys.stdin)
doc["blocks"].append({"t": "Para", "c": [{"t": "Str", "c": "Added-by-json-filter."}]})
json.dump(doc, sys.stdout)
"""
PANDOC_PY = """#!/usr/bin/env python3
import json, subprocess, sys
doc = json.load(sys.stdin)
out = subprocess.run(["pandoc", "-t", "json"], input="Made by pandoc inside.",
                     capture_output=True, text=True, check=True)
doc["blocks"] += json.loads(out.stdout)["blocks"]
json.dump(doc, sys.stdout)
"""


def env_for(path: str | None = None) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("CITELEDGER_LEDGER", None)
    env.pop("CITELEDGER_PANDOC", None)
    if path is not None:
        env["PATH"] = path
    return env


@pytest.fixture
def project(tmp_path: Path) -> Path:
    sources = [
        {"id": i, "url": f"https://example.org/source-{i}", "title": t, "accessed": "2024-05-01"}
        for i, t in ((1, "Alpha survey"), (3, "Bravo record"), (10, "Gamma data"))
    ]
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": sources}))
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    for name, text in (("add.py", ADD_PY), ("inner.py", PANDOC_PY)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        (tmp_path / name).chmod(0o755)
    (tmp_path / "include.lua").write_text(INCLUDE_LUA, encoding="utf-8")
    return tmp_path


def citeledger(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        # The ledger right after the verb: what follows "--" is pandoc's.
        [sys.executable, "-m", "citeledger", args[0], "--ledger", "ledger.json", *args[1:]],
        cwd=cwd,
        env=env or env_for(),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_convert_citeproc_resolves_keys_beside_ledger_marks(project: Path) -> None:
    done = citeledger(
        ["convert", "draft.md", "-o", "out.html", "-C", "--bibliography", "refs.bib"], project
    )
    assert done.returncode == 0, done.stderr
    html = (project / "out.html").read_text(encoding="utf-8")
    assert "@oke1987" not in html and "Oke" in html
    assert cited(html, 1)
    assert cited(html, 3)


def test_a_bibliography_in_the_front_matter_turns_citeproc_on(project: Path) -> None:
    text = "---\nbibliography: refs.bib\n---\n" + DRAFT
    (project / "draft.md").write_text(text, encoding="utf-8")
    done = citeledger(["convert", "draft.md", "-o", "out.md", "-t", "gfm"], project)
    assert done.returncode == 0, done.stderr
    out = (project / "out.md").read_text(encoding="utf-8")
    assert "@oke1987" not in out and "Oke" in out and "[1]</a>" in out


def test_convert_runs_lua_and_json_filters_before_placing(project: Path) -> None:
    (project / "draft.md").write_text(DRAFT + "\nINCLUDE\n", encoding="utf-8")
    done = citeledger(
        ["convert", "draft.md", "-o", "out.html", "-L", "include.lua", "-F", "./add.py"],
        project,
    )
    assert done.returncode == 0, done.stderr
    html = (project / "out.html").read_text(encoding="utf-8")
    assert "Added-by-json-filter." in html
    # The included marker is placed, and its source listed: the filter ran before citeledger.
    assert cited(html, 10) and 'id="src-10"' in html


SOURCES = """
## Sources

[1] https://example.org/source-1 — Alpha survey
[3] https://example.org/source-3 — Bravo record
[10] https://example.org/source-10 — Gamma data
"""


def test_verify_sees_what_an_include_filter_adds(project: Path) -> None:
    (project / "draft.md").write_text(DRAFT + "\nINCLUDE\n" + SOURCES, encoding="utf-8")
    bare = citeledger(["verify", "draft.md", "--format", "json"], project)
    assert 10 not in json.loads(bare.stdout)["cited_ids"]
    seen = citeledger(["verify", "draft.md", "-L", "include.lua", "--format", "json"], project)
    assert seen.returncode == 0, seen.stderr
    assert sorted(json.loads(seen.stdout)["cited_ids"]) == [1, 3, 10]
    # A filter that adds an id the ledger lacks fails the gate, as it fails the build.
    (project / "include.lua").write_text(INCLUDE_LUA.replace("[10]", "[77]"), encoding="utf-8")
    bad = citeledger(["verify", "draft.md", "--lua-filter", "include.lua"], project)
    assert bad.returncode == 1 and "[77]" in bad.stdout + bad.stderr


def test_a_json_filter_that_runs_pandoc_works_with_no_pandoc_on_path(
    project: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    (bin_dir / "sh").symlink_to("/bin/sh")
    env = env_for(str(bin_dir))
    probe = subprocess.run(["/bin/sh", "-c", "command -v pandoc"], env=env, check=False)
    assert probe.returncode != 0, "the test PATH still finds a pandoc"
    done = citeledger(["convert", "draft.md", "-o", "out.html", "-F", "./inner.py"], project, env)
    assert done.returncode == 0, done.stderr
    assert "Made by pandoc inside." in (project / "out.html").read_text(encoding="utf-8")


def test_writer_options_reach_pandoc(project: Path) -> None:
    done = citeledger(
        ["convert", "draft.md", "-o", "out.html", "--toc", "-N", "--pandoc-arg=--wrap=none"],
        project,
    )
    assert done.returncode == 0, done.stderr
    html = (project / "out.html").read_text(encoding="utf-8")
    assert 'id="TOC"' in html and 'class="header-section-number"' in html


def test_pandoc_options_after_double_dash_reach_the_writer(project: Path) -> None:
    done = citeledger(["convert", "draft.md", "-o", "out.html", "--", "--toc"], project)
    assert done.returncode == 0, done.stderr
    assert 'id="TOC"' in (project / "out.html").read_text(encoding="utf-8")
    stray = citeledger(["convert", "draft.md", "other.md", "-o", "out.html"], project)
    assert stray.returncode == 2 and "other.md" in stray.stderr


def cited(html: str, n: int) -> bool:
    """Whether the page holds citeledger's citation link ``[n]`` (whatever else it carries)."""
    return re.search(rf'class="citeledger-cite"[^>]*>\[{n}\]</a>', html) is not None


# A filter run at the writing step (--pandoc-arg): it matches one word, so it must see the words
# as pandoc read them, not joined into runs (convert joins them for the writers that write the
# same file either way, when no code runs at the writing step).
UPPER_LUA = """
function Str(s)
  if s.text == "Sea" then return pandoc.Str("SEA") end
end
"""


@pytest.mark.parametrize("out", ["out.html", "out.docx"])
def test_a_filter_at_the_writing_step_sees_single_words(project: Path, out: str) -> None:
    (project / "upper.lua").write_text(UPPER_LUA, encoding="utf-8")
    args = ["convert", "draft.md", "-o", out, "--pandoc-arg=--lua-filter=upper.lua"]
    done = citeledger(args, project)
    assert done.returncode == 0, done.stderr
    if out.endswith(".html"):
        text = (project / out).read_text(encoding="utf-8")
    else:
        import zipfile

        with zipfile.ZipFile(project / out) as zf:
            text = zf.read("word/document.xml").decode("utf-8")
    assert "SEA water freezes" in text or "SEA</w:t>" in text
