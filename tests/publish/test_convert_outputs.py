"""``citeledger convert``: one verification, every output written and read back."""

from __future__ import annotations

import os
import sys
from html.parser import HTMLParser
from pathlib import Path

from pypdf import PdfReader

from tests.helpers import run_citeledger


def citeledger(*args: str, cwd: Path, env: dict[str, str] | None = None):
    return run_citeledger(*args, cwd=cwd, env=env)


class Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, str, str]] = []  # (class, href, own id)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.links.append((a.get("class", ""), a["href"], a.get("id", "")))


def test_convert_writes_html_whose_marks_and_back_links_resolve(draft: Path) -> None:
    proc = citeledger("convert", "input.md", "-o", "out.html", cwd=draft.parent)
    assert proc.returncode == 0, proc.stderr
    parser = Anchors()
    parser.feed((draft.parent / "out.html").read_text(encoding="utf-8"))
    cites = [link for link in parser.links if link[0] == "citeledger-cite"]
    backs = [link for link in parser.links if link[0] == "citeledger-back"]
    assert [href for _, href, _ in cites] == [
        "#src-1",
        "#src-2",
        "#src-3",
        "#src-2",
        "#src-3",
        "#src-1",
    ]
    assert {"src-1", "src-2", "src-3"} <= parser.ids and "src-4" not in parser.ids
    for _, href, _ in cites + backs:
        assert href[1:] in parser.ids, href
    assert sorted(href for _, href, _ in backs) == sorted("#" + own for _, _, own in cites)


def test_convert_writes_typst_pdf_with_marks_sources_and_live_links(draft: Path) -> None:
    proc = citeledger("convert", "input.md", "-o", "out.pdf", cwd=draft.parent)
    assert proc.returncode == 0, proc.stderr
    reader = PdfReader(draft.parent / "out.pdf")
    # Without the word joiners that keep each mark on its word (no glyph, no width).
    text = "\n".join(page.extract_text() for page in reader.pages).replace("\u2060", "")
    assert "water.[1][2]" in text
    assert "Sources" in text
    assert "https://example.org/extent" in text and "Never cited" not in text
    uris = set()
    internal = 0
    for page in reader.pages:
        for annot in page.get("/Annots") or []:
            action = annot.get_object().get("/A")
            if action and "/URI" in action:
                uris.add(action["/URI"])
            elif annot.get_object().get("/Dest") is not None:
                internal += 1
    assert {"https://example.org/density", "https://example.org/melt"} <= uris
    assert internal >= 6 + 3  # every mark to its entry, every entry back to its first mark


def test_convert_writes_several_outputs_from_one_verification(draft: Path) -> None:
    proc = citeledger(
        "convert",
        "input.md",
        "-o",
        "a.html",
        "-o",
        "b.md",
        "-o",
        "c.tex",
        "--to",
        "gfm",
        cwd=draft.parent,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("citations OK") == 1
    assert '<a id="src-1"></a>' in (draft.parent / "b.md").read_text(encoding="utf-8")
    assert "<html" not in (draft.parent / "c.tex").read_text(encoding="utf-8")  # --to gfm
    assert "<!DOCTYPE html>" not in (draft.parent / "a.html").read_text(encoding="utf-8")


def test_failed_verification_exits_1_and_writes_no_file(draft: Path) -> None:
    text = draft.read_text(encoding="utf-8").replace("summer.[2]", "summer.[99]")
    draft.write_text(text, encoding="utf-8")
    before = set(os.listdir(draft.parent))
    proc = citeledger("convert", "input.md", "-o", "out.docx", "-o", "out.pdf", cwd=draft.parent)
    assert proc.returncode == 1
    assert "FAIL" in proc.stderr and "99" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert set(os.listdir(draft.parent)) == before


def test_missing_tex_engine_is_one_line_saying_what_to_install(draft: Path) -> None:
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    proc = citeledger(
        "convert",
        "input.md",
        "-o",
        "out.pdf",
        "--pdf-engine",
        "lualatex",
        cwd=draft.parent,
        env=env,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "lualatex not found" in lines[0] and "texlive" in lines[0]
    assert not (draft.parent / "out.pdf").exists()


def test_unknown_output_extension_is_one_clear_error(draft: Path) -> None:
    proc = citeledger("convert", "input.md", "-o", "out.xyz", cwd=draft.parent)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "citeledger: error: out.xyz: cannot tell the output format from the extension .xyz "
        "(add --to FORMAT (a pandoc writer such as html5, gfm, latex))"
    ]


def test_docx_written_by_convert_verifies_back_against_the_ledger(draft: Path) -> None:
    proc = citeledger("convert", "input.md", "-o", "out.docx", cwd=draft.parent)
    assert proc.returncode == 0, proc.stderr
    check = citeledger("verify", "out.docx", cwd=draft.parent)
    assert check.returncode == 0, check.stderr
    assert "citations OK" in check.stdout
