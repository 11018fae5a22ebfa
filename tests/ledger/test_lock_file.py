"""The ledger's lock file stays out of a writer's commits: ``git add .`` after a change stages
the ledger alone, and the repository's examples commit no lock file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from citeledger.ledger import reset_ledger, transaction
from citeledger.ledger.lock_file import lock_path
from tests.helpers import ROOT, need


def git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(repo),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
    }
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    need(shutil.which("git") is not None, "git")
    git(tmp_path, "init", "-q")
    return tmp_path


def test_git_add_all_after_ledger_writes_stages_only_the_ledger(repo: Path) -> None:
    ledger = repo / "notes" / "ledger.json"
    ledger.parent.mkdir()
    reset_ledger(ledger)
    with transaction(ledger) as open_ledger:
        open_ledger.dirty = True
    assert lock_path(ledger).is_file()  # the lock is there, only out of git's sight
    git(repo, "add", ".")
    staged = git(repo, "diff", "--cached", "--name-only").split()
    assert staged == ["notes/ledger.json"]
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == "A  notes/ledger.json\n"


def test_a_symlinked_ledger_is_locked_beside_the_file_it_points_to(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    reset_ledger(tmp_path / "real" / "ledger.json")
    (tmp_path / "link.json").symlink_to(tmp_path / "real" / "ledger.json")
    assert lock_path(tmp_path / "link.json") == lock_path(tmp_path / "real" / "ledger.json")
    assert lock_path(tmp_path / "real" / "ledger.json").parent.parent == tmp_path / "real"


def test_the_repository_commits_no_lock_file() -> None:
    need((ROOT / ".git").exists(), "a git checkout")
    tracked = git(ROOT, "ls-files").splitlines()
    assert not [name for name in tracked if name.endswith(".lock")]
