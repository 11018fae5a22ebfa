"""What tests share: paths, one ledger factory, one way to run the CLI and the filter, and the
tools a test needs from the machine. Fixtures and pytest hooks stay in tests/conftest.py."""

from __future__ import annotations

from .ledgers import ledger_of, make_ledger
from .paths import FIXTURES, GOLDEN_ROOT, ROOT, TESTS
from .run import (
    CITELEDGER,
    LEDGER_VARS,
    OWN_VARS,
    Result,
    call_main,
    citeledger_env,
    marked_processes,
    one_error_line,
    run_citeledger,
    run_filter,
    start_citeledger,
)
from .tools import (
    OLD_PANDOC_ENV,
    find_old_pandoc,
    has_font_for,
    in_ci,
    need,
    pandoc_version_of,
    require_cjk_font,
    require_tool,
    require_writer,
    running_pandoc_version,
)

__all__ = [
    "CITELEDGER",
    "FIXTURES",
    "GOLDEN_ROOT",
    "LEDGER_VARS",
    "OLD_PANDOC_ENV",
    "OWN_VARS",
    "ROOT",
    "TESTS",
    "Result",
    "call_main",
    "citeledger_env",
    "find_old_pandoc",
    "marked_processes",
    "has_font_for",
    "in_ci",
    "ledger_of",
    "make_ledger",
    "need",
    "one_error_line",
    "pandoc_version_of",
    "require_cjk_font",
    "require_tool",
    "require_writer",
    "run_citeledger",
    "run_filter",
    "running_pandoc_version",
    "start_citeledger",
]
