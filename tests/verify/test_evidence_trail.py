"""The evidence trail: quote keeps the matched text by digest; verify --recheck re-checks it."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from citeledger.ledger import load_ledger
from tests.helpers import OWN_VARS, run_citeledger

PAGE_HTML = (
    "<!doctype html><html><head><title>Ice</title><script>var hidden = 'x';</script></head>"
    "<body><p>Ice is less dense than liquid water.</p><p>It floats with about 90% below the "
    "surface.</p></body></html>"
)
DRAFT = "Ice floats on water.[1]\n\n## Sources\n\n[1] https://a.org/ice — Ice\n"


@pytest.fixture
def quoted(tmp_path: Path, cli) -> Path:
    """A ledger with one source and two quotes from one HTML page, and a draft citing it."""
    (tmp_path / "page.html").write_text(PAGE_HTML, encoding="utf-8")
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    assert cli("add", "https://a.org/ice", "--title", "Ice").code == 0
    for text in ("less dense than liquid water", "floats with about 90% below"):
        done = cli("quote", "1", "--text", text, "--from", "page.html")
        assert done.code == 0, done.err
    return tmp_path / "ledger.evidence"


def _only_file(folder: Path) -> Path:
    [kept] = list(folder.iterdir())
    return kept


def test_quote_keeps_the_matched_text_once_per_digest(quoted: Path, cli) -> None:
    kept = _only_file(quoted)
    before = (kept.stat().st_ino, kept.stat().st_mtime_ns)
    assert cli("quote", "1", "--text", "Ice is less dense", "--from", "page.html").code == 0
    assert _only_file(quoted) == kept
    assert (kept.stat().st_ino, kept.stat().st_mtime_ns) == before
    assert not [p for p in quoted.parent.iterdir() if p.name.endswith(".tmp")]


def test_the_kept_file_is_the_visible_text_named_by_its_sha256(quoted: Path) -> None:
    kept = _only_file(quoted)
    data = kept.read_bytes()
    assert kept.name == hashlib.sha256(data).hexdigest() + ".txt"
    text = data.decode("utf-8")
    assert "Ice is less dense than liquid water." in text and "hidden" not in text
    assert "<p>" not in text


def test_the_quote_records_the_digest_and_its_from_origin(quoted: Path, tmp_path: Path) -> None:
    raw = json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8"))
    quote = raw["sources"][0]["quotes"][0]
    digest = _only_file(quoted).name.removesuffix(".txt")
    assert quote["text_sha256"] == digest
    assert quote["origin"] == "page.html"
    assert quote["sha256"] == hashlib.sha256(PAGE_HTML.encode()).hexdigest()
    # Extra fields only: the grounded-citations keys keep their meaning.
    assert set(quote) == {"text", "added", "sha256", "origin", "text_sha256"}


def test_a_sources_py_ledger_loads_unchanged_and_ours_reads_as_sources_py_shape(
    tmp_path: Path, quoted: Path
) -> None:
    seed = {
        "version": 1,
        "sources": [
            {
                "id": 1,
                "url": "https://a.org",
                "title": "A",
                "accessed": "2024-01-01",
                "quotes": [{"text": "three words here", "added": "2024-01-02"}],
            }
        ],
    }
    (tmp_path / "seed.json").write_text(json.dumps(seed), encoding="utf-8")
    assert load_ledger(tmp_path / "seed.json").to_dict()["sources"] == seed["sources"]
    ours = json.loads((tmp_path / "ledger.json").read_text(encoding="utf-8"))
    # What sources.py reads: version, sources with id/url/title/accessed and quote text/added.
    for source in ours["sources"]:
        assert {"id", "url", "title", "accessed", "quotes"} <= set(source)
        assert all({"text", "added"} <= set(q) for q in source["quotes"])


def _verify(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return run_citeledger("verify", "draft.md", *flags, cwd=tmp_path, unset=OWN_VARS, timeout=120)


def test_verify_recheck_passes_when_the_evidence_is_untouched(quoted: Path, tmp_path) -> None:
    done = _verify(tmp_path, "--evidence", "--recheck")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "citations OK"


def test_verify_recheck_fails_by_digest_when_an_evidence_file_is_edited(
    quoted: Path, tmp_path
) -> None:
    kept = _only_file(quoted)
    kept.write_text(kept.read_text(encoding="utf-8").replace("less", "more"), encoding="utf-8")
    done = _verify(tmp_path, "--evidence", "--recheck", "--format", "json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    [finding] = [f for f in report["findings"] if f["level"] == "FAIL"]
    assert finding["code"] == "evidence-file-altered"
    assert kept.name.removesuffix(".txt") in finding["message"]
    assert finding["location"] == "draft.md:1:21" and finding["ids"] == [1]


def test_verify_recheck_fails_by_digest_when_an_evidence_file_is_deleted(
    quoted: Path, tmp_path
) -> None:
    kept = _only_file(quoted)
    kept.unlink()
    done = _verify(tmp_path, "--evidence", "--recheck")
    assert done.returncode == 1
    fails = [ln for ln in done.stderr.splitlines() if ln.startswith("FAIL:")]
    assert len(fails) == 1  # two quotes share the file: one finding
    assert f"evidence file sha256 {kept.name.removesuffix('.txt')} is missing" in fails[0]
    assert done.stdout.splitlines()[-1] == "verification failed"


def test_a_quote_edited_in_the_ledger_fails_the_recheck(quoted: Path, tmp_path) -> None:
    path = tmp_path / "ledger.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sources"][0]["quotes"][0]["text"] = "more dense than liquid water"
    path.write_text(json.dumps(data), encoding="utf-8")
    done = _verify(tmp_path, "--recheck", "--format", "json")
    assert done.returncode == 1
    codes = [f["code"] for f in json.loads(done.stdout)["findings"] if f["level"] == "FAIL"]
    assert codes == ["quote-not-in-evidence"]


def test_a_quote_without_a_kept_text_is_a_warning(tmp_path: Path, cli) -> None:
    seed = {
        "version": 1,
        "sources": [
            {
                "id": 1,
                "url": "https://a.org/ice",
                "title": "Ice",
                "accessed": "2024-01-01",
                "quotes": [{"text": "ice floats on water", "added": "x"}],
            }
        ],
    }
    (tmp_path / "ledger.json").write_text(json.dumps(seed), encoding="utf-8")
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    done = _verify(tmp_path, "--evidence", "--recheck")
    assert done.returncode == 0
    assert "has no kept evidence text to re-check" in done.stdout
    assert _verify(tmp_path, "--recheck", "--strict").returncode == 1


def test_without_recheck_verify_reads_no_evidence_file(quoted: Path, tmp_path) -> None:
    _only_file(quoted).unlink()
    assert _verify(tmp_path, "--evidence").returncode == 0


def test_an_evidence_folder_that_is_a_file_is_one_line_and_nothing_is_written(
    tmp_path: Path, cli
) -> None:
    (tmp_path / "page.html").write_text(PAGE_HTML, encoding="utf-8")
    cli("add", "https://a.org/ice")
    (tmp_path / "ledger.evidence").write_text("not a folder", encoding="utf-8")
    before = (tmp_path / "ledger.json").read_bytes()
    done = cli("quote", "1", "--text", "less dense than liquid water", "--from", "page.html")
    assert done.code == 2
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and "ledger.evidence is a file, not a folder" in lines[0]
    assert (tmp_path / "ledger.json").read_bytes() == before


def test_render_evidence_with_digests_prints_each_quotes_kept_digest(quoted: Path, cli) -> None:
    digest = _only_file(quoted).name.removesuffix(".txt")
    done = cli("render", "--style", "evidence", "--digests")
    assert done.code == 0
    lines = done.out.splitlines()
    for quote in ("less dense than liquid water", "floats with about 90% below"):
        at = lines.index(f'    > "{quote}"')  # sources.py's line, as it prints it
        assert lines[at + 1] == f"      (sha256 {digest})"


def test_an_evidence_folder_beside_a_symlinked_ledger_is_beside_its_target(
    tmp_path: Path, cli
) -> None:
    real = tmp_path / "shared"
    real.mkdir()
    (tmp_path / "page.html").write_text(PAGE_HTML, encoding="utf-8")
    (tmp_path / "mine.json").symlink_to(real / "team.json")
    assert cli("--ledger", "mine.json", "add", "https://a.org/ice").code == 0
    done = cli(
        "--ledger",
        "mine.json",
        "quote",
        "1",
        "--text",
        "less dense than liquid water",
        "--from",
        "page.html",
    )
    assert done.code == 0, done.err
    assert len(list((real / "team.evidence").iterdir())) == 1
    assert not (tmp_path / "mine.evidence").exists()
