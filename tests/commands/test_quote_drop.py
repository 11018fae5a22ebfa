"""``citeledger quote N --drop K`` and ``--drop-text``: an agent takes back a quote it attached
to the wrong source, under the ledger lock, with one line naming what went and, when it names
no quote the source holds, the quotes it does hold, numbered as ``--drop`` takes them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from citeledger.ledger import load_ledger
from tests.helpers import CITELEDGER, LEDGER_VARS, Result, call_main, citeledger_env, run_citeledger

PAGE = (
    "Sea ice has a high albedo, reflecting up to 80 percent of incoming sunlight. "
    "Thin first-year ice now dominates the Arctic Ocean. "
    "Open ocean absorbs about 94 percent of the sunlight that reaches it.\n"
)
QUOTES = (
    "reflecting up to 80 percent of incoming sunlight",
    "Thin first-year ice now dominates",
    "Open ocean absorbs about 94 percent",
)


@pytest.fixture
def quoted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ledger of two sources; [1] holds the three quotes in order."""
    monkeypatch.chdir(tmp_path)
    for var in LEDGER_VARS:
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "page.txt").write_text(PAGE, encoding="utf-8")
    _ok("add", "https://nsidc.org/sea-ice", "https://b.org/other")
    for text in QUOTES:
        _ok("quote", "1", "--text", text, "--from", "page.txt")
    _ok("quote", "2", "--text", "Thin first-year ice now dominates", "--from", "page.txt")
    return tmp_path


def _run(*args: str) -> Result:
    """The CLI's own process, as an agent calls it (the fast path hands --drop to typer)."""
    return Result.of(
        run_citeledger(*args, cwd=Path.cwd(), unset=LEDGER_VARS, timeout=120, text=False)
    )


def _ok(*args: str) -> str:
    done = _run(*args)
    assert done.code == 0, (args, done.err)
    return done.out


def _texts(folder: Path, sid: int = 1) -> list[str]:
    return [q.text for q in load_ledger(folder / "ledger.json").source(sid).quotes]


def test_drop_k_removes_that_quote_and_keeps_the_others_in_order(quoted: Path) -> None:
    assert _ok("quote", "1", "--drop", "2") == (
        "[1] quote 2 dropped (2 quote(s) left): \u201cThin first-year ice now dominates\u201d\n"
    )
    assert _texts(quoted) == [QUOTES[0], QUOTES[2]]
    assert _texts(quoted, 2) == ["Thin first-year ice now dominates"]
    listed = json.loads(_ok("list", "--json"))
    assert [len(s["quotes"]) for s in listed] == [2, 1]


def test_drop_text_finds_the_quote_as_the_matcher_compares_it(quoted: Path) -> None:
    # Case, typography and spacing aside, as a quote is matched against its page.
    done = _ok(
        "--ledger",
        "ledger.json",
        "quote",
        "[1]",
        "--drop-text",
        "THIN first\u2011year  ice now dominates",
    )
    assert done.startswith("[1] quote 2 dropped (2 quote(s) left)")
    assert _texts(quoted) == [QUOTES[0], QUOTES[2]]


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (("--drop", "4"), "[1] has no quote 4: it holds 3: 1 \u201creflecting up to 80"),
        (
            ("--drop-text", "ice floats on water"),
            "[1] holds no quote \u201cice floats on water\u201d: it holds 3: 1",
        ),
        (("--drop", "0"), "--drop '0' is not a quote's number"),
        (("--drop", "two"), "--drop 'two' is not a quote's number"),
        (
            ("--drop", "1", "--text", "Thin first-year ice now dominates"),
            "quote takes one of --text, --drop and --drop-text, got 2",
        ),
        (("--drop", "1", "--drop-text", "Thin first-year ice"), "got 2 (--drop, --drop-text)"),
        (
            ("--drop", "1", "--from", "page.txt"),
            "--from names the page a new quote is checked against",
        ),
        ((), "quote takes one of --text, --drop and --drop-text, got none"),
    ],
)
def test_a_drop_that_names_no_quote_changes_nothing_and_says_which_there_are(
    quoted: Path, flags: tuple[str, ...], said: str
) -> None:
    before = (quoted / "ledger.json").read_bytes()
    done = _run("quote", "1", *flags)
    assert done.code == 2
    assert done.err.count("\n") == 1 and done.err.startswith("citeledger: error: ")
    assert said in done.err, done.err
    assert "citeledger quote 1 --drop K" in done.err
    assert (quoted / "ledger.json").read_bytes() == before


def test_drop_on_a_source_without_quotes_or_an_unknown_id_is_bad_input(quoted: Path) -> None:
    _ok("add", "https://c.org/none")
    empty = _run("quote", "3", "--drop", "1")
    assert empty.code == 2 and "[3] holds no quotes" in empty.err
    unknown = _run("quote", "9", "--drop", "1")
    assert unknown.code == 2 and "no source [9]" in unknown.err


def test_drops_and_adds_at_once_lose_nothing(quoted: Path) -> None:
    """Under the ledger lock: six adds racing two drops of [1]'s quotes."""
    env = citeledger_env(unset=LEDGER_VARS)
    commands = [["add", f"https://example.org/par/{n}"] for n in range(6)]
    commands += [["quote", "1", "--drop-text", QUOTES[0]], ["quote", "1", "--drop-text", QUOTES[2]]]
    procs = [
        subprocess.Popen(
            [*CITELEDGER, *args],
            cwd=quoted,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for args in commands
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    book = load_ledger(quoted / "ledger.json")
    assert book.ids() == list(range(1, 9))
    assert _texts(quoted) == [QUOTES[1]]


def test_drop_in_process_says_the_same(quoted: Path, capsys: pytest.CaptureFixture[str]) -> None:
    done = call_main(capsys, "quote", "1", "--drop", "1")
    assert done.code == 0
    assert done.out.startswith("[1] quote 1 dropped (2 quote(s) left): \u201creflecting")
