"""Where the checkout, the golden files and the fixtures are, for a test in any room."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
ROOT = TESTS.parent
GOLDEN_ROOT = TESTS / "golden"
FIXTURES = TESTS / "fixtures"
