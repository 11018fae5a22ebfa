"""The verifier as every build runs it: the console filter, ``citeledger convert`` and the wiki
build call :func:`verify_for_build`, so a draft gets the same findings whichever builds it.

A build renders the Sources list from the ledger, so the draft need not carry one. The report's
lines go to the caller's sink; raising (and what the failure line says) stays with the caller,
which knows what it was about to write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..document.locate import Locator
    from ..document.markers import Scan
    from ..ledger import Ledger
    from ..messages import Say
    from ..options import Options
    from ..tree import Json
    from .report import Report

# The lines of a finding; the rest (the stats line, "citations OK") are a summary.
FINDING_PREFIXES = ("warn", "FAIL")


def verify_for_build(
    doc: Json,
    ledger: Ledger,
    options: Options,
    found: Scan,
    *,
    source_name: str,
    say: Say,
    source_text: str | None = None,
    located: Locator | None = None,
    findings_only: bool = False,
) -> Report:
    """Verify the draft a build is about to write and say the report's lines (only its
    findings with ``findings_only``: inside a pandoc run, the summary is noise)."""
    from . import verify  # the package imports this module: its verify is defined by now

    report = verify(
        doc,
        ledger,
        options,
        scan=found,
        source_name=source_name,
        source_text=source_text,
        build=True,
        located=located,
    )
    for line in report.lines():
        if not findings_only or line.startswith(FINDING_PREFIXES):
            say(line)
    return report
