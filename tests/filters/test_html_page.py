"""The page-level passes of the html placement (``filters/html_page.py``), in-process and through
convert: marks bound to the word before them, the page's language said once, a figure's alt
text without markers, tables in their own box."""

from __future__ import annotations

import json
from pathlib import Path

from citeledger.filters.html_page import default_lang, direction
from citeledger.filters.run import apply
from citeledger.options import Options
from citeledger.pandoc import run_pandoc
from citeledger.tree import elements, stringify
from tests.helpers import ledger_of, make_ledger, run_citeledger

SOURCES = [(i, f"https://example.org/{i}", f"Title {i}", "2024-05-01") for i in range(1, 4)]


def tree(markdown: str) -> dict:
    doc: dict = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=markdown))
    return doc


def placed(markdown: str, tmp_path: Path, fmt: str = "html5") -> tuple[dict, list[str]]:
    said: list[str] = []
    doc = tree(markdown)
    ledger = ledger_of(tmp_path / "ledger.json", SOURCES)
    apply(doc, fmt, options=Options(), ledger=ledger, verify=False, say=said.append)
    return doc, said


def nowrap_texts(doc: dict) -> list[str]:
    return [
        stringify(el["c"][1])
        for el in elements(doc["blocks"])
        if el.get("t") == "Span"
        and "citeledger-nowrap" in el["c"][0][1]
        and any(i.get("t") == "Link" for i in el["c"][1])
    ]


def test_a_mark_is_bound_to_the_last_word_before_it_and_a_cluster_to_itself(tmp_path) -> None:
    doc, _ = placed("---\nlang: en\n---\n\nThe sign is clear [1][3]. Ice floats.[2]\n", tmp_path)
    assert nowrap_texts(doc) == ["clear [1][3]", "floats.[2]"]


def test_in_text_without_spaces_only_the_last_characters_go_with_the_mark(tmp_path) -> None:
    doc, _ = placed("---\nlang: zh\n---\n\n" + "冰浮在水上因为它比水轻很多。[1]\n", tmp_path)
    assert nowrap_texts(doc) == ["多。[1]"]


def test_a_draft_without_lang_gets_one_warning_and_a_documented_default(tmp_path) -> None:
    doc, said = placed("Ice floats.[1]\n", tmp_path)
    assert doc["meta"]["lang"]["c"] == "en"
    assert len([s for s in said if "no `lang`" in s]) == 1
    doc, said = placed("الجليد يطفو على الماء لأنه أخف منه.[1]\n", tmp_path)
    assert doc["meta"]["lang"]["c"] == "ar" and doc["meta"]["dir"]["c"] == "rtl"


def test_the_default_language_follows_the_script_that_writes_much_of_the_text() -> None:
    assert default_lang("Ice floats on water") == ("en", "ltr")
    assert default_lang("שלום עולם and a few English words") == ("he", "rtl")
    assert default_lang("日本語のテキスト") == ("ja", "ltr")
    assert default_lang("Привет, мир") == ("ru", "ltr")
    assert direction("fa-IR") == "rtl" and direction("en-GB") == "ltr"


def test_a_figure_alt_text_loses_its_marker_and_its_caption_keeps_the_live_mark(
    tmp_path,
) -> None:
    doc, _ = placed("---\nlang: en\n---\n\n![A chart of ice.[2]](x.png)\n", tmp_path)
    image = next(el for el in elements(doc["blocks"]) if el.get("t") == "Image")
    assert stringify(image["c"][1]) == "A chart of ice."
    figure = next(el for el in elements(doc["blocks"]) if el.get("t") == "Figure")
    assert any(el.get("t") == "Link" for el in elements(figure["c"][1]))


def test_a_date_in_an_entry_never_breaks(tmp_path) -> None:
    doc, _ = placed("---\nlang: en\n---\n\nIce floats.[1]\n", tmp_path)
    dates = [
        stringify(el["c"][1])
        for el in elements(doc["blocks"])
        if el.get("t") == "Span" and el["c"][0][1] == ["citeledger-nowrap"]
    ]
    assert "2024-05-01)" in dates


def test_a_table_sits_in_a_box_the_keyboard_can_scroll(tmp_path) -> None:
    doc, _ = placed("---\nlang: en\n---\n\n| a | b |\n|---|---|\n| 1 | 2 [1] |\n", tmp_path)
    box = next(el for el in elements(doc["blocks"]) if el.get("t") == "Div")
    assert box["c"][0][1] == ["citeledger-table"]
    assert ["role", "region"] in [list(kv) for kv in box["c"][0][2]]
    assert box["c"][1][0]["t"] == "Table"


def test_convert_says_the_missing_lang_once_for_every_html_output(tmp_path) -> None:
    (tmp_path / "d.md").write_text("Ice floats.[1]\n\n# Sources\n\n[1] https://example.org/1\n")
    make_ledger(tmp_path / "ledger.json", SOURCES[:1])
    done = run_citeledger(
        "--ledger", "ledger.json", "convert", "d.md", "-o", "a.html", "-o", "b.html",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("no `lang`") == 1
    for name in ("a.html", "b.html"):
        page = (tmp_path / name).read_text("utf-8")
        assert 'lang="en"' in page and "<main>" in page and "</main>" in page
