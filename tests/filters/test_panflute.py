"""The filter as panflute pieces: a panflute filter of one's own runs citeledger in the same pass
and writes what the console filter followed by that filter writes. The example in the filter's
manual is the filter these tests run, so the manual's code cannot drift from what works."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import panflute as pf
import pytest

from citeledger.filters import main as filter_main
from citeledger.filters import panflute as citeledger_pf
from citeledger.pandoc import pandoc_path, run_pandoc
from tests.helpers import GOLDEN_ROOT, ROOT

GOLDEN = GOLDEN_ROOT / "filter" / "report"
PREPARE = "pf.run_filters([small_caps_headings], prepare=citeledger.prepare)"


def manual_example() -> str:
    """The panflute example of the filter's manual, as the script a user would save."""
    manual = filter_main.__doc__ or ""
    found = re.search(r"citeledger\.filters\.panflute`::\n\n((?:    .*\n|\n)+?)\n\S", manual)
    assert found, "the filter's manual must show the panflute example"
    return "\n".join(line[4:] for line in found.group(1).splitlines()).strip() + "\n"


def script(folder: Path, name: str, code: str) -> str:
    """``code`` as an executable filter run by this interpreter (its shebang line replaced)."""
    body = code.split("\n", 1)[1] if code.startswith("#!") else code
    path = folder / name
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(0o755)
    return f"./{name}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("input.md", "ledger.json"):
        shutil.copy(GOLDEN / name, tmp_path / name)
    example = manual_example()
    assert PREPARE in example
    script(tmp_path, "composed.py", example)
    # The same filter without citeledger: what runs after the console filter.
    script(tmp_path, "own.py", example.replace(PREPARE, "pf.run_filters([small_caps_headings])"))
    return tmp_path


def pandoc(folder: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    argv = [pandoc_path(), "input.md", "-M", "citeledger.ledger=ledger.json", *args]
    return subprocess.run(argv, cwd=folder, env=env, capture_output=True, timeout=300)


def console_filter() -> str:
    found = shutil.which("pandoc-citeledger")
    assert found, "pandoc-citeledger is not on PATH: pip install -e ."
    return found


def parts(path: Path) -> dict[str, bytes]:
    """A .docx's parts, less the one that holds the time it was written."""
    with zipfile.ZipFile(path) as archive:
        return {n: archive.read(n) for n in archive.namelist() if n != "docProps/core.xml"}


@pytest.mark.parametrize("fmt", ["html", "latex", "gfm", "docx"])
def test_own_panflute_filter_with_citeledger_equals_console_filter_then_that_filter(
    project: Path, fmt: str
) -> None:
    one = pandoc(project, "-t", fmt, "--filter", "./composed.py", "-o", f"one.{fmt}")
    assert one.returncode == 0, one.stderr.decode()
    two = pandoc(
        project,
        *("-t", fmt, "--filter", console_filter(), "--filter", "./own.py", "-o", f"two.{fmt}"),
    )
    assert two.returncode == 0, two.stderr.decode()
    if fmt == "docx":
        assert parts(project / "one.docx") == parts(project / "two.docx")
        return
    composed = (project / f"one.{fmt}").read_text(encoding="utf-8")
    assert composed == (project / f"two.{fmt}").read_text(encoding="utf-8")
    # Both filters did their work: citations placed, headings in small caps.
    if fmt == "html":
        assert 'href="#src-1"' in composed and 'class="smallcaps">Sources</span>' in composed


MARKER_WRITER = """import panflute as pf
from citeledger.filters import panflute as citeledger


def cite_ice(elem, doc):  # writes a marker: citeledger must run after it
    if isinstance(elem, pf.Str):
        elem.text = elem.text.replace("ICE-SOURCE", "[1]")


if __name__ == "__main__":
    pf.run_filters([cite_ice], finalize=citeledger.finalize)
"""


def test_finalize_places_markers_the_actions_wrote(tmp_path: Path) -> None:
    shutil.copy(GOLDEN / "ledger.json", tmp_path / "ledger.json")
    (tmp_path / "input.md").write_text("Ice floats on water.ICE-SOURCE\n", encoding="utf-8")
    script(tmp_path, "composed.py", MARKER_WRITER)
    script(tmp_path, "own.py", MARKER_WRITER.replace(", finalize=citeledger.finalize", ""))
    one = pandoc(tmp_path, "-t", "html", "--filter", "./composed.py")
    two = pandoc(tmp_path, "-t", "html", "--filter", "./own.py", "--filter", console_filter())
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert one.stdout == two.stdout
    assert b'href="#src-1"' in one.stdout and b"ICE-SOURCE" not in one.stdout


def test_a_failed_verification_ends_the_filter_with_one_line(project: Path) -> None:
    (project / "input.md").write_text("Polar bears hunt seals on the ice.[77]\n", encoding="utf-8")
    done = pandoc(project, "-t", "html", "--filter", "./composed.py", "-o", "out.html")
    err = done.stderr.decode()
    assert done.returncode != 0 and not (project / "out.html").exists()
    assert "Traceback" not in err
    assert "FAIL: input: citations not in the ledger (hallucinated or renumbered): [77]" in err
    assert "pandoc-citeledger: verification failed; no output written" in err


def _doc(markdown: str, fmt: str = "html") -> pf.Doc:
    raw = run_pandoc(["-f", "markdown", "-t", "json"], stdin=markdown)
    doc = pf.load(io.StringIO(raw.decode("utf-8")))
    doc.format = fmt
    return doc


def test_prepare_sets_one_state_object_on_the_doc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = json.loads((GOLDEN / "ledger.json").read_text(encoding="utf-8"))
    (tmp_path / "ledger.json").write_text(json.dumps(ledger), encoding="utf-8")
    path = (tmp_path / "ledger.json").as_posix()
    # The ledger by the environment: a draft's front matter names none outside the working
    # folder (tests/hostile/test_trust_draft.py).
    monkeypatch.setenv("CITELEDGER_LEDGER", path)
    doc = _doc("---\nciteledger:\n  notes: endnotes\n---\n\nIce floats.[2] Water is dense.[1]\n")
    out = pf.run_filters([], prepare=citeledger_pf.prepare, doc=doc)
    assert out is doc
    state = doc.citeledger
    assert state.order == {2: 1, 1: 2} and state.number(2) == 2
    assert [s.id for s in state.cited_sources()] == [1, 2]
    assert "citeledger" not in doc.metadata.content  # no local ledger path reaches the output
    assert 'href="#src-2"' in pf.convert_text(
        doc, input_format="panflute", output_format="html", pandoc_path=pandoc_path()
    )


def test_a_document_that_cites_nothing_passes_through_untouched() -> None:
    doc = _doc("# Notes\n\nNothing here cites anything.\n")
    before = doc.to_json()
    filter_main.main(doc)  # the console script's entry, given a Doc
    assert doc.citeledger is None and doc.to_json() == before


def test_without_panflute_the_import_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['panflute'] = None\n"
        "try:\n    import citeledger.filters.panflute\n"
        "except ModuleNotFoundError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == (
        "citeledger.filters.panflute needs panflute: pip install 'citeledger[panflute]'"
    )


def test_the_manual_says_what_the_panflute_path_costs() -> None:
    manual = filter_main.__doc__ or ""
    assert "PANFLUTE_COST" not in manual
    assert re.search(r"1\.6 MB benchmark report.*bench/bench_panflute\.py", manual, re.DOTALL)


def test_the_pipeline_page_shows_the_manuals_panflute_example() -> None:
    readme = (ROOT / "docs" / "teams" / "pipeline.md").read_text(encoding="utf-8")
    assert f"```python\n{manual_example()}```" in readme
