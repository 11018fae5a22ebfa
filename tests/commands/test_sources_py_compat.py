"""citeledger as a drop-in for the grounded-citations ``sources.py``: what an agent or a script
written for sources.py reads (stdout, stderr, exit codes, line by line) and where its ledger
lives. Every deliberate difference is listed in the manual's "Coming from sources.py"
(docs/agents/sources-py.md); the last tests hold the page to that."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from citeledger.ledger import load_ledger
from tests.helpers import ROOT, run_citeledger

SOURCES_PY_PAGE = ROOT / "docs" / "agents" / "sources-py.md"
LEDGER_VARS = ("CITELEDGER_LEDGER", "HERMES_CITATION_LEDGER", "HERMES_HOME")


@dataclass
class Result:
    code: int
    out: str
    err: str


def citeledger(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> Result:
    """The real console entry point in a child process, with no ledger variable set but those
    in ``env``: streams and exit codes exactly as a calling agent sees them."""
    done = run_citeledger(
        *args, cwd=cwd, unset=LEDGER_VARS, extra_env=env, stdin=stdin, timeout=120
    )
    return Result(done.returncode, done.stdout, done.stderr)


# -- the skill's procedure, as an agent runs it ---------------------------------------------------

SEARCH_RESULTS = {
    "success": True,
    "data": {
        "web": [
            {
                "url": "https://example.org/ice-density",
                "title": "Why ice floats",
                "description": "Ice is less dense than water ...",
            },
            {"url": "https://example.org/lakes#winter", "title": "How lakes freeze"},
            {"url": "https://example.org/ice-density/", "title": "Why ice floats (mirror)"},
            {"url": "https://example.org/glaciers", "title": "Glaciers"},
        ]
    },
}
PAGES = {
    "ice.md": "# Why ice floats\n\nWater expands as it freezes. Ice is about **9% less dense** "
    "than liquid water, so it floats.\n",
    "lakes.md": "Lakes freeze from the top down because the densest water, at about 4 \u00b0C, "
    "sinks to the bottom.\n",
    "sea.txt": "Sea ice covers about 15 million square kilometres of the Arctic Ocean in March.\n",
}
DRAFT = (
    "# Ice\n\n"
    "Ice is about 9% less dense than liquid water, so it floats.[1] "
    "Lakes freeze from the top down because the densest water sinks.[2] "
    "Sea ice covers about 15 million square kilometres of the Arctic in March.[4] "
    "Some of that ice is many years old.[unverified]\n"
)
SOURCES_BLOCK = (
    "\n## Sources\n\n"
    "[1] https://example.org/ice-density \u2014 Why ice floats\n"
    "[2] https://example.org/lakes \u2014 How lakes freeze\n"
    "[4] https://example.org/sea-ice \u2014 Sea ice extent\n"
)


def stats(with_quotes: int) -> str:
    return (
        "info: stats: 4 prose sentence(s), 4 with declared provenance (100%) \u2014 3 cited, "
        "1 marked [unverified], 0 [tool:...], 0 [policy] (a sentence may be several); "
        f"3 distinct source(s) cited, 4 in ledger ({with_quotes} with evidence quotes); "
        "1 registered without evidence and not cited (`-v` lists them)"
    )


def test_the_skills_procedure_reads_line_by_line_as_with_sources_py(tmp_path: Path) -> None:
    """Reset, ingest search results, add, quote from saved page text, render --replace-in,
    verify --evidence --min-coverage: inside a Hermes agent ($HERMES_HOME set, no --ledger),
    the ledger is the skill's, and every line lands on the stream sources.py prints it to."""
    task = tmp_path / "task"
    task.mkdir()
    for name, text in PAGES.items():
        (task / name).write_text(text, encoding="utf-8")
    hermes = {"HERMES_HOME": str(tmp_path / "hermes")}
    ledger = tmp_path / "hermes" / "cache" / "citations" / "ledger.json"

    def step(*args: str, stdin: str | None = None) -> Result:
        return citeledger(*args, cwd=task, env=hermes, stdin=stdin)

    assert step("reset") == Result(0, f"ledger reset: {ledger}\n", "")
    assert step("ingest", "-", stdin=json.dumps(SEARCH_RESULTS)) == Result(
        0,
        "[1] https://example.org/ice-density (new) \u2014 Why ice floats\n"
        "[2] https://example.org/lakes (new) \u2014 How lakes freeze\n"
        "[3] https://example.org/glaciers (new) \u2014 Glaciers\n",
        "",
    )
    assert step("add", "https://example.org/sea-ice", "--title", "Sea ice extent") == Result(
        0, "[4] https://example.org/sea-ice\n", ""
    )
    assert step("add", "https://EXAMPLE.org/lakes/") == Result(
        0, "[2] https://example.org/lakes\n", ""
    )
    assert step(
        "quote", "1", "--text", "Ice is about 9% less dense than liquid water", "--from", "ice.md"
    ) == Result(0, "[1] evidence attached (1 quote(s))\n", "")
    assert step(
        "quote", "2", "--text", "Lakes freeze from the top down", "--from", "lakes.md"
    ) == Result(0, "[2] evidence attached (1 quote(s))\n", "")

    (task / "draft.md").write_text(DRAFT, encoding="utf-8")
    assert step("render", "--replace-in", "draft.md") == Result(
        0, "Sources block rewritten in draft.md\n", ""
    )
    assert (task / "draft.md").read_text(encoding="utf-8") == DRAFT + SOURCES_BLOCK

    gate = ("verify", "draft.md", "--evidence", "--min-coverage", "0.6")
    # A search result never cited nor quoted is counted on the stats line, not a warning.
    assert step(*gate) == Result(
        1,
        f"{stats(2)}\nverification failed\n",
        "FAIL: draft.md:3:204: cited sources carry no verbatim evidence quote: [4] \u2014 fix: "
        '`citeledger quote 4 --text "\u2026" --from PAGE` with the words of the fetched page\n',
    )
    assert step(
        "quote",
        "4",
        "--text",
        "Sea ice covers about 15 million square kilometres",
        "--from",
        "sea.txt",
    ) == Result(0, "[4] evidence attached (1 quote(s))\n", "")
    assert step(*gate) == Result(0, f"{stats(3)}\ncitations OK\n", "")

    assert [s.id for s in load_ledger(ledger).sources] == [1, 2, 3, 4]
    assert sorted(p.name for p in task.iterdir()) == ["draft.md", "ice.md", "lakes.md", "sea.txt"]


# -- verify's streams ---------------------------------------------------------------------------

LEDGER = {
    "version": 1,
    "sources": [
        {"id": 1, "url": "https://example.org/a", "title": "A", "accessed": "2024-01-01"},
        {"id": 2, "url": "https://example.org/b", "title": "B", "accessed": "2024-01-01"},
    ],
}
FAILING = (
    "# Claims\n\nThe first claim is sourced here.[1] The second claim cites a ghost.[9]\n\n"
    "## Sources\n\n[1] https://example.org/a\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    (tmp_path / "failing.md").write_text(FAILING, encoding="utf-8")
    return tmp_path


def test_verify_prints_info_warn_and_verdict_on_stdout_and_fail_lines_on_stderr(
    project: Path,
) -> None:
    result = citeledger("verify", "failing.md", cwd=project)
    assert result.code == 1
    assert result.out.splitlines() == [
        "info: stats: 2 prose sentence(s), 2 with declared provenance (100%) \u2014 2 cited, "
        "0 marked [unverified], 0 [tool:...], 0 [policy] (a sentence may be several); "
        "2 distinct source(s) cited, 2 in ledger (0 with evidence quotes); "
        "1 registered without evidence and not cited (`-v` lists them)",
        "verification failed",
    ]
    assert [line.split(" \u2014 fix: ")[0] for line in result.err.splitlines()] == [
        "FAIL: failing.md:3:68: citations not in the ledger (hallucinated or renumbered): [9]",
        "FAIL: failing.md:3:68: cited but absent from the Sources block: [9]",
    ]
    # `verify ... --format json` : the report alone on stdout, the verdict on stderr.
    as_json = citeledger("verify", "failing.md", "--format", "json", cwd=project)
    assert as_json.code == 1 and json.loads(as_json.out)["ok"] is False
    assert as_json.err == "verification failed\n"


def test_verify_verdict_is_the_last_stdout_line_and_stderr_stays_empty_when_ok(
    project: Path,
) -> None:
    (project / "ok.md").write_text(
        "The first claim is sourced here.[1] The second one is sourced too.[2]\n\n"
        "Sources:\n[1] https://example.org/a\n[2] https://example.org/b\n",
        encoding="utf-8",
    )
    result = citeledger("verify", "ok.md", "--strict", cwd=project)
    assert (result.code, result.err) == (0, "")
    assert result.out.splitlines()[-1] == "citations OK"  # `verify ... | tail -1`


# -- where the ledger is ------------------------------------------------------------------------

DEFAULT_WHY = (
    "the working directory's, as none of --ledger, $CITELEDGER_LEDGER, "
    "$HERMES_CITATION_LEDGER, $HERMES_HOME is set"
)


def test_hermes_home_puts_the_ledger_where_the_skill_says_and_list_says_so(
    tmp_path: Path,
) -> None:
    env = {"HERMES_HOME": str(tmp_path / "home")}
    skills = tmp_path / "home" / "cache" / "citations" / "ledger.json"
    assert citeledger("list", cwd=tmp_path, env=env) == Result(
        0, f"ledger is empty: {skills} (the skill's place under $HERMES_HOME)\n", ""
    )
    assert citeledger("add", "https://example.org/a", cwd=tmp_path, env=env).code == 0
    assert [s.url for s in load_ledger(skills).sources] == ["https://example.org/a"]
    assert not (tmp_path / "ledger.json").exists()


def test_without_hermes_home_the_ledger_stays_beside_the_drafts_and_list_says_why(
    tmp_path: Path,
) -> None:
    assert citeledger("list", cwd=tmp_path) == Result(
        0, f"ledger is empty: ledger.json ({DEFAULT_WHY})\n", ""
    )
    citeledger("add", "https://example.org/a", cwd=tmp_path)
    assert load_ledger(tmp_path / "ledger.json").ids() == [1]


@pytest.mark.parametrize(
    ("args", "env", "where", "why"),
    [
        (["--ledger", "flag.json"], {}, "flag.json", "given by --ledger"),
        ([], {"CITELEDGER_LEDGER": "own.json"}, "own.json", "given by $CITELEDGER_LEDGER"),
        (
            [],
            {"HERMES_CITATION_LEDGER": "skill.json"},
            "skill.json",
            "given by $HERMES_CITATION_LEDGER",
        ),
    ],
)
def test_ledger_flag_and_variables_win_over_hermes_home(
    tmp_path: Path, args: list[str], env: dict[str, str], where: str, why: str
) -> None:
    env = {"HERMES_HOME": str(tmp_path / "home"), **env}
    assert citeledger(*args, "list", cwd=tmp_path, env=env).out == (
        f"ledger is empty: {where} ({why})\n"
    )
    citeledger(*args, "add", "https://example.org/a", cwd=tmp_path, env=env)
    assert load_ledger(tmp_path / where).ids() == [1]
    assert not (tmp_path / "home").exists()


def test_convert_finds_the_skills_ledger_under_hermes_home(tmp_path: Path) -> None:
    """The pandoc side resolves the ledger as the ledger verbs do: a ledger sources.py kept in
    the skill's place is the one convert (and the filter) read."""
    skills = tmp_path / "home" / "cache" / "citations" / "ledger.json"
    skills.parent.mkdir(parents=True)
    skills.write_text(CARRIED_OVER, encoding="utf-8")
    (tmp_path / "draft.md").write_text("The claim is sourced here.[1]\n", encoding="utf-8")
    env = {"HERMES_HOME": str(tmp_path / "home")}
    result = citeledger("convert", "draft.md", "-o", "draft.html", cwd=tmp_path, env=env)
    assert result.code == 0, result.err
    assert "https://example.org/a" in (tmp_path / "draft.html").read_text(encoding="utf-8")


# -- add --accessed -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        "2024-01-31T14:05",
        "2024-01-31T14:05:09",
        "2024-01-31T14:05:09Z",
        "2024-01-31T14:05:09.123456",
        "2024-01-31T23:30:00-05:00",
        "2024-01-31T00:30:00+0100",
        "2024-01-31 14:05:09Z",
        "20240131T140509Z",
    ],
)
def test_accessed_takes_iso_8601_dates_and_date_times_and_stores_the_date(
    tmp_path: Path, given: str
) -> None:
    result = citeledger("add", "https://example.org/a", "--accessed", given, cwd=tmp_path)
    assert result == Result(0, "[1] https://example.org/a\n", "")
    assert load_ledger(tmp_path / "ledger.json").sources[0].accessed == "2024-01-31"


@pytest.mark.parametrize(
    "given",
    ["31/01/2024", "yesterday", "2024", "2024-01", "2024-02-30", "2024-01-31T25:00", "Jan 31"],
)
def test_accessed_refuses_other_forms_naming_the_accepted_ones(tmp_path: Path, given: str) -> None:
    result = citeledger("add", "https://example.org/a", "--accessed", given, cwd=tmp_path)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"citeledger: error: --accessed {given!r} is not an ISO 8601 date or date-time "
        "(give an ISO 8601 date or date-time: YYYY-MM-DD or YYYYMMDD, optionally followed by "
        "Thh:mm[:ss[.fff]] and Z or +hh:mm, e.g. 2024-01-31 or 2024-01-31T14:05:09Z; "
        "a date-time is stored as its date)\n"
    )
    assert list(tmp_path.iterdir()) == []


# -- add A B C: all or nothing, every bad argument named ------------------------------------------


def test_add_batch_names_every_bad_argument_at_once_and_adds_nothing(tmp_path: Path) -> None:
    citeledger("add", "https://example.org/kept", cwd=tmp_path)
    before = (tmp_path / "ledger.json").read_bytes()
    result = citeledger(
        "add",
        "https://example.org/a",
        "javascript:alert(1)",
        "doi:10.1000/fine",
        "example",
        "mailto:x@example.org",
        cwd=tmp_path,
    )
    fix = "give a full http(s) URL, a doi:10.x/y or an arXiv:NNNN.NNNNN id"
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        "citeledger: error: nothing added, 3 bad argument(s): "
        "argument 2: refusing javascript: URL 'javascript:alert(1)': only http(s) sources "
        f"({fix}); "
        f"argument 4: 'example' is not a URL (no scheme) ({fix}); "
        f"argument 5: refusing mailto: URL 'mailto:x@example.org': only http(s) sources ({fix}) "
        "(fix or drop each one and run add again: a batch is added whole or not at all)\n"
    )
    assert (tmp_path / "ledger.json").read_bytes() == before


# -- a ledger carried over from sources.py --------------------------------------------------------

# As sources.py writes it: any text as the url, no quotes key until a quote, no last_id.
CARRIED_OVER = (
    json.dumps(
        {
            "version": 1,
            "sources": [
                {"id": 1, "url": "https://example.org/a", "title": "A", "accessed": "2024-01-01"},
                {"id": 2, "url": "example.com/page", "title": "", "accessed": "2024-01-02"},
            ],
        },
        indent=2,
    )
    + "\n"
)


@pytest.mark.parametrize(
    "spelling", ["example.com/page", "example.com/page/", " example.com/page#s2"]
)
def test_add_prints_the_id_of_a_non_url_entry_carried_over_from_sources_py(
    tmp_path: Path, spelling: str
) -> None:
    (tmp_path / "ledger.json").write_text(CARRIED_OVER, encoding="utf-8")
    result = citeledger("add", spelling, cwd=tmp_path)
    assert (result.code, result.out) == (0, "[2] example.com/page\n")
    assert "[2] example.com/page is not an http(s) URL" in result.err
    assert (tmp_path / "ledger.json").read_text(encoding="utf-8") == CARRIED_OVER


def test_add_mixes_carried_over_entries_and_new_urls_but_refuses_unknown_non_urls(
    tmp_path: Path,
) -> None:
    (tmp_path / "ledger.json").write_text(CARRIED_OVER, encoding="utf-8")
    mixed = citeledger("add", "example.com/page", "https://example.org/new", cwd=tmp_path)
    assert (mixed.code, mixed.out) == (0, "[2] example.com/page\n[3] https://example.org/new\n")
    unknown = citeledger("add", "example.com/other", cwd=tmp_path)
    assert (unknown.code, unknown.out) == (2, "")
    assert "'example.com/other' is not a URL" in unknown.err
    assert load_ledger(tmp_path / "ledger.json").ids() == [1, 2, 3]


# -- exit codes -----------------------------------------------------------------------------------


def coming_from_sources_py() -> str:
    text = SOURCES_PY_PAGE.read_text(encoding="utf-8")
    match = re.search(r"^# Coming from sources\.py\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, "docs/agents/sources-py.md has no title '# Coming from sources.py'"
    return match.group(1)


def table_rows(section: str) -> list[list[str]]:
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("|")
    ]
    return rows[2:]  # after the header and its rule


def test_bad_input_exits_2_where_sources_py_exits_1_as_the_readme_lists(tmp_path: Path) -> None:
    (tmp_path / "ledger.json").write_text(CARRIED_OVER, encoding="utf-8")
    (tmp_path / "page.txt").write_text("Ice floats on water in winter.\n", encoding="utf-8")
    cases = {
        "unknown id to quote": (2, ["quote", "7", "--text", "Ice floats on", "--from", "page.txt"]),
        "quote too short": (2, ["quote", "1", "--text", "Ice floats", "--from", "page.txt"]),
        "quote not on the page": (
            1,
            ["quote", "1", "--text", "Ice sinks in", "--from", "page.txt"],
        ),
        "missing evidence file": (2, ["quote", "1", "--text", "a b c", "--from", "nope.txt"]),
        "bad --only": (2, ["render", "--only", "x-y"]),
    }
    for what, (code, args) in cases.items():
        result = citeledger(*args, cwd=tmp_path)
        assert result.code == code, f"{what}: {result}"
    (tmp_path / "ledger.json").write_text("{damaged", encoding="utf-8")
    for verb in (["list"], ["add", "https://example.org/x"], ["render"]):
        assert citeledger(*verb, cwd=tmp_path).code == 2, verb
    rows = [" ".join(r).lower() for r in table_rows(coming_from_sources_py())]
    exit_row = next((r for r in rows if "exit code" in r), "")
    for needle in ("unknown id", "too short", "damaged ledger", "2", "1"):
        assert needle in exit_row, f"the page's exit-code row does not mention {needle!r}"


# -- the manual's contract ----------------------------------------------------------------------


def test_the_manual_lists_every_deliberate_difference_with_its_reason() -> None:
    section = coming_from_sources_py()
    rows = table_rows(section)
    assert rows and all(len(r) == 3 and all(r) for r in rows), "rows: topic | sources.py | why"
    text = " ".join(" ".join(r) for r in rows).lower()
    for needle in (
        "last_id",
        '"quotes": []',
        "sha256",
        "origin",
        "host",
        "default port",
        "DOI",
        "javascript:",
        "line:column",
        "one id per line",
        "space-before-marker",
        "group-marker",
        "marker-before-punctuation",
        "exit code",
        "stdout",
        "HERMES_HOME",
        "--accessed",
        "all or nothing",
    ):
        assert needle.lower() in text, f"the 'Coming from sources.py' table lacks {needle!r}"
