"""``tree.join_words`` and the ``joins_words`` facts of the formats table: convert hands the
writers marked so each run of words as one Str, which pandoc reads and writes faster, and the
claim is that they write the very same file. The claim is checked here with the pandoc in use
on real documents, so a pandoc that starts writing a joined run differently fails this test
rather than a reader's document."""

from __future__ import annotations

import copy
import json
import zipfile
from pathlib import Path

import pytest

from citeledger import formats
from citeledger.pandoc import run_pandoc
from citeledger.tree import join_words, replace_elements
from tests.helpers import FIXTURES

REAL = FIXTURES / "corpora" / "real"
# Parts that hold the time of writing, not the document.
DATED = {"docProps/core.xml", "meta.xml"}


def s(text: str) -> dict:
    return {"t": "Str", "c": text}


SPACE = {"t": "Space"}


def test_a_run_of_words_becomes_one_str_and_the_rest_stays() -> None:
    link = {"t": "Link", "c": [["", [], []], [s("a"), SPACE, s("link")], ["https://x.org", ""]]}
    note = {"t": "Note", "c": [{"t": "Para", "c": [s("in"), SPACE, s("note")]}]}
    code = {"t": "CodeBlock", "c": [["", [], []], "a  b"]}
    shared = s("Ice")
    blocks = [
        {"t": "Para", "c": [shared, SPACE, s("floats."), SPACE, link, SPACE, s("x"), note]},
        {"t": "Para", "c": [s("one"), {"t": "SoftBreak"}, s("two"), SPACE]},
        code,
        {"t": "Header", "c": [2, ["h", [], []], [s("A"), SPACE, s("heading")]]},
    ]
    join_words(blocks)
    assert blocks[0]["c"] == [s("Ice floats."), SPACE, link, SPACE, {"t": "Str", "c": "x"}, note]
    assert link["c"][1] == [s("a link")]
    assert note["c"][0]["c"] == [s("in note")]
    assert blocks[1]["c"] == [s("one"), {"t": "SoftBreak"}, s("two"), SPACE]
    assert blocks[2] == code
    assert blocks[3]["c"][2] == [s("A heading")]
    assert shared == s("Ice")  # a new Str: the first word's element may be used elsewhere


def _written(doc: dict, fmt: str, tmp_path: Path, name: str) -> dict[str, bytes]:
    args = ["-f", "json", "-t", fmt, "--standalone", "-M", "title=t"]
    payload = json.dumps(doc, ensure_ascii=False)
    if not formats.is_binary(fmt):
        return {"": run_pandoc(args, stdin=payload)}
    out = tmp_path / f"{name}.{fmt}"
    run_pandoc([*args, "-o", str(out)], stdin=payload)
    with zipfile.ZipFile(out) as zf:
        return {n: zf.read(n) for n in zf.namelist() if n not in DATED}


JOINING = [row.name for row in formats.ROWS if row.joins_words]


def test_the_table_names_the_writers_convert_joins_words_for() -> None:
    assert sorted(JOINING) == ["docx", "html", "html4", "html5", "odt", "pptx"]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", JOINING)
@pytest.mark.parametrize(
    "draft", ["pandoc-lua-filters.md", "rtl-persian-rich-README.fa.md", "quarto-figures.qmd"]
)
def test_a_writer_marked_joins_words_writes_the_same_file(
    fmt: str, draft: str, tmp_path: Path
) -> None:
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json", str(REAL / draft)]))
    # No image: pandoc would fetch the remote ones into a package (no network in tests).
    replace_elements(doc["blocks"], lambda el: el["c"][1] if el.get("t") == "Image" else None)
    raw = json.dumps(doc)
    joined = copy.deepcopy(doc)
    join_words(joined["blocks"])
    assert len(json.dumps(joined)) < len(raw)  # there were words to join
    assert _written(joined, fmt, tmp_path, "joined") == _written(doc, fmt, tmp_path, "as-read")
