"""The record of proven ledger texts (citeledger/ledger/checked_texts.py): a call on the very
bytes this user's citeledger proved skips the proof and ``re``; any other text is proven again;
the record is the user's alone, never a project's; and what the lane records as proven after
its own write is what a fresh proof takes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeledger.commands._add_sources import add_sources
from citeledger.ledger import checked_texts, lane, lane_file, lane_large, transaction
from citeledger.ledger.lock_file import prepare_lock_path
from tests.helpers.run import loaded_by

_FIXTURE = [HealthCheck.function_scoped_fixture]


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A ledger above the small lane's size as the core writes it."""
    path = tmp_path_factory.mktemp("large") / "ledger.json"
    with transaction(path) as book:
        for n in range(1200):
            book.add(f"https://example.org/sea/{n}?page={n % 4}", title=f"Sea {n} \u00e9t\u00e9")
    text = path.read_text("utf-8")
    assert len(text.encode("utf-8")) > lane_file.LANE_BYTES
    return text


def _ledger(folder: Path, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / "ledger.json"
    path.write_text(text, encoding="utf-8")
    prepare_lock_path(path)
    return path


def _cache() -> Path:
    return Path(os.environ["XDG_CACHE_HOME"]) / "citeledger" / "checked"


def test_the_next_call_on_the_bytes_the_lane_wrote_skips_the_proof(
    tmp_path: Path, large: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lane_path = _ledger(tmp_path / "lane", large)
    core_path = _ledger(tmp_path / "core", large)
    assert lane.add(str(lane_path), ["https://example.org/one"], ["One"]) is not None
    assert checked_texts.proven(str(lane_path), lane_path.read_bytes()) == 1201
    # The second call: the same result as the core's, without re.
    out, loaded = loaded_by(lane_path.parent, ["--ledger", "ledger.json", "add", "https://x.org/2"])
    assert out.splitlines()[0] == "[1202] https://x.org/2"
    assert "re" not in loaded
    assert "citeledger.ledger.layout_pattern" not in loaded
    add_sources(lambda: core_path, ["https://example.org/one"], ["One"])
    add_sources(lambda: core_path, ["https://x.org/2"], [])
    capsys.readouterr()
    assert lane_path.read_text("utf-8").replace(
        lane_file_date(lane_path), "D"
    ) == core_path.read_text("utf-8").replace(lane_file_date(core_path), "D")


def lane_file_date(path: Path) -> str:
    """The date the last entry was added on (two runs may straddle midnight)."""
    text = path.read_text("utf-8")
    at = text.rindex('"accessed": "') + len('"accessed": "')
    return text[at : text.index('"', at)]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("https://example.org/sea/4?page=0", "javascript:alert(4)"),
        ("https://example.org/sea/4?page=0", "https://example.org/sea/4?utm_source=x"),
        ('"id": 9,', '"id": 8,'),
    ],
    ids=["javascript", "tracking", "duplicate-id"],
)
def test_a_text_changed_after_its_proof_is_proven_again(
    tmp_path: Path, large: str, old: str, new: str
) -> None:
    path = _ledger(tmp_path, large)
    assert lane_large.checked(large, str(path)) is not None  # proven and recorded
    changed = large.replace(old, new, 1)
    path.write_text(changed, encoding="utf-8")
    assert lane_large.checked(changed, str(path)) is None
    assert lane.add(str(path), ["https://example.org/new"], []) is None
    assert path.read_text("utf-8") == changed


def test_a_record_is_for_its_own_ledger_path(tmp_path: Path, large: str) -> None:
    first = _ledger(tmp_path / "a", large)
    second = _ledger(tmp_path / "b", large)
    assert lane_large.checked(large, str(first)) is not None
    data = large.encode("utf-8")
    assert checked_texts.proven(str(first), data) is not None
    assert checked_texts.proven(str(second), data) is None


@pytest.mark.parametrize("fault", ["group-writable", "not-a-folder", "switched-off", "relative"])
def test_a_cache_folder_others_may_write_is_never_read(
    tmp_path: Path, large: str, fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _ledger(tmp_path, large)
    data = large.encode("utf-8")
    checked_texts.record(str(path), data, 1200)
    assert checked_texts.proven(str(path), data) == 1200
    if fault == "group-writable":
        _cache().chmod(0o770)
    elif fault == "not-a-folder":
        for record in _cache().iterdir():
            record.unlink()
        _cache().rmdir()
        _cache().symlink_to(tmp_path)
    elif fault == "switched-off":
        monkeypatch.setenv(checked_texts.NO_CACHE_VAR, "1")
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", "cache")
        monkeypatch.setenv("HOME", "home")
    assert checked_texts.proven(str(path), data) is None
    checked_texts.record(str(path), data + b" ", 1)
    assert checked_texts.proven(str(path), data + b" ") is None


@pytest.mark.parametrize(
    "record", [b"", b"x 12\n", b"0" * 40 + b" 12", b"0" * 40 + b" -1\n", b"9" * 80 + b" 1\n"]
)
def test_a_damaged_record_proves_nothing(tmp_path: Path, large: str, record: bytes) -> None:
    path = _ledger(tmp_path, large)
    data = large.encode("utf-8")
    checked_texts.record(str(path), data, 1200)
    (only,) = _cache().iterdir()
    only.write_bytes(record.replace(b"0" * 40, checked_texts._digest(data).encode()))
    assert checked_texts.proven(str(path), data) is None


_TITLES = st.text(
    alphabet=st.sampled_from(['"', "\\", "\x07", "\n", "\ud800", "\u00e9", "a", " ", "&", "%"]),
    max_size=6,
)
_URLS = st.sampled_from(
    [
        "https://example.org/new",
        "https://example.org/a&b",
        "https://example.org/a?x=1&y",
        "https://example.org/%41",
        "https://example.org/sea/3?page=3",
    ]
)


@settings(max_examples=40, deadline=None, suppress_health_check=_FIXTURE)
@given(urls=st.lists(_URLS, min_size=1, max_size=3), titles=st.lists(_TITLES, max_size=3))
def test_what_the_lane_records_after_its_write_a_fresh_proof_takes(
    tmp_path: Path, large: str, urls: list[str], titles: list[str]
) -> None:
    """The lane records its own write as proven (the proven text and entries it made): only
    where the pattern would take the new text too."""
    titles = (titles + [""] * len(urls))[: len(urls)]
    folder = tmp_path / os.urandom(4).hex()
    path = _ledger(folder, large)
    try:
        done = lane.add(str(path), urls, titles)
    except UnicodeEncodeError:  # a lone surrogate from the command line: the core's to refuse
        return
    if done is None:
        return
    data = path.read_bytes()
    high = checked_texts.proven(str(path), data)
    if high is not None:
        fresh = lane_large.checked(data.decode("utf-8"))  # no path: proven anew
        assert fresh == high


_ODD = [
    "https://example.org/a&b",
    "https://example.org/a?x=1&y",
    "https://example.org/a?utm_source=x",
    "https://example.org/%41",
    "https://example.org/%4a",
    "https://Example.org/a",
    "https://example.org/" + "x" * 4076,  # the longest URL a ledger holds
    "https://example.org/sea/3?page=3",
    "https://example.org/a?Q=1?_GA=2",
]


@pytest.mark.parametrize("url", _ODD, ids=[u[:40] for u in _ODD])
@pytest.mark.parametrize("archived", [False, True])
def test_the_core_records_what_the_lane_would_prove(
    tmp_path: Path, large: str, url: str, archived: bool
) -> None:
    """A large ledger the core loads in one pass is recorded exactly when the lane's proof
    takes it (but for a URL with a "&", which the core does not tell apart); loaded again
    through the record, it is the same ledger."""
    from citeledger.ledger import load_ledger

    old = '"url": "https://example.org/sea/5?page=1",\n'
    new = f'"url": "{url}",\n'
    if archived:
        new = old + '      "title": "Sea 5 \u00e9t\u00e9",\n      "accessed": "A",\n'
        new += f'      "archived": "{url}",\n'
        old += '      "title": "Sea 5 \u00e9t\u00e9",\n      "accessed": "'
        at = large.index(old) + len(old)
        old = large[large.index(old) : large.index("\n", at) + 1]
    assert old in large
    text = large.replace(old, new, 1)
    path = _ledger(tmp_path, text)
    first = load_ledger(path)
    recorded = checked_texts.proven(str(path), text.encode("utf-8")) is not None
    proven = lane_large.checked(text) is not None
    assert recorded is (proven and "&" not in url)  # the core leaves any "&" to the lane
    if recorded:
        again = load_ledger(path)  # through the record
        assert again.to_dict() == first.to_dict()
        assert archived or again.find_url(url) is not None
