"""A long markdown draft read by several pandoc runs at once (document/parts.py): the joined
tree is the tree pandoc gives the whole draft, and a draft whose parts pandoc would read
otherwise than the whole is read whole. Each refused case below is one where joining parts cut
at the middle heading would give another tree than pandoc's: the rule is needed, not only
careful."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import citeledger.document.parts as parts_module
from citeledger.document.draft import open_draft
from citeledger.document.parts import cuts, read_in_parts
from citeledger.pandoc import run_pandoc


def whole(text: str) -> Any:
    return json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=text))


def naive(text: str) -> Any:
    """The trees of the text before the heading "The middle" and from it on, joined."""
    at = text.index("\n\n# The middle\n") + 2
    first, second = whole(text[:at]), whole(text[at:])
    first["blocks"] += second["blocks"]
    return first


SECTIONS = "\n\n".join(
    f"# Part {k}\n\nIce floats on water.[{k}] Sea ice is thin.[{k + 1}]" for k in range(1, 9)
)

# Everything a cut must step around, with headings of its own inside each.
VARIED = f"""---
title: Handbook
---

{SECTIONS}

```python
# a comment in code, not a heading

x = [1]
```

::: {{.note}}
A note citing ice.[3]

# A heading inside the div

More.[4]
:::

<!--
hidden [5]

# a heading commented out
-->

| a | b |
|---|---|
| ice.[6] | 2 |

Footnoted claim.^[An inline note.] Inline <b>bold</b> and <!-- c --> comment.[8]

See [the site](https://example.org) and [a span]{{#cite-1-1}}.

Math $x^{{2}}$ and $$\\frac{{a}}{{b}}$$ here.[9]

- item citing.[10]

  more of the item

> quoted claim.[11]

~~~~
code ~~~

# still code
~~~~~

{SECTIONS.replace("Part", "Chapter")}
"""


def test_a_long_draft_read_in_parts_is_the_tree_of_the_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(parts_module, "MIN_CHARS", 0)
    for n in (2, 3, 4):
        assert len(cuts(VARIED, n)) == n - 1
        assert read_in_parts(VARIED, "markdown", n, "draft") == whole(VARIED)


def test_no_cut_falls_inside_fenced_code_a_div_or_a_comment() -> None:
    offsets = cuts(VARIED, 8)
    assert offsets
    for at in offsets:
        assert VARIED[at : at + 2] == "# "
        heading = VARIED[at:].split("\n", 1)[0]
        assert heading.startswith(("# Part", "# Chapter")), heading


def _case(middle: str, tail: str = "") -> str:
    """Sections around ``middle``, the middle heading's section after it, ``tail`` last."""
    later = SECTIONS.replace("Part", "Chapter")
    return f"{SECTIONS}\n\n{middle}\n\n# The middle\n\nIce.[1]\n\n{tail}{later}\n"


# Each: a draft whose parts, read apart, pandoc would read otherwise than the whole.
CROSSING = {
    "a reference definition": _case("See [the paper][p].", "[p]: https://example.org/p\n\n"),
    "a footnote defined later": _case("A claim.[^n]", "[^n]: The note.\n\n"),
    "a LaTeX macro": _case("\\newcommand{\\ice}{ICE}", "$\\ice$\n\n"),
    "an example list": _case("(@a) First example.", "(@b) Second example.\n\n"),
    "a heading twice": _case("Text.", "# Part 1\n\nAgain.\n\n"),
    "a heading's implicit link": _case("See [The middle] for more."),
    "an underlined heading's implicit link": _case("See [Underlined].", "Underlined\n---\n\n"),
    "a quoted heading's implicit link": _case("See [Quoted].", "> # Quoted\n\n"),
    "raw LaTeX over a blank line": _case("Text \\foo[open", "close] b\n\n"),
    "math over a blank line": _case("Text $x\\text{open", "close}$ b\n\n"),
    "an HTML attribute over a blank line": _case('Text <span title="open', '">x</span>\n\n'),
    "a comment opened inside a paragraph": _case("Text <!-- open", "close -->\n\n"),
    "an HTML block": _case("<div>\n\nInside a div.", "</div>\n\n"),
    "a multiline table": _case(
        "-------------------\nFirst     Second\n-------   --------\nrow one   cell",
        "-------------------\n\n",
    ),
    "a YAML block midway": _case("---\nauthor: Someone\n---", "---\ntitle: Later\n---\n\n"),
}


def test_a_heading_in_fenced_code_is_no_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _case("```\ncode", "```\n\n")
    assert naive(text) != whole(text)
    inside = text.index("# The middle")
    monkeypatch.setattr(parts_module, "MIN_CHARS", 0)
    for n in range(2, 9):
        assert cuts(text, n) and inside not in cuts(text, n)
    assert read_in_parts(text, "markdown", 2, "draft") == whole(text)


def test_the_drafts_around_each_case_are_cut() -> None:
    assert cuts(_case("Plain text.", "More plain text.\n\n"), 2)


@pytest.mark.parametrize("name", sorted(CROSSING))
def test_a_draft_whose_parts_would_read_otherwise_is_not_cut(name: str) -> None:
    text = CROSSING[name]
    assert naive(text) != whole(text), "the case must cross the cut"
    assert cuts(text, 2) == []


def test_parts_pandoc_reads_otherwise_are_refused_after_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the text alone does not show: a citation (numbered over the document) and two
    headings whose identifiers clash ("1. Part 1" and "Part 1" are both ``part-1``)."""
    monkeypatch.setattr(parts_module, "MIN_CHARS", 0)
    for text in (
        _case("As @doe99 says.", "And @roe01.\n\n"),
        _case("Text.", "# 1. Part 1\n\nText.\n\n"),
    ):
        assert cuts(text, 2)
        assert naive(text) != whole(text)
        assert read_in_parts(text, "markdown", 2, "draft") is None


def test_open_draft_reads_a_long_draft_with_one_run_per_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(VARIED, encoding="utf-8")
    alone = open_draft(draft)
    monkeypatch.setattr(parts_module, "MIN_CHARS", 0)
    runs: list[str] = []
    real = parts_module.run_pandoc

    def counted(args: list[str], **kwargs: Any) -> bytes:
        runs.append(kwargs["stdin"])
        return real(args, **kwargs)

    monkeypatch.setattr(parts_module, "run_pandoc", counted)
    read = open_draft(draft, parts=2)
    assert read.tree == alone.tree
    assert len(runs) == 2 and "".join(runs) == VARIED
    # The trust model's walk, made part by part, found what the walk of the whole finds.
    assert read.surveyed is not None and alone.surveyed is not None
    for name in ("own_ids", "raws", "links"):
        assert sorted(map(repr, getattr(read.surveyed, name))) == sorted(
            map(repr, getattr(alone.surveyed, name))
        )
        assert getattr(read.surveyed, name)
    assert read.surveyed.kinds == alone.surveyed.kinds
    runs.clear()
    monkeypatch.setattr(parts_module, "MIN_CHARS", len(VARIED) + 1)
    assert open_draft(draft, parts=2).tree == alone.tree
    assert runs == []  # a short draft: one read, as before
