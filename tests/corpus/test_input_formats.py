"""One cited draft, written by pandoc into every input format citeledger supports, verifies and
builds alike (issue 32): the ids verify sees are the ids the build places (the HTML's
``#src-N`` links, the Word file's notes read back, the deck's Sources entries), and no word of
the draft is lost on the way.

Formats that fail for a reason another item of the issue fixes are marked ``xfail(strict)``
naming the item, so the mark has to go when the fix lands.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path
from tests.helpers.ledgers import make_ledger
from tests.helpers.run import run_citeledger

pytestmark = pytest.mark.slow

URLS = {
    1: "https://example.org/ice",
    2: "https://example.org/sea",
    3: "https://example.org/glacier",
}
PROSE = (
    "Ice floats on liquid water because it is less dense.[1] "
    "Sea ice covers about seven percent of the ocean.[2]\n\n"
    "Glaciers store most of the fresh water on the planet.[3] "
    "Melting glaciers raise the level of every sea.[1][3]\n"
)
DRAFT = (
    "# Ice and water\n\n"
    + PROSE
    + "\n## Sources\n\n"
    + "".join(f"[{n}] {url}\n\n" for n, url in URLS.items())
)
WORDS = set(re.findall(r"[A-Za-z]+", re.sub(r"\[[0-9]+\]", " ", PROSE)))


def _xfail(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=reason)


# (pandoc writer, file name, --from for citeledger or "")
CASES = [
    pytest.param("markdown", "draft.md", "", id="markdown"),
    pytest.param("gfm", "draft.md", "gfm", id="gfm"),
    pytest.param("commonmark_x", "draft.md", "commonmark_x", id="commonmark_x"),
    pytest.param("rst", "draft.rst", "", id="rst"),
    pytest.param("org", "draft.org", "", id="org"),
    pytest.param("docx", "draft.docx", "", id="docx"),
    pytest.param("odt", "draft.odt", "", id="odt"),
    pytest.param("html", "draft.html", "", id="html"),
    pytest.param("latex", "draft.tex", "", id="latex"),
    pytest.param("ipynb", "draft.ipynb", "", id="ipynb"),
    pytest.param("typst", "draft.typ", "", id="typst"),
    pytest.param("djot", "draft.dj", "", id="djot"),
    pytest.param("asciidoc", "draft.adoc", "", id="asciidoc"),
]


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = run_citeledger(*args, cwd=folder, ledger=folder / "ledger.json")
    assert "Traceback" not in done.stderr
    return done


def _cited(folder: Path, name: str, *reading: str) -> list[int]:
    done = _run(folder, "verify", "--format", "json", *reading, name)
    assert done.returncode == 0, (name, done.stdout, done.stderr)
    ids: list[int] = json.loads(done.stdout)["cited_ids"]
    return sorted(ids)


def _html_text(page: str) -> str:
    body = re.sub(r"(?s)<(script|style|head)\b.*?</\1>", " ", page)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def _docx_text(path: Path) -> str:
    from docx import Document

    doc = Document(str(path))
    return " ".join(p.text for p in doc.paragraphs)


def _deck(path: Path) -> tuple[str, set[int]]:
    """The deck's text and the ids its Sources slides list."""
    from pptx import Presentation

    texts, listed = [], set()
    for slide in Presentation(str(path)).slides:
        shapes = [s for s in slide.shapes if s.has_text_frame]
        text = " ".join(s.text_frame.text for s in shapes)
        texts.append(text)
        if shapes and shapes[0].text_frame.text.startswith("Sources"):
            listed |= {int(n) for n in re.findall(r"^\[([0-9]+)\]", text, re.M)}
            listed |= {int(n) for n in re.findall(r"(?:^|\s)\[([0-9]+)\]\s", text)}
    return " ".join(texts), listed


def _lost(text: str) -> set[str]:
    return WORDS - set(re.findall(r"[A-Za-z]+", text))


@pytest.mark.parametrize(("writer", "name", "reader"), CASES)
def test_one_draft_in_every_input_format_verifies_and_builds_alike(
    tmp_path: Path, writer: str, name: str, reader: str
) -> None:
    make_ledger(
        tmp_path / "ledger.json",
        [(n, url, f"Source {n}", "2025-01-01") for n, url in URLS.items()],
        last_id=len(URLS),
    )
    (tmp_path / "source.md").write_text(DRAFT)
    if name.endswith(".md"):
        # pandoc's markdown writers escape a bracket (``\\[1\\]``), which is how an author
        # says "no citation": a markdown flavour's draft is the text itself.
        (tmp_path / name).write_text(DRAFT)
    else:
        subprocess.run(
            [pandoc_path(), "-f", "markdown", "-t", writer, "-s", "source.md", "-o", name],
            cwd=tmp_path,
            check=True,
        )
    reading = ("--from", reader) if reader else ()
    assert _cited(tmp_path, name, *reading) == sorted(URLS)

    for out in ("page.html", "paper.docx", "deck.pptx"):
        done = _run(tmp_path, "convert", "-q", *reading, name, "-o", out)
        assert done.returncode == 0, (out, done.stderr)

    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    linked = {int(n) for n in re.findall(r'href="#src-([0-9]+)"', page)}
    assert linked == set(URLS)
    assert _lost(_html_text(page)) == set()

    assert _cited(tmp_path, "paper.docx") == sorted(URLS)
    assert _lost(_docx_text(tmp_path / "paper.docx")) == set()

    text, listed = _deck(tmp_path / "deck.pptx")
    assert listed == set(URLS)
    assert _lost(text) == set()
