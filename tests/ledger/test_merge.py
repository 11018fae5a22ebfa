"""merge: another writer's ledger in, ids translated, drafts rewritten, nothing lost or reused."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from citeledger.ledger import load_ledger
from citeledger.ledger.model import MAX_ID
from tests.helpers import OWN_VARS, Result, make_ledger, run_citeledger


def run(*args: str, cwd: Path) -> Result:
    """The real console entry point in a child process."""
    return Result.of(run_citeledger(*args, cwd=cwd, unset=OWN_VARS, text=False, timeout=180))


def _source(sid: int, url: str, title: str = "", quotes: tuple[str, ...] = ()) -> dict:
    return {
        "id": sid,
        "url": url,
        "title": title,
        "accessed": "2026-01-02",
        "quotes": [{"text": q, "added": "2026-01-03"} for q in quotes],
    }


def _write(path: Path, *sources: dict, last_id: int = 0) -> Path:
    return make_ledger(path, sources, last_id=last_id)


def _two_ledgers(folder: Path) -> tuple[Path, Path]:
    """A (ours) and B (theirs): one page in common (spelt differently), one quote in common."""
    ours = _write(
        folder / "ours.json",
        _source(1, "https://a.org/one", "One", ("ice floats on water",)),
        _source(2, "https://shared.org/page", "", ("shared words here ok",)),
    )
    theirs = _write(
        folder / "theirs.json",
        _source(
            1,
            "HTTPS://Shared.org/page/#top",
            "Shared",
            ("Shared  words here OK", "more words here"),
        ),
        _source(2, "https://b.org/two", "Two", ("water is wet indeed",)),
        _source(3, "https://b.org/three", "Three"),
    )
    return ours, theirs


def _shape(path: Path) -> list[tuple[int, str, str, list[str]]]:
    return [
        (s.id, s.url, s.title, [q.text for q in s.quotes])
        for s in sorted(load_ledger(path).sources, key=lambda s: s.id)
    ]


def test_overlapping_source_keeps_its_id_and_new_sources_get_the_next_ids(tmp_path, cli) -> None:
    ours, theirs = _two_ledgers(tmp_path)
    result = cli("--ledger", str(ours), "merge", str(theirs))
    assert result.code == 0, result.err
    assert result.out.splitlines()[:3] == [
        "other [1] -> [2]",
        "other [2] -> [3]",
        "other [3] -> [4]",
    ]
    assert _shape(ours) == [
        (1, "https://a.org/one", "One", ["ice floats on water"]),
        # the same page under another spelling: our id, the title filled, no duplicate quote
        (2, "https://shared.org/page", "Shared", ["shared words here ok", "more words here"]),
        (3, "https://b.org/two", "Two", ["water is wet indeed"]),
        (4, "https://b.org/three", "Three", []),
    ]


def test_merging_the_other_way_round_translates_the_other_ids(tmp_path, cli) -> None:
    ours, theirs = _two_ledgers(tmp_path)
    result = cli("--ledger", str(theirs), "merge", str(ours))
    assert result.code == 0, result.err
    assert result.out.splitlines()[:2] == ["other [1] -> [4]", "other [2] -> [1]"]
    shape = _shape(theirs)
    assert [s[0] for s in shape] == [1, 2, 3, 4]
    assert shape[0][3] == [
        "Shared  words here OK",
        "more words here",
    ]  # "shared words here ok" matches
    assert shape[3] == (4, "https://a.org/one", "One", ["ice floats on water"])


def test_merging_the_same_ledger_twice_changes_nothing_the_second_time(tmp_path, cli) -> None:
    ours, theirs = _two_ledgers(tmp_path)
    first = cli("--ledger", str(ours), "merge", str(theirs))
    before = ours.read_bytes()
    stamp = ours.stat().st_mtime_ns
    second = cli("--ledger", str(ours), "merge", str(theirs))
    assert second.code == 0
    assert ours.read_bytes() == before and ours.stat().st_mtime_ns == stamp
    assert second.out.splitlines()[:3] == first.out.splitlines()[:3]
    assert "merged already" in second.out


def test_new_ids_start_above_the_high_water_mark(tmp_path, cli) -> None:
    ours = _write(tmp_path / "ours.json", _source(1, "https://a.org/1"), last_id=40)
    theirs = _write(tmp_path / "theirs.json", _source(7, "https://b.org/7"))
    result = cli("--ledger", str(ours), "merge", str(theirs))
    assert result.out.splitlines()[0] == "other [7] -> [41]"
    assert load_ledger(ours).ids() == [1, 41]


def test_a_merge_past_the_largest_id_fails_whole_and_writes_nothing(tmp_path, cli) -> None:
    ours = _write(tmp_path / "ours.json", _source(MAX_ID - 1, "https://a.org/1"))
    theirs = _write(
        tmp_path / "theirs.json", _source(1, "https://b.org/1"), _source(2, "https://b.org/2")
    )
    before = ours.read_bytes()
    result = cli("--ledger", str(ours), "merge", str(theirs))
    assert result.code == 2
    assert result.err.startswith("citeledger: error: ") and "is full" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert ours.read_bytes() == before


def test_dry_run_prints_the_map_and_writes_nothing(tmp_path, cli) -> None:
    ours, theirs = _two_ledgers(tmp_path)
    draft = tmp_path / "d.md"
    draft.write_text("Water is wet.[2]\n", encoding="utf-8")
    before = (ours.read_bytes(), draft.read_bytes())
    result = cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "d.md", "--dry-run")
    assert result.code == 0, result.err
    assert "other [2] -> [3]" in result.out and "dry run, nothing written" in result.out
    assert "d.md: 1 marker(s) would be rewritten" in result.out
    assert (ours.read_bytes(), draft.read_bytes()) == before
    assert not (tmp_path / "ours.evidence").exists()


@pytest.mark.parametrize(
    "content, what",
    [
        (None, "no ledger at"),
        (b"{not json", "is not valid JSON"),
        (b'{"version": 1, "sources": [{"id": 1, "url": "javascript:alert(1)"}]}', "no reader"),
        (b'{"version": 1, "sources": [{"id": "x", "url": "https://a.org"}]}', "wrong shape"),
    ],
    ids=["missing", "corrupt", "javascript-url", "bad-id"],
)
def test_a_bad_other_ledger_is_one_line_and_nothing_is_written(
    tmp_path, cli, content: bytes | None, what: str
) -> None:
    ours, _ = _two_ledgers(tmp_path)
    other = tmp_path / "other.json"
    if content is not None:
        other.write_bytes(content)
    before = ours.read_bytes()
    result = cli("--ledger", str(ours), "merge", str(other))
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("citeledger: error: ") and what in lines[0]
    assert str(other) in lines[0]
    assert ours.read_bytes() == before


def test_a_sources_py_entry_without_a_scheme_keeps_its_citations(tmp_path, cli) -> None:
    ours = _write(tmp_path / "ours.json", _source(1, "https://a.org/1"))
    theirs = _write(tmp_path / "theirs.json", _source(1, "example.com/page", "Old"))
    result = cli("--ledger", str(ours), "merge", str(theirs))
    assert result.code == 0, result.err
    assert _shape(ours)[1] == (2, "example.com/page", "Old", [])
    again = cli("--ledger", str(ours), "merge", str(theirs))
    assert "merged already" in again.out


# Drafts ---------------------------------------------------------------------------------------

DRAFT = """\
---
title: B's report
---

# Findings

Water is wet indeed.[2] The shared page agrees.[1][3] Grouped claims stand here.[2, 3]

A range of pages says so too.[1-3] Inline code `x[2]` and a [link [3]](https://b.org/[3]).

Math stays $a[2] + b[3]$ and a footnote is cited.[^n]

```
[2] inside a fence
```

    [3] an indented code block

<!-- [2] in a comment -->

[^n]: The note cites [3] as well.

## Sources

[1] https://shared.org/page — Shared
[2] https://b.org/two — Two
[3] https://b.org/three — Three
"""


def _project(tmp_path: Path) -> tuple[Path, Path, Path]:
    ours, theirs = _two_ledgers(tmp_path)
    draft = tmp_path / "report.md"
    draft.write_text(DRAFT, encoding="utf-8")
    return ours, theirs, draft


def test_rewritten_drafts_verify_against_the_merged_ledger(tmp_path, cli) -> None:
    ours, theirs, draft = _project(tmp_path)
    assert run("--ledger", "theirs.json", "verify", "report.md", cwd=tmp_path).code == 0
    result = cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    assert result.code == 0, result.err
    assert "report.md: 6 marker(s) rewritten" in result.out
    text = draft.read_text(encoding="utf-8")
    assert "Water is wet indeed.[3] The shared page agrees.[2][4]" in text
    assert "Grouped claims stand here.[3, 4]" in text
    assert "A range of pages says so too.[2-4]" in text
    assert "[^n]: The note cites [4] as well." in text
    assert text.endswith(
        "## Sources\n\n[2] https://shared.org/page — Shared\n[3] https://b.org/two — Two\n"
        "[4] https://b.org/three — Three\n"
    )
    verified = run("--ledger", "ours.json", "verify", "report.md", cwd=tmp_path)
    assert verified.code == 0, verified.out + verified.err
    assert verified.out.splitlines()[-1] == "citations OK"


def test_code_spans_links_math_fences_and_comments_in_a_draft_are_untouched(tmp_path, cli) -> None:
    ours, theirs, draft = _project(tmp_path)
    cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    text = draft.read_text(encoding="utf-8")
    for untouched in (
        "Inline code `x[2]` and a [link [3]](https://b.org/[3]).",
        "Math stays $a[2] + b[3]$",
        "```\n[2] inside a fence\n```",
        "    [3] an indented code block",
        "<!-- [2] in a comment -->",
        "---\ntitle: B's report\n---",
    ):
        assert untouched in text
    # Outside the markers and the Sources block, not one byte changed.
    head = DRAFT.split("## Sources")[0]
    assert len(text.split("## Sources")[0]) == len(head)


def test_a_second_merge_leaves_a_rewritten_draft_alone(tmp_path, cli) -> None:
    ours, theirs, draft = _project(tmp_path)
    cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    once = draft.read_bytes()
    result = cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    assert result.code == 0, result.err
    assert "report.md: cites the merged ledger already, left as it is" in result.out
    assert draft.read_bytes() == once


def test_a_draft_that_is_not_markdown_is_refused_before_anything_is_written(tmp_path, cli) -> None:
    ours, theirs, draft = _project(tmp_path)
    page = tmp_path / "report.html"
    page.write_text("<p>Water.[2]</p>", encoding="utf-8")
    before = ours.read_bytes()
    result = cli(
        "--ledger",
        str(ours),
        "merge",
        str(theirs),
        "--rewrite",
        "report.md",
        "--rewrite",
        "report.html",
    )
    assert result.code == 2
    assert "not a markdown draft" in result.err and len(result.err.strip().splitlines()) == 1
    assert ours.read_bytes() == before and draft.read_text(encoding="utf-8") == DRAFT


def test_a_binary_draft_is_refused_in_one_line(tmp_path, cli) -> None:
    ours, theirs, _ = _project(tmp_path)
    (tmp_path / "blob.md").write_bytes(b"\x00\x01\xff binary")
    before = ours.read_bytes()
    result = cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "blob.md")
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1
    assert ours.read_bytes() == before


def test_a_draft_citing_an_id_the_other_ledger_lacks_is_refused(tmp_path, cli) -> None:
    ours, theirs, draft = _project(tmp_path)
    draft.write_text("Water is wet.[2] And this.[9]\n", encoding="utf-8")
    before = ours.read_bytes()
    result = cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    assert result.code == 2
    assert "report.md:1:27 cites [9]" in result.err
    assert ours.read_bytes() == before
    assert draft.read_text(encoding="utf-8") == "Water is wet.[2] And this.[9]\n"


def test_a_draft_whose_sources_block_matches_neither_ledger_is_refused(tmp_path, cli) -> None:
    ours, theirs, draft = _project(tmp_path)
    draft.write_text(
        "Water.[1]\n\n## Sources\n\n[1] https://elsewhere.org/x — Not in either\n",
        encoding="utf-8",
    )
    before = ours.read_bytes()
    result = cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    assert result.code == 2 and "agrees with neither" in result.err
    assert ours.read_bytes() == before


def test_evidence_texts_travel_with_the_merged_quotes(tmp_path, cli) -> None:
    page = tmp_path / "page.txt"
    page.write_text("On the page: water is wet indeed, said everyone.\n", encoding="utf-8")
    ours, theirs = _two_ledgers(tmp_path)
    assert (
        cli(
            "--ledger",
            str(theirs),
            "quote",
            "2",
            "--text",
            "wet indeed, said everyone",
            "--from",
            str(page),
        ).code
        == 0
    )
    [kept] = (tmp_path / "theirs.evidence").iterdir()
    result = cli("--ledger", str(ours), "merge", str(theirs))
    assert "1 evidence text(s) copied" in result.out
    assert (tmp_path / "ours.evidence" / kept.name).read_bytes() == kept.read_bytes()
    recheck = cli("--ledger", str(ours), "recheck")
    assert recheck.code == 0, recheck.err
    assert recheck.out.splitlines()[-1] == "recheck OK"


def test_a_digest_in_the_other_ledger_never_names_a_path_outside_its_folder(tmp_path, cli) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("private", encoding="utf-8")
    ours = _write(tmp_path / "ours.json", _source(1, "https://a.org/1"))
    bad = _source(1, "https://b.org/1")
    bad["quotes"] = [{"text": "three words here", "added": "x", "text_sha256": "../secret"}]
    theirs = _write(tmp_path / "theirs.json", bad)
    result = cli("--ledger", str(ours), "merge", str(theirs))
    assert result.code == 0, result.err
    assert "not copied" in result.err
    assert not (tmp_path / "ours.evidence").exists() or not any(
        (tmp_path / "ours.evidence").iterdir()
    )
    recheck = cli("--ledger", str(ours), "recheck")
    assert recheck.code == 1 and "not a sha256 digest" in recheck.err


# Concurrency ----------------------------------------------------------------------------------

MERGER = textwrap.dedent(
    """
    import sys
    from citeledger.cli import main
    ledger, others = sys.argv[1], sys.argv[2:]
    for other in others:
        try:
            main(["--ledger", ledger, "merge", other])
        except SystemExit as stop:
            if stop.code:
                raise
    """
)
ADDER = textwrap.dedent(
    """
    import sys
    from citeledger.ledger import transaction
    path, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(count):
        with transaction(path) as ledger:
            ledger.add(f"https://adder.org/{worker}/{i}")
    """
)


def test_concurrent_merges_and_adds_on_one_ledger_lose_nothing(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    others = []
    for n in range(6):
        sources = [
            _source(k, f"https://other.org/{n}/{k}", quotes=(f"quote {n} {k} here",))
            for k in range(1, 21)
        ]
        # every other ledger also holds one page all of them share
        sources.append(_source(21, "https://shared.org/all", quotes=(f"shared quote {n} ok",)))
        others.append(str(_write(tmp_path / f"other{n}.json", *sources)))
    procs = [
        subprocess.Popen([sys.executable, "-c", MERGER, str(ledger), *others[:3]]),
        subprocess.Popen([sys.executable, "-c", MERGER, str(ledger), *others[3:]]),
        subprocess.Popen([sys.executable, "-c", MERGER, str(ledger), *reversed(others)]),
        *(
            subprocess.Popen([sys.executable, "-c", ADDER, str(ledger), str(w), "40"])
            for w in range(3)
        ),
    ]
    assert [p.wait(timeout=300) for p in procs] == [0] * len(procs)
    book = load_ledger(ledger)
    urls = [s.url for s in book.sources]
    assert len(urls) == len(set(urls)) == 6 * 20 + 1 + 3 * 40
    assert book.ids() == list(range(1, len(urls) + 1))
    shared = book.find_url("https://shared.org/all")
    assert shared is not None
    assert sorted(q.text for q in shared.quotes) == [f"shared quote {n} ok" for n in range(6)]
    assert sum(len(s.quotes) for s in book.sources) == 6 * 20 + 6


def test_a_crlf_draft_is_rewritten_and_stays_crlf(tmp_path, cli) -> None:
    ours, theirs, draft = _project(tmp_path)
    draft.write_bytes(DRAFT.replace("\n", "\r\n").encode("utf-8"))
    result = cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    assert result.code == 0, result.err
    data = draft.read_bytes().decode("utf-8")
    assert data.count("\r\n") == data.count("\n")
    assert "Grouped claims stand here.[3, 4]\r\n" in data
    assert run("--ledger", "ours.json", "verify", "report.md", cwd=tmp_path).code == 0


def test_a_later_merge_rewrites_the_drafts_an_earlier_one_left(tmp_path, cli) -> None:
    """The recovery the write order promises: the ledger is merged already, the draft done
    before is recognised and left alone, the one left over is translated with the same map."""
    ours, theirs, draft = _project(tmp_path)
    cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    done = draft.read_bytes()
    late = tmp_path / "late.md"
    late.write_text("Water is wet indeed.[2]\n", encoding="utf-8")
    result = cli(
        "--ledger",
        str(ours),
        "merge",
        str(theirs),
        "--rewrite",
        "report.md",
        "--rewrite",
        "late.md",
    )
    assert result.code == 0, result.err
    assert draft.read_bytes() == done
    assert late.read_text(encoding="utf-8").startswith("Water is wet indeed.[3]\n\n## Sources\n")
    assert "late.md: 1 marker(s) rewritten" in result.out


def test_markers_in_headings_tables_lists_quotes_and_divs_are_rewritten(tmp_path, cli) -> None:
    ours, theirs, draft = _project(tmp_path)
    draft.write_text(
        "# Heading cites[2]\n\n| a | b |\n|---|---|\n| x | y.[3] |\n\n> Quoted.[1]\n\n"
        '- *item.[2]*\n\n<div class="x">\nIn a div.[3]\n</div>\n',
        encoding="utf-8",
    )
    result = cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    assert result.code == 0, result.err
    text = draft.read_text(encoding="utf-8")
    for line in (
        "# Heading cites[3]",
        "| x | y.[4] |",
        "> Quoted.[2]",
        "- *item.[3]*",
        "In a div.[4]",
    ):
        assert line in text.splitlines()
    assert run("--ledger", "ours.json", "verify", "report.md", cwd=tmp_path).code == 0


def test_an_id_that_would_become_a_reference_link_label_is_refused(tmp_path, cli) -> None:
    ours, theirs, draft = _project(tmp_path)
    original = "Water is wet.[2] See [the spec][3].\n\n[3]: https://spec.example\n"
    draft.write_text(original, encoding="utf-8")
    before = ours.read_bytes()
    result = cli("--ledger", str(ours), "merge", str(theirs), "--rewrite", "report.md")
    assert result.code == 2
    assert "[2] would become [3], which the draft defines as a reference link" in result.err
    assert ours.read_bytes() == before and draft.read_text(encoding="utf-8") == original
