"""recheck: every quote against its kept text, or against fresh pages saved by id or URL slug."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from citeledger.ledger.drift import nearest_passage, url_slug

PAGE = (
    "<html><body><h1>Ice</h1><p>Ice is less dense than liquid water, so it floats.</p>"
    "<p>About 90% of an iceberg lies below the surface.</p></body></html>"
)
CHANGED = (
    "<html><body><h1>Ice</h1><p>Ice is denser than liquid water in this revision, so it sinks."
    "</p><p>About 90% of an iceberg lies below the surface.</p></body></html>"
)


@pytest.fixture
def ledger(tmp_path: Path, cli) -> Path:
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    assert cli("add", "https://a.org/ice", "https://b.org/other?x=1").code == 0
    for text in ("less dense than liquid water", "90% of an iceberg lies below"):
        assert cli("quote", "1", "--text", text, "--from", "page.html").code == 0
    return tmp_path / "ledger.json"


def test_recheck_against_kept_texts_passes_when_untouched(ledger: Path, cli) -> None:
    done = cli("recheck")
    assert done.code == 0, done.err
    assert done.out.splitlines()[-1] == "recheck OK"
    assert "2 quote(s) of 1 source(s)" in done.out


def test_recheck_against_kept_texts_fails_by_digest_when_a_file_is_edited_or_deleted(
    ledger: Path, cli
) -> None:
    [kept] = list((ledger.parent / "ledger.evidence").iterdir())
    digest = kept.name.removesuffix(".txt")
    kept.write_text("something else entirely", encoding="utf-8")
    edited = cli("recheck")
    assert edited.code == 1 and f"evidence-file-altered: [1] evidence file sha256 {digest}" in (
        edited.err
    )
    assert edited.out.splitlines()[-1] == "recheck failed"
    kept.unlink()
    deleted = cli("recheck")
    assert deleted.code == 1 and f"sha256 {digest} is missing" in deleted.err


def test_recheck_against_a_changed_page_names_the_vanished_quote(ledger: Path, cli) -> None:
    fresh = ledger.parent / "fresh"
    fresh.mkdir()
    (fresh / "1.html").write_text(CHANGED, encoding="utf-8")
    done = cli("recheck", "--from-dir", "fresh")
    assert done.code == 1
    [drift] = [ln for ln in done.err.splitlines() if ln.startswith("FAIL:")]
    assert drift.startswith("FAIL: quote-drift: [1] quote \u201cless dense than liquid water\u201d")
    assert "nearest passage" in drift and "Ice is denser than liquid water" in drift
    assert "1 drifted" in done.out and done.out.splitlines()[-1] == "recheck failed"
    # the source without a fresh page is named, with the file names that would do
    assert "b-org-other-x-1.html" not in done.out  # it has no quotes: nothing to re-check


def test_recheck_against_an_unchanged_page_by_url_slug_passes(ledger: Path, cli) -> None:
    fresh = ledger.parent / "fresh"
    fresh.mkdir()
    (fresh / "a-org-ice.html").write_text(PAGE, encoding="utf-8")
    done = cli("recheck", "--from-dir", "fresh")
    assert done.code == 0, done.err
    assert "2 still hold, 0 drifted" in done.out


def test_a_source_without_a_fresh_page_says_which_names_would_do(ledger: Path, cli) -> None:
    fresh = ledger.parent / "fresh"
    fresh.mkdir()
    (fresh / "unrelated.txt").write_text("x", encoding="utf-8")
    done = cli("recheck", "--from-dir", "fresh")
    assert done.code == 0
    assert "[1] no fresh page in fresh (save it as 1.html or a-org-ice.html there" in done.out
    assert "unrelated.txt names no source" in done.out


def test_two_fresh_pages_for_one_source_are_refused(ledger: Path, cli) -> None:
    fresh = ledger.parent / "fresh"
    fresh.mkdir()
    (fresh / "1.html").write_text(PAGE, encoding="utf-8")
    (fresh / "a-org-ice.txt").write_text(PAGE, encoding="utf-8")
    done = cli("recheck", "--from-dir", "fresh")
    assert done.code == 2
    assert "two fresh pages for [1]" in done.err and len(done.err.strip().splitlines()) == 1


def test_a_from_dir_that_is_a_file_is_one_line(ledger: Path, cli) -> None:
    done = cli("recheck", "--from-dir", "page.html")
    assert done.code == 2 and "is a file, not a folder" in done.err
    assert len(done.err.strip().splitlines()) == 1


def test_an_evidence_folder_that_is_a_file_is_one_line(tmp_path: Path, cli) -> None:
    cli("add", "https://a.org/ice")
    (tmp_path / "ledger.evidence").write_text("x", encoding="utf-8")
    done = cli("recheck")
    assert done.code == 2 and "ledger.evidence is a file, not a folder" in done.err


def test_url_slug_rule() -> None:
    assert url_slug("https://example.com/a/b?x=1") == "example-com-a-b-x-1"
    assert url_slug("https://doi.org/10.1000/XYZ") == "doi-org-10-1000-XYZ"
    assert url_slug("https://a.org/" + "p" * 500) == ("a-org-" + "p" * 500)[:120]


def test_nearest_passage_finds_the_reworded_sentence() -> None:
    page = "Intro text. The glacier retreated 40 metres in the year 2020. Outro text."
    near = nearest_passage("The glacier retreated 30 metres in 2020.", page)
    assert near is not None and "glacier retreated 40 metres" in near.text
    assert 0.5 < near.shared < 1.0
    assert nearest_passage("zebra quagga okapi", page) is None


def test_nearest_passage_on_a_50_mb_page_is_linear_not_edit_distance() -> None:
    rng = random.Random(14)
    vocab = [
        "".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(2, 9)))
        for _ in range(20_000)
    ]
    words = rng.choices(vocab, k=8_000_000)
    page = " ".join(words)
    assert len(page) > 50_000_000
    quote = " ".join(words[5_000_000:5_000_060])
    changed = quote.replace(words[5_000_030], "REPLACED", 1)
    started = time.monotonic()
    near = nearest_passage(changed, page)
    elapsed = time.monotonic() - started
    assert near is not None and near.shared > 0.9
    assert " ".join(words[5_000_001:5_000_029]) in near.text
    # Edit distance over this page would take hours; two C-speed scans take seconds.
    assert elapsed < 30, elapsed
