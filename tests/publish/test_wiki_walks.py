"""The wiki build's own walks over its pages: :func:`index_targets` passes over text without a
look inside, and must still find every id, link and footnote a full walk finds; gfm's citation
links become raw ``<a href>`` with their attributes escaped as before."""

from __future__ import annotations

import html
from pathlib import Path

from citeledger.pandoc import read_json
from citeledger.publish.wiki import Page
from citeledger.publish.wiki.links import CITE_CLASS, GfmLinks, LinkTarget, index_targets
from citeledger.tree import Json, elements, stringify

DRAFT = """\
# Ice {#ice}

Text with [a link](#water) and [another *link* with `code`{#code-id}](https://example.org).
Math $x^2$ and <b>raw</b> and a note.^[A note with [its link](#ice) and []{#note-span}.]

::: {#a-div}
| a | b [in a cell](#ice)^[cell note] |
|---|---|
| [x]{#cell-span} | `y` |

: A caption [with a link](#a-div) {#tbl-id}
:::

![A figure [linked](#ice)](img.png){#fig-id}

```{#code-block}
code
```

# Water

- item [one](#ice)
    - nested [two](#water)

Term [t](#x)
:   Definition [d](#y)

| line [block](#ice)

> Quote [q](#ice) and ~~struck [s](#ice)~~ and "quoted [k](#ice)".
"""


def _reference(pages: list[Page]) -> dict[str, LinkTarget]:
    """What the index found with the full walk of ``tree.elements`` (before it passed over
    text elements)."""
    at = {"Header": 1, "Div": 0, "Span": 0, "CodeBlock": 0, "Code": 0, "Figure": 0, "Table": 0}
    targets: dict[str, LinkTarget] = {}
    for page in pages:
        for el in elements(page.blocks):
            t = el["t"]
            if t == "Link":
                page.links.append(el)
                continue
            if t == "Note":
                page.has_notes = True
            if t not in at:
                continue
            ident = el["c"][at[t]][0]
            if ident and ident not in targets:
                heading = stringify(el["c"][2]) if t == "Header" else None
                targets[ident] = LinkTarget(page.slug, ident, heading)
    return targets


def _odd_paragraph() -> Json:
    """A link nested in a link's text, with an id in it: no reader makes one, a filter might."""
    inner = {"t": "Span", "c": [["inner-span", [], []], [{"t": "Str", "c": "in"}]]}
    nested = {"t": "Link", "c": [["", [], []], [inner], ["#ice", ""]]}
    outer = {"t": "Link", "c": [["outer", [], []], [{"t": "Str", "c": "x"}, nested], ["#w", ""]]}
    return {"t": "Para", "c": [{"t": "Str", "c": "Odd"}, outer]}


def _pages(doc: Json, odd: Json) -> list[Page]:
    blocks = doc["blocks"]
    cut = next(i for i, b in enumerate(blocks) if i and b["t"] == "Header")
    return [
        Page("Ice", "ice", blocks[:cut], {}, ""),
        Page("Water", "water", [*blocks[cut:], odd], {}, ""),
    ]


def test_index_targets_finds_what_a_full_walk_finds(tmp_path: Path) -> None:
    draft = tmp_path / "d.md"
    draft.write_text(DRAFT, encoding="utf-8")
    doc = read_json(draft)
    odd = _odd_paragraph()
    expected_pages = _pages(doc, odd)
    expected = _reference(expected_pages)
    pages = _pages(doc, odd)
    found = index_targets(pages)
    assert found == expected
    assert {"ice", "code-id", "note-span", "a-div", "cell-span", "tbl-id", "fig-id"} <= set(found)
    assert {"code-block", "inner-span"} <= set(found)
    for page, want in zip(pages, expected_pages, strict=True):
        assert [id(el) for el in page.links] == [id(el) for el in want.links]
        assert page.has_notes == want.has_notes
    assert pages[0].has_notes and not pages[1].has_notes
    assert len(pages[1].links) == 10  # eight in the draft, the odd one and the link in it


def test_gfm_citation_links_keep_their_escaped_target_and_id() -> None:
    def cite(ident: str, href: str) -> Json:
        return {
            "t": "Link",
            "c": [[ident, [CITE_CLASS], []], [{"t": "Str", "c": "[1]"}], [href, ""]],
        }

    odd_id, odd_href = "q\"<&>'", "#a&b<c>\"'"
    inlines: list[Json] = [
        {"t": "Str", "c": "A"},
        cite("cite-1-1", "#src-1"),
        {"t": "Space"},
        cite(odd_id, odd_href),
        cite("", "#src-2"),
        {"t": "Str", "c": "end"},
    ]
    GfmLinks().inlines(inlines)
    raw = [el["c"][1] for el in inlines if el["t"] == "RawInline"]
    assert raw == [
        '<a href="#src-1" id="cite-1-1">',
        "</a>",
        f'<a href="{html.escape(odd_href)}" id="{html.escape(odd_id)}">',
        "</a>",
        '<a href="#src-2">',
        "</a>",
    ]
    assert [el["c"] for el in inlines if el["t"] == "Str"] == ["A", "[1]", "[1]", "[1]", "end"]
