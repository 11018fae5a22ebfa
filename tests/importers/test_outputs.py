"""The acceptance of ``citeledger import``: an imported draft verifies, and built to html, docx
and pptx (real builds, read back), every citation links the URL the answer cited at that place:
the html's ``#src-N`` link, the Word note each mark opens, the pptx ``[n]`` and its entry on the
Sources slide."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import pytest

from citeledger.ledger import load_ledger
from citeledger.ledger.urls import url_key

from ..helpers.run import run_citeledger
from .test_providers import ANSWERS, EXPECTED, REDIRECT
from .test_storm import AGENTS, HILARY

ODR = AGENTS / "open-deep-research" / "task_006_v1.md"

_URL = re.compile(r"https?://[^\s\"<>]+")


def _html(path: Path) -> list[str]:
    page = path.read_text(encoding="utf-8")
    entries = {
        m.group(1): _URL.search(page, m.end()).group()  # type: ignore[union-attr]
        for m in re.finditer(r'<div id="src-([0-9]+)" class="citeledger-source">', page)
    }
    cites = re.findall(r'<a\s+href="#src-([0-9]+)"[^>]*class="citeledger-cite"', page)
    return [entries[n] for n in cites]


def _note_url(note: str, links: dict[str, str]) -> str | None:
    """The URL a footnote names: in its text, or (a repeat's short note, its title alone)
    as the target of its hyperlink."""
    # A shown URL's zero-width spaces are where Word may break it, not part of it.
    shown = _URL.search(re.sub(r"<[^>]+>", " ", note).replace("\u200b", ""))
    if shown:
        return shown.group()
    link = re.search(r'<w:hyperlink [^>]*r:id="([^"]+)"', note)
    return links.get(link.group(1)) if link else None


def _docx(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as z:
        body = z.read("word/document.xml").decode("utf-8")
        notes = z.read("word/footnotes.xml").decode("utf-8")
        rels = z.read("word/_rels/footnotes.xml.rels").decode("utf-8")
    links = dict(re.findall(r'<Relationship [^>]*Id="([^"]+)"[^>]*Target="([^"]+)"', rels))
    links |= {i: t for t, i in re.findall(r'Target="([^"]+)"[^>]*Id="([^"]+)"', rels)}
    found = {
        m.group(1): _note_url(m.group(2), links)
        for m in re.finditer(
            r'<w:footnote [^>]*w:id="([0-9]+)"[^>]*>(.*?)</w:footnote>', notes, re.S
        )
    }
    note_url = {k: v for k, v in found.items() if v}
    # A repeated citation links to the bookmark around its source's first note reference.
    marked: dict[str, str] = {}
    for m in re.finditer(r'<w:bookmarkStart [^>]*w:id="([0-9]+)" w:name="([^"]+)"/>', body):
        end = body.find(f'<w:bookmarkEnd w:id="{m.group(1)}"/>', m.end())
        ref = re.compile(r'<w:footnoteReference w:id="([0-9]+)"').search(body, m.end(), end)
        if ref is not None:
            marked[m.group(2)] = ref.group(1)
    text = body.split('w:name="sources"')[0]
    out: list[str] = []
    for m in re.finditer(
        r'<w:footnoteReference w:id="([0-9]+)"|<w:hyperlink w:anchor="([^"]+)"', text
    ):
        note = m.group(1) or marked.get(m.group(2) or "")
        if note in note_url:
            out.append(note_url[note])
    return out


def _pptx(path: Path) -> list[str]:
    from pptx import Presentation

    # In the deck's order (a continuation slide's file is numbered after all the others).
    slides = [
        " ".join(re.findall(r"<a:t>([^<]*)</a:t>", slide.part.blob.decode()))
        for slide in Presentation(str(path)).slides
    ]
    listed: dict[str, str] = {}
    body: list[str] = []
    for text in slides:
        if text.startswith("Sources"):
            listed.update(re.findall(r"\[([0-9]+)\][^\[]*?(https?://\S+)", text))
        else:
            body.append(text)
    return [listed[n] for n in re.findall(r"\[([0-9]+)\]", " ".join(body))]


def _check(tmp_path: Path, draft: Path, wanted: list[str]) -> None:
    outs = [tmp_path / "out.html", tmp_path / "out.docx", tmp_path / "out.pptx"]
    args = ["convert", "-q", str(draft)]
    for out in outs:
        args += ["-o", str(out)]
    done = run_citeledger(*args, cwd=tmp_path, ledger=tmp_path / "l.json")
    assert done.returncode == 0, done.stderr
    keys = [url_key(u) if not u.startswith(REDIRECT) else u[: len(REDIRECT) + 8] for u in wanted]
    for read, out in zip((_html, _docx, _pptx), outs, strict=True):
        got = [
            url_key(u) if not u.startswith(REDIRECT) else u[: len(REDIRECT) + 8] for u in read(out)
        ]
        assert got == keys, out.name


def _import(tmp_path: Path, answer: Path) -> Path:
    done = run_citeledger(
        "import", str(answer), "-o", "d.md", cwd=tmp_path, ledger=tmp_path / "l.json"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("citations OK")
    return tmp_path / "d.md"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=[] if n == "anthropic" else [pytest.mark.slow])
        for n in sorted(EXPECTED)
    ],
)
def test_every_built_citation_links_the_url_the_answer_cited_there(
    tmp_path: Path, name: str
) -> None:
    shutil.copy(ANSWERS / f"{name}.json", tmp_path / "a.json")
    draft = _import(tmp_path, tmp_path / "a.json")
    wanted = [url for _ending, urls in EXPECTED[name] for url in urls]
    _check(tmp_path, draft, wanted)


@pytest.mark.slow
@pytest.mark.parametrize("answer", [HILARY, ODR], ids=["storm", "open-deep-research"])
def test_a_real_agent_output_built_links_each_citation_to_the_url_it_cited(
    tmp_path: Path, answer: Path
) -> None:
    if answer.is_file():
        answer = Path(shutil.copy(answer, tmp_path / "report.md"))
    draft = _import(tmp_path, answer)
    book = load_ledger(tmp_path / "l.json")
    body = draft.read_text(encoding="utf-8").split("\n## Sources\n")[0]
    wanted = [book.source(int(n)).url for n in re.findall(r"\[([0-9]+)\]", body)]
    _check(tmp_path, draft, wanted)
