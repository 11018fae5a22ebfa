"""``citeledger add`` for the batch an agent has after a search: a title per URL, or one source a
line on standard input; and the start that lets an agent call it once per source."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from citeledger.ledger import load_ledger
from tests.helpers import run_citeledger


def _titles(ledger: Path) -> list[tuple[str, str]]:
    return [(s.url, s.title) for s in load_ledger(ledger).sources]


def test_add_gives_each_url_the_title_in_the_same_place(cli, tmp_path: Path) -> None:
    result = cli("add", "https://a.org/1", "https://b.org/2", "--title", "One", "--title", "Two")
    assert result.code == 0, result.err
    assert result.out == "[1] https://a.org/1\n[2] https://b.org/2\n"
    assert _titles(tmp_path / "ledger.json") == [
        ("https://a.org/1", "One"),
        ("https://b.org/2", "Two"),
    ]


def test_add_refuses_titles_that_do_not_match_the_urls_and_adds_nothing(
    cli, tmp_path: Path
) -> None:
    result = cli(
        "add", "https://a.org", "https://b.org", "https://c.org", "--title", "A", "--title", "B"
    )
    assert result.code == 2
    assert "3 URL(s) and 2 --title" in result.err and "one --title per URL" in result.err
    assert not (tmp_path / "ledger.json").exists()


def test_add_reads_tab_separated_and_json_lines_from_stdin(tmp_path: Path) -> None:
    lines = [
        "https://a.org/x\tA title",
        json.dumps({"url": "https://b.org", "title": "B  title", "snippet": "ignored"}),
        "",
        "# a comment",
        "https://c.org",
    ]
    ledger = tmp_path / "ledger.json"
    done = run_citeledger("add", "-", cwd=tmp_path, ledger=ledger, stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[1] https://a.org/x\n[2] https://b.org\n[3] https://c.org\n"
    assert _titles(ledger) == [
        ("https://a.org/x", "A title"),
        ("https://b.org", "B title"),
        ("https://c.org", ""),
    ]


def test_add_from_stdin_is_all_or_nothing_and_names_the_bad_source(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    stdin = "https://a.org\tA\nnot a url\tB\n"
    done = run_citeledger("add", "-", cwd=tmp_path, ledger=ledger, stdin=stdin)
    assert done.returncode == 2
    assert "source 2:" in done.stderr and "Traceback" not in done.stderr
    assert not ledger.exists()


def test_add_from_stdin_refuses_a_line_that_is_broken_json(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    done = run_citeledger("add", "-", cwd=tmp_path, ledger=ledger, stdin='{"url": "https://a\n')
    assert done.returncode == 2 and "line 1: not JSON" in done.stderr
    assert not ledger.exists()


def test_add_stdin_with_urls_or_titles_is_refused(cli) -> None:
    mixed = cli("add", "-", "https://a.org")
    assert mixed.code == 2 and "- (stdin)" in mixed.err
    titled = cli("add", "-", "--title", "T")
    assert titled.code == 2 and "not from --title" in titled.err


def test_add_starts_without_typer_pydantic_or_the_other_verbs(tmp_path: Path) -> None:
    """typer 0.29 coerces parameters through pydantic (about 90 ms of a 150 ms start), typer
    itself was the largest import left, and every verb's module was imported for any verb:
    ``add`` needs none of them (``commands._quick`` runs its plain forms)."""
    probe = (
        "import sys\n"
        "from citeledger.cli import main\n"
        "try:\n"
        "    main(['--ledger', 'l.json', 'add', 'https://a.org', '--title', 'A', '--json'])\n"
        "finally:\n"
        "    wanted = ('pydantic', 'typer', 'click', 'citeledger.commands')\n"
        "    loaded = [m for m in sys.modules if m.startswith(wanted)]\n"
        "    print(' '.join(sorted(loaded)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded = done.stderr.split()
    assert loaded == [
        "citeledger.commands",
        "citeledger.commands._add_sources",
        "citeledger.commands._console",
        "citeledger.commands._io",
        "citeledger.commands._quick",
    ]


def test_an_unusual_add_goes_through_typer_with_the_same_lines(cli, tmp_path: Path) -> None:
    """A form the quick path does not read (``--title=T``, a value starting with ``-``) is
    typer's: the ledger and the lines are the same."""
    quick = cli("add", "https://a.org", "--title", "A")
    typed = cli("add", "https://b.org", "--title=-B")
    assert (quick.code, quick.out) == (0, "[1] https://a.org\n")
    assert (typed.code, typed.out) == (0, "[2] https://b.org\n")
    assert _titles(tmp_path / "ledger.json") == [("https://a.org", "A"), ("https://b.org", "-B")]
    missing = cli("add", "--title", "A")
    assert missing.code == 2 and "Missing argument" in missing.err


def test_a_global_ledger_named_like_a_verb_is_still_the_ledger(cli, tmp_path: Path) -> None:
    result = cli("--ledger", "list", "add", "https://a.org")
    assert result.code == 0, result.err
    assert _titles(tmp_path / "list") == [("https://a.org", "")]


def test_the_group_help_still_lists_every_verb(cli) -> None:
    from citeledger.cli import VERBS

    text = cli("--help").out
    for verb in VERBS:
        assert f"  {verb} " in text, verb
