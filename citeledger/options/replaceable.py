"""``dataclasses.replace`` for a light record (``ledger/light.py``'s ``record``), for code that
still calls it on one: the builds call it on :class:`~citeledger.options.Options` (the filter)
and on :class:`~citeledger.document.markers.Hit` (the wiki's page scans). A verify loads
neither ``dataclasses`` nor its ``inspect``; :func:`replaceable` gives the class the one table
``dataclasses.replace`` reads, each field's name (all made by ``__init__``, none a class
variable), so the copy is ``cls(**fields, **changes)`` as for a dataclass. Nothing else of
``dataclasses`` reads it: ``fields`` would find none.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T", bound=type)


class _Field:
    """What ``dataclasses.replace`` reads of a field."""

    __slots__ = ("name",)
    init = True
    _field_type = None
    default = None

    def __init__(self, name: str) -> None:
        self.name = name


def replaceable(cls: T) -> T:
    """``cls`` (a record), ready for ``dataclasses.replace``."""
    if not TYPE_CHECKING:  # type checkers see the dataclass itself
        cls.__dataclass_fields__ = {name: _Field(name) for name in cls.__record_fields__}
    return cls
