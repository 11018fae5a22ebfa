"""A UTF-8 page's bytes go to the evidence trail as read (not encoded and hashed again), and a
kept text is compared by its bytes: the trail holds what it held before, byte for byte."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from citeledger.ledger.evidence_pages import read_evidence
from citeledger.ledger.evidence_store import evidence_path, read_stored, store_text

_TEXT = "Sea ice \u2014 \u201cfrozen\u201d water is less dense than liquid water.\n"


@pytest.mark.parametrize(
    ("data", "as_read"),
    [
        (_TEXT.encode("utf-8"), True),
        (b"plain ASCII text that is long enough\n", True),
        (b"\xef\xbb\xbf" + _TEXT.encode("utf-8"), False),  # the BOM is not in the text
        ("caf\u00e9 cr\u00e8me\n".encode("cp1252"), False),
        (_TEXT.encode("utf-16"), False),
    ],
)
def test_the_bytes_read_are_kept_only_when_they_are_the_texts_utf8(
    tmp_path: Path, data: bytes, as_read: bool
) -> None:
    page = tmp_path / "page.txt"
    page.write_bytes(data)
    evidence = read_evidence(str(page))
    assert (evidence.encoded is not None) == as_read
    if evidence.encoded is not None:
        assert evidence.encoded == (evidence.text.encode("utf-8"), hashlib.sha256(data).hexdigest())
    folder = tmp_path / "ledger.evidence"
    digest = store_text(folder, evidence.text, encoded=evidence.encoded)
    assert digest == store_text(tmp_path / "other.evidence", evidence.text)
    stored = read_stored(folder, digest)
    assert stored.status == "ok" and stored.text == evidence.text


def test_a_kept_text_altered_in_place_is_written_again(tmp_path: Path) -> None:
    folder = tmp_path / "ledger.evidence"
    digest = store_text(folder, _TEXT)
    path = evidence_path(folder, digest)
    original = path.read_bytes()
    path.write_bytes(original.replace(b"Sea", b"Sky"))  # same size, other bytes
    assert read_stored(folder, digest).status == "altered"
    assert store_text(folder, _TEXT) == digest
    assert path.read_bytes() == original
    path.write_bytes(original[:-1])  # truncated
    store_text(folder, _TEXT)
    assert read_stored(folder, digest).status == "ok"
