"""A cloned repository's ``citeledger.toml`` is someone else's file: it is looked for only
from the working directory up to the repository's root (never above it, above the home, or in a
folder another user owns), the ledger it names lies inside the project, and a wrong TOML type
or an odd path is one line, never a traceback or a file named ``5``."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from citeledger.options.project import find_project
from tests.helpers import run_citeledger

SOURCE = {"id": 1, "url": "https://example.org/1", "title": "S1", "accessed": "2026-01-01"}
REFS = [{"url": "https://example.org/new", "title": "$(touch pwned) new"}]


def cli(*args: str, cwd: Path, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    if home is not None:
        env["HOME"] = str(home)
    return run_citeledger(*args, cwd=cwd, env=env, timeout=120)


def _ledger(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"version": 1, "sources": [SOURCE]}), encoding="utf-8")
    return path


def _clone(parent: Path) -> Path:
    clone = parent / "clone"
    (clone / ".git").mkdir(parents=True)
    _ledger(clone / "ledger.json")
    return clone


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.splitlines()
    return line


# The ledger a project file names -----------------------------------------------------------------


@pytest.mark.parametrize("verb", ["ingest", "reset"])
def test_a_clones_project_file_cannot_aim_the_ledger_at_a_login_script(
    tmp_path: Path, verb: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    profile = home / ".profile"
    profile.write_text("export PATH=$PATH\n")
    clone = _clone(home)
    (clone / "citeledger.toml").write_text('ledger = "~/.profile"\n')
    (clone / "refs.json").write_text(json.dumps(REFS))
    args = ("ingest", "refs.json") if verb == "ingest" else ("reset",)
    line = _one_line(cli(*args, cwd=clone, home=home))
    assert "outside the project" in line and "--ledger" in line
    assert profile.read_text() == "export PATH=$PATH\n"
    assert sorted(p.name for p in home.iterdir()) == [".profile", "clone"]


def test_a_project_ledger_outside_by_dot_dot_or_absolute_path_is_refused(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    _ledger(tmp_path / "outside" / "ledger.json")
    for value in ("../outside/ledger.json", str(tmp_path / "outside" / "ledger.json")):
        (clone / "citeledger.toml").write_text(f"ledger = {json.dumps(value)}\n")
        line = _one_line(cli("list", cwd=clone))
        assert "lies outside the project" in line, line


def test_a_project_ledger_that_is_a_symlink_leading_out_is_refused(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    secret = _ledger(tmp_path / "mine.json")
    (clone / "ledger.json").unlink()
    (clone / "ledger.json").symlink_to(secret)
    (clone / "citeledger.toml").write_text('ledger = "ledger.json"\n')
    line = _one_line(cli("reset", cwd=clone))
    assert "outside the project" in line
    assert json.loads(secret.read_text())["sources"] == [SOURCE]


def test_a_ledger_inside_the_repository_but_beside_a_nested_project_file_is_taken(
    tmp_path: Path,
) -> None:
    clone = _clone(tmp_path)
    book = clone / "book"
    book.mkdir()
    (book / "citeledger.toml").write_text('ledger = "../ledger.json"\n')
    done = cli("list", cwd=book)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[1] https://example.org/1")


# Where the project file is looked for ------------------------------------------------------------


def test_a_project_file_above_the_clones_root_is_never_read(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    (tmp_path / "citeledger.toml").write_text('ledger = "clone/ledger.json"\n')
    (clone / "refs.json").write_text(json.dumps(REFS))
    done = cli("reset", cwd=clone)
    assert done.returncode == 0, done.stderr
    # The clone's own ledger.json (the default) was reset; the planted file had no say.
    assert json.loads((clone / "ledger.json").read_text())["sources"] == []
    assert find_project(clone).path is None


def test_the_walk_stops_at_the_home_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    work = home / "notes" / "deep"
    work.mkdir(parents=True)
    (tmp_path / "citeledger.toml").write_text("evidence = true\n")
    done = cli("config", cwd=work, home=home)
    assert done.stdout.startswith("# no project file"), done.stdout + done.stderr
    (home / "citeledger.toml").write_text("evidence = true\n")
    again = cli("config", cwd=work, home=home)
    assert again.stdout.splitlines()[0] == f"# project file: {home / 'citeledger.toml'}"


def test_a_folder_another_user_owns_or_anyone_may_write_is_not_looked_in(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    work = shared / "mine"
    work.mkdir(parents=True)
    (shared / "citeledger.toml").write_text("evidence = true\n")
    assert find_project(work).path == shared / "citeledger.toml"
    shared.chmod(0o777)
    try:
        assert find_project(work).path is None
    finally:
        shared.chmod(0o755)
    # Another user: the walk as some other uid finds nothing it owns.
    assert find_project(work, uid=os.getuid() + 4242).path is None
    if os.getuid() == 0:
        os.chown(shared, 4242, 4242)
        assert find_project(work).path is None


def test_find_project_says_whether_the_file_is_inside_the_repository(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    (clone / "citeledger.toml").write_text("evidence = true\n")
    sub = clone / "drafts"
    sub.mkdir()
    found = find_project(sub)
    assert (found.path, found.inside_repository, found.root) == (
        clone / "citeledger.toml",
        True,
        clone,
    )
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "citeledger.toml").write_text("evidence = true\n")
    outside = find_project(loose)
    assert outside.path == loose / "citeledger.toml" and not outside.inside_repository


# Wrong types and odd paths ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("ledger = 5\n", "ledger: 5 is not a string"),
        ("ledger = true\n", "ledger: true is not a string"),
        ('ledger = "~nosuchuser/ledger.json"\n', "outside the project"),
        ('ledger = "led\\u0000ger.json"\n', "is not a string"),
        ("fetch-allow = [1, 2]\n", "fetch-allow: an array is not a string"),
        ('drafts = ["/etc/*"]\n', "leads outside the project's folder"),
        ('drafts = ["../*/*.md"]\n', "leads outside the project's folder"),
        ('strict = "yes"\n', "strict: 'yes' is not true or false"),
        ("min-coverage = true\n", "min-coverage: true is not a number"),
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deep"),
    ],
    ids=[
        "int",
        "bool",
        "nosuchuser",
        "nul",
        "array",
        "abs-glob",
        "dotdot-glob",
        "strict",
        "fraction",
        "deep",
    ],
)
def test_a_wrong_type_or_odd_path_is_one_line(tmp_path: Path, text: str, needle: str) -> None:
    clone = _clone(tmp_path)
    (clone / "citeledger.toml").write_text(text)
    line = _one_line(cli("verify", cwd=clone))
    assert line.startswith(f"citeledger: error: {clone / 'citeledger.toml'}: "), line
    assert needle in line, line
    assert not (clone / "5").exists()


def test_fetch_allow_as_a_toml_array_allows_each_host(tmp_path: Path) -> None:
    clone = _clone(tmp_path)
    (clone / "citeledger.toml").write_text('fetch-allow = ["127.0.0.1", "files.lan"]\n')
    done = cli("config", cwd=clone)
    assert done.returncode == 0, done.stderr
    assert 'fetch-allow = "127.0.0.1 files.lan"' in done.stdout, done.stdout
