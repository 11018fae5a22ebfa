"""The convention's marker style, one finding per mistake: a run of markers set off by a space
and standing before the closing punctuation is one finding whose one fix is the corrected text,
written with the draft's own word; every style fix applied as printed leaves no style finding."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

SOURCES = [
    {"id": n, "url": f"https://a.org/{n}", "title": f"T{n}", "accessed": "2026-01-01"}
    for n in (1, 2, 3)
]
STYLE = {"space-before-marker", "group-marker", "marker-before-punctuation"}
BLOCK = "\n\n## Sources\n\n" + "\n".join(f"[{n}] https://a.org/{n} — T{n}" for n in (1, 2, 3))


def _findings(cli, tmp_path: Path, body: str) -> list[dict[str, Any]]:
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": SOURCES}))
    (tmp_path / "d.md").write_text(f"# Ice\n\n{body}{BLOCK}\n", encoding="utf-8")
    done = cli("verify", "d.md", "--format", "json")
    assert done.code == 0, done.err
    return [f for f in json.loads(done.out)["findings"] if f["code"] in STYLE]


@pytest.mark.parametrize(
    ("body", "code", "fix"),
    [
        (
            "Sea ice reflects most incoming sunlight [1].",
            "marker-before-punctuation",
            "write `sunlight.[1]`",
        ),
        (
            "Open water absorbs far more of it [2][3].",
            "marker-before-punctuation",
            "write `it.[2][3]`",
        ),
        (
            "Thin ice now dominates the Arctic [1, 2]?",
            "marker-before-punctuation",
            "write `Arctic?[1][2]`",
        ),
        (
            "Sea ice reflects most incoming sunlight[1].",
            "marker-before-punctuation",
            "put it after the punctuation: write `sunlight.[1]`",
        ),
        (
            "Sea ice reflects sunlight [1] and open water absorbs it.[2]",
            "space-before-marker",
            "delete the space: write `sunlight[1]`",
        ),
        (
            "Sea ice reflects most incoming *sunlight* [1].",
            "marker-before-punctuation",
            "write `.[1]` right after the text it supports, without the space, after the "
            "punctuation",
        ),
    ],
)
def test_one_mistake_is_one_finding_whose_fix_is_the_corrected_text(
    cli, tmp_path: Path, body: str, code: str, fix: str
) -> None:
    [found] = _findings(cli, tmp_path, body)
    assert (found["code"], found["fix"]) == (code, fix)


def test_the_space_and_the_place_are_named_in_the_one_finding(cli, tmp_path: Path) -> None:
    [found] = _findings(cli, tmp_path, "Sea ice reflects most incoming sunlight [1].")
    assert found["message"] == (
        "space before the marker [1], which also stands before the sentence's closing "
        "punctuation (`sunlight [1].`)"
    )
    assert found["location"] == "d.md:3:41" and found["ids"] == [1]


def test_each_fix_applied_as_printed_leaves_a_draft_without_style_findings(
    cli, tmp_path: Path
) -> None:
    body = (
        "Sea ice reflects most incoming sunlight [1]. Open water absorbs far more of it "
        "[2][3]. Thin ice now dominates [1, 2]? Ice is old[3]."
    )
    found = _findings(cli, tmp_path, body)
    assert len(found) == 4, found
    for f in found:
        corrected = re.search(r"write `([^`]+)`", f["fix"]).group(1)  # type: ignore[union-attr]
        word = re.match(r"[^.?\[]+", corrected).group(0)  # type: ignore[union-attr]
        # The draft's text from the word to the end of the run and its punctuation.
        body = re.sub(re.escape(word) + r" ?(\[[\d, ]+\])+[.?]", corrected, body, count=1)
    assert _findings(cli, tmp_path, body) == []
