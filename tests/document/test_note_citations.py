"""Footnotes whose text is a ledger URL cite that source in every format pandoc reads, and every
build places them as the citations of their ledger ids.

Research agents export markdown citing ``[^1]`` with ``[^1]: https://...`` (Perplexity), PEPs
cite URL footnotes in reStructuredText, and Org reads ``[1] url`` at the start of a line as a
footnote definition. Verify saw 0 citations in such a markdown or rst draft and said OK, and the
builds numbered the footnotes 1..k instead of linking the ledger's ids.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

from tests.helpers import make_ledger, run_citeledger, run_filter

SOURCES = [
    (3, "https://example.org/three", "Sea ice extent", "2024-01-01"),
    (7, "https://example.org/seven", "Why ice floats", "2024-01-01"),
]
DRAFTS = {
    "md": (
        "Ice floats on water.[^1] Sea ice shrinks.[^2] It floats, some say.[^3]\n\n"
        "[^1]: https://example.org/seven\n"
        "[^2]: Sea ice extent. https://example.org/three (accessed 2024-03-05)\n"
        "[^3]: See https://example.org/seven, though the claim is disputed.\n"
    ),
    "rst": (
        "Ice floats on water [#]_. Sea ice shrinks [#]_. It floats, some say [#]_.\n\n"
        ".. [#] https://example.org/seven\n"
        ".. [#] Sea ice extent. https://example.org/three (accessed 2024-03-05)\n"
        ".. [#] See https://example.org/seven, though the claim is disputed.\n"
    ),
    # The layout `render` wrote before it knew Org: footnote definitions to Org's reader.
    "org": (
        "Ice floats on water.[1] Sea ice shrinks.[2] It floats, some say.[3]\n\n"
        "[1] https://example.org/seven\n\n"
        "[2] Sea ice extent. https://example.org/three (accessed 2024-03-05)\n\n"
        "[3] See https://example.org/seven, though the claim is disputed.\n"
    ),
}
READERS = {"md": "markdown", "rst": "rst", "org": "org"}


def write_draft(tmp_path: Path, fmt: str) -> tuple[Path, Path]:
    ledger = make_ledger(tmp_path / "ledger.json", SOURCES)
    draft = tmp_path / f"report.{fmt}"
    draft.write_text(DRAFTS[fmt], encoding="utf-8")
    return draft, ledger


@pytest.mark.parametrize("fmt", ["md", "rst"])
def test_footnote_holding_a_ledger_url_is_a_citation_for_verify(tmp_path: Path, fmt: str) -> None:
    draft, ledger = write_draft(tmp_path, fmt)
    done = run_citeledger("verify", "--format", "json", draft.name, cwd=tmp_path, ledger=ledger)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"cited_ids": [\n    7,\n    3\n  ]' in done.stdout
    assert '"footnote_citations": 3' in done.stdout


@pytest.mark.parametrize("fmt", ["md", "rst"])
def test_footnote_url_the_ledger_lacks_is_a_warning_in_a_citing_draft(
    tmp_path: Path, fmt: str
) -> None:
    draft, ledger = write_draft(tmp_path, fmt)
    note = "[^4]: https://example.org/unregistered\n" if fmt == "md" else ""
    if fmt == "md":
        draft.write_text(DRAFTS[fmt].replace("some say.[^3]", "some say.[^3] Odd.[^4]") + note)
    else:
        draft.write_text(
            DRAFTS[fmt].replace("some say [#]_.", "some say [#]_. Odd [#]_.")
            + ".. [#] https://example.org/unregistered\n"
        )
    done = run_citeledger("verify", "--strict", draft.name, cwd=tmp_path, ledger=ledger)
    assert done.returncode == 1
    assert "footnote links to https://example.org/unregistered" in done.stdout + done.stderr


def test_document_citing_nothing_is_not_held_to_its_footnotes_links(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path / "ledger.json", SOURCES)
    (tmp_path / "readme.md").write_text("Install it.[^1]\n\n[^1]: See https://pypi.org/.\n")
    done = run_citeledger("verify", "readme.md", cwd=tmp_path, ledger=ledger)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "footnote" not in done.stdout + done.stderr


def html_ids(html: str) -> list[str]:
    return re.findall(r'href="#src-(\d+)"', html)


@pytest.mark.parametrize("fmt", ["md", "rst", "org"])
def test_convert_places_footnote_citations_as_their_ledger_ids(tmp_path: Path, fmt: str) -> None:
    draft, ledger = write_draft(tmp_path, fmt)
    done = run_citeledger(
        "convert", "-q", draft.name, "-o", "r.html", "-o", "r.docx", cwd=tmp_path, ledger=ledger
    )
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert html_ids(html)[:3] == ["7", "3", "7"]
    # The note that says more than its source keeps its words, after the citation.
    assert "disputed" in html
    assert html.count('class="footnote-ref"') == 1
    with zipfile.ZipFile(tmp_path / "r.docx") as docx:
        body = docx.read("word/document.xml").decode("utf-8")
    marks = re.findall(r'customMarkFollows="1"/>.*?<w:t(?: [^>]*)?>([^<]*)</w:t>', body)
    assert [m.strip("[]") for m in marks][:2] == ["7", "3"]


@pytest.mark.parametrize("fmt", ["md", "rst", "org"])
def test_pandoc_filter_places_footnote_citations_as_their_ledger_ids(
    tmp_path: Path, fmt: str
) -> None:
    draft, ledger = write_draft(tmp_path, fmt)
    done = run_filter(draft.name, "-f", READERS[fmt], "-t", "html", cwd=tmp_path, ledger=ledger)
    assert done.returncode == 0, done.stderr
    assert html_ids(done.stdout)[:3] == ["7", "3", "7"]
    assert 'id="src-7"' in done.stdout and 'id="src-3"' in done.stdout


def test_pandoc_filter_leaves_a_document_whose_footnotes_cite_nothing(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path / "ledger.json", SOURCES)
    (tmp_path / "n.md").write_text("Install it.[^1]\n\n[^1]: See https://pypi.org/.\n")
    done = run_filter("n.md", "-t", "html", cwd=tmp_path, ledger=ledger)
    assert done.returncode == 0, done.stderr
    assert "src-" not in done.stdout and 'class="footnote-ref"' in done.stdout


def test_footnote_citations_of_a_wiki_page_link_the_ledger_ids(tmp_path: Path) -> None:
    draft, ledger = write_draft(tmp_path, "md")
    done = run_citeledger(
        "wiki", draft.name, "-o", "site", "-t", "html", cwd=tmp_path, ledger=ledger
    )
    assert done.returncode == 0, done.stderr
    pages = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "site").rglob("*.html"))
    assert "#src-7" in pages and "#src-3" in pages


def test_footnote_citation_findings_name_the_line_of_the_reference(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path / "ledger.json", SOURCES)
    (tmp_path / "d.md").write_text(
        "# Intro\n\nIce floats.[^1] Code `[^2]` is text.^[https://example.org/three]\n\n"
        "```\n[^1]\n```\n\nOdd.[^x] Undefined [^nope] stays text.\n\n"
        "[^1]: https://example.org/seven\n[^x]: See https://unregistered.example/z for more.\n",
        encoding="utf-8",
    )
    done = run_citeledger("verify", "--evidence", "d.md", cwd=tmp_path, ledger=ledger)
    out = done.stdout + done.stderr
    assert "d.md:3:12: cited sources carry no verbatim evidence quote" in out
    assert "d.md:3:37: cited sources carry no verbatim evidence quote" in out
    assert "d.md:9:5: a footnote links to https://unregistered.example/z" in out


@pytest.mark.parametrize("fmt", ["md", "rst"])
def test_render_cited_in_lists_the_sources_footnotes_cite(tmp_path: Path, fmt: str) -> None:
    draft, ledger = write_draft(tmp_path, fmt)
    done = run_citeledger("render", "--cited-in", draft.name, cwd=tmp_path, ledger=ledger)
    assert done.returncode == 0, done.stderr
    listed = re.findall(r"\[(\d+)\] https://example\.org/(\w+)", done.stdout)
    assert listed == [("3", "three"), ("7", "seven")]
