"""``citeledger rewrite --keys DRAFT``: a draft written with the library's citation keys gets the
ledger's ``[n]`` markers in place; only real citations change, a key the ledger does not hold is
named with its LINE:COL, and then nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import FIXTURES

LIBRARY = FIXTURES / "library"

DRAFT = """\
---
title: Sea ice
---

Sea ice floats.[@himmelstein2019] Both agree.[@source1; @himmelstein2019]
Code keeps `[@source1]` as written, and so does a handle like @someone.

```
[@source1]
```

A note.[^n]

[^n]: As measured.[@source3]
"""

EXPECTED = """\
---
title: Sea ice
---

Sea ice floats.[2] Both agree.[1][2]
Code keeps `[@source1]` as written, and so does a handle like @someone.

```
[@source1]
```

A note.[^n]

[^n]: As measured.[3]
"""


@pytest.fixture
def library(cli, tmp_path: Path) -> Path:
    assert cli("--ledger", "L.json", "add", "https://a.example/one", "--title", "One").code == 0
    added = cli(
        "--ledger", "L.json", "add", "https://doi.org/10.1371/journal.pcbi.1007128",
        "--title", "Open collaborative writing", "--key", "himmelstein2019",
    )  # fmt: skip
    assert added.code == 0
    assert cli("--ledger", "L.json", "add", "https://c.example/three").code == 0
    return tmp_path


def test_key_citations_become_markers_and_nothing_else_changes(cli, library: Path) -> None:
    draft = library / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    result = cli("--ledger", "L.json", "rewrite", "--keys", "draft.md")
    assert result.code == 0, result.err
    assert draft.read_text(encoding="utf-8") == EXPECTED
    assert "3 citation(s) converted" in result.out
    # The rewritten draft is an ordinary citeledger draft: it takes its block and verifies.
    assert cli("--ledger", "L.json", "render", "--replace-in", "draft.md").code == 0
    assert cli("--ledger", "L.json", "verify", "draft.md").code == 0
    again = cli("--ledger", "L.json", "rewrite", "--keys", "draft.md")
    assert again.code == 0 and "no [@key] citation" in again.out


def test_a_crlf_draft_stays_crlf(cli, library: Path) -> None:
    draft = library / "draft.md"
    draft.write_bytes(DRAFT.replace("\n", "\r\n").encode("utf-8"))
    assert cli("--ledger", "L.json", "rewrite", "--keys", "draft.md").code == 0
    assert draft.read_bytes() == EXPECTED.replace("\n", "\r\n").encode("utf-8")


def test_a_key_the_ledger_does_not_hold_is_named_with_its_place(cli, library: Path) -> None:
    draft = library / "draft.md"
    text = "Known.[@source1]\n\nUnknown, on line three.[@source1; @nobody2020]\n"
    draft.write_text(text, encoding="utf-8")
    result = cli("--ledger", "L.json", "rewrite", "--keys", "draft.md")
    assert result.code == 2
    assert "draft.md:3:24: @nobody2020 is no key of ledger L.json" in result.err
    assert draft.read_text(encoding="utf-8") == text


def test_a_citation_with_a_locator_is_refused_whole(cli, library: Path) -> None:
    draft = library / "draft.md"
    text = "Fine.[@source1] Not this one [see @himmelstein2019, p. 3].\n"
    draft.write_text(text, encoding="utf-8")
    result = cli("--ledger", "L.json", "rewrite", "--keys", "draft.md")
    assert result.code == 2 and "cannot become an [n] marker" in result.err
    assert draft.read_text(encoding="utf-8") == text


def test_a_draft_of_a_ledger_exported_to_csljson_cites_the_same_sources(cli, library: Path) -> None:
    """The keys ``render --style csljson`` gives are the keys ``rewrite --keys`` reads."""
    import json

    exported = json.loads(cli("--ledger", "L.json", "render", "--style", "csljson").out)
    keys = [item["id"] for item in exported]
    assert keys == ["source1", "himmelstein2019", "source3"]
    draft = library / "draft.md"
    draft.write_text("".join(f"Claim {k}.[@{k}]\n" for k in keys), encoding="utf-8")
    assert cli("--ledger", "L.json", "rewrite", "--keys", "draft.md").code == 0
    text = draft.read_text(encoding="utf-8")
    assert text == "Claim source1.[1]\nClaim himmelstein2019.[2]\nClaim source3.[3]\n"
