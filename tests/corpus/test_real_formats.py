"""Real documents, written by others, in every input format besides markdown (issue 32): Org,
LaTeX, reStructuredText, Jupyter, djot, AsciiDoc and typst (tests/fixtures/corpora/real, each
listed with its source in the README there).

Each is converted as it is, with an empty ledger, to html, docx, pptx and the default (typst)
PDF in one ``citeledger convert``: exit 0, no traceback, and nothing lost. "Nothing" is every
distinct word of six letters or more of the document as pandoc itself reads it (``pandoc -t
plain`` of the source), looked for in the text of each output: the html's text, the Word file's
(python-docx: body, notes), the deck's (python-pptx: every text frame and table cell) and the
PDF's (pypdf).

What a format legitimately drops is left out of the expected words before comparing (the Lua
filter below):

- math: Word keeps it as OMML (``m:t``, not ``w:t``), the deck and the PDF as math glyphs whose
  extracted text is no word; pandoc's plain text spells it out in Unicode;
- raw blocks and inlines (raw HTML, raw LaTeX, raw typst): each writer keeps only its own and
  ``-t plain`` keeps none;
- images: the alt text is in the html's ``alt`` and the Word file's ``descr`` but is no text of a
  deck or a PDF that shows the picture, so an image's words are not asked for.

The PDF's text is compared with its whitespace and hyphens removed: typst hyphenates justified
lines (``docu-`` / ``ment``) and pypdf's word breaks are not the page's.

A document that cannot build today is marked ``xfail(strict=True)`` naming the cause, so the mark
has to go when the fix lands.
"""

from __future__ import annotations

import json
import re
import subprocess
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path
from tests.helpers import FIXTURES, run_citeledger

pytestmark = pytest.mark.slow

CORPUS = FIXTURES / "corpora" / "real"
OUTPUTS = ("html", "docx", "pptx", "pdf")

# Math, raw blocks and inlines, and images out: what no output is required to keep as text.
DROP = """
function Math(el) return {} end
function RawInline(el) return {} end
function RawBlock(el) return {} end
function Image(el) return {} end
"""


@dataclass(frozen=True)
class Doc:
    """A corpus document; ``reader``: pandoc's name for its format (citeledger's ``--from``
    when the extension does not say it); ``xfail``: why it cannot build today."""

    name: str
    reader: str
    xfail: str = ""  # the default PDF is not written; html, docx and pptx are


DOCS = [
    Doc("org-doomemacs-lang-python-README.org", "org"),
    Doc("latex-phd-thesis-template-chapter1.tex", "latex"),
    Doc("rst-pep-0257-docstring-conventions.rst", "rst"),
    Doc("ipynb-jupyter-working-with-markdown-cells.ipynb", "ipynb"),
    Doc("djot-djot-readme.dj", "djot"),
    Doc("asciidoc-asciidoctor-migrate-ms-word.adoc", "asciidoc"),
    Doc("typst-dexios-paper.typ", "typst"),
]

WORD = re.compile(r"[^\W\d_]{6,}")


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _words(text: str) -> set[str]:
    return set(WORD.findall(_norm(text)))


def expected_words(doc: Doc, tmp: Path) -> set[str]:
    """The words of the document as pandoc reads it, less what an output may drop (DROP)."""
    lua = tmp / "drop.lua"
    lua.write_text(DROP, encoding="utf-8")
    done = subprocess.run(
        [
            pandoc_path(),
            "-f",
            doc.reader,
            "-t",
            "plain",
            "--wrap=none",
            "-L",
            str(lua),
            str(CORPUS / doc.name),
        ],
        capture_output=True,
        cwd=tmp,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return _words(done.stdout.decode("utf-8"))


class _HtmlText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_text(path: Path) -> str:
    parser = _HtmlText()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return " ".join(parser.parts)


def docx_text(path: Path) -> str:
    """Every ``w:t`` of the body, the notes and the headers (python-docx's package parts)."""
    import docx
    from lxml import etree

    w_t = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}t"
    parts: list[str] = []
    for part in docx.Document(str(path)).part.package.iter_parts():
        if not str(part.partname).startswith("/word/") or not part.partname.endswith(".xml"):
            continue
        root = etree.fromstring(part.blob)
        parts.extend(node.text or "" for node in root.iter(w_t))
    return " ".join(parts)


def pptx_text(path: Path) -> str:
    """Every ``a:t`` of every slide (python-pptx's slides). Not ``slide.shapes``: where pandoc
    wraps a slide's body in ``mc:AlternateContent`` (the notebook: all its cells on one slide,
    since headings inside a cell's Div start no slide) python-pptx lists no shape at all,
    though the text is there for PowerPoint."""
    import pptx

    a_t = "{http://schemas.openxmlformats.org/drawingml/2006/main}t"
    parts: list[str] = []
    for slide in pptx.Presentation(str(path)).slides:
        parts.extend(node.text or "" for node in slide.element.iter(a_t))
    return " ".join(parts)


def pdf_text(path: Path) -> str:
    import pypdf

    return " ".join(page.extract_text() or "" for page in pypdf.PdfReader(str(path)).pages)


@dataclass
class Built:
    doc: Doc
    folder: Path
    run: subprocess.CompletedProcess[str]
    words: set[str]

    def out(self, ext: str) -> Path:
        return self.folder / f"{Path(self.doc.name).stem}.{ext}"


def _build(doc: Doc, folder: Path) -> Built:
    folder.mkdir(parents=True)
    (folder / doc.name).write_bytes((CORPUS / doc.name).read_bytes())
    ledger = folder / "ledger.json"
    ledger.write_text(json.dumps({"version": 1, "sources": []}), encoding="utf-8")
    stem = Path(doc.name).stem
    outputs = [f"-o{stem}.{ext}" for ext in OUTPUTS]
    run = run_citeledger("convert", doc.name, "--no-fetch", *outputs, cwd=folder, ledger=ledger)
    return Built(doc, folder, run, expected_words(doc, folder))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    """Every document built once, four at a time (each convert runs four writers)."""
    root = tmp_path_factory.mktemp("formats")
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {doc.name: pool.submit(_build, doc, root / str(i)) for i, doc in enumerate(DOCS)}
        return {name: future.result() for name, future in futures.items()}


def _params(ext: str = "pdf") -> list:
    """One param per document; a document's xfail reason marks only what it fails (the PDF:
    the convert's exit status, and the PDF's words)."""
    return [
        pytest.param(
            doc,
            id=doc.name,
            marks=[pytest.mark.xfail(strict=True, reason=doc.xfail)]
            if doc.xfail and ext == "pdf"
            else [],
        )
        for doc in DOCS
    ]


def _no_traceback(one: Built) -> None:
    assert "Traceback" not in one.run.stderr, one.run.stderr[-3000:]


@pytest.mark.parametrize("doc", _params())
def test_real_document_converts_to_every_output(doc: Doc, built: dict[str, Built]) -> None:
    one = built[doc.name]
    _no_traceback(one)
    assert one.run.returncode == 0, one.run.stdout[-2000:] + one.run.stderr[-2000:]
    for ext in OUTPUTS:
        assert one.out(ext).stat().st_size > 0, ext


READ = {"html": html_text, "docx": docx_text, "pptx": pptx_text}


def _word_params() -> list:
    return [
        pytest.param(doc, ext, id=f"{doc.name}-{ext}", marks=param.marks)
        for ext in OUTPUTS
        for doc, param in zip(DOCS, _params(ext), strict=True)
    ]


@pytest.mark.parametrize(("doc", "ext"), _word_params())
def test_real_document_loses_no_word(doc: Doc, ext: str, built: dict[str, Built]) -> None:
    one = built[doc.name]
    _no_traceback(one)
    assert one.out(ext).exists(), one.run.stderr[-2000:]
    assert len(one.words) >= 50, sorted(one.words)  # the document was read, not emptied
    if ext == "pdf":
        squashed = re.sub(r"[\s\-\u00ad\u2010]+", "", _norm(pdf_text(one.out("pdf"))))
        missing = {word for word in one.words if word not in squashed}
    else:
        missing = one.words - _words(READ[ext](one.out(ext)))
    assert not missing, sorted(missing)[:40]
