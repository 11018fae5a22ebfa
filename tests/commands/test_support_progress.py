"""The judge's progress bar: on a terminal's standard error only (standard output may be a
report a parser reads whole), never under ``-q``, never without a judge."""

from __future__ import annotations

import io
import sys

import pytest

from citeledger.commands._console import NORMAL, QUIET
from citeledger.commands._support import judge_progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_draws_on_a_terminals_standard_error(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with judge_progress(object(), NORMAL) as advance:  # type: ignore[arg-type]
        assert advance is not None
        advance(8, 40)
        advance(40, 40)
    assert "judging claims" in screen.getvalue()


def test_no_bar_without_a_terminal_a_judge_or_under_quiet(monkeypatch) -> None:
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with judge_progress(None, NORMAL) as advance:
        assert advance is None
    with judge_progress(object(), QUIET) as advance:  # type: ignore[arg-type]
        assert advance is None
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with judge_progress(object(), NORMAL) as advance:  # type: ignore[arg-type]
        assert advance is None
