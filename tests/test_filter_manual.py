"""The filter's module docstring is its manual; the README repeats it for users. Every option
key the manual documents must appear in the README, and every key the code reads must be in the
manual."""

from __future__ import annotations

import re
from pathlib import Path

from citeledger.filters import main

README = Path(__file__).resolve().parent.parent / "README.md"
KEY = re.compile(r"citeledger\.([a-z][a-z-]*)")


def manual_keys() -> set[str]:
    return set(KEY.findall(main.__doc__ or ""))


def test_manual_documents_every_option_the_filter_reads() -> None:
    assert manual_keys() >= set(main._OPTION_KEYS) - {"verify"}


def test_readme_lists_every_option_of_the_filter_manual() -> None:
    readme = README.read_text(encoding="utf-8")
    missing = sorted(k for k in manual_keys() if f"citeledger.{k}" not in readme)
    assert not missing, f"README.md does not mention: {', '.join(missing)}"
