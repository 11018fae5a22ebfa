"""The ledger file: seed compatibility, validation, atomic locked writes, no lost updates."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from citeledger.errors import LedgerError
from citeledger.ledger import Quote, load_ledger, resolve_ledger_path, transaction
from citeledger.ledger.lock_file import prepare_lock_path
from citeledger.ledger.store import dump_ledger

SEED_LEDGER = """{
  "version": 1,
  "sources": [
    {
      "id": 1,
      "url": "https://example.com/a",
      "title": "Page A",
      "accessed": "2024-05-01",
      "quotes": [
        {
          "text": "ice floats on water",
          "added": "2024-05-02"
        }
      ]
    },
    {
      "id": 2,
      "url": "HTTP://Example.com/b/",
      "title": "",
      "accessed": "2024-05-01"
    }
  ]
}
"""


def _ledger(tmp_path: Path, text: str | bytes = SEED_LEDGER) -> Path:
    path = tmp_path / "ledger.json"
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def test_seed_format_ledger_loads_unchanged(tmp_path: Path) -> None:
    ledger = load_ledger(_ledger(tmp_path))
    assert ledger.ids() == [1, 2]
    first = ledger.get(1)
    assert first is not None
    assert (first.url, first.title, first.accessed) == (
        "https://example.com/a",
        "Page A",
        "2024-05-01",
    )
    assert first.quotes == [Quote(text="ice floats on water", added="2024-05-02")]
    second = ledger.get(2)
    assert second is not None and second.quotes == []


def test_seed_format_ledger_appends_with_next_id_and_keeps_old_entries(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    with transaction(path) as ledger:
        source, created = ledger.add("https://example.com/c", title="Page C")
    assert created and source.id == 3
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [s["id"] for s in data["sources"]] == [1, 2, 3]
    assert data["sources"][0]["quotes"] == [{"text": "ice floats on water", "added": "2024-05-02"}]
    assert data["sources"][1]["url"] == "HTTP://Example.com/b/"


def test_seed_entry_is_found_under_its_normalised_url(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    with transaction(path) as ledger:
        source, created = ledger.add("http://example.com/b#frag")
    assert (source.id, created) == (2, False)


def test_unknown_fields_round_trip(tmp_path: Path) -> None:
    data = json.loads(SEED_LEDGER)
    data["generator"] = {"name": "future-tool", "v": 3}
    data["sources"][0]["lang"] = "en"
    data["sources"][0]["quotes"][0]["page"] = 7
    path = _ledger(tmp_path, json.dumps(data))
    with transaction(path) as ledger:
        ledger.add("https://example.com/new")
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["generator"] == {"name": "future-tool", "v": 3}
    assert written["sources"][0]["lang"] == "en"
    assert written["sources"][0]["quotes"][0]["page"] == 7


def test_file_is_indented_json_with_readable_non_ascii(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    with transaction(path) as ledger:
        ledger.add("https://example.com/caf\u00e9", title="Caf\u00e9 \u2014 menu")
    text = path.read_text(encoding="utf-8")
    assert "Caf\u00e9 \u2014 menu" in text and text.endswith("}\n") and '\n  "sources"' in text


def test_ids_are_max_plus_one_across_gaps(tmp_path: Path) -> None:
    path = _ledger(
        tmp_path,
        '{"version": 1, "sources": [{"id": 4, "url": "https://a.org", "title": ""}]}',
    )
    with transaction(path) as ledger:
        assert ledger.add("https://b.org")[0].id == 5


def test_id_of_a_hand_deleted_last_entry_is_not_reused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    with transaction(path) as ledger:
        ledger.add("https://a.org")
        ledger.add("https://b.org")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sources"].pop()
    path.write_text(json.dumps(data), encoding="utf-8")
    with transaction(path) as ledger:
        assert ledger.add("https://c.org")[0].id == 3


def test_add_is_idempotent_and_fills_an_empty_title_only(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    with transaction(path) as ledger:
        assert ledger.add("http://example.com/b", title="B title")[0].title == "B title"
        assert ledger.add("https://example.com/a", title="Other")[0].title == "Page A"
    assert load_ledger(path).ids() == [1, 2]


def test_unchanged_transaction_does_not_rewrite(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    before = path.stat().st_ino
    with transaction(path) as ledger:
        ledger.add("https://example.com/a")
    assert path.stat().st_ino == before
    assert path.read_text(encoding="utf-8") == SEED_LEDGER


def test_exception_inside_transaction_writes_nothing(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    with pytest.raises(RuntimeError), transaction(path) as ledger:
        ledger.add("https://example.com/zzz")
        raise RuntimeError("boom")
    assert path.read_text(encoding="utf-8") == SEED_LEDGER


CORRUPT = {
    "invalid_json": b'{"version": 1, "sources": [',
    "zero_bytes": b"",
    "whitespace_only": b"\n  \n",
    "not_utf8": b'{"version": 1, "sources": [], "x": "\xff\xfe"}',
    "top_level_list": b"[]",
    "sources_not_list": b'{"version": 1, "sources": {}}',
    "id_is_string": b'{"sources": [{"id": "1", "url": "https://a.org"}]}',
    "id_is_bool": b'{"sources": [{"id": true, "url": "https://a.org"}]}',
    "url_missing": b'{"sources": [{"id": 1}]}',
    "duplicate_ids": (
        b'{"sources": [{"id": 1, "url": "https://a.org"}, {"id": 1, "url": "https://b.org"}]}'
    ),
    "quote_without_text": b'{"sources": [{"id": 1, "url": "https://a.org", "quotes": [{}]}]}',
    "newer_version": b'{"version": 2, "sources": []}',
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_corrupt_ledger_is_reported_and_left_byte_identical(tmp_path: Path, case: str) -> None:
    path = _ledger(tmp_path, CORRUPT[case])
    with pytest.raises(LedgerError) as caught:
        load_ledger(path)
    line = caught.value.line()
    assert str(path) in line and "reset" in line and "\n" not in line
    with pytest.raises(LedgerError), transaction(path) as ledger:
        ledger.add("https://example.com/new")
    assert path.read_bytes() == CORRUPT[case]


def test_missing_ledger_is_an_error_unless_allowed(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    with pytest.raises(LedgerError, match="no ledger at"):
        load_ledger(path)
    assert load_ledger(path, missing_ok=True).sources == []
    assert not path.exists()


def test_folder_as_ledger_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="is a folder"):
        load_ledger(tmp_path)
    with pytest.raises(LedgerError, match="is a folder"), transaction(tmp_path):
        pass


def test_transaction_creates_missing_folders(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "ledger.json"
    with transaction(path) as ledger:
        ledger.add("https://a.org")
    assert load_ledger(path).ids() == [1]


def test_symlinked_ledger_stays_a_symlink(tmp_path: Path) -> None:
    real = _ledger(tmp_path)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with transaction(link) as ledger:
        ledger.add("https://example.com/c")
    assert link.is_symlink()
    assert load_ledger(real).ids() == [1, 2, 3]


def test_file_mode_is_kept(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    path.chmod(0o640)
    with transaction(path) as ledger:
        ledger.add("https://example.com/c")
    assert path.stat().st_mode & 0o777 == 0o640


def test_orphaned_temp_files_of_killed_writers_are_removed(tmp_path: Path) -> None:
    path = _ledger(tmp_path)
    orphan = tmp_path / ".ledger.json.abc123.tmp"
    orphan.write_text("half a ledger", encoding="utf-8")
    with transaction(path) as ledger:
        ledger.add("https://example.com/c")
    assert not orphan.exists()


def test_ledger_path_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITELEDGER_LEDGER", raising=False)
    monkeypatch.delenv("HERMES_CITATION_LEDGER", raising=False)
    assert resolve_ledger_path() == Path("ledger.json")
    monkeypatch.setenv("HERMES_CITATION_LEDGER", str(tmp_path / "hermes.json"))
    assert resolve_ledger_path() == tmp_path / "hermes.json"
    monkeypatch.setenv("CITELEDGER_LEDGER", str(tmp_path / "cl.json"))
    assert resolve_ledger_path() == tmp_path / "cl.json"
    assert resolve_ledger_path(tmp_path / "explicit.json") == tmp_path / "explicit.json"


def test_dump_is_stable(tmp_path: Path) -> None:
    ledger = load_ledger(_ledger(tmp_path))
    assert dump_ledger(ledger) == dump_ledger(load_ledger(_ledger(tmp_path)))


ADDER = textwrap.dedent(
    """
    import sys
    from citeledger.ledger import transaction
    path, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(count):
        with transaction(path) as ledger:
            ledger.add(f"https://example.org/{worker}/{i}")
    """
)


@pytest.mark.slow
def test_parallel_adds_lose_nothing_and_never_duplicate_an_id(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    workers = [
        subprocess.Popen([sys.executable, "-c", ADDER, str(path), str(w), "100"]) for w in range(8)
    ]
    assert [w.wait(timeout=120) for w in workers] == [0] * 8
    ledger = load_ledger(path)
    assert ledger.ids() == list(range(1, 801))
    assert len({s.url for s in ledger.sources}) == 800


WRITER = textwrap.dedent(
    """
    import sys
    from citeledger.ledger import transaction
    path, start = sys.argv[1], int(sys.argv[2])
    print("ready", flush=True)
    i = start
    while True:
        with transaction(path) as ledger:
            ledger.add(f"https://example.org/page/{i}", title="x" * 200)
        i += 1
    """
)


@pytest.mark.slow
def test_kill_9_of_a_writer_never_leaves_an_unparsable_ledger(tmp_path: Path) -> None:
    path = tmp_path / "ledger.json"
    rng = random.Random(20240501)
    start = 0
    for _ in range(30):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(start)], stdout=subprocess.PIPE
        )
        assert writer.stdout is not None and writer.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.08))
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        ledger = load_ledger(path, missing_ok=True)
        assert ledger.ids() == list(range(1, len(ledger.sources) + 1))
        start = len(ledger.sources) + 1000
    assert load_ledger(path).sources


def test_a_writer_waits_for_a_live_lock_holder_without_stealing(tmp_path: Path) -> None:
    """The lock is the one filelock takes (so other tools interoperate), and a waiter never
    breaks it however long it is held."""
    from filelock import FileLock

    path = tmp_path / "ledger.json"
    holder = FileLock(prepare_lock_path(path), timeout=-1)
    holder.acquire()
    try:
        writer = subprocess.Popen([sys.executable, "-c", ADDER, str(path), "w", "1"])
        time.sleep(1.5)
        assert writer.poll() is None
        assert not path.exists()
    finally:
        holder.release()
    assert writer.wait(timeout=60) == 0
    assert load_ledger(path).ids() == [1]
