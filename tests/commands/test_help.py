"""Help that reads like pandoc's: FILE/URL/FORMAT/KEY=VAL/DIR, never a Python type; the same
``--ledger`` text on every verb; pandoc's short flags where a pandoc user's hands go first."""

from __future__ import annotations

import re

import pytest
import typer

from citeledger.cli import app
from citeledger.options import flag_help

# `citeledger pandoc --help` is pandoc's own help: every argument goes to pandoc.
VERBS = sorted(set(typer.main.get_command(app).commands) - {"pandoc"})  # type: ignore[attr-defined]
PYTHON_TYPES = re.compile(r"<(list\[|str>|int>|path>|Path>|bool>|float>)")


def _help(cli, *args: str) -> str:
    done = cli(*args, "--help")
    assert done.code == 0, done.err
    return done.out


@pytest.mark.parametrize("verb", ["", *VERBS])
def test_help_shows_no_python_types(cli, verb: str) -> None:
    text = _help(cli, *([verb] if verb else []))
    assert not PYTHON_TYPES.search(text), PYTHON_TYPES.findall(text)
    assert "{" not in text.splitlines()[0], text.splitlines()[0]  # no {DRAFT} in the usage


def test_every_ledger_flag_has_the_same_help(cli) -> None:
    wanted = " ".join(flag_help("ledger").split())
    for verb in ["", *VERBS]:
        text = _help(cli, *([verb] if verb else []))
        block = text[text.index("--ledger FILE") + len("--ledger FILE") :]
        seen = " ".join(block.split())
        assert seen.startswith(wanted), (verb, seen[: len(wanted)])


@pytest.mark.parametrize(
    ("verb", "flags"),
    [
        (
            "convert",
            ["-f, --from FORMAT", "-t, --to FORMAT", "-o, --output FILE", "-M, --metadata KEY=VAL"],
        ),
        ("wiki", ["-f, --from FORMAT", "-t, --to", "-o, --output DIR"]),
        ("verify", ["-f, --from FORMAT", "-M, --metadata KEY=VAL"]),
        ("render", ["-f, --from FORMAT"]),
        ("finish", ["-M, --metadata KEY=VAL"]),
    ],
)
def test_pandoc_flags_where_they_apply(cli, verb: str, flags: list[str]) -> None:
    text = _help(cli, verb)
    for flag in flags:
        assert flag in text, (verb, flag)


@pytest.mark.parametrize(
    ("verb", "usage"),
    [
        ("convert", "Usage: citeledger convert [OPTIONS] DRAFT"),
        ("wiki", "Usage: citeledger wiki [OPTIONS] DRAFT..."),
        ("verify", "Usage: citeledger verify [OPTIONS] [FILE...]"),
        ("add", "Usage: citeledger add [OPTIONS] URL..."),
        ("finish", "Usage: citeledger finish [OPTIONS] [FILE...]"),
        ("config", "Usage: citeledger config [OPTIONS] [DRAFT]"),
    ],
)
def test_usage_names_arguments_in_upper_case(cli, verb: str, usage: str) -> None:
    assert _help(cli, verb).splitlines()[0] == usage


def test_global_options_are_listed_before_the_verbs(cli) -> None:
    text = _help(cli)
    for flag in ("-q, --quiet", "-v, --verbose", "--version", "--install-completion"):
        assert flag in text, flag
