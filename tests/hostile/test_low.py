"""The small hostile cases: each test is named for the trap it stops (issue 25, Low)."""

from __future__ import annotations

import json
import os
import subprocess
import unicodedata
import zipfile
from pathlib import Path

import pytest

from tests.helpers import one_error_line, run_citeledger


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    return run_citeledger(*args, cwd=cwd, env=env, timeout=300)


def _ledger(folder: Path, *sources: dict[str, object]) -> Path:
    path = folder / "ledger.json"
    path.write_text(json.dumps({"version": 1, "sources": list(sources)}, ensure_ascii=False))
    return path


def _source(n: int, title: str = "T", quotes: tuple[str, ...] = ()) -> dict[str, object]:
    return {
        "id": n,
        "url": f"https://example.com/{n}",
        "title": title,
        "accessed": "2026-01-01",
        "quotes": [{"text": q, "added": "2026-01-01"} for q in quotes],
    }


def test_render_only_never_echoes_a_5000_digit_id_whole(tmp_path: Path) -> None:
    _ledger(tmp_path, _source(1))
    line = one_error_line(cli("render", "--only", "9" * 5000 + "x", cwd=tmp_path), "--only")
    assert len(line) < 300


def test_a_symlinked_evidence_folder_is_never_written_through(tmp_path: Path) -> None:
    from citeledger.errors import EvidenceError
    from citeledger.ledger.evidence_store import store_text

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "ledger.evidence").symlink_to(elsewhere)
    with pytest.raises(EvidenceError, match="is a link"):
        store_text(tmp_path / "ledger.evidence", "the page the quote was checked against")
    assert list(elsewhere.iterdir()) == []


def test_wiki_page_names_are_unique_under_case_folding_and_nfd() -> None:
    from citeledger.publish.wiki.pages import unique_slugs

    titles = ["Straße", "Strasse", "σ", "ς", "Café", "Cafe\u0301", "ǅ", "ǆ"]
    slugs = unique_slugs(titles)

    def fold(name: str) -> str:
        return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())

    assert len({fold(s) for s in slugs}) == len(titles), slugs


def _with_doctype(docx: Path) -> None:
    """Rewrite ``docx`` with a DOCTYPE declaring an entity in word/document.xml."""
    parts: dict[str, bytes] = {}
    with zipfile.ZipFile(docx) as archive:
        for name in archive.namelist():
            parts[name] = archive.read(name)
    body = parts["word/document.xml"]
    head, _, rest = body.partition(b"?>")
    parts["word/document.xml"] = (
        head
        + b'?><!DOCTYPE w:document [<!ENTITY x "boom">]>'
        + rest.replace(b"</w:t>", b"&x;</w:t>", 1)
    )
    with zipfile.ZipFile(docx, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def test_finish_refuses_a_word_file_declaring_a_doctype(tmp_path: Path) -> None:
    _ledger(tmp_path, _source(1))
    (tmp_path / "d.md").write_text(
        "# R\n\nA claim.[1]\n\n## Sources\n\n[1] https://example.com/1 — T\n"
    )
    done = cli("convert", "d.md", "-o", "d.docx", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _with_doctype(tmp_path / "d.docx")
    before = (tmp_path / "d.docx").read_bytes()
    one_error_line(cli("finish", "d.docx", cwd=tmp_path), "DOCTYPE")
    assert (tmp_path / "d.docx").read_bytes() == before


def test_a_one_letter_quote_from_another_ledger_is_not_merged(tmp_path: Path) -> None:
    _ledger(tmp_path, _source(1))
    theirs = {"version": 1, "sources": [_source(1, quotes=("a", "three words here"))]}
    (tmp_path / "theirs.json").write_text(json.dumps(theirs))
    done = cli("merge", "theirs.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "shorter than 3 words" in done.stderr
    quotes = json.loads((tmp_path / "ledger.json").read_text())["sources"][0]["quotes"]
    assert [q["text"] for q in quotes] == ["three words here"]


@pytest.mark.parametrize("hidden", ["\u200b", "\u2060", "\ufeff", "\U000e0041"])
def test_invisible_characters_in_a_title_never_reach_the_terminal(
    hidden: str, tmp_path: Path
) -> None:
    _ledger(tmp_path, _source(1, title=f"Safe{hidden}title"))
    for args in (["list"], ["render"]):
        done = cli(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert hidden not in done.stdout + done.stderr
        assert "Safe\\u" in done.stdout


def test_an_output_error_names_the_output_not_its_hidden_temporary_file(tmp_path: Path) -> None:
    from citeledger.errors import PandocError
    from citeledger.publish.convert.write import _named_as

    tmp = tmp_path / ".d.pptx.123.abc.tmp.pptx"
    out = tmp_path / "d.pptx"
    with pytest.raises(PandocError) as caught, _named_as(tmp, out):
        raise PandocError(f"pandoc: {tmp}: withBinaryFile: resource exhausted (No space left)")
    assert str(tmp) not in caught.value.message and str(out) in caught.value.message
