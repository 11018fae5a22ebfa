"""Hostile ledger paths and addresses: odd ledger paths are one line, a ledger linked to a file
that is no ledger gets no lock folder beside that file, ``recheck --from-dir`` reads only
regular files, and an IPv6 host keeps its brackets. Each test is named for the attack or the
trap it stops."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import one_error_line, run_citeledger

SECRET = "SECRET-KEY-7f3a9c"


def cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    return run_citeledger(*args, cwd=cwd, env={**base, **env}, timeout=300)


@pytest.mark.parametrize("command", [["list"], ["add", "https://example.com/a"], ["reset"]])
@pytest.mark.parametrize(
    "ledger",
    ["~nosuchuser-citeledger/l.json", "a" * 300 + "/l.json", "b" * 300 + ".json"],
    ids=["unknown-user", "long-folder-name", "long-file-name"],
)
def test_an_odd_ledger_path_is_one_line(command: list[str], ledger: str, tmp_path: Path) -> None:
    one_error_line(cli(*command, "--ledger", ledger, cwd=tmp_path), "ledger path")


def test_a_300_character_hermes_home_is_one_line(tmp_path: Path) -> None:
    one_error_line(cli("list", cwd=tmp_path, HERMES_HOME="h" * 300), "$HERMES_HOME")


def test_a_ledger_linked_to_a_system_file_gets_no_lock_beside_it(tmp_path: Path) -> None:
    system = tmp_path / "etc"
    system.mkdir()
    (system / "hostname").write_text("box\n")
    (tmp_path / "ledger.json").symlink_to(system / "hostname")
    done = cli("add", "https://example.com/a", cwd=tmp_path)
    one_error_line(done, "no .json file")
    assert sorted(p.name for p in system.iterdir()) == ["hostname"]
    assert (system / "hostname").read_text() == "box\n"


def test_a_ledger_linked_to_a_json_file_still_locks_beside_it(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "l.json").write_text(json.dumps({"version": 1, "sources": []}))
    (tmp_path / "ledger.json").symlink_to(shared / "l.json")
    done = cli("add", "https://example.com/a", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "ledger.json").is_symlink()
    assert (shared / ".citeledger-lock" / "l.json.lock").exists()


def test_recheck_from_dir_never_shows_a_file_a_link_leads_to(tmp_path: Path) -> None:
    quote = "the river rose by two metres in one night"
    source = {
        "id": 1,
        "url": "https://example.com/flood",
        "title": "Flood",
        "accessed": "2026-01-01",
        "quotes": [{"text": quote, "added": "2026-01-01"}],
    }
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": [source]}))
    private = tmp_path / "private.txt"
    private.write_text(f"the river rose by two metres {SECRET} in one night\n")
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "1.txt").symlink_to(private)
    done = cli("recheck", "--from-dir", "fresh", cwd=tmp_path)
    assert SECRET not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_an_ipv6_literal_url_keeps_its_brackets_in_every_output(tmp_path: Path) -> None:
    from citeledger.ledger.urls import normalize_url, published_url

    url = normalize_url("https://[2001:db8::1]/paper")
    assert published_url(url) == "https://[2001:db8::1]/paper"
    assert published_url("https://[2001:db8::1]:8443/a[b]") == "https://[2001:db8::1]:8443/a%5Bb%5D"
    source = {"id": 1, "url": url, "title": "V6", "accessed": "2026-01-01", "quotes": []}
    (tmp_path / "ledger.json").write_text(json.dumps({"version": 1, "sources": [source]}))
    (tmp_path / "d.md").write_text("# R\n\nA claim.[1]\n")
    done = cli("convert", "d.md", "-o", "d.docx", "-o", "d.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "d.html").read_text()
    assert 'href="https://[2001:db8::1]/paper"' in html
    assert "%5B2001" not in html
