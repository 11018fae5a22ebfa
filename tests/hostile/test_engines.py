"""PDF engines in a box: typst and every LaTeX engine run inside a mirror of the draft's folder
where no symlink leads out, typst in a child process bounded in time and memory, and SIGTERM
ends a build at once. The drafts here carry raw typst and raw TeX; where the trust model asks
for ``--trust-draft`` to let raw code through, the runs give it, so that it is the box, not
the refusal of raw code, that these tests pin."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import run_citeledger
from tests.helpers.run import CITELEDGER, citeledger_env

SECRET = "SECRET-OUTSIDE-THE-DRAFTS-FOLDER"


@functools.lru_cache(maxsize=1)
def _trust() -> tuple[str, ...]:
    done = run_citeledger("convert", "--help", cwd=Path.cwd(), unset=("CITELEDGER", "HERMES"))
    return ("--trust-draft",) if "--trust-draft" in done.stdout else ()


def cli(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return run_citeledger(
        *args, *_trust(), cwd=cwd, unset=("CITELEDGER", "HERMES"), extra_env=extra, timeout=300
    )


def _folder(tmp_path: Path, raw: str, fmt: str) -> Path:
    """A draft folder holding ``inc.*``, a symlink to a file outside it, and a draft whose raw
    ``fmt`` block is ``raw``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = tmp_path / "draft"
    folder.mkdir()
    for suffix in ("txt", "tex"):
        (outside / f"secret.{suffix}").write_text(SECRET + "\n")
        (folder / f"inc.{suffix}").symlink_to(outside / f"secret.{suffix}")
    (folder / "own.txt").write_text("OWN-FILE-INSIDE\n")
    (folder / "ledger.json").write_text(json.dumps({"version": 1, "sources": []}))
    (folder / "d.md").write_text(f"# Report\n\nHello there.\n\n```{{={fmt}}}\n{raw}\n```\n")
    return folder


def _pdf_text(path: Path) -> str:
    done = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True)
    return done.stdout


def _refused(done: subprocess.CompletedProcess[str], folder: Path, out: str) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert SECRET not in done.stderr
    assert not (folder / out).exists()
    return done.stderr.strip().splitlines()[-1]


def _typst_children() -> list[int]:
    """The typst compile children running now (their command line sets RLIMIT_AS)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"RLIMIT_AS" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_typst_reads_a_file_of_the_drafts_folder(tmp_path: Path) -> None:
    folder = _folder(tmp_path, '#read("own.txt")', "typst")
    done = cli("convert", "d.md", "-o", "out.pdf", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "OWN-FILE-INSIDE" in _pdf_text(folder / "out.pdf")


def test_typst_never_follows_a_symlink_out_of_the_drafts_folder(tmp_path: Path) -> None:
    folder = _folder(tmp_path, '#read("inc.txt")', "typst")
    line = _refused(cli("convert", "d.md", "-o", "out.pdf", cwd=folder), folder, "out.pdf")
    assert "leading outside the draft's folder" in line or "raw" in line, line


@pytest.mark.parametrize("engine", ["pdflatex", "xelatex", "lualatex"])
def test_a_tex_engine_never_follows_a_symlink_out_of_the_drafts_folder(
    tmp_path: Path, engine: str
) -> None:
    folder = _folder(tmp_path, r"\csname input\endcsname{inc.tex}", "latex")
    done = cli("convert", "d.md", "-o", "out.pdf", "--pdf-engine", engine, cwd=folder)
    line = _refused(done, folder, "out.pdf")
    assert "leading outside the draft's folder" in line or "raw" in line, line


def test_a_tex_engine_still_reads_a_file_of_the_drafts_folder(tmp_path: Path) -> None:
    folder = _folder(tmp_path, r"\csname input\endcsname{own.txt}", "latex")
    done = cli("convert", "d.md", "-o", "out.pdf", "--pdf-engine", "pdflatex", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "OWN-FILE-INSIDE" in _pdf_text(folder / "out.pdf")


def test_typst_asking_for_32_gb_is_stopped_by_its_memory_bound(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "#let a = range(2000000000)\n#a.len()", "typst")
    started = time.monotonic()
    done = cli("convert", "d.md", "-o", "out.pdf", cwd=folder, CITELEDGER_TYPST_MEMORY="1G")
    line = _refused(done, folder, "out.pdf")
    assert "typst needed more than 1G of memory" in line, line
    assert time.monotonic() - started < 60


def test_a_typst_loop_is_stopped_by_its_time_bound(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "#for i in range(100000) { for j in range(100000) { } }", "typst")
    started = time.monotonic()
    done = cli("convert", "d.md", "-o", "out.pdf", cwd=folder, CITELEDGER_TYPST_TIMEOUT="3")
    line = _refused(done, folder, "out.pdf")
    assert "typst took longer than 3 s" in line, line
    assert time.monotonic() - started < 60


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_sigterm_ends_a_build_at_once_while_typst_loops(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "#for i in range(100000) { for j in range(100000) { } }", "typst")
    proc = subprocess.Popen(
        [*CITELEDGER, "convert", "d.md", "-o", "out.pdf", *_trust()],
        cwd=folder,
        env=citeledger_env(unset=("CITELEDGER", "HERMES")),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        time.sleep(6)  # verified, and typst is in its loop
        assert proc.poll() is None, proc.communicate()
        assert _typst_children(), "typst runs in a child process of its own"
        proc.send_signal(signal.SIGTERM)
        started = time.monotonic()
        _out, err = proc.communicate(timeout=30)
        took = time.monotonic() - started
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 143, err
    assert took < 5, took
    assert b"terminated" in err
    time.sleep(0.5)
    assert not _typst_children(), "the typst child outlived the build"
    assert sorted(p.name for p in folder.iterdir()) == [
        "d.md",
        "inc.tex",
        "inc.txt",
        "ledger.json",
        "own.txt",
    ]
