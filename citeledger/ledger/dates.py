"""Access dates: ISO 8601 in, the calendar date the ledger stores out (``YYYY-MM-DD``)."""

from __future__ import annotations

import datetime as _dt
import re

from ..errors import BadInput

# ISO 8601 calendar dates, alone or with a time of day, in extended (2024-01-31T14:05:09.5+01:00)
# or basic (20240131T140509Z) form; a space may stand for the T, as RFC 3339 allows. Groups:
# year, month, day, hour, minute, second, offset hours, offset minutes.
_ISO_FORMS = (
    re.compile(
        r"(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?"
        r"(?:[Zz]|[+-](\d{2})(?::?(\d{2}))?)?)?"
    ),
    re.compile(
        r"(\d{4})(\d{2})(\d{2})(?:[Tt](\d{2})(?:(\d{2})(?:(\d{2})(?:[.,]\d+)?)?)?"
        r"(?:[Zz]|[+-](\d{2})(\d{2})?)?)?"
    ),
)
_DATE_FORMS = (
    "give an ISO 8601 date or date-time: YYYY-MM-DD or YYYYMMDD, optionally followed by "
    "Thh:mm[:ss[.fff]] and Z or +hh:mm, e.g. 2024-01-31 or 2024-01-31T14:05:09Z; "
    "a date-time is stored as its date"
)


def parse_accessed(value: str) -> str:
    """The access date as the ledger stores it, ``YYYY-MM-DD``, from an ISO 8601 date or
    date-time. A date-time keeps the calendar date it was written with (no time-zone
    conversion): the day the page was read, where it was read. Anything else (``31/01/2024``,
    ``yesterday``, a bare year) is refused, so every ledger's dates sort and render alike."""
    for form in _ISO_FORMS:
        match = form.fullmatch(value.strip())
        if match is None:
            continue
        y, mo, d, h, mi, sec, zh, zm = (int(part or 0) for part in match.groups())
        try:
            day = _dt.date(y, mo, d)
            _dt.time(h, mi, sec)
            _dt.time(zh, zm)
        except ValueError:
            break
        return day.isoformat()
    raise BadInput(f"--accessed {value!r} is not an ISO 8601 date or date-time", hint=_DATE_FORMS)
