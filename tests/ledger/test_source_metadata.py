"""A source's library fields (author, issued, site, key): given by ``add``, kept by the ledger
only when set, validated on load, carried by merge, and shown by every output's Sources entry in
one house style, escaped like titles, while the entries still verify back."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from docx import Document
from pptx import Presentation

from citeledger.errors import CiteledgerError
from citeledger.ledger import load_ledger, render_block
from citeledger.ledger.merge import merge_ledgers
from citeledger.ledger.model import Ledger
from citeledger.pandoc import run_pandoc
from citeledger.tree import stringify
from tests.helpers import GOLDEN_ROOT, run_citeledger

HOSTILE = "<b>Okafor</b> [x](javascript:alert(1))"


def test_add_records_author_date_site_and_key(cli, tmp_path: Path) -> None:
    result = cli(
        "--ledger", "L.json", "add", "https://z.example/item", "--title", "Item",
        "--author", "Okafor, Ada; World Health Organization", "--issued", "2023-04",
        "--site", "Polar Notes", "--key", "okafor2023",
    )  # fmt: skip
    assert result.code == 0, result.err
    stored = json.loads((tmp_path / "L.json").read_text(encoding="utf-8"))["sources"][0]
    assert list(stored) == [
        "id", "url", "title", "accessed", "author", "issued", "site", "key", "quotes",
    ]  # fmt: skip
    assert stored["author"] == [
        {"family": "Okafor", "given": "Ada"},
        {"literal": "World Health Organization"},
    ]
    assert (stored["issued"], stored["site"], stored["key"]) == (
        "2023-04",
        "Polar Notes",
        "okafor2023",
    )


def test_a_source_without_library_fields_is_stored_as_before(cli, tmp_path: Path) -> None:
    assert cli("--ledger", "L.json", "add", "https://z.example/item").code == 0
    stored = json.loads((tmp_path / "L.json").read_text(encoding="utf-8"))["sources"][0]
    assert list(stored) == ["id", "url", "title", "accessed", "quotes"]


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--issued", "April 2023", "is not a date"),
        ("--issued", "2023-02-30", "is not a date"),
        ("--key", "a,b{c}", "is not a citation key"),
    ],
)
def test_add_refuses_a_bad_date_or_key_and_writes_nothing(
    cli, tmp_path: Path, flag: str, value: str, says: str
) -> None:
    result = cli("--ledger", "L.json", "add", "https://z.example/item", flag, value)
    assert result.code == 2 and says in result.err
    assert not (tmp_path / "L.json").exists()


def test_a_key_names_one_source(cli, tmp_path: Path) -> None:
    assert cli("--ledger", "L.json", "add", "https://a.example/", "--key", "k1").code == 0
    before = (tmp_path / "L.json").read_bytes()
    result = cli("--ledger", "L.json", "add", "https://b.example/", "--key", "k1")
    assert result.code == 2 and "held by [1]" in result.err
    assert (tmp_path / "L.json").read_bytes() == before


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("author", "Okafor", "sources[0].author is not a list"),
        ("author", [{"family": 3}], "sources[0].author[0].family is not a string"),
        ("issued", 2023, "sources[0].issued is not a string"),
        ("key", "x}\n@misc{evil,", "sources[0].key is not a citation key"),
    ],
)
def test_a_ledger_with_a_malformed_library_field_is_refused_on_load(
    tmp_path: Path, field: str, value: object, says: str
) -> None:
    source = {"id": 1, "url": "https://a.example/", "title": "", "accessed": "", field: value}
    path = tmp_path / "L.json"
    path.write_text(json.dumps({"version": 1, "sources": [source]}), encoding="utf-8")
    with pytest.raises(CiteledgerError, match=says.replace("[", r"\[").replace("]", r"\]")):
        load_ledger(path)


def test_two_sources_with_one_key_are_refused_on_load(tmp_path: Path) -> None:
    sources = [
        {"id": n, "url": f"https://a.example/{n}", "title": "", "accessed": "", "key": "k"}
        for n in (1, 2)
    ]
    path = tmp_path / "L.json"
    path.write_text(json.dumps({"version": 1, "sources": sources}), encoding="utf-8")
    with pytest.raises(CiteledgerError, match="key 'k' appears twice"):
        load_ledger(path)


def test_merge_carries_library_fields_and_fills_empty_ones(tmp_path: Path) -> None:
    ours = Ledger(tmp_path / "ours.json")
    ours.add("https://a.example/", title="A")
    theirs = Ledger(tmp_path / "theirs.json")
    from citeledger.ledger.bibliography import Details

    theirs.add("https://a.example/", title="A", details=Details(issued="2020", key="ka"))
    theirs.add("https://b.example/", details=Details([{"family": "Lee"}], site="S", key="kb"))
    result = merge_ledgers(ours, theirs)
    assert (result.new, result.details_filled) == ([2], 1)
    a, b = ours.source(1), ours.source(2)
    assert (a.issued, a.key) == ("2020", "ka")
    assert (b.author, b.site, b.key) == ([{"family": "Lee"}], "S", "kb")


def test_markdown_entry_shows_author_year_title_site_with_web_text_escaped(tmp_path: Path) -> None:
    book = _ledger_with_details(tmp_path)
    block = render_block(book, [1], "markdown")
    assert block.splitlines()[-1] == (
        "[1] https://example.org/density — \\<b\\>Okafor\\</b\\> \\[x\\](javascript:alert(1)); "
        "Lee, Bo (2023). Density of sea ice. Polar \\*Notes\\*"
    )
    # Read back as markdown, the entry is text: no tag, no link but the URL.
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=block))
    kinds = json.dumps(doc["blocks"])
    assert "RawInline" not in kinds and "javascript" not in _link_targets(doc)


def _link_targets(doc: dict) -> str:
    found: list[str] = []
    stack: list[object] = [doc["blocks"]]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("t") == "Link":
                found.append(node["c"][2][0])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return " ".join(found)


def _ledger_with_details(folder: Path) -> Ledger:
    data = json.loads((GOLDEN_ROOT / "filter" / "report" / "ledger.json").read_text())
    data["sources"][0].update(
        author=[{"literal": HOSTILE}, {"family": "Lee", "given": "Bo"}],
        issued="2023-04-12",
        site="Polar *Notes*",
        key="density2023",
    )
    path = folder / "ledger.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_ledger(path)


def _text_of(path: Path, fmt: str) -> str:
    doc = json.loads(run_pandoc(["-f", fmt, "-t", "json", str(path)]))
    return " ".join(stringify(doc["blocks"]).split())


def test_every_output_shows_the_library_fields_and_verifies_back(tmp_path: Path) -> None:
    shutil.copy(GOLDEN_ROOT / "filter" / "report" / "input.md", tmp_path / "input.md")
    _ledger_with_details(tmp_path)
    outputs = ("out.html", "out.docx", "out.pptx", "out.md")
    args = [arg for out in outputs for arg in ("-o", out)]
    made = run_citeledger(
        "convert", "input.md", *args, cwd=tmp_path, ledger=tmp_path / "ledger.json"
    )
    assert made.returncode == 0, made.stderr
    for out in outputs:
        check = run_citeledger("verify", out, cwd=tmp_path, ledger=tmp_path / "ledger.json")
        assert check.returncode == 0, (out, check.stdout, check.stderr)
    lead = f"{HOSTILE}; Lee, Bo (2023). Density of sea ice. Polar *Notes*."
    html = (tmp_path / "out.html").read_text(encoding="utf-8")
    assert "&lt;b&gt;Okafor&lt;/b&gt;" in html and "<b>Okafor" not in html
    assert 'href="javascript' not in html
    html_text = _text_of(tmp_path / "out.html", "html")
    assert lead in html_text
    docx_text = "\n".join(p.text for p in Document(str(tmp_path / "out.docx")).paragraphs)
    assert lead in docx_text
    deck = Presentation(str(tmp_path / "out.pptx"))
    slide_text = "\n".join(
        shape.text_frame.text
        for slide in deck.slides
        for shape in slide.shapes
        if shape.has_text_frame
    )
    assert f"{HOSTILE}; Lee, Bo (2023). Density of sea ice. Polar *Notes*" in slide_text
    md_text = _text_of(tmp_path / "out.md", "markdown")
    assert lead in md_text


def test_a_hostile_author_reaches_latex_and_typst_as_text(tmp_path: Path) -> None:
    shutil.copy(GOLDEN_ROOT / "filter" / "report" / "input.md", tmp_path / "input.md")
    data = json.loads((GOLDEN_ROOT / "filter" / "report" / "ledger.json").read_text())
    data["sources"][0]["author"] = [{"literal": r"\input{/etc/passwd} #set text(red) $x$"}]
    data["sources"][0]["site"] = '}#link("javascript:x")['
    (tmp_path / "ledger.json").write_text(json.dumps(data), encoding="utf-8")
    made = run_citeledger(
        "convert", "input.md", "-o", "out.tex", "-o", "out.typ",
        cwd=tmp_path, ledger=tmp_path / "ledger.json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    tex = (tmp_path / "out.tex").read_text(encoding="utf-8")
    assert r"\input{/etc/passwd}" not in tex and "textbackslash" in tex
    typ = (tmp_path / "out.typ").read_text(encoding="utf-8")
    assert not re.search(r'(?<!\\)#(link\("javascript|set text)', typ)
    assert r"\#set text(red)" in typ
