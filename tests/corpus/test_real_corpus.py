"""Real documents, written by others (tests/fixtures/corpora/real), run two ways.

As they are, with an empty ledger: through the filter every output equals plain pandoc's byte
for byte (compared as pandoc's JSON, which every writer's output is a function of, and as
html), and ``convert`` and ``wiki`` keep every word.

Cited the way an author cites (``tests/authoring.py``: ``sentence.[n]`` after some sentence
ends, a ledger made with ``citeledger add`` that holds Wikipedia URLs ending in ``)``):
``render --replace-in``, then ``verify`` passes, ``convert`` writes html, docx, pptx and pdf, and
``wiki`` builds in every wiki format, with no word of the draft missing from the html.

Each document is built once per module (the pandoc MANUAL is 305 KB); the commands run two at a
time, and the checks are separate tests over the results.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path
from tests.helpers import FIXTURES, make_ledger, run_citeledger
from tests.helpers.authoring import URLS, cite

# Each document is built in every format, as it is and cited (half a minute for pandoc's
# MANUAL): the corpus runs with --slow and in CI.
pytestmark = pytest.mark.slow

CORPUS = FIXTURES / "corpora" / "real"
DOCUMENTS = [
    "pandoc-MANUAL.txt",
    "pandoc-lua-filters.md",
    "manubot-delete-me.md",
    "quarto-figures.qmd",
]
WIKI_FORMATS = ["mediawiki", "dokuwiki", "gfm", "obsidian", "html"]
CONVERTED = ["html", "docx", "pptx", "pdf"]


def citeledger(*args: str, cwd: Path, ledger: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, ledger=ledger)


def pandoc(*args: str, cwd: Path, ledger: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ}
    if ledger is not None:
        env["CITELEDGER_LEDGER"] = str(ledger)
    return subprocess.run([pandoc_path(), *args], cwd=cwd, env=env, capture_output=True)


class _Text(HTMLParser):
    """The words of an HTML page: its text and its images' alternative text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.words: set[str] = set()

    def handle_data(self, data: str) -> None:
        self.words.update(re.findall(r"\w+", data))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("alt", "title") and value:
                self.words.update(re.findall(r"\w+", value))


def html_words(html: str) -> set[str]:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return parser.words


def draft_words(path: Path) -> set[str]:
    """The words of a draft as pandoc reads it, extracted from its HTML as an output's are."""
    done = pandoc("-f", "markdown", "-t", "html", str(path), cwd=path.parent)
    assert done.returncode == 0, done.stderr.decode()
    return html_words(done.stdout.decode("utf-8"))


def output_words(*pages: Path) -> set[str]:
    words: set[str] = set()
    for page in pages:
        words |= html_words(page.read_text(encoding="utf-8"))
    return words


@dataclass
class Built:
    folder: Path
    draft: Path
    ledger: Path
    markers: int = 0
    runs: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)


def _build_all(built: Built, jobs: dict[str, list[str]]) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {
            name: pool.submit(citeledger, *args, cwd=built.folder, ledger=built.ledger)
            for name, args in jobs.items()
        }
        for name, future in futures.items():
            built.runs[name] = future.result()


def _jobs(draft: str, stem: str) -> dict[str, list[str]]:
    jobs = {"verify": ["verify", draft]}
    jobs["convert"] = ["convert", draft, *(f"-o{stem}.{ext}" for ext in CONVERTED)]
    for fmt in WIKI_FORMATS:
        jobs[f"wiki-{fmt}"] = ["wiki", draft, "-o", f"wiki-{fmt}", "--format", fmt]
    return jobs


@pytest.fixture(scope="module", params=DOCUMENTS)
def cited(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    document: str = request.param
    folder = tmp_path_factory.mktemp("cited")
    ledger = folder / "ledger.json"
    text, markers = cite((CORPUS / document).read_text(encoding="utf-8"))
    draft = folder / document
    draft.write_text(text, encoding="utf-8")
    built = Built(folder, draft, ledger, markers)
    built.runs["add"] = citeledger("add", *URLS, cwd=folder, ledger=ledger)
    built.runs["render"] = citeledger("render", "--replace-in", document, cwd=folder, ledger=ledger)
    _build_all(built, _jobs(document, draft.stem))
    return built


@pytest.fixture(scope="module", params=DOCUMENTS)
def as_is(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    document: str = request.param
    folder = tmp_path_factory.mktemp("as-is")
    ledger = make_ledger(folder / "ledger.json")
    draft = folder / document
    shutil.copy(CORPUS / document, draft)
    built = Built(folder, draft, ledger)
    jobs = {
        "verify": ["verify", document],
        "convert": ["convert", document, f"-o{draft.stem}.html"],
        "wiki-html": ["wiki", document, "-o", "wiki-html", "--format", "html"],
    }
    _build_all(built, jobs)
    return built


def _ok(run: subprocess.CompletedProcess[str]) -> None:
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


# Cited --------------------------------------------------------------------------------------


def test_cited_document_has_citations_and_a_rendered_block(cited: Built) -> None:
    _ok(cited.runs["add"])
    _ok(cited.runs["render"])
    assert cited.markers >= 10
    text = cited.draft.read_text(encoding="utf-8")
    assert "<https://en.wikipedia.org/wiki/Python_(programming_language)>" in text


def test_cited_document_verifies_after_render_replace_in(cited: Built) -> None:
    run = cited.runs["verify"]
    _ok(run)
    assert "8 distinct source(s) cited" in run.stdout


@pytest.mark.parametrize("ext", CONVERTED)
def test_cited_document_converts(cited: Built, ext: str) -> None:
    """Every output is written, unless plain pandoc cannot write that output of the document
    either (a pptx or docx fetches remote images; typst must compile pandoc's own typst): then
    convert says so in one line and still writes the others."""
    run = cited.runs["convert"]
    out = cited.folder / f"{cited.draft.stem}.{ext}"
    if out.is_file():
        return
    assert run.returncode != 0
    failure = [ln for ln in run.stderr.splitlines() if f"error: {out.name}:" in ln]
    assert len(failure) == 1, run.stderr[-3000:]
    assert "Traceback" not in run.stderr
    assert not _plain_pandoc_writes(cited, ext), f"plain pandoc writes {ext}, convert did not"
    assert (cited.folder / f"{cited.draft.stem}.html").is_file()


def _plain_pandoc_writes(built: Built, ext: str) -> bool:
    source = CORPUS / built.draft.name
    if ext != "pdf":
        done = pandoc(str(source), "-o", str(built.folder / f"plain.{ext}"), cwd=built.folder)
        return done.returncode == 0
    import typst

    done = pandoc(str(source), "-s", "-t", "typst", cwd=built.folder)
    if done.returncode != 0:
        return False
    try:
        typst.compile(done.stdout, root=str(built.folder))
    except Exception:  # the typst wheel raises its own error types
        return False
    return True


def test_cited_document_loses_no_prose_in_html(cited: Built) -> None:
    html = cited.folder / f"{cited.draft.stem}.html"
    missing = draft_words(cited.draft) - output_words(html)
    assert not missing, sorted(missing)[:40]


@pytest.mark.parametrize("fmt", WIKI_FORMATS)
def test_cited_document_builds_a_wiki(cited: Built, fmt: str) -> None:
    run = cited.runs[f"wiki-{fmt}"]
    _ok(run)
    assert "(8 sources cited)" in run.stdout


# As it is -----------------------------------------------------------------------------------


# pandoc's JSON is what every writer writes from: equal JSON is equal output in every format.
# html, a text format written by a real writer, is compared too where it costs little.
PASSTHROUGH = [
    *((document, "json") for document in DOCUMENTS),
    *((document, "html") for document in DOCUMENTS if (CORPUS / document).stat().st_size < 100_000),
]


@pytest.mark.parametrize(("document", "writer"), PASSTHROUGH)
def test_document_as_it_is_is_byte_identical_through_the_filter(
    document: str, writer: str, tmp_path: Path
) -> None:
    ledger = make_ledger(tmp_path / "ledger.json")
    filter_command = shutil.which("pandoc-citeledger")
    assert filter_command is not None, "pip install -e . installs pandoc-citeledger"
    args = ["-f", "markdown", "-t", writer, "-s", str(CORPUS / document)]
    plain = pandoc(*args, cwd=tmp_path, ledger=ledger)
    filtered = pandoc(*args, "--filter", filter_command, cwd=tmp_path, ledger=ledger)
    assert filtered.returncode == plain.returncode == 0, filtered.stderr.decode()[-2000:]
    assert filtered.stdout == plain.stdout
    assert filtered.stderr == plain.stderr


def test_document_as_it_is_verifies(as_is: Built) -> None:
    _ok(as_is.runs["verify"])


def test_document_as_it_is_converts_without_losing_prose(as_is: Built) -> None:
    _ok(as_is.runs["convert"])
    html = as_is.folder / f"{as_is.draft.stem}.html"
    missing = draft_words(as_is.draft) - output_words(html)
    assert not missing, sorted(missing)[:40]


def test_document_as_it_is_keeps_every_word_across_its_wiki_pages(as_is: Built) -> None:
    _ok(as_is.runs["wiki-html"])
    pages = output_words(*(as_is.folder / "wiki-html").glob("*.html"))
    missing = draft_words(as_is.draft) - pages
    assert not missing, sorted(missing)[:40]
