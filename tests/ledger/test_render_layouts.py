"""The Sources block ``render`` writes for drafts pandoc reads with another reader than
markdown's (Org, reStructuredText, LaTeX, typst): each reads back as the block's entries, and a
draft holding it builds with its ledger ids. The markdown block read as LaTeX has no heading
(``## Sources`` is a paragraph), and typst stops at its ``#``. In Org, ``[1] url`` at the
start of a line defines footnote 1: the markdown block pasted into an .org draft turned every
citation into a footnote numbered 1..k in every output.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from citeledger.document.draft import open_draft
from citeledger.document.markers import scan
from citeledger.document.sources_block import entries
from citeledger.ledger import load_ledger, render_block
from tests.helpers import make_ledger, run_citeledger, run_filter

SOURCES = [
    (3, "https://example.org/three", "Sea ice *extent* and [[links]]", "2024-01-01"),
    (7, "https://example.org/seven_(data)", "Why ice floats", "2024-01-01"),
]
TEXT = "Ice floats on water.[7] Sea ice shrinks.[3] It floats again.[7]\n\n"
BODY = {"org": TEXT, "rst": TEXT, "tex": TEXT, "typ": TEXT}


def draft_with_rendered_block(tmp_path: Path, fmt: str) -> tuple[Path, Path]:
    """A draft of ``fmt`` whose Sources block is what ``render --cited-in`` printed for it."""
    ledger = make_ledger(tmp_path / "ledger.json", SOURCES)
    draft = tmp_path / f"report.{fmt}"
    draft.write_text(BODY[fmt], encoding="utf-8")
    done = run_citeledger("render", "--cited-in", draft.name, cwd=tmp_path, ledger=ledger)
    assert done.returncode == 0, done.stderr
    draft.write_text(BODY[fmt] + done.stdout, encoding="utf-8")
    return draft, ledger


@pytest.mark.parametrize("fmt", ["org", "rst", "tex", "typ"])
def test_render_cited_in_writes_a_block_the_drafts_reader_reads_as_entries(
    tmp_path: Path, fmt: str
) -> None:
    draft, _ledger = draft_with_rendered_block(tmp_path, fmt)
    tree = open_draft(draft).tree
    assert '"t": "Note"' not in str(tree).replace("'", '"')
    found = scan(tree)
    assert found.cited_ids() == [7, 3]
    assert found.sources is not None
    listed = entries(tree["blocks"], found.sources)
    assert [(e.id, e.url) for e in listed] == [(3, SOURCES[0][1]), (7, SOURCES[1][1])]


@pytest.mark.parametrize("fmt", ["org", "rst", "tex", "typ"])
def test_draft_with_rendered_block_verifies_with_its_ids(tmp_path: Path, fmt: str) -> None:
    draft, ledger = draft_with_rendered_block(tmp_path, fmt)
    done = run_citeledger("verify", draft.name, cwd=tmp_path, ledger=ledger)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 distinct source(s) cited" in done.stdout


@pytest.mark.parametrize("fmt", ["org", "tex", "typ"])
def test_draft_keeps_its_ledger_ids_in_html_word_and_slides(tmp_path: Path, fmt: str) -> None:
    draft, ledger = draft_with_rendered_block(tmp_path, fmt)
    done = run_citeledger(
        "convert", "-q", draft.name, "-o", "r.html", "-o", "r.docx", "-o", "r.pptx",
        cwd=tmp_path, ledger=ledger,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert re.findall(r'href="#src-(\d+)"', html)[:3] == ["7", "3", "7"]
    assert 'id="src-7"' in html and 'id="src-3"' in html
    with zipfile.ZipFile(tmp_path / "r.docx") as docx:
        body = docx.read("word/document.xml").decode("utf-8")
    marks = re.findall(r'customMarkFollows="1"/>.*?<w:t(?: [^>]*)?>([^<]*)</w:t>', body)
    assert [m.strip("[]") for m in marks][:2] == ["7", "3"]
    with zipfile.ZipFile(tmp_path / "r.pptx") as pptx:
        slides = " ".join(
            pptx.read(name).decode("utf-8")
            for name in pptx.namelist()
            if re.fullmatch(r"ppt/slides/slide\d+\.xml", name)
        )
    assert "[7]" in slides and "[3]" in slides and "[1]" not in slides


def test_org_draft_keeps_its_ledger_ids_through_the_pandoc_filter(tmp_path: Path) -> None:
    draft, ledger = draft_with_rendered_block(tmp_path, "org")
    done = run_filter(draft.name, "-f", "org", "-t", "html", cwd=tmp_path, ledger=ledger)
    assert done.returncode == 0, done.stderr
    assert re.findall(r'href="#src-(\d+)"', done.stdout)[:3] == ["7", "3", "7"]
    assert "footnote" not in done.stdout


def test_render_style_flag_wins_over_the_drafts_layout(tmp_path: Path) -> None:
    draft, ledger = draft_with_rendered_block(tmp_path, "org")
    done = run_citeledger(
        "render", "--cited-in", draft.name, "--style", "plain", cwd=tmp_path, ledger=ledger
    )
    assert done.stdout.splitlines()[0] == "Sources:"


def test_org_title_with_markup_is_verbatim_and_a_backslash_reads_back(tmp_path: Path) -> None:
    ledger = load_ledger(
        make_ledger(
            tmp_path / "ledger.json",
            [
                (1, "https://example.org/a", r"Costs \ 50% of $1M in_class *x*", "2024-01-01"),
                (2, "https://example.org/b", "a=b ~c~ [[https://evil.example]]", "2024-01-01"),
                (3, "https://example.org/c", "Plain title: ok", "2024-01-01"),
            ],
        )
    )
    block = render_block(ledger, None, "org")
    assert block.splitlines()[2:] == [
        r"- [1] https://example.org/a — =Costs \ 50% of $1M in_class *x*=",
        "- [2] https://example.org/b",
        "- [3] https://example.org/c — Plain title: ok",
    ]
    draft = tmp_path / "d.org"
    draft.write_text("Claim.[1][2][3]\n\n" + block + "\n", encoding="utf-8")
    tree = open_draft(draft).tree
    found = scan(tree)
    assert found.sources is not None
    assert [e.id for e in entries(tree["blocks"], found.sources)] == [1, 2, 3]


@pytest.mark.parametrize("fmt", ["org", "rst"])
def test_url_a_reader_would_cut_is_written_as_a_link_and_reads_back_whole(
    tmp_path: Path, fmt: str
) -> None:
    url = "https://example.org/a--b_(c)."
    ledger = load_ledger(make_ledger(tmp_path / "ledger.json", [(4, url, "T", "2024-01-01")]))
    block = render_block(ledger, None, fmt)
    assert ("[[" + url + "]]" if fmt == "org" else f"`{url} <{url}>`__") in block
    draft = tmp_path / f"d.{fmt}"
    draft.write_text("Claim.[4]\n\n" + block + "\n", encoding="utf-8")
    tree = open_draft(draft).tree
    found = scan(tree)
    assert found.sources is not None
    assert [(e.id, e.url) for e in entries(tree["blocks"], found.sources)] == [(4, url)]
