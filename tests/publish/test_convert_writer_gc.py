"""``citeledger convert``'s forked writers run without the cyclic collector: each holds the
build's whole tree, inherited at the fork, where a collection pass frees nothing yet walks (and
writes to) every object of it, a cost that grew faster than the draft (the HTML and Word
writers of a 10 MB report spent several seconds there)."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Any

import pytest

from citeledger.publish.convert import ConvertRequest
from citeledger.publish.convert import convert as build


def test_no_writer_runs_a_collection_pass(
    draft: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(draft.parent)
    monkeypatch.setenv("CITELEDGER_LEDGER", str(draft.parent / "ledger.json"))
    # A callback of the collector, inherited by every forked writer, notes each pass's process.
    passes = tmp_path / "passes.txt"
    parent = os.getpid()

    def note(phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            with passes.open("a", encoding="utf-8") as handle:
                handle.write(f"{os.getpid()}\n")

    threshold = gc.get_threshold()
    gc.callbacks.append(note)
    gc.set_threshold(50)  # a pass every 50 new objects: any writer that collects is seen
    try:
        names = ["r.html", "r.docx", "r.pptx"]
        written = build(ConvertRequest(draft=draft, outputs=[Path(n) for n in names], jobs=2))
    finally:
        gc.callbacks.remove(note)
        gc.set_threshold(*threshold)
    assert written == [Path(n) for n in names]
    pids = {int(line) for line in passes.read_text(encoding="utf-8").split()}
    assert parent in pids  # the callback is heard: the build's own process collects
    assert pids == {parent}  # and no writer does
