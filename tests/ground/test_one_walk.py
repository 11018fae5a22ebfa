"""The trust model's one walk (``options/survey.py``) and the typed element walk
(``tree.elements_of``) answer as the walks they replace, on pandoc's real test documents:
the same elements in the same order, the same depth refusal, the same ids renamed, the same
raw code refused and links unlinked."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from citeledger.errors import BadInput
from citeledger.options.survey import MAX_NESTING, OWN_ID, survey
from citeledger.options.trust import check_raw, vet
from citeledger.pandoc import run_pandoc
from citeledger.tree import elements, elements_of
from tests.helpers import FIXTURES

CORPORA = FIXTURES / "corpora"
DOCS = [
    CORPORA / "testsuite.txt",
    CORPORA / "markdown-reader-more.txt",
    CORPORA / "tables.txt",
    CORPORA / "markdown-citations.txt",
]


@pytest.fixture(scope="module", params=DOCS, ids=lambda p: p.name)
def tree(request: pytest.FixtureRequest) -> dict:
    path: Path = request.param
    return json.loads(run_pandoc([str(path), "-f", "markdown", "-t", "json"]))


HOSTILE = """\
---
title: "[x](javascript:alert(1))"
---

# Head {#src-3}

A [live](javascript:alert(1)) link, a [fine](https://example.org/a) one and
![img](data:text/html,boo) and [nested [inner](vbscript:x) text](javascript:y).

::: {#cite-2-1}
> [span]{#card-4} and ```<b>ok</b>```{=html}
:::
"""
RAW = (
    HOSTILE
    + """
A `\\input{/etc/passwd}`{=tex} here.

```{=latex}
\\input{/etc/shadow}
```
"""
)


def _old_vet(doc: dict) -> None:
    """The walks as they were: the depth and the ids, the raw code, the links."""
    from citeledger.options.trust import _unlink_live

    stack: list = [(doc, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            if "t" in node:
                depth += 1
                if depth > MAX_NESTING:
                    raise BadInput("deep")
            stack.extend((v, depth) for v in node.values() if isinstance(v, (list, dict)))
        elif isinstance(node, list):
            if (
                len(node) == 3
                and isinstance(node[0], str)
                and isinstance(node[1], list)
                and isinstance(node[2], list)
                and all(isinstance(c, str) for c in node[1])
                and node[0]
                and OWN_ID.fullmatch(node[0])
            ):
                node[0] = "draft-" + node[0]
            stack.extend((v, depth) for v in node if isinstance(v, (list, dict)))
    check_raw(doc, "d.md", None)
    _unlink_live([doc.get("blocks", []), list(doc.get("meta", {}).values())])


def test_elements_of_finds_what_filtering_every_element_finds(tree: dict) -> None:
    nodes = [tree["blocks"], list(tree["meta"].values())]
    for kinds in ({"Link"}, {"Image", "Link", "Table"}, {"Note"}, {"Str"}, {"RawBlock"}):
        want = [el for el in elements(nodes) if el.get("t") in kinds]
        got = list(elements_of(nodes, kinds))
        assert len(got) == len(want)
        assert all(a is b for a, b in zip(got, want, strict=True))


def test_the_survey_sees_every_element_type(tree: dict) -> None:
    nodes = [tree["blocks"], list(tree["meta"].values())]
    assert survey(tree, "d.md").kinds >= {el["t"] for el in elements(nodes)}


def test_vet_changes_the_tree_as_the_separate_walks_did(tmp_path: Path) -> None:
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=HOSTILE))
    old, new = copy.deepcopy(doc), copy.deepcopy(doc)
    _old_vet(old)
    vet(new, trusted=False, name="d.md", folder=tmp_path, say=lambda _l: None)
    new_meta = new.pop("meta")
    old.pop("meta")
    assert new == old
    assert "draft-src-3" in json.dumps(new) and "javascript" not in json.dumps(new)
    assert "title" in new_meta and "javascript" not in json.dumps(new_meta)


def test_raw_code_is_refused_naming_the_first_in_document_order(tmp_path: Path) -> None:
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=RAW))
    with pytest.raises(BadInput) as old_error:
        _old_vet(copy.deepcopy(doc))
    with pytest.raises(BadInput) as new_error:
        vet(doc, trusted=False, name="d.md", folder=tmp_path, say=lambda _l: None)
    assert new_error.value.message == old_error.value.message
    assert "passwd" in new_error.value.message


def test_a_tree_one_level_too_deep_is_refused_and_one_at_the_bound_is_not() -> None:
    def nested(levels: int) -> dict:
        inner: dict = {"t": "Str", "c": "x"}
        for _ in range(levels - 1):
            inner = {"t": "Emph", "c": [inner]}
        return {"pandoc-api-version": [1, 23], "meta": {}, "blocks": [{"t": "Para", "c": [inner]}]}

    survey(nested(MAX_NESTING - 1), "d.md")  # the Para is one more level
    with pytest.raises(BadInput, match="nested deeper than"):
        survey(nested(MAX_NESTING), "d.md")
