"""``citeledger convert`` reads a long markdown draft with one pandoc run per core
(document/parts.py) when nothing of the user's pipeline takes part in the reading: each part is
read as the whole draft would be (under ``--sandbox`` for an untrusted draft), and every output
is the file the whole reading gives."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

import citeledger.document.parts as parts_module
from citeledger.document.pipeline import JSON_FILTER, Pipeline
from citeledger.options import Options
from citeledger.publish.convert import ConvertRequest
from citeledger.publish.convert import convert as build
from tests.helpers import make_ledger

SOURCES = [(k, f"https://example.org/ice/{k}", f"Ice paper {k}", "2024-05-01") for k in (1, 2, 3)]
DRAFT = "---\ntitle: Ice\n---\n\n" + "\n".join(
    f"# Part {k}\n\nIce floats on water.[{k % 3 + 1}] Sea ice is thin in part {k}.[2]\n\n"
    f"- a point about ice.[1]\n- another point.[3]\n"
    for k in range(1, 25)
)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    make_ledger(tmp_path / "ledger.json", SOURCES)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITELEDGER_LEDGER", str(tmp_path / "ledger.json"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # Office files stamped alike
    return tmp_path


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[str], str]]:
    """The pandoc runs that read parts of a draft: their arguments and their text."""
    runs: list[tuple[list[str], str]] = []
    real = parts_module.run_pandoc

    def counted(args: list[str], **kwargs: Any) -> bytes:
        runs.append((list(args), kwargs["stdin"]))
        return real(args, **kwargs)

    monkeypatch.setattr(parts_module, "run_pandoc", counted)
    return runs


def _contents(path: Path) -> dict[str, bytes]:
    if path.suffix not in (".docx", ".pptx"):
        return {path.name: path.read_bytes()}
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in sorted(archive.namelist())}


def _built(folder: Path, name: str, **request: Any) -> dict[str, dict[str, bytes]]:
    out = folder / name
    out.mkdir()
    outputs = [out / "r.html", out / "r.docx", out / "r.pptx"]
    build(ConvertRequest(draft=Path("draft.md"), outputs=outputs, jobs=2, **request))
    return {o.name: _contents(o) for o in outputs}


def test_a_long_draft_is_read_in_parts_into_the_outputs_of_the_whole_reading(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _spy(monkeypatch)
    monkeypatch.setattr(parts_module, "MIN_CHARS", 10**9)
    whole = _built(folder, "whole")
    assert runs == []
    monkeypatch.setattr(parts_module, "MIN_CHARS", 0)
    # The default request's pipeline (no filter, no defaults file) reads as no pipeline does.
    in_parts = _built(folder, "parts")
    assert len(runs) == 2
    assert "".join(text for _args, text in runs) == DRAFT
    # An untrusted draft's parts are read as its whole reading is: sandboxed.
    assert all("--sandbox" in args for args, _text in runs)
    assert in_parts == whole


def test_a_trusted_draft_is_read_in_parts_without_the_sandbox(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _spy(monkeypatch)
    monkeypatch.setattr(parts_module, "MIN_CHARS", 0)
    _built(folder, "trusted", options=Options().updated({"trust-draft": True}))
    assert len(runs) == 2 and not any("--sandbox" in args for args, _text in runs)


def test_a_draft_read_through_a_filter_is_read_whole(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = _spy(monkeypatch)
    monkeypatch.setattr(parts_module, "MIN_CHARS", 0)
    lua = folder / "shout.lua"
    lua.write_text("function Str(s) return s end\n", encoding="utf-8")
    pipeline = Pipeline(filters=(("lua-filter", str(lua)),))
    _built(folder, "filtered", pipeline=pipeline)
    assert runs == []
    assert Pipeline().reads_plainly()
    assert not Pipeline(filters=((JSON_FILTER, "f.py"),)).reads_plainly()
    assert not Pipeline(defaults=("d.yaml",)).reads_plainly()
    assert Pipeline(citeproc=True, resource_path=os.curdir).reads_plainly()


def test_one_job_reads_the_draft_whole(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _spy(monkeypatch)
    monkeypatch.setattr(parts_module, "MIN_CHARS", 0)
    out = folder / "one"
    out.mkdir()
    build(ConvertRequest(draft=Path("draft.md"), outputs=[out / "r.html"], jobs=1))
    assert runs == []
