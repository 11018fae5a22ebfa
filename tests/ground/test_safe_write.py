"""The one safe write (``citeledger.atomic``, wrapped by ``citeledger.files`` with each caller's
own error line): the ledger, the evidence texts and every output go through it."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import citeledger
from citeledger.errors import EvidenceError, OutputError
from citeledger.files import write_bytes
from citeledger.ledger import load_ledger, transaction
from citeledger.ledger.evidence_store import store_text

PACKAGE = Path(citeledger.__file__).parent
# Nothing can be created in /proc/1, not even by root.


def _calls(tree: ast.AST, names: set[str]) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and f"{owner.id}.{node.func.attr}" in names:
                found.append(f"{owner.id}.{node.func.attr}")
    return found


def test_only_the_safe_write_module_renames_or_fsyncs() -> None:
    wanted = {"os.replace", "os.rename", "os.fsync", "os.fdatasync"}
    callers = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if _calls(ast.parse(path.read_text(encoding="utf-8")), wanted)
    }
    assert callers == {"atomic.py"}


def test_a_ledger_write_leaves_no_temporary_file_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    with transaction(path) as ledger:
        ledger.add("https://example.org/a")
    path.chmod(0o640)
    with transaction(path) as ledger:
        ledger.add("https://example.org/b")
    assert load_ledger(path).ids() == [1, 2]
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == [".citeledger-lock", "ledger.json"]


def test_the_next_lock_holder_removes_temporary_files_of_killed_ledger_writers(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.json"
    with transaction(path) as ledger:
        ledger.add("https://example.org/a")
    orphans = [
        tmp_path / ".ledger.json.4242.0123456789ab.tmp.json",  # what the safe write names
        tmp_path / ".ledger.json.4242.0123456789ab.tmp",  # what earlier versions named
    ]
    kept = [tmp_path / ".ledger.json.notes", tmp_path / ".report.html.4242.0a.tmp.html"]
    for file in orphans + kept:
        file.write_text("half a file", encoding="utf-8")
    with transaction(path) as ledger:
        ledger.add("https://example.org/b")
    assert [f.name for f in orphans if f.exists()] == []
    assert all(f.exists() for f in kept)


def test_a_symlink_at_an_output_is_replaced_unless_the_caller_follows_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", encoding="utf-8")
    link = tmp_path / "page.md"
    link.symlink_to(outside)
    write_bytes(link, b"new page")
    assert not link.is_symlink() and link.read_bytes() == b"new page"
    assert outside.read_text(encoding="utf-8") == "keep me"

    draft = tmp_path / "draft.md"
    draft.symlink_to(outside)
    write_bytes(draft, b"edited in place", follow=True)
    assert draft.is_symlink() and outside.read_bytes() == b"edited in place"


def test_an_evidence_file_symlinked_elsewhere_is_replaced_not_written_through(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "ledger.evidence"
    folder.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", encoding="utf-8")
    text = "Ice floats on water."
    digest = hashlib.sha256(text.encode()).hexdigest()
    (folder / f"{digest}.txt").symlink_to(outside)
    assert store_text(folder, text) == digest
    assert not (folder / f"{digest}.txt").is_symlink()
    assert (folder / f"{digest}.txt").read_text(encoding="utf-8") == text
    assert outside.read_text(encoding="utf-8") == "keep me"


def test_a_failed_write_is_the_callers_error_naming_the_target(tmp_path: Path) -> None:
    # A folder that is a file: no write inside it can succeed, even as root (CI runs as root,
    # and /proc is refused before any write is tried).
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    target = blocked / "out.html"
    with pytest.raises(OutputError) as output:
        write_bytes(target, b"x")
    line = output.value.line()
    assert line.startswith("cannot ") and str(target) in line and ".tmp" not in line

    with pytest.raises(EvidenceError) as evidence:
        store_text(blocked, "Ice floats.")
    line = evidence.value.line()
    assert ".tmp" not in line and "\n" not in line and str(blocked) in line


def _small_files(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_while_keeping_evidence_is_one_line_and_changes_nothing(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}

    def run(*args: str, limit: int | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "citeledger", *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            preexec_fn=None if limit is None else _small_files(limit),
            timeout=120,
        )

    assert run("add", "https://example.org/ice", "--title", "Ice").returncode == 0
    ledger = (tmp_path / "ledger.json").read_bytes()
    page = "Ice is less dense than liquid water. " * 200  # far above the limit below
    (tmp_path / "page.txt").write_text(page, encoding="utf-8")
    quote = ("quote", "1", "--text", "less dense than liquid water", "--from", "page.txt")
    done = run(*quote, limit=len(ledger) + 2000)
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and "cannot write evidence file" in lines[0], done.stderr
    assert ".tmp" not in lines[0]
    assert (tmp_path / "ledger.json").read_bytes() == ledger
    assert json.loads(ledger)["sources"][0]["quotes"] == []
    # No temporary file anywhere; the lock's own folder is where the lock lives.
    leftovers = [
        p.name
        for p in tmp_path.rglob(".*")
        if ".citeledger-lock" not in p.relative_to(tmp_path).parts
    ]
    assert leftovers == []
