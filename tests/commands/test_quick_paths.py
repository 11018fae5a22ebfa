"""The calls an agent makes at every step (``add``, ``quote``, ``list``, ``verify``) start
light: each loads only what its work needs (an agent makes hundreds of them, issue 33), and the
quick path that runs the common forms without typer says and exits exactly as the typer command
does, which still runs every other form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeledger.ledger import Quote, today, transaction
from tests.helpers.run import loaded_by

PAGE = "Sea ice floats on the ocean because frozen water is less dense than liquid water.\n"
QUOTE = "frozen water is less dense than liquid water"

# Modules no quick add, quote or list may load: typer and its click and pydantic, the modules
# that import typer, and standard-library modules that cost more to import than the whole
# call should (dataclasses brings inspect, ast, dis and tokenize; typing alone is several ms).
NEVER_QUICK = (
    "typer",
    "click",
    "pydantic",
    "rich",
    "dataclasses",
    "typing",
    "inspect",
    "ast",
    "tokenize",
    "tempfile",
    "zipfile",
    "importlib.resources",
    "importlib.util",
    "html",
    "hashlib",
    "subprocess",
    "citeledger.options",
    "citeledger.pandoc",
    "citeledger.ledger.render",
    "citeledger.commands._common",
    "citeledger.commands._app",
    "citeledger.commands._flags",
)
# verify needs the options table and the verifier, not typer nor the commands built on it.
NEVER_IN_VERIFY = (
    "typer",
    "click",
    "pydantic",
    "rich",
    "citeledger.commands._app",
    "citeledger.commands._common",
    "citeledger.commands._flags",
    "citeledger.commands.verify_cmd",
)


def _prepare(folder: Path, sources: int = 3) -> None:
    """A ledger with ``sources`` quoted sources, a saved page and a draft citing them all."""
    (folder / "page.txt").write_text(PAGE, encoding="utf-8")
    with transaction(folder / "ledger.json") as book:
        for n in range(1, sources + 1):
            source = book.add(f"https://example.org/ice/{n}", title=f"Sea ice {n}")[0]
            book.add_quote(source, Quote(text=QUOTE, added=today()))
    claim = "Sea ice is less dense than the water it floats on."
    body = "\n\n".join(f"{claim}[{n}]" for n in (1, 2, 3))
    block = "\n".join(f"[{n}] https://example.org/ice/{n} — Sea ice {n}" for n in (1, 2, 3))
    (folder / "draft.md").write_text(f"{body}\n\n## Sources\n\n{block}\n", encoding="utf-8")
    (folder / "bad.md").write_text("Ice floats.[9]\n", encoding="utf-8")


def _loaded_by(folder: Path, args: list[str], *, bare: bool) -> set[str]:
    """The modules a run of ``args`` loads beyond an interpreter that imported ``re`` (as the
    console script pip writes does). ``bare``: without ``site``, whose start-up hooks (an
    editable install's finder, a ``.pth`` file) may load typing and the like themselves."""
    return loaded_by(folder, args, bare=bare, preload="re")[1]


def _hits(loaded: set[str], never: tuple[str, ...]) -> list[str]:
    return sorted(m for m in loaded for n in never if m == n or m.startswith(n + "."))


@pytest.mark.parametrize(
    "args",
    [
        ["--ledger", "ledger.json", "add", "https://example.org/new"],
        ["add", "--ledger", "ledger.json", "https://example.org/new", "--title", "New"],
        ["--ledger", "ledger.json", "quote", "1", "--text", QUOTE, "--from", "page.txt"],
        ["--ledger", "ledger.json", "list"],
        ["list", "--ledger", "ledger.json", "--json"],
    ],
    ids=["add", "add-title", "quote", "list", "list-json"],
)
def test_quick_verbs_load_nothing_their_work_does_not_need(tmp_path: Path, args: list[str]) -> None:
    _prepare(tmp_path)
    assert _hits(_loaded_by(tmp_path, args, bare=True), NEVER_QUICK) == []


def test_quick_verify_loads_no_typer(tmp_path: Path) -> None:
    _prepare(tmp_path)
    args = ["--ledger", "ledger.json", "verify", "--strict", "--min-coverage", "0.5", "draft.md"]
    assert _hits(_loaded_by(tmp_path, args, bare=False), NEVER_IN_VERIFY) == []


# --- the quick path and the typer command agree ---------------------------------------------

VERIFY_FORMS = [
    ["verify", "draft.md"],
    ["verify", "--strict", "--min-coverage", "0.5", "--evidence", "draft.md"],
    ["--ledger", "ledger.json", "verify", "draft.md"],
    ["--ledger", "elsewhere.json", "verify", "--ledger", "ledger.json", "draft.md"],
    ["verify", "--ledger", "missing.json", "draft.md"],
    ["-q", "verify", "draft.md"],
    ["verify", "-v", "draft.md"],
    ["-q", "verify", "-v", "draft.md"],
    ["verify", "--format", "json", "draft.md"],
    ["verify", "--format", "sarif", "bad.md"],
    ["verify", "--format", "github", "draft.md", "bad.md"],
    ["verify", "--format", "yaml", "draft.md"],
    ["verify", "bad.md"],
    ["verify", "-q", "--strict", "bad.md", "draft.md"],
    ["verify", "no-such.md"],
    ["verify", "--min-coverage", "lots", "draft.md"],
    ["verify", "--min-coverage", "2", "draft.md"],
    ["verify", "--sources-title", "References", "draft.md"],
]


def _forced_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    import citeledger.cli

    monkeypatch.setattr(citeledger.cli, "run_quick", lambda args, **_: None)


def _no_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    import citeledger.cli

    def refuse(args: list[str]) -> None:
        raise AssertionError(f"went to typer: {args}")

    monkeypatch.setattr(citeledger.cli, "_typer_run", refuse)


@pytest.mark.parametrize("args", VERIFY_FORMS, ids=[" ".join(a) for a in VERIFY_FORMS])
def test_quick_verify_says_and_exits_as_the_typer_command(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    _prepare(tmp_path)
    with monkeypatch.context() as patch:
        _no_typer(patch)
        quick = cli(*args)
    with monkeypatch.context() as patch:
        _forced_typer(patch)
        typed = cli(*args)
    assert quick == typed


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "--from", "markdown", "draft.md"],
        ["verify", "--min-coverage=0.5", "draft.md"],
        ["verify", "-M", "title=x", "draft.md"],
        ["verify", "--help"],
        ["verify"],
        ["verify", "--strict", "--", "draft.md"],
    ],
)
def test_unusual_verify_forms_go_to_typer(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    _prepare(tmp_path)
    import citeledger.cli

    seen: list[list[str]] = []
    typer_run = citeledger.cli._typer_run

    def spy(given: list[str]) -> object:
        seen.append(given)
        return typer_run(given)

    monkeypatch.setattr(citeledger.cli, "_typer_run", spy)
    cli(*args)
    assert seen == [args]


@pytest.mark.parametrize(
    "args",
    [
        ["list"],
        ["list", "--json"],
        ["--ledger", "ledger.json", "list"],
        ["list", "--ledger", "empty.json"],
        ["quote", "2", "--text", QUOTE, "--from", "page.txt"],
        ["quote", "2", "--text", "frozen fire is very hot", "--from", "page.txt"],
        ["quote", "7", "--text", QUOTE, "--from", "page.txt"],
    ],
)
def test_quick_list_and_quote_say_and_exit_as_the_typer_command(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    _prepare(tmp_path)
    with monkeypatch.context() as patch:
        _no_typer(patch)
        quick = cli(*args)
    before = (tmp_path / "ledger.json").read_text(encoding="utf-8")
    with monkeypatch.context() as patch:
        _forced_typer(patch)
        typed = cli(*args)
    assert quick == typed
    # A quote stored by the quick run is "already held" for the typer run: the ledger is the same.
    assert (tmp_path / "ledger.json").read_text(encoding="utf-8") == before
    if args[:2] == ["list", "--json"]:
        assert [s["id"] for s in json.loads(quick.out)] == [1, 2, 3]


def test_printed_ascii_skips_the_terminal_pattern_and_escapes_the_same() -> None:
    """``terminal_text`` returns printable ASCII as it is without compiling its pattern; every
    ASCII control but new line and tab is still escaped, alone or among other text."""
    from citeledger import escape

    pattern = escape._terminal_hidden()
    for code in range(128):
        for text in (chr(code), f"a{chr(code)}b\n", f"\t{chr(code)}"):
            expected = pattern.sub(escape._escaped, text)
            assert escape.terminal_text(text) == expected, repr(text)
    assert escape.terminal_text("[1] https://example.org/a\n") == "[1] https://example.org/a\n"
    assert escape.terminal_text("\x1b[2J") == "\\u001b[2J"


# --- what a quick verify loads ---------------------------------------------------------------

# Modules a quick verify of a markdown draft never loads (issue 33): typer's, those costing more
# at start than the check does (dataclasses brings inspect, ast, dis and tokenize; typing), the
# readers of other formats (zip archives, decks), OpenSSL's hashes (a page record's), the
# support check's (only with --support or --figures) and the checks a cited draft never needs.
NEVER_IN_QUICK_VERIFY = (
    *NEVER_IN_VERIFY,
    "dataclasses",
    "typing",
    "inspect",
    "ast",
    "tokenize",
    "zipfile",
    "tempfile",
    "hashlib",
    "html",
    "decimal",
    "shlex",
    "shutil",
    "importlib.util",
    "subprocess",
    "threading",
    "selectors",
    "signal",  # its enums: pandoc's runs take the signal numbers from _signal
    "citeledger.document.deck_reading",
    "citeledger.verify.support",
    "citeledger.verify.pages",
    "citeledger.verify.evidence_trail",
    "citeledger.verify.foreign",
)


def _loaded_by_verify(folder: Path, args: list[str]) -> set[str]:
    """The modules a run of ``args`` loads beyond an interpreter that imported ``re``, without
    ``site`` (whose start-up hooks may load typing themselves): only the folder of the embedded
    pandoc's package is put on the path, as an install has it."""
    from citeledger.pandoc import pandoc_path

    packages = str(Path(pandoc_path()).parents[2])
    return loaded_by(folder, args, paths=[packages], preload="re")[1]


@pytest.mark.parametrize(
    "args",
    [
        ["--ledger", "ledger.json", "verify", "draft.md"],
        ["--ledger", "ledger.json", "verify", "--strict", "--min-coverage", "0.5", "draft.md"],
        ["--ledger", "ledger.json", "verify", "--format", "json", "--evidence", "draft.md"],
    ],
    ids=["verify", "verify-strict", "verify-json-evidence"],
)
def test_quick_verify_loads_only_the_checks(tmp_path: Path, args: list[str]) -> None:
    _prepare(tmp_path)
    loaded = _loaded_by_verify(tmp_path, args)
    assert _hits(loaded, NEVER_IN_QUICK_VERIFY) == []
    assert "citeledger.verify.checks" in loaded  # the probe saw a verify


def test_quick_verify_of_an_ordinary_ledger_compiles_no_ledger_pattern(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one-page verify reads its small ledger with the fast lane's reading: the one-pass
    pattern of the ledger file (a tenth of the verify's start when compiled) stays unbuilt."""
    from citeledger.cli import main
    from citeledger.ledger import layout, layout_pattern

    _prepare(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(layout_pattern, "_COMPILED", {})
    layout._LAST.clear()
    main(["--ledger", "ledger.json", "verify", "draft.md"])
    assert layout_pattern._COMPILED == {}
