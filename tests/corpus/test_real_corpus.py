"""Real documents, written by others (tests/fixtures/corpora/real), run two ways.

As they are, with an empty ledger: through the filter every output equals plain pandoc's byte
for byte (compared as pandoc's JSON, which every writer's output is a function of, and as
html), and ``convert`` and ``wiki`` keep every word.

Cited the way an author cites (``tests/authoring.py``: ``sentence.[n]`` after some sentence
ends, a ledger made with ``citeledger add`` that holds Wikipedia URLs ending in ``)``):
``render --replace-in``, then ``verify`` passes, ``convert`` writes html, docx, pptx and the
default (typst) pdf with exit 0, ``wiki`` builds in every wiki format, with no word of the draft
missing from the html; and a LaTeX (xelatex) PDF is written whose text holds the draft's
Chinese, Arabic-script, Cyrillic... letters, or, where no installed font sets one of its
scripts, convert refuses in one line naming that script. No build fetches a remote image
(``--no-fetch``: the badges become their alt text with one warning).

Each document is built once per module (the pandoc MANUAL is 305 KB); the commands run two at a
time, and the checks are separate tests over the results.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path
from tests.helpers import FIXTURES, make_ledger, need, run_citeledger
from tests.helpers.authoring import URLS, cite

# Each document is built in every format, as it is and cited (half a minute for pandoc's
# MANUAL): the corpus runs with --slow and in CI.
pytestmark = pytest.mark.slow

CORPUS = FIXTURES / "corpora" / "real"


@dataclass(frozen=True)
class Doc:
    """A corpus document and how an author cites and builds it: ``every``-th sentence end
    cited (short documents more densely, so most sources are cited), ``latex``: what its LaTeX
    PDF needs besides the engine; ``slow``: a heavy case."""

    name: str
    every: int = 3
    latex: tuple[str, ...] = ()
    slow: bool = False
    missing_image: str = ""  # a local image the document names but its repository keeps apart
    # Raw TeX beyond the harmless few (bookdown's equations, an index entry holding a macro):
    # its author's own, so built with --trust-draft (an untrusted draft's is refused).
    trust: bool = False

    @property
    def flags(self) -> tuple[str, ...]:
        return ("--trust-draft",) if self.trust else ()


CORPUS_DOCS = [
    Doc("pandoc-MANUAL.txt", slow=True),
    Doc("pandoc-lua-filters.md", slow=True),
    Doc("manubot-delete-me.md"),
    Doc("quarto-figures.qmd", missing_image="images/html-figure.png"),
    Doc("numbered-refs-bolt10-dns-bootstrap.md", every=2),
    Doc("llm-deep-research-gemini-cite-markers-human-lice.md", slow=True),
    Doc("readme-badges-ohmyzsh.md"),
    Doc("readme-badges-shields-io.md"),
    # \mainmatter opens the chapter: bookdown builds it with a book class.
    Doc("bookdown-chapter-01-introduction.Rmd", latex=("-M", "documentclass=book"), trust=True),
    Doc("cjk-chinese-quarto-chinese-1-introduction.md", every=1),
    Doc("cjk-chinese-quarto-chinese-2-localize-cnbib.md", every=1),
    Doc("rtl-persian-rich-README.fa.md", slow=True),
    Doc("cyrillic-yandex-cloud-mkf-datasource-for-mch.md", every=1, slow=True),
]
DOCUMENTS = [doc.name for doc in CORPUS_DOCS]
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
        self.run: list[str] = []  # text up to the next tag other than a span

    def handle_data(self, data: str) -> None:
        self.run.append(data)

    def flush(self) -> None:
        self.words.update(re.findall(r"\w+", "".join(self.run)))
        self.run = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # A span cuts no word: the html page binds a mark to the word before it with one,
        # which in text written without spaces (Chinese) is a word's last characters.
        if tag != "span":
            self.flush()
        for name, value in attrs:
            if name in ("alt", "title") and value:
                self.words.update(re.findall(r"\w+", value))

    def handle_endtag(self, tag: str) -> None:
        if tag != "span":
            self.flush()

    def close(self) -> None:
        super().close()
        self.flush()


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
    doc: Doc | None = None

    @property
    def cited_ids(self) -> int:
        """Ids cycle through the ledger: the first markers name distinct sources."""
        return min(self.markers, len(URLS))


def _params() -> list:
    return [
        pytest.param(doc, id=doc.name, marks=[pytest.mark.slow] if doc.slow else [])
        for doc in CORPUS_DOCS
    ]


def _build_all(built: Built, jobs: dict[str, list[str]]) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {
            name: pool.submit(citeledger, *args, cwd=built.folder, ledger=built.ledger)
            for name, args in jobs.items()
        }
        for name, future in futures.items():
            built.runs[name] = future.result()


def _jobs(draft: str, stem: str, flags: tuple[str, ...]) -> dict[str, list[str]]:
    jobs = {"verify": ["verify", draft, *flags]}
    outputs = (f"-o{stem}.{ext}" for ext in CONVERTED)
    jobs["convert"] = ["convert", draft, "--no-fetch", *outputs, *flags]
    for fmt in WIKI_FORMATS:
        jobs[f"wiki-{fmt}"] = ["wiki", draft, "-o", f"wiki-{fmt}", "--format", fmt, *flags]
    return jobs


@pytest.fixture(scope="module", params=_params())
def cited(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    doc: Doc = request.param
    document = doc.name
    folder = tmp_path_factory.mktemp("cited")
    ledger = folder / "ledger.json"
    text, markers = cite((CORPUS / document).read_text(encoding="utf-8"), every=doc.every)
    draft = folder / document
    draft.write_text(text, encoding="utf-8")
    built = Built(folder, draft, ledger, markers, doc=doc)
    built.runs["add"] = citeledger("add", *URLS, cwd=folder, ledger=ledger)
    built.runs["render"] = citeledger("render", "--replace-in", document, cwd=folder, ledger=ledger)
    _build_all(built, _jobs(document, draft.stem, doc.flags))
    return built


@pytest.fixture(scope="module", params=_params())
def as_is(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    document = request.param.name
    flags = request.param.flags
    folder = tmp_path_factory.mktemp("as-is")
    ledger = make_ledger(folder / "ledger.json")
    draft = folder / document
    shutil.copy(CORPUS / document, draft)
    built = Built(folder, draft, ledger)
    jobs = {
        "verify": ["verify", document, *flags],
        "convert": ["convert", document, "--no-fetch", f"-o{draft.stem}.html", *flags],
        "wiki-html": ["wiki", document, "-o", "wiki-html", "--format", "html", *flags],
    }
    _build_all(built, jobs)
    return built


def _ok(run: subprocess.CompletedProcess[str]) -> None:
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


# Cited --------------------------------------------------------------------------------------


def test_cited_document_has_citations_and_a_rendered_block(cited: Built) -> None:
    _ok(cited.runs["add"])
    _ok(cited.runs["render"])
    assert cited.markers >= 6
    text = cited.draft.read_text(encoding="utf-8")
    assert "<https://en.wikipedia.org/wiki/Python_(programming_language)>" in text


def test_cited_document_verifies_after_render_replace_in(cited: Built) -> None:
    run = cited.runs["verify"]
    _ok(run)
    assert f"{cited.cited_ids} distinct source(s) cited" in run.stdout


def test_cited_document_converts_to_every_output(cited: Built) -> None:
    """html, docx, pptx and the default PDF, exit 0, no remote image fetched (the badges'
    alt text and one warning instead). A document whose local image is not in the corpus:
    the PDF fails in one line naming the draft's line and the file, the rest are written."""
    assert cited.doc is not None
    run = cited.runs["convert"]
    assert "Traceback" not in run.stderr
    _ok(run)
    if cited.doc.missing_image:  # written as its alt text in every output, with one warning
        missing = [ln for ln in run.stderr.splitlines() if cited.doc.missing_image in ln]
        assert len(missing) == 1 and "not found" in missing[0], run.stderr[-2000:]
    for ext in CONVERTED:
        assert (cited.folder / f"{cited.draft.stem}.{ext}").stat().st_size > 0, ext
    assert "fetching is off" in run.stderr or "remote image" not in run.stderr


@pytest.mark.slow
@pytest.mark.latex
def test_cited_document_builds_a_latex_pdf_holding_its_scripts(cited: Built) -> None:
    """Where the installed fonts set every script of the draft, the PDF's text layer holds each
    of its letters outside Latin; where one is missing, one line names that script."""
    need(shutil.which("xelatex") is not None, "xelatex (Debian: texlive-xetex)")
    from citeledger.errors import CiteledgerError
    from citeledger.renderers import latex as scripts

    assert cited.doc is not None
    out = cited.folder / f"{cited.draft.stem}-latex.pdf"
    run = citeledger(
        "convert",
        cited.draft.name,
        "--no-fetch",
        "--pdf-engine",
        "xelatex",
        *cited.doc.latex,
        *cited.doc.flags,
        "-o",
        out.name,
        cwd=cited.folder,
        ledger=cited.ledger,
    )
    text = cited.draft.read_text(encoding="utf-8")
    lacking = re.search(r"the LaTeX file (\S+) is not installed", run.stderr)
    if lacking is not None:  # TeX Live here lacks a package pandoc's template loads
        assert run.returncode != 0 and not out.exists()
        assert len([ln for ln in run.stderr.splitlines() if "error:" in ln]) == 1
        need(False, f"{lacking.group(1)} (Debian: texlive-plain-generic, texlive-latex-extra)")
    try:
        scripts.plan("xelatex", text, {}, Path(cited.draft.name))
    except CiteledgerError as refusal:
        assert run.returncode != 0
        assert not out.exists()
        errors = [ln for ln in run.stderr.splitlines() if "error:" in ln]
        assert len(errors) == 1, run.stderr[-2000:]
        assert str(refusal).split(" text of the draft")[0] in errors[0]
        return
    _ok(run)
    layer = subprocess.run(
        ["pdftotext", str(out), "-"], capture_output=True, text=True, check=True
    ).stdout
    printed = set(unicodedata.normalize("NFKC", layer))
    # The draft's text as a page shows it (a div's title attribute is no text of a PDF).
    plain = pandoc("-f", "markdown", "-t", "plain", cited.draft.name, cwd=cited.folder)
    wanted = scripts.letters_by_script(plain.stdout.decode("utf-8"))
    for script, chars in wanted.items():
        letters = {unicodedata.normalize("NFKC", c) for c in chars if c.isalpha()}
        missing = letters - printed
        assert not missing, (script.name, "".join(sorted(missing))[:60])


def test_cited_document_loses_no_prose_in_html(cited: Built) -> None:
    html = cited.folder / f"{cited.draft.stem}.html"
    missing = draft_words(cited.draft) - output_words(html)
    assert not missing, sorted(missing)[:40]


@pytest.mark.parametrize("fmt", WIKI_FORMATS)
def test_cited_document_builds_a_wiki(cited: Built, fmt: str) -> None:
    run = cited.runs[f"wiki-{fmt}"]
    _ok(run)
    assert f"({cited.cited_ids} sources cited)" in run.stdout


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
