"""What a command asks of pandoc, and the first pandoc release that has it: the version gate's
table (:mod:`citeledger.pandoc` holds pandoc to it). The rows of :mod:`citeledger.formats` say
which reader and writer came when (``reads_since``, ``writes_since``).
"""

from __future__ import annotations

from ..ledger.light import record
from . import Version, find


@record(frozen=True)
class Capability:
    """Something a command asks of pandoc, and the first pandoc release that has it."""

    what: str
    since: Version


# The first release of each, from pandoc's changelog, checked against the binaries of
# pypandoc-binary 1.13 (pandoc 2.19.2), 1.14 (3.5), 1.15 (3.6.1), 1.16.2 (3.8.2.1), 1.17 (3.9)
# and Debian bookworm (2.17.1.1). pptx input arrived in 3.8.3, which no wheel before 1.17 holds.
# pandoc-types 1.22 (pandoc 2.11) is the oldest document tree the filter and the verifier walk.
MINIMUM = Capability("citeledger's document tree (pandoc-types 1.22)", (2, 11))
# A draft nobody vouched for is written by a pandoc that reads and fetches nothing itself.
SANDBOX = Capability("building a draft nobody vouched for (pandoc's --sandbox)", (2, 15))


def reading(fmt: str) -> Capability | None:
    """What reading ``fmt`` asks beyond :data:`MINIMUM` (None: nothing)."""
    row = find(fmt)
    if row is None or row.reads_since is None:
        return None
    return Capability(f"reading {row.suffixes[0] if row.suffixes else row.name}", row.reads_since)


def writing(fmt: str) -> Capability | None:
    """What writing ``fmt`` asks beyond :data:`MINIMUM` (None: nothing)."""
    row = find(fmt)
    if row is None or row.writes_since is None:
        return None
    note = f" ({row.gate_note})" if row.gate_note else ""
    return Capability(f"{row.name} output{note}", row.writes_since)
