"""Bounds that end in one line, never a hang or a traceback: an image fetch's whole time (a
deadline, not a bound on each read), bibliography crossref cycles found before pandoc runs,
report lines that a file name cannot split, every file pandoc itself would write through the
output guard, and the staged files of a killed build removed by the next run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.helpers import run_citeledger

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


def cli(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return run_citeledger(
        *args, cwd=cwd, unset=("CITELEDGER", "HERMES"), extra_env=extra, timeout=300
    )


def _folder(tmp_path: Path, draft: str) -> Path:
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": []}))
    (tmp_path / "d.md").write_text(draft)
    return tmp_path


# An image fetch's whole time ----------------------------------------------------------------


@pytest.fixture
def dribbler() -> Iterator[str]:
    """A loopback server whose image comes one byte every half second (200 bytes: 100 s)."""
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", "200")
            self.end_headers()
            body = PNG + b"\0" * (200 - len(PNG))
            for byte in body:
                if stop.is_set():
                    return
                try:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.5)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/slow.png"
    finally:
        stop.set()
        httpd.shutdown()
        httpd.server_close()


def test_an_image_dribbled_a_byte_at_a_time_is_cut_at_the_deadline(
    tmp_path: Path, dribbler: str
) -> None:
    folder = _folder(tmp_path, f"# Report\n\nText.\n\n![chart]({dribbler})\n")
    started = time.monotonic()
    done = cli("convert", "d.md", "-o", "out.docx", "--allow-fetch-host", "127.0.0.1", cwd=folder)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert "took longer than 10 s" in done.stderr, done.stderr
    assert took < 40, took


# Crossref cycles --------------------------------------------------------------------------------


def test_bib_entries_that_crossref_each_other_are_refused_before_pandoc_runs(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path, "---\nbibliography: refs.bib\n---\n\nIce floats [@a].\n")
    (folder / "refs.bib").write_text(
        '@book{a, title = {A}, crossref = {b}}\n\n@book{B, title = {B}, crossref = "A"}\n'
    )
    started = time.monotonic()
    # A small heap: today's pandoc runs out of it on the cycle (and its 37 s) instead.
    done = cli("convert", "d.md", "-o", "out.html", cwd=folder, CITELEDGER_PANDOC_MEMORY="400M")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()[-1:]
    assert "refs.bib: entries cross-reference each other in a cycle (a -> b -> a)" in line, line
    assert time.monotonic() - started < 30
    assert not (folder / "out.html").exists()


def test_a_crossref_chain_without_a_cycle_still_builds(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "---\nbibliography: refs.bib\n---\n\nIce floats [@a].\n")
    (folder / "refs.bib").write_text(
        "@inbook{a, title = {A}, crossref = {b}}\n\n"
        "@book{b, booktitle = {B}, author = {Doe, Jane}, year = {2020}}\n"
    )
    done = cli("convert", "d.md", "-o", "out.html", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "Doe" in (folder / "out.html").read_text()


# Report lines ----------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="a newline in a file name")
def test_a_file_name_holding_a_newline_cannot_start_a_workflow_command(tmp_path: Path) -> None:
    name = "a\n::error title=pwned::x.md"
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": []}))
    (tmp_path / name).write_text("Ice floats on water.[1]\n")
    for extra in ((), ("--format", "github")):
        done = cli("verify", name, *extra, cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        lines = done.stdout.splitlines() + done.stderr.splitlines()
        assert not any(line.startswith("::error title=pwned") for line in lines), lines
    again = cli("verify", name, cwd=tmp_path)
    text = again.stdout + again.stderr
    assert "FAIL: a\\n::error title=pwned::x.md:1:" in text, text


# Files pandoc itself writes ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("defaults", "needle"),
    [
        ("log-file: ledger.json\n", "pandoc's log file ledger.json is the ledger"),
        ("log-file: ${.}/ledger.json\n", "is the ledger"),
        ("defaults:\n  - inner.yaml\n", "pandoc's log file ledger.json is the ledger"),
        ("extract-media: .\n", "--extract-media folder . holds the ledger"),
        ("output-file: ledger.json\n", "citeledger names the outputs itself"),
    ],
    ids=["log-file", "log-file-dot", "nested", "extract-media", "output-file"],
)
def test_a_defaults_file_cannot_have_pandoc_write_over_the_ledger(
    tmp_path: Path, defaults: str, needle: str
) -> None:
    folder = _folder(tmp_path, "Ice floats on water.\n")
    ledger = (folder / "ledger.json").read_text()
    (folder / "inner.yaml").write_text("log-file: ledger.json\n")
    (folder / "def.yaml").write_text(defaults)
    done = cli("convert", "d.md", "-o", "out.html", "-d", "def.yaml", cwd=folder)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert needle in done.stderr.strip().splitlines()[-1], done.stderr
    assert (folder / "ledger.json").read_text() == ledger
    assert not (folder / "out.html").exists()


def test_a_pandoc_arg_log_onto_the_ledger_is_refused(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "Ice floats on water.\n")
    ledger = (folder / "ledger.json").read_text()
    done = cli("convert", "d.md", "-o", "out.html", "--pandoc-arg=--log=ledger.json", cwd=folder)
    assert done.returncode == 2, done.stderr
    assert "is the ledger" in done.stderr
    assert (folder / "ledger.json").read_text() == ledger


def test_a_defaults_log_file_elsewhere_is_written(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "Ice floats on water.\n")
    (folder / "def.yaml").write_text("log-file: build-log.json\n")
    done = cli("convert", "d.md", "-o", "out.html", "-d", "def.yaml", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert (folder / "build-log.json").is_file()


# Staged files of a killed build ------------------------------------------------------------------


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_next_build_removes_a_killed_builds_staged_files_but_not_a_live_ones(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path, "Ice floats on water.\n")
    dead = folder / f".out.docx.{_dead_pid()}.0123456789ab.tmp.docx"
    live = folder / f".out.docx.{os.getpid()}.ba9876543210.tmp.docx"
    other = folder / f".notes.docx.{_dead_pid()}.0123456789ab.tmp.docx"
    for path in (dead, live, other):
        path.write_bytes(b"PK half a file")
    done = cli("convert", "d.md", "-o", "out.docx", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert not dead.exists()
    assert live.exists()  # a build running beside this one keeps its own
    assert other.exists()  # another output's: its own next build removes it
    assert (folder / "out.docx").is_file()


def test_a_build_killed_with_sigkill_leaves_nothing_after_the_next_run(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "# Report\n\n" + "Ice floats on water. " * 20000 + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "citeledger", "convert", "d.md", "-o", "out.docx"],
        cwd=folder,
        env={k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(folder.glob(".out.docx.*.tmp.docx")):
        time.sleep(0.05)
    os.killpg(proc.pid, 9)
    proc.wait()
    left = list(folder.glob(".out.docx.*.tmp.docx"))
    assert left, "the build was killed before it staged its file"
    done = cli("convert", "d.md", "-o", "out.docx", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert not list(folder.glob(".out.docx.*.tmp*")), list(folder.iterdir())


def test_verify_with_a_defaults_file_cannot_overwrite_the_ledger(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "Ice floats on water.\n")
    ledger = (folder / "ledger.json").read_text()
    (folder / "def.yaml").write_text("log-file: ledger.json\n")
    done = cli("verify", "d.md", "-d", "def.yaml", cwd=folder)
    assert done.returncode == 2, done.stderr
    assert "pandoc's log file ledger.json is the ledger" in done.stderr
    assert (folder / "ledger.json").read_text() == ledger
