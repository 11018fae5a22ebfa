"""One way to give a test a ledger file: written by the ledger core, as ``citeledger add``
leaves it. Tests of odd, hand-made or hostile ledger files write their bytes themselves."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from citeledger.files import write_bytes
from citeledger.ledger import Ledger, Source, dump_ledger

# A source as a test spells it: a Source, an entry as the file holds it ({"id", "url", ...}),
# or (id, url, title, accessed).
SourceSpec = Source | Mapping[str, Any] | tuple[int, str, str, str]


def source_of(spec: SourceSpec, where: str = "source") -> Source:
    if isinstance(spec, Source):
        return spec
    if isinstance(spec, tuple):
        sid, url, title, accessed = spec
        return Source(sid, url, title, accessed)
    return Source.from_dict(dict(spec), where)


def ledger_of(path: Path, sources: Iterable[SourceSpec] = (), *, last_id: int = 0) -> Ledger:
    """The ledger ``make_ledger`` writes, in memory (for the filter and verifier in-process)."""
    held = [source_of(s, f"sources[{i}]") for i, s in enumerate(sources)]
    return Ledger(Path(path), held, last_id=last_id)


def make_ledger(path: Path, sources: Iterable[SourceSpec] = (), *, last_id: int = 0) -> Path:
    """Write a ledger holding ``sources`` (ids, URLs and titles exactly as given: no id is
    renumbered, no URL normalised) to ``path``, and return ``path``."""
    ledger = dump_ledger(ledger_of(path, sources, last_id=last_id))
    write_bytes(Path(path), ledger.encode("utf-8"))
    return Path(path)
