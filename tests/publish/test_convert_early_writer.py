"""``citeledger convert`` starts its heaviest writer (a deck, a Word file) while the draft is
verified, on the other core: the file goes in place only once the draft has passed, and a
draft that fails leaves nothing of it behind."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

import citeledger.verify
from citeledger.errors import VerificationFailed
from citeledger.publish.convert import ConvertRequest
from citeledger.publish.convert import convert as build


def _watch_verification(monkeypatch: pytest.MonkeyPatch, seen: dict[str, Any]) -> None:
    """Note, while the build verifies its draft, which writers are alive and which files
    are in the folder."""
    original = citeledger.verify.verify_for_build

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen["alive"] = [p for p in multiprocessing.active_children() if p.is_alive()]
        seen["files"] = sorted(p.name for p in Path.cwd().iterdir())
        return original(*args, **kwargs)

    monkeypatch.setattr(citeledger.verify, "verify_for_build", watched)


@pytest.fixture
def seen(draft: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What the build had started and written when it verified ``draft`` (run in its folder,
    with its ledger)."""
    monkeypatch.chdir(draft.parent)
    monkeypatch.setenv("CITELEDGER_LEDGER", str(draft.parent / "ledger.json"))
    noted: dict[str, Any] = {}
    _watch_verification(monkeypatch, noted)
    return noted


def test_the_deck_is_written_while_the_draft_is_verified_and_placed_after(
    draft: Path, seen: dict[str, Any]
) -> None:
    names = ["r.html", "r.pptx"]
    written = build(ConvertRequest(draft=draft, outputs=[Path(n) for n in names], jobs=2))
    assert written == [Path(n) for n in names]
    assert len(seen["alive"]) == 1  # the deck's writer, started before the verification
    assert "r.pptx" not in seen["files"]  # held at its gate until the draft passed
    assert (draft.parent / "r.pptx").stat().st_size > 0


def test_a_draft_that_fails_leaves_nothing_of_the_writer_started_early(
    draft: Path, seen: dict[str, Any]
) -> None:
    with draft.open("a", encoding="utf-8") as handle:
        handle.write("\n\nA claim no source of the ledger makes.[999]\n")
    before = sorted(p.name for p in draft.parent.iterdir())
    with pytest.raises(VerificationFailed):
        build(
            ConvertRequest(
                draft=draft, outputs=[Path("r.docx"), Path("r.html")], jobs=2, say=lambda _l: None
            )
        )
    assert len(seen["alive"]) == 1
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]
    # No output and no staged file of the stopped writer.
    assert sorted(p.name for p in draft.parent.iterdir()) == before


def test_one_core_starts_nothing_before_the_verification(draft: Path, seen: dict[str, Any]) -> None:
    build(ConvertRequest(draft=draft, outputs=[Path("r.html"), Path("r.pptx")], jobs=1))
    assert seen["alive"] == []
