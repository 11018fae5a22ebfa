"""Hostile paths: a draft, an output or a folder that is not what its name says (a link to the
ledger, a device, the evidence folder) is refused in one line before anything is read or
written. Each test is named for the attack it stops."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.helpers import run_citeledger

OURS = {
    "version": 1,
    "sources": [
        {
            "id": 1,
            "url": "https://a.example/x",
            "title": "A",
            "accessed": "2026-01-01",
            "quotes": [],
        }
    ],
}
# A title from the web holding a marker: enough for merge to want to rewrite a draft.
THEIRS = {
    "version": 1,
    "sources": [
        {
            "id": 1,
            "url": "https://b.example/y",
            "title": "B [1]",
            "accessed": "2026-01-01",
            "quotes": [],
        }
    ],
}


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    return run_citeledger(*args, cwd=cwd, env=env, text=False, timeout=300)


def one_line(done: subprocess.CompletedProcess[bytes], *words: str) -> str:
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, (done.returncode, err)
    assert "Traceback" not in err
    line = [ln for ln in err.splitlines() if ln.strip()][-1]
    for word in words:
        assert word in line, line
    return line


@pytest.fixture
def ledgers(tmp_path: Path) -> Path:
    (tmp_path / "ours.json").write_text(json.dumps(OURS))
    (tmp_path / "theirs.json").write_text(json.dumps(THEIRS))
    return tmp_path


def _link(kind: str, source: Path, link: Path) -> None:
    if kind == "symlink":
        link.symlink_to(source.name if source.parent == link.parent else source)
    else:
        os.link(source, link)


@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
@pytest.mark.parametrize("command", ["merge", "render"])
def test_a_draft_linked_to_the_ledger_is_never_written_through(
    kind: str, command: str, ledgers: Path
) -> None:
    before = (ledgers / "ours.json").read_bytes()
    _link(kind, ledgers / "ours.json", ledgers / "their-draft.md")
    if command == "merge":
        args = ["merge", "theirs.json", "--rewrite", "their-draft.md", "--ledger", "ours.json"]
    else:
        args = ["render", "--replace-in", "their-draft.md", "--ledger", "ours.json"]
    for _run in range(2):  # the second run is the one merge asks for
        one_line(cli(*args, cwd=ledgers), "their-draft.md", "the ledger")
    assert (ledgers / "ours.json").read_bytes() == before


def test_a_draft_linked_to_the_other_ledger_or_the_evidence_is_refused(ledgers: Path) -> None:
    (ledgers / "t.md").symlink_to("theirs.json")
    done = cli("merge", "theirs.json", "--rewrite", "t.md", "--ledger", "ours.json", cwd=ledgers)
    one_line(done, "t.md", "the ledger merged in")
    (ledgers / "ours.evidence").mkdir()
    (ledgers / "ours.evidence" / "page.txt").write_text("kept\n")
    (ledgers / "e.md").symlink_to("ours.evidence/page.txt")
    done = cli("render", "--replace-in", "e.md", "--ledger", "ours.json", cwd=ledgers)
    one_line(done, "e.md", "evidence folder")
    assert (ledgers / "ours.evidence" / "page.txt").read_text() == "kept\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": []}))
    (tmp_path / "d.md").write_text("# Report\n\nPlain words.\n")
    return tmp_path


# Never the machine's own /dev/null in a test: on code without the fix the test would replace it.
@pytest.mark.parametrize("how", ["link-to-dev-null", "link-to-dev-stdout", "fifo", "device"])
def test_an_output_that_is_a_device_or_links_to_one_is_refused(how: str, project: Path) -> None:
    target = project / "out.html"
    if how == "link-to-dev-null":
        target.symlink_to("/dev/null")
    elif how == "link-to-dev-stdout":
        target.symlink_to("/dev/stdout")
    elif how == "fifo":
        os.mkfifo(target)
    else:
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(target, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    before = os.lstat(target)
    done = cli("convert", "d.md", "-o", "out.html", "--to", "html", cwd=project)
    one_line(done, "out.html")
    after = os.lstat(target)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (
        stat.S_IFMT(before.st_mode),
        before.st_ino,
    )


@pytest.mark.parametrize("system", ["/dev/null", "/dev/stdout", "/proc/self/fd/1"])
def test_a_system_device_is_refused_before_any_work(system: str) -> None:
    from citeledger.errors import OutputError
    from citeledger.files import Guard

    with pytest.raises(OutputError, match="standard output"):
        Guard().check(Path(system))


def test_dash_writes_a_text_output_to_standard_output(project: Path) -> None:
    done = cli("convert", "d.md", "-o", "-", "--to", "html", cwd=project)
    assert done.returncode == 0, done.stderr
    assert b"Plain words." in done.stdout
    assert done.stdout.rstrip().endswith(b"</html>")  # the document alone: no "wrote" line
    assert not (project / "-").exists()
    one_line(cli("convert", "d.md", "-o", "-", "--to", "docx", cwd=project), "standard output")


@pytest.mark.parametrize("output", ["ledger.evidence", "ledger.evidence/x.html"])
def test_an_output_in_the_evidence_folder_is_refused(output: str, project: Path) -> None:
    done = cli("convert", "d.md", "-o", output, "--to", "html", cwd=project)
    one_line(done, "evidence folder")
    assert not (project / "ledger.evidence").exists()


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no /dev/shm")
def test_a_file_in_dev_shm_is_an_ordinary_output() -> None:
    from citeledger.files import Guard

    Guard().check(Path("/dev/shm") / f"citeledger-{os.getpid()}.html")
