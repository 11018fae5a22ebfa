"""The file's identity in the record of proven ledger texts (citeledger/ledger/checked_texts.py):
an untouched ledger, read before and settled since, is taken on its identity without hashing
its bytes; a ledger edited in place (its modification time put back), replaced by a rename or
copied over shows another identity and is proven again; an identity whose times are within a
step of the read vouches for nothing; and a record that is not well formed, or not this user's,
vouches for nothing."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from citeledger.errors import LedgerError
from citeledger.ledger import checked_texts, lane, lane_file, lane_large, load_ledger, transaction
from citeledger.ledger.lock_file import prepare_lock_path

_FOLDERS = 24
_URL = "https://example.org/sea/4?page=0"
_BAD = "javascript:" + "x" * (len(_URL) - len("javascript:"))  # the same length


@pytest.fixture(scope="module")
def settled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Path]]:
    """Ledgers above the small lane's size as the core writes them, each in a folder of its
    own, older than a step of their file system's clock (:func:`checked_texts.settled`): one
    wait for all."""
    root = tmp_path_factory.mktemp("settled")
    first = root / "0" / "ledger.json"
    first.parent.mkdir()
    with transaction(first) as book:
        for n in range(1200):
            book.add(f"https://example.org/sea/{n}?page={n % 4}", title=f"Sea {n} \u00e9t\u00e9")
    text = first.read_text("utf-8")
    assert len(text.encode("utf-8")) > lane_file.LANE_BYTES and _URL in text
    paths = [first]
    for k in range(1, _FOLDERS):
        path = root / str(k) / "ledger.json"
        path.parent.mkdir()
        path.write_text(text, encoding="utf-8")
        prepare_lock_path(path)
        paths.append(path)
    while not checked_texts.settled(lane_file.read_keyed(str(paths[-1]), 1 << 30)[1] or ()):
        time.sleep(0.05)
    given = iter(paths)
    yield lambda: next(given)


@pytest.fixture
def digests(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the texts hashed from now on (a path's digest names its record: small)."""
    sizes: list[int] = []
    digest = checked_texts._digest

    def counted(data: bytes) -> str:
        sizes.append(len(data))
        return digest(data)

    monkeypatch.setattr(checked_texts, "_digest", counted)
    return sizes


def _hashed_texts(sizes: list[int]) -> int:
    return sum(n > lane_file.LANE_BYTES for n in sizes)


def test_an_untouched_settled_ledger_is_listed_without_hashing_it(
    settled: Callable[[], Path], digests: list[int]
) -> None:
    path = str(settled())
    shown = lane.listed(path)  # proven by the pattern and recorded with the file's identity
    assert shown is not None
    digests.clear()
    assert lane.listed(path) == shown
    assert lane.listed(path) == shown
    assert _hashed_texts(digests) == 0
    assert lane.add(path, ["https://example.org/new"], []) == ["[1201] https://example.org/new"]
    assert _hashed_texts(digests) == 1  # the record of what it wrote, and no proof before


def test_a_ledger_recorded_by_its_digest_gets_its_identity_once_settled(
    settled: Callable[[], Path], digests: list[int]
) -> None:
    path = settled()
    text, key = lane_file.read_keyed(str(path), lane_file.LARGE_BYTES)
    assert text is not None and key is not None
    checked_texts.record(str(path), text, 1200)  # as add records what it wrote: no identity
    digests.clear()
    assert checked_texts.proven(str(path), text, key) == 1200
    assert _hashed_texts(digests) == 1  # the digest compared, and recorded with the identity
    digests.clear()
    assert checked_texts.proven(str(path), text, key) == 1200
    assert _hashed_texts(digests) == 0


def _in_place(path: Path, text: str) -> None:
    st = path.stat()
    with open(path, "r+b") as handle:
        handle.write(text.encode("utf-8"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _renamed(path: Path, text: str) -> None:
    st = path.stat()
    other = path.with_name("other.json")
    other.write_text(text, encoding="utf-8")
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, path)


def _copied(path: Path, text: str) -> None:
    other = path.with_name("other.json")
    other.write_text(text, encoding="utf-8")
    os.utime(other, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    shutil.copy2(other, path)


def _truncated(path: Path, text: str) -> None:
    st = path.stat()
    path.write_bytes(b"")
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("change", [_in_place, _renamed, _copied, _truncated])
def test_a_ledger_changed_behind_its_record_is_proven_again(
    settled: Callable[[], Path], change: Callable[[Path, str], None]
) -> None:
    path = settled()
    text = path.read_text("utf-8")
    assert lane.listed(str(path)) is not None  # proven and recorded with its identity
    before = path.stat()
    change(path, text.replace(_URL, _BAD, 1))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    changed, key = lane_file.read_keyed(str(path), lane_file.LARGE_BYTES)
    assert changed is not None and _BAD in changed
    assert lane_large.checked(changed, str(path), key) is None
    assert lane.listed(str(path)) is None  # the core lists it, and names the URL
    assert lane.add(str(path), ["https://example.org/new"], []) is None
    with pytest.raises(LedgerError, match="javascript"):
        load_ledger(path)


def test_a_ledger_changed_within_a_step_of_its_read_is_not_taken_on_its_identity(
    tmp_path: Path, settled: Callable[[], Path]
) -> None:
    """The proof read one text; the file changed within the clock's step, showing the same
    identity: the identity of a file that new vouches for nothing, only the digest does."""
    path = tmp_path / "ledger.json"
    text = settled().read_text("utf-8")
    path.write_text(text.replace(_URL, _BAD, 1), encoding="utf-8")
    changed, key = lane_file.read_keyed(str(path), lane_file.LARGE_BYTES)
    assert changed is not None and key is not None
    assert not checked_texts.settled(key)  # within the step
    checked_texts.record(str(path), text, 1200, key)  # the text proven was the sound one
    assert checked_texts.proven(str(path), changed, key) is None
    assert lane_large.checked(changed, str(path), key) is None
    # The same record, read a step later: the identity alone vouches (what the wait is for).
    later = (*key[:5], max(key[3], key[4]) + checked_texts.SETTLED_NS + 1)
    checked_texts.record(str(path), text, 1200, later)
    assert checked_texts.proven(str(path), changed, later) == 1200


def test_a_ledger_edited_right_after_its_proof_is_proven_again(tmp_path: Path, large: str) -> None:
    path = tmp_path / "ledger.json"
    path.write_text(large, encoding="utf-8")
    prepare_lock_path(path)
    assert lane.listed(str(path)) is not None
    _in_place(path, large.replace(_URL, _BAD, 1))
    assert lane.listed(str(path)) is None
    assert lane.add(str(path), ["https://example.org/new"], []) is None


@pytest.fixture(scope="module")
def large(settled: Callable[[], Path]) -> str:
    return settled().read_text("utf-8")


@pytest.mark.parametrize(
    ("times", "trusted"),
    [
        ((5 * 10**9 + 1, 5 * 10**9 + 7), True),  # a fine clock: a tenth of a second is its step
        ((5 * 10**9, 5 * 10**9 + 7), False),  # a whole second: the clock may step by seconds
        ((5 * 10**9 + 1, 5 * 10**9), False),
        ((5 * 10**9, 5 * 10**9), False),
    ],
)
def test_how_old_a_file_must_be_for_its_identity_to_vouch(
    times: tuple[int, int], trusted: bool
) -> None:
    mtime, ctime = times
    asked = max(times) + checked_texts.FINE_NS + 1
    assert checked_texts.settled((1, 2, 3, mtime, ctime, asked)) is trusted
    assert not checked_texts.settled((1, 2, 3, mtime, ctime, max(times) + checked_texts.FINE_NS))
    assert checked_texts.settled((1, 2, 3, mtime, ctime, max(times) + 1 + checked_texts.SETTLED_NS))


def test_the_longest_record_is_found_again(tmp_path: Path) -> None:
    path = str(tmp_path / "ledger.json")
    top = 2**64 - 1
    key = (top, top, top, 0, 0, top)
    checked_texts.record(path, b"other bytes", 999_999, key)
    (record,) = _records()
    assert len(record.read_bytes()) > 64
    assert checked_texts.proven(path, b"these bytes", key) == 999_999


def _records() -> list[Path]:
    return list((Path(os.environ["XDG_CACHE_HOME"]) / "citeledger" / "checked").iterdir())


def _line(key: tuple[int, ...]) -> str:
    return f"{'0' * 40} 1200 " + " ".join(map(str, key))


@pytest.mark.parametrize(
    "damage",
    [
        lambda line: line,  # no line break
        lambda line: line + " 7\n",  # a number too many
        lambda line: line.rpartition(" ")[0] + "\n",  # a number too few
        lambda line: line.replace(" ", "  ", 1) + "\n",
        lambda line: line.replace(" 1200 ", " +1200 ") + "\n",
        lambda line: line.replace(" 1200 ", " -1 ") + "\n",
        lambda line: line.replace(" 1200 ", " \u0661\u0662 ") + "\n",
        lambda line: line + " " * checked_texts._RECORD_BYTES + "\n",
        lambda line: line + "\n\n",
    ],
    ids=["unended", "more", "fewer", "gap", "sign", "negative", "digits", "long", "two lines"],
)
def test_a_damaged_record_vouches_for_no_file(
    settled: Callable[[], Path], damage: Callable[[str], str]
) -> None:
    path = settled()
    text, key = lane_file.read_keyed(str(path), lane_file.LARGE_BYTES)
    assert text is not None and key is not None
    checked_texts.record(str(path), text, 1200, key)
    (record,) = _records()
    assert checked_texts.proven(str(path), "", key) == 1200  # the identity alone vouches
    record.write_bytes(damage(_line(key)).encode("utf-8"))
    assert checked_texts.proven(str(path), "", key) is None


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs chown")
@pytest.mark.parametrize("whose", ["record", "folder"])
def test_a_record_another_user_owns_vouches_for_nothing(
    settled: Callable[[], Path], whose: str
) -> None:
    path = settled()
    text, key = lane_file.read_keyed(str(path), lane_file.LARGE_BYTES)
    assert text is not None and key is not None
    checked_texts.record(str(path), text, 1200, key)
    (record,) = _records()
    assert checked_texts.proven(str(path), "", key) == 1200
    os.chown(record if whose == "record" else record.parent, 54321, -1)
    assert checked_texts.proven(str(path), "", key) is None
    assert checked_texts.proven(str(path), text, key) is None
