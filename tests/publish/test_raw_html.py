"""``sanitize_raw_html`` walks the tree once, and does what its three walks did: every live
attribute dropped wherever an ``Attr`` sits, every ``javascript:`` link made its text (inner
links first), every raw HTML element of the blocks and the metadata cleaned; the count it
returns is the same."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from citeledger.filters import raw_html
from citeledger.filters.raw_html import sanitize_raw_html
from citeledger.pandoc import read_json
from citeledger.tree import Json, elements, replace_elements


def three_walks(doc: Json) -> int:
    """The sanitiser as it was: attributes, then links, then raw HTML, a walk each."""
    changed = raw_html._clean_attributes([doc.get("blocks", []), doc.get("meta", {})])

    def unlink(el: Json) -> list[Json] | None:
        nonlocal changed
        if raw_html._is_live_link(el):
            changed += 1
            return list(el["c"][1])
        return None

    replace_elements(doc.get("blocks", []), unlink)
    for value in doc.get("meta", {}).values():
        if isinstance(value, dict) and isinstance(value.get("c"), list):
            replace_elements(value["c"], unlink)
    for el in elements([doc.get("blocks", []), list(doc.get("meta", {}).values())]):
        changed += raw_html._clean_raw(el)
    return changed


def same_as_three_walks(doc: Json) -> int:
    ours, theirs = copy.deepcopy(doc), copy.deepcopy(doc)
    count = sanitize_raw_html(ours)
    assert count == three_walks(theirs)
    assert json.dumps(ours, sort_keys=True) == json.dumps(theirs, sort_keys=True)
    return count


def attr(ident: str = "", kv: list[list[str]] | None = None) -> list[Any]:
    return [ident, [], kv or []]


def text(s: str) -> Json:
    return {"t": "Str", "c": s}


def test_one_walk_cleans_links_attributes_and_raw_html_and_counts_each() -> None:
    raw = {"t": "RawInline", "c": ["html", "<script>x()</script>"]}
    span = {"t": "Span", "c": [attr("s", [["onclick", "a()"], ["dir", "rtl"]]), [text("in")]]}
    inner = {"t": "Link", "c": [attr(), [text("inner")], ["data:text/html,x", ""]]}
    live = {"t": "Link", "c": [attr(), [span, raw, inner], [" JavaScript:alert(1)", ""]]}
    fine = {"t": "Link", "c": [attr("", [["style", "x"]]), [text("ok")], ["https://e.org", ""]]}
    doc = {
        "pandoc-api-version": [1, 23, 1],
        "meta": {"title": {"t": "MetaInlines", "c": [copy.deepcopy(raw)]}},
        "blocks": [{"t": "Para", "c": [text("a"), live, fine]}],
    }
    # span's onclick, inner and live unlinked, the script twice, fine's style
    assert same_as_three_walks(doc) == 6
    sanitize_raw_html(doc)
    para = doc["blocks"][0]["c"]
    assert [el["t"] for el in para] == ["Str", "Span", "RawInline", "Str", "Link"]
    assert para[1]["c"][0] == ["s", [], [["dir", "rtl"]]]
    assert para[2]["c"][1] == "" and doc["meta"]["title"]["c"][0]["c"][1] == ""
    assert para[4]["c"][0] == attr()


def test_attributes_outside_the_element_walk_are_cleaned_too() -> None:
    # A citation's prefix and a metadata map are not walked for elements, but an Attr in them
    # loses its live attributes all the same.
    span = {"t": "Span", "c": [attr("", [["onmouseover", "x"]]), [text("p")]]}
    citation = {"citationId": "k", "citationPrefix": [span], "citationSuffix": []}
    meta_span = copy.deepcopy(span)
    doc = {
        "meta": {"m": {"t": "MetaMap", "c": {"a": {"t": "MetaInlines", "c": [meta_span]}}}},
        "blocks": [{"t": "Para", "c": [{"t": "Cite", "c": [[citation], [text("[@k]")]]}]}],
    }
    assert same_as_three_walks(doc) == 2
    sanitize_raw_html(doc)
    assert span["c"][0][2] == [] and meta_span["c"][0][2] == []


def _random_inlines(rng: random.Random, depth: int) -> list[Json]:
    urls = ["javascript:x", "https://e.org/", "#a", "data:x", " vbscript:y"]
    raws = ["<script>x</script>", "<sub>", "</sub>", '<b onclick="x">b</b>', "<br>", "</p>"]
    kvs = [["onclick", "a"], ["style", "s"], ["href", "javascript:x"], ["dir", "rtl"], ["k", "v"]]
    out: list[Json] = []
    for _ in range(rng.randint(0, 4)):
        roll = rng.random()
        a = attr("", [list(kv) for kv in rng.sample(kvs, rng.randint(0, 3))])
        if depth > 3 or roll < 0.3:
            out.append(rng.choice([text("w"), {"t": "Space"}]))
        elif roll < 0.45:
            out.append(
                {"t": "RawInline", "c": [rng.choice(["html", "HTML5", "latex"]), rng.choice(raws)]}
            )
        elif roll < 0.65:
            inner = _random_inlines(rng, depth + 1)
            out.append({"t": "Link", "c": [a, inner, [rng.choice(urls), ""]]})
        elif roll < 0.8:
            out.append({"t": "Span", "c": [a, _random_inlines(rng, depth + 1)]})
        elif roll < 0.9:
            note = [{"t": "Para", "c": _random_inlines(rng, depth + 1)}]
            out.append({"t": "Note", "c": note})
        else:
            out.append(
                {"t": "Image", "c": [a, _random_inlines(rng, depth + 1), [rng.choice(urls), ""]]}
            )
    return out


def test_one_walk_matches_three_on_random_trees() -> None:
    rng = random.Random(24)
    total = 0
    for _ in range(300):
        blocks = [
            {"t": "Para", "c": _random_inlines(rng, 0)},
            {
                "t": "Div",
                "c": [attr("d", [["onload", "x"]]), [{"t": "Plain", "c": _random_inlines(rng, 1)}]],
            },
            {"t": "RawBlock", "c": ["html", rng.choice(["<script>a</script>", "<div>ok</div>"])]},
        ]
        meta = {"t": {"t": "MetaInlines", "c": _random_inlines(rng, 1)}}
        total += same_as_three_walks({"meta": meta, "blocks": blocks})
    assert total > 1000  # the trees were hostile enough to exercise every branch


def test_one_walk_matches_three_on_real_drafts() -> None:
    real = Path(__file__).resolve().parents[1] / "fixtures" / "corpora" / "real"
    counts = {
        path.name: same_as_three_walks(read_json(path, from_format="markdown"))
        for path in sorted(real.glob("*.md"))
    }
    assert counts["readme-badges-shields-io.md"] > 0, counts
