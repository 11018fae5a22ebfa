"""The ledger verbs end to end: sources.py's flags, output lines and exit codes."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typst

from citeledger.ledger import load_ledger
from tests.helpers import LEDGER_VARS, Result, run_citeledger

Cli = Callable[..., Result]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working folder with no ledger variables set, so ./ledger.json is the default."""
    monkeypatch.delenv("CITELEDGER_LEDGER", raising=False)
    monkeypatch.delenv("HERMES_CITATION_LEDGER", raising=False)
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def run_process(
    *args: str, stdin: bytes | None = None, cwd: Path, env: dict[str, str] | None = None
) -> Result:
    """The real console entry point in a child process (for stdin and for clean error output)."""
    done = run_citeledger(
        *args,
        cwd=cwd,
        unset=LEDGER_VARS,
        extra_env=env,
        stdin=stdin,
        text=False,
        timeout=120,
    )
    return Result.of(done)


def _one_error_line(result: Result) -> None:
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("citeledger: error: ")
    assert "Traceback" not in result.err


# -- reset ------------------------------------------------------------------------------------


def test_reset_writes_a_clean_ledger(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org")
    result = cli("reset")
    assert (result.code, result.out) == (0, "ledger reset: ledger.json\n")
    assert json.loads((home / "ledger.json").read_text(encoding="utf-8")) == {
        "version": 1,
        "sources": [],
    }
    assert cli("add", "https://b.org").out == "[1] https://b.org\n"


def test_reset_keeps_a_copy_of_an_unreadable_ledger(home: Path, cli: Cli) -> None:
    (home / "ledger.json").write_bytes(b"{broken")
    result = cli("reset")
    assert result.code == 0 and "kept as" in result.err
    [saved] = home.glob("ledger.json.corrupt-*")
    assert saved.read_bytes() == b"{broken"


# -- add --------------------------------------------------------------------------------------


def test_add_prints_an_id_line_per_url(home: Path, cli: Cli) -> None:
    result = cli("add", "https://a.org/x#frag", "https://b.org/", "doi:10.1000/xyz")
    assert result.code == 0
    assert result.out == "[1] https://a.org/x\n[2] https://b.org\n[3] https://doi.org/10.1000/xyz\n"


def test_add_is_idempotent(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org/x")
    before = (home / "ledger.json").read_bytes()
    result = cli("add", "HTTPS://A.ORG/x/#top")
    assert result.out == "[1] https://a.org/x\n"
    assert (home / "ledger.json").read_bytes() == before


def test_a_trailing_slash_stays_in_every_output_and_one_page_keeps_one_id(
    home: Path, cli: Cli
) -> None:
    docs = "https://example.org/docs/"
    assert cli("add", docs, "--title", "Docs").out == f"[1] {docs}\n"
    assert cli("add", "https://example.org/docs").out == f"[1] {docs}\n"
    assert json.loads(cli("add", "https://example.org/docs", "--json").out)[0]["url"] == docs
    assert cli("list").out == f"[1] {docs}  Docs\n"
    assert f"[1] {docs} — Docs" in cli("render", "--style", "evidence").out
    assert load_ledger(home / "ledger.json").sources[0].url == docs


def test_add_title_fills_an_empty_title_only(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org")
    cli("add", "https://a.org", "--title", "First title")
    cli("add", "https://a.org", "--title", "Second title")
    assert load_ledger(home / "ledger.json").sources[0].title == "First title"


def test_add_one_title_for_several_urls_is_refused(home: Path, cli: Cli) -> None:
    result = cli("add", "https://a.org", "https://b.org", "--title", "T")
    assert result.code == 2 and "one --title per URL" in result.err
    assert not (home / "ledger.json").exists()


def test_add_json_and_accessed(home: Path, cli: Cli) -> None:
    result = cli("add", "https://a.org", "--title", "A", "--accessed", "2024-01-31", "--json")
    assert json.loads(result.out) == [
        {"id": 1, "url": "https://a.org", "title": "A", "accessed": "2024-01-31", "quotes": []}
    ]


def test_add_bad_date_is_bad_input(home: Path, cli: Cli) -> None:
    result = cli("add", "https://a.org", "--accessed", "31/01/2024")
    assert result.code == 2 and "YYYY-MM-DD" in result.err
    assert not (home / "ledger.json").exists()


@pytest.mark.parametrize(
    "bad", ["javascript:alert(1)", "data:text/plain,hi", "file:///etc/passwd", "word"]
)
def test_add_refuses_non_http_and_does_not_create_the_ledger(
    home: Path, cli: Cli, bad: str
) -> None:
    result = cli("add", "https://fine.org", bad)
    assert result.code == 2
    _one_error_line(result)
    assert list(home.iterdir()) == []


def test_add_refusal_leaves_an_existing_ledger_untouched(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org")
    before = (home / "ledger.json").read_bytes()
    assert cli("add", "https://b.org", "javascript:x").code == 2
    assert (home / "ledger.json").read_bytes() == before


# -- the ledger path ----------------------------------------------------------------------------


def test_ledger_option_before_and_after_the_verb(home: Path, cli: Cli) -> None:
    cli("--ledger", "before.json", "add", "https://a.org")
    cli("add", "https://b.org", "--ledger", "after.json")
    cli("--ledger", "loser.json", "add", "https://c.org", "--ledger", "winner.json")
    assert sorted(p.name for p in home.glob("*.json")) == [
        "after.json",
        "before.json",
        "winner.json",
    ]
    assert load_ledger(home / "winner.json").sources[0].url == "https://c.org"


def test_ledger_env_vars_in_order(home: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_CITATION_LEDGER", str(home / "hermes.json"))
    cli("add", "https://a.org")
    monkeypatch.setenv("CITELEDGER_LEDGER", str(home / "own.json"))
    cli("add", "https://b.org")
    cli("--ledger", "flag.json", "add", "https://c.org")
    assert [s.url for s in load_ledger(home / "hermes.json").sources] == ["https://a.org"]
    assert [s.url for s in load_ledger(home / "own.json").sources] == ["https://b.org"]
    assert [s.url for s in load_ledger(home / "flag.json").sources] == ["https://c.org"]
    assert not (home / "ledger.json").exists()


# -- ingest -------------------------------------------------------------------------------------

SEARCH_OUTPUT = {
    "success": True,
    "data": {
        "web": [
            {"url": "https://a.org/one", "title": "One", "description": "..."},
            {"url": "https://b.org/two#x", "title": "Two"},
            {"url": "https://a.org/one/", "title": "One again"},
        ]
    },
    "results": [
        {"link": "https://c.org/three", "name": "Three"},
        {"source_url": "https://d.org/four", "meta": {"url": "https://e.org/nested", "title": 5}},
        {"url": "javascript:void(0)", "title": "tracker"},
    ],
}


def test_ingest_registers_every_url_in_document_order_deduplicated(home: Path, cli: Cli) -> None:
    (home / "search.json").write_text(json.dumps(SEARCH_OUTPUT), encoding="utf-8")
    result = cli("ingest", "search.json")
    assert result.code == 0
    assert result.out == (
        "[1] https://a.org/one (new) \u2014 One\n[2] https://b.org/two (new) \u2014 Two\n"
        "[3] https://c.org/three (new) \u2014 Three\n[4] https://d.org/four (new)\n"
        "[5] https://e.org/nested (new)\n"
    )
    assert "skipped" in result.err and "javascript" in result.err
    titles = [s.title for s in load_ledger(home / "ledger.json").sources]
    assert titles == ["One", "Two", "Three", "", ""]


def test_ingest_reuses_ids_and_fills_empty_titles(home: Path, cli: Cli) -> None:
    cli("add", "https://c.org/three")
    (home / "search.json").write_text(json.dumps(SEARCH_OUTPUT), encoding="utf-8")
    out = cli("ingest", "search.json").out.splitlines()
    assert out[2] == "[1] https://c.org/three (known) \u2014 Three"
    first = load_ledger(home / "ledger.json").get(1)
    assert first is not None and first.title == "Three"


def test_ingest_reads_stdin(home: Path) -> None:
    result = run_process("ingest", "-", stdin=json.dumps(SEARCH_OUTPUT).encode(), cwd=home)
    assert result.code == 0 and result.out.startswith("[1] https://a.org/one (new) \u2014 One\n")


def test_ingest_invalid_json_exits_2(home: Path, cli: Cli) -> None:
    (home / "bad.json").write_text("{not json", encoding="utf-8")
    result = cli("ingest", "bad.json")
    assert result.code == 2 and "not valid JSON" in result.err
    assert not (home / "ledger.json").exists()


def test_ingest_without_urls_exits_1(home: Path, cli: Cli) -> None:
    (home / "none.json").write_text('{"results": [{"title": "no link"}]}', encoding="utf-8")
    result = cli("ingest", "none.json")
    assert result.code == 1 and "no URLs found" in result.err


def test_ingest_missing_file_exits_2(home: Path, cli: Cli) -> None:
    result = cli("ingest", "missing.json")
    assert result.code == 2 and "missing.json" in result.err


CONCURRENT_ADDER = textwrap.dedent(
    """
    import sys
    from citeledger.ledger import transaction
    print("ready", flush=True)
    for i in range(400):
        with transaction(sys.argv[1]) as ledger:
            ledger.add(f"https://other.org/{i}")
    """
)


@pytest.mark.slow
def test_ingest_is_one_transaction(home: Path) -> None:
    """While another process adds in a tight loop, an ingest's ids still come out contiguous:
    it took the lock once for all its URLs."""
    payload = {"results": [{"url": f"https://ingested.org/{i}"} for i in range(300)]}
    (home / "many.json").write_text(json.dumps(payload), encoding="utf-8")
    adder = subprocess.Popen(
        [sys.executable, "-c", CONCURRENT_ADDER, str(home / "ledger.json")], stdout=subprocess.PIPE
    )
    assert adder.stdout is not None and adder.stdout.readline() == b"ready\n"
    result = run_process("ingest", "many.json", cwd=home)
    assert adder.wait(timeout=120) == 0
    adder.stdout.close()
    assert result.code == 0
    ids = [int(line.split("]")[0][1:]) for line in result.out.splitlines()]
    assert ids == list(range(ids[0], ids[0] + 300))
    assert load_ledger(home / "ledger.json").ids() == list(range(1, 701))


# -- quote --------------------------------------------------------------------------------------

MARKDOWN_PAGE = (
    "# Ice\n\nSea ice **floats** because it is [less dense](https://x.org/density) than\n"
    "liquid water \u2014 about 9\u00a0% lighter.\n"
)


def test_quote_attaches_evidence_with_hash_and_origin(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org")
    (home / "page.md").write_text(MARKDOWN_PAGE, encoding="utf-8")
    result = cli(
        "quote", "1", "--text", "Sea ice floats because it is less dense", "--from", "page.md"
    )
    assert (result.code, result.out) == (0, "[1] evidence attached (1 quote(s))\n")
    [stored] = load_ledger(home / "ledger.json").sources[0].quotes
    assert stored.text == "Sea ice floats because it is less dense"
    assert stored.origin == "page.md"
    assert stored.sha256 == hashlib.sha256(MARKDOWN_PAGE.encode()).hexdigest()


def test_quote_typography_and_repeat_is_stored_once(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org")
    (home / "page.md").write_text(MARKDOWN_PAGE, encoding="utf-8")
    assert (
        cli("quote", "1", "--text", "liquid water - about 9 % lighter", "--from", "page.md").code
        == 0
    )
    again = cli("quote", "1", "--text", "LIQUID  water -- about 9 % lighter", "--from", "page.md")
    assert again.out == "[1] evidence attached (1 quote(s))\n"


def test_quote_not_on_the_page_exits_1_naming_id_and_file(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org")
    (home / "page.md").write_text(MARKDOWN_PAGE, encoding="utf-8")
    before = (home / "ledger.json").read_bytes()
    result = cli("quote", "1", "--text", "about 8 % lighter", "--from", "page.md")
    assert result.code == 1
    _one_error_line(result)
    assert "[1]" in result.err and "page.md" in result.err
    assert (home / "ledger.json").read_bytes() == before


def test_quote_unknown_id_exits_2(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org")
    (home / "page.md").write_text(MARKDOWN_PAGE, encoding="utf-8")
    result = cli("quote", "7", "--text", "Sea ice floats because", "--from", "page.md")
    assert result.code == 2 and "no source [7]" in result.err


@pytest.mark.parametrize("text", ["too short", "研究表明"])
def test_quote_under_three_words_exits_2(home: Path, cli: Cli, text: str) -> None:
    cli("add", "https://a.org")
    (home / "page.md").write_text(text, encoding="utf-8")
    result = cli("quote", "1", "--text", text, "--from", "page.md")
    assert result.code == 2 and "too short" in result.err


def test_quote_from_html_ignores_script_text(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org")
    (home / "page.html").write_text(
        "<html><body><script>var s = 'the moon is cheese';</script>"
        "<p>Ice floats on&nbsp;water.</p></body></html>",
        encoding="utf-8",
    )
    assert cli("quote", "1", "--text", "the moon is cheese", "--from", "page.html").code == 1
    assert cli("quote", "1", "--text", "Ice floats on water", "--from", "page.html").code == 0


def test_quote_from_pdf_on_stdin(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org")
    (home / "doc.typ").write_text(
        "Glaciers hold about 69 percent of fresh water.\n", encoding="utf-8"
    )
    pdf = typst.compile(str(home / "doc.typ"))
    assert isinstance(pdf, bytes)
    result = run_process(
        "quote", "1", "--text", "hold about 69 percent", "--from", "-", stdin=pdf, cwd=home
    )
    assert result.code == 0, result.err
    [stored] = load_ledger(home / "ledger.json").sources[0].quotes
    assert stored.origin == "-"
    wrong = run_process(
        "quote", "1", "--text", "hold about 96 percent", "--from", "-", stdin=pdf, cwd=home
    )
    assert wrong.code == 1 and "standard input" in wrong.err


# -- list ---------------------------------------------------------------------------------------


def test_list_shows_ids_titles_and_quote_counts(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org", "--title", "Page A")
    cli("add", "https://b.org")
    (home / "page.md").write_text("one two three four five six", encoding="utf-8")
    cli("quote", "1", "--text", "one two three", "--from", "page.md")
    cli("quote", "2", "--text", "two three four", "--from", "page.md")
    cli("quote", "2", "--text", "four five six", "--from", "page.md")
    assert (
        cli("list").out == "[1] https://a.org  Page A  (1 quote)\n[2] https://b.org  (2 quotes)\n"
    )


def test_list_empty_and_missing_ledger(home: Path, cli: Cli) -> None:
    result = cli("list")
    assert result.code == 0
    assert result.out.startswith("ledger is empty: ledger.json (the working directory's, as ")
    assert not (home / "ledger.json").exists()


def test_list_json(home: Path, cli: Cli) -> None:
    cli("add", "https://a.org", "--accessed", "2024-02-02")
    assert json.loads(cli("list", "--json").out) == [
        {"id": 1, "url": "https://a.org", "title": "", "accessed": "2024-02-02", "quotes": []}
    ]


# -- render -------------------------------------------------------------------------------------


@pytest.fixture
def three(home: Path, cli: Cli) -> Path:
    cli("add", "https://a.org", "--title", "A & B")
    cli("add", "https://b.org")
    cli("add", "https://c.org", "--title", "C")
    return home


def test_render_styles(three: Path, cli: Cli) -> None:
    assert cli("render").out == (
        "## Sources\n\n[1] https://a.org — A & B\n[2] https://b.org\n[3] https://c.org — C\n"
    )
    assert cli("render", "--style", "plain", "--only", "1,3").out == (
        "Sources:\n[1] https://a.org — A & B\n[3] https://c.org — C\n"
    )
    assert cli("render", "--style", "footnotes", "--only", "2-3").out == (
        "[^2]: https://b.org\n[^3]: https://c.org — C\n"
    )
    assert "title = {A \\& B}" in cli("render", "--style", "bibtex", "--only", "1").out


def test_render_nothing_exits_1(three: Path, cli: Cli) -> None:
    result = cli("render", "--only", "9")
    assert result.code == 1 and "no sources to render" in result.err


def test_render_bad_style_and_bad_only_exit_2(three: Path, cli: Cli) -> None:
    assert cli("render", "--style", "apa").code == 2
    assert cli("render", "--only", "x-y").code == 2


DRAFT = "# Report\n\nIce floats.[3] Water is wet.[1]\n\nCode `[2]` is not a citation.\n"


def test_render_cited_in_uses_the_drafts_ids(three: Path, cli: Cli) -> None:
    (three / "draft.md").write_text(DRAFT, encoding="utf-8")
    result = cli("render", "--cited-in", "draft.md", "--style", "plain")
    assert result.out == "Sources:\n[1] https://a.org — A & B\n[3] https://c.org — C\n"


def test_render_replace_in_rewrites_the_block_idempotently(three: Path, cli: Cli) -> None:
    draft = three / "draft.md"
    draft.write_text(DRAFT + "\n## Sources\n\n[1] https://stale.example\n", encoding="utf-8")
    result = cli("render", "--replace-in", "draft.md")
    assert result.out == "Sources block rewritten in draft.md\n"
    expected = DRAFT + "\n## Sources\n\n[1] https://a.org — A & B\n[3] https://c.org — C\n"
    assert draft.read_text(encoding="utf-8") == expected
    cli("render", "--replace-in", "draft.md")
    assert draft.read_text(encoding="utf-8") == expected


def test_render_replace_in_refuses_headless_styles(three: Path, cli: Cli) -> None:
    (three / "draft.md").write_text(DRAFT, encoding="utf-8")
    result = cli("render", "--replace-in", "draft.md", "--style", "bibtex")
    assert result.code == 2 and (three / "draft.md").read_text(encoding="utf-8") == DRAFT


def test_render_missing_draft_exits_2(three: Path, cli: Cli) -> None:
    result = cli("render", "--cited-in", "nope.md")
    assert result.code == 2 and "nope.md" in result.err


# -- errors: one line, no traceback, corrupt ledgers untouched ----------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["add", "https://a.org"],
        ["list"],
        ["render"],
        ["quote", "1", "--text", "one two three", "--from", "page.txt"],
        ["ingest", "urls.json"],
    ],
)
def test_corrupt_ledger_gives_one_line_and_stays_byte_identical(
    home: Path, args: list[str]
) -> None:
    corrupt = b'{"version": 1, "sources": [{"id": 1, "url": "https://a.org"'
    (home / "ledger.json").write_bytes(corrupt)
    (home / "page.txt").write_text("one two three", encoding="utf-8")
    (home / "urls.json").write_text('{"url": "https://b.org"}', encoding="utf-8")
    result = run_process(*args, cwd=home)
    assert result.code == 2
    _one_error_line(result)
    assert "ledger.json" in result.err and "reset" in result.err
    assert (home / "ledger.json").read_bytes() == corrupt


@pytest.mark.parametrize(
    "args",
    [
        ["add", "javascript:alert(1)"],
        ["add", "https://a.org", "--accessed", "yesterday"],
        ["--ledger", ".", "add", "https://a.org"],
        ["quote", "1", "--text", "one two three", "--from", "missing.txt"],
        ["quote", "x", "--text", "one two three", "--from", "page.txt"],
        ["ingest", "missing.json"],
        ["render", "--only", "5-1"],
        ["render", "--cited-in", "missing.md"],
    ],
)
def test_user_errors_are_one_line_without_traceback(home: Path, args: list[str]) -> None:
    run_process("add", "https://a.org", cwd=home)
    (home / "page.txt").write_text("one two three", encoding="utf-8")
    result = run_process(*args, cwd=home)
    assert result.code == 2
    _one_error_line(result)


def test_add_imports_no_pandoc_office_typst_or_pdf_code(home: Path) -> None:
    probe = textwrap.dedent(
        """
        import json, sys
        from citeledger.cli import main
        try:
            main(["--ledger", "probe.json", "add", "https://example.org/a"])
        except SystemExit as stop:
            assert stop.code in (0, None), stop.code
        print(json.dumps(sorted(sys.modules)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, cwd=home, check=True, timeout=60
    )
    modules = json.loads(done.stdout.decode().splitlines()[-1])
    heavy = {"panflute", "docx", "pptx", "pypandoc", "typst", "pypdf"}
    assert not heavy & {m.split(".")[0] for m in modules}
