"""Figures and dates as values, whatever their spelling: "12%" is "twelve percent", "1.5
million" is "1,500,000" and "150万", "21 July 1969" is "1969-07-21" and "1969年7月21日".

A figure is read as the set of values its spelling may mean: "1,500" is 1500 in English and
1.5 in German, so it is both, and two figures agree when their sets meet. A scale word after
it multiplies it ("1.5 million", "2,3 Mrd.", "3 lakh", "150万"); a per cent sign or word is
read and left out of the value (a claim's "12 percent" and its quote's "12%" agree). Digits of
other scripts (Arabic-Indic ٣, Persian ۳, Devanagari ३, full-width ３) are digits. Number words
come from :mod:`.lexicon`; "one" alone is no figure ("one of the main reasons"), nor is "一".

A date is (year, month, day), a part left out None: ISO ``1969-07-21``, ``21.07.1969`` and
``21/07/1969`` (with ``07/21/1969`` both readings are kept), a month's name before or after
the day with the year ("21 July 1969", "July 21, 1969", "21. Juli 1969", "21 de julio de
1969", "21 июля 1969", "July 1969"), and ``1969年7月21日`` / ``1969년 7월 21일``. The digits a
date is written with are the date's, not figures of their own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from decimal import Decimal, InvalidOperation

from ...ledger.light import (
    pattern,  # compiled on first use: verify without --support never uses them
    record,
)
from .lexicon import (
    AMBIGUOUS_MONTHS,
    CJK_DIGITS,
    CJK_SCALES,
    MONTHS,
    PERCENT,
    PERCENT_PAIRS,
    PERCENT_SIGNS,
    SCALES,
    TENS,
    UNITS,
)

_DIGITS = str.maketrans(
    {
        **{chr(0x0660 + i): str(i) for i in range(10)},  # Arabic-Indic
        **{chr(0x06F0 + i): str(i) for i in range(10)},  # Persian
        **{chr(0x0966 + i): str(i) for i in range(10)},  # Devanagari
        "\u066b": ".",  # Arabic decimal separator
        "\u066c": ",",  # Arabic thousands separator
    }
)
# A run of digits with the separators people write inside one figure: "1,500,000", "1.5",
# "1 500 000", "1'000", "1\u202f000". A space separates thousands only before three digits.
_LETTERS = r"A-Za-z\u00c0-\u024f\u0370-\u03ff\u0400-\u052f"
_BODY = (
    r"(\d+(?:(?:[.,'\u2019]|[ \u00a0\u202f](?=\d{3}(?!\d)))\d+)*)"
    r"(?:([.,])(?!\d))?"
)
# Not inside a word of an alphabet (CJK text sets digits against its characters: 有40个州).
_ANY_FIGURE = pattern(rf"(?<![0-9{_LETTERS}./_])" + _BODY)
# In a claim, digits after a word and a hyphen are a name's: COVID-19, GPT-4.
_FIGURE = pattern(rf"(?<![0-9{_LETTERS}./_])(?<![{_LETTERS}]-)" + _BODY)
_WORD = pattern(r"[^\W\d_]+(?:[-'\u2019.][^\W\d_]+)*\.?|\d+|[%\u066a\uff05]")
_CJK_NUMERAL = pattern(
    "[零〇一二两兩三四五六七八九十百千万萬亿億]{2,}|[二两兩三四五六七八九](?=[个個位名项項次倍种種年])"
)
# A scale written against the digits: 10k, 5M, 3bn; 150万, 1.2亿, 3천만 (CJK: a space allowed).
_ATTACHED_SCALE = pattern(r"(k|m|bn|mn)(?![^\W\d_])|\s?([万萬亿億千만억])", re.IGNORECASE)
_LATIN_SCALES = {"k": 1_000, "m": 1_000_000, "mn": 1_000_000, "bn": 1_000_000_000}
_PERCENT_AFTER = pattern(r"[ \u00a0\u202f]?[%\u066a\uff05]")
_ISO = pattern(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_NUMERIC = pattern(r"(?<![\d.\-/])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d])")
_CJK_DATE = pattern(
    r"(?:(\d{4})\s*[年년]\s*)?(\d{1,2})\s*[月월](?:\s*(\d{1,2})\s*[日일])?|(\d{4})\s*[年년](?!\s*\d)"
)


# A date's reading: (year, month, day), a part left out None.
Reading = tuple[int | None, int | None, int | None]


@record(frozen=True)
class Figure:
    """A figure as written (``shown``), what it may mean (``values``), where it stands."""

    shown: str
    values: frozenset[Decimal | str]
    start: int
    end: int


@record(frozen=True)
class Date:
    """A date as written and its readings: (year, month, day), each part None if unsaid."""

    shown: str
    readings: frozenset[tuple[int | None, int | None, int | None]]
    start: int
    end: int


def prepared(text: str) -> str:
    """``text`` in the form figures are read in: NFKC (full-width digits, ligatures) and the
    digits of other scripts as ASCII; the length of each character kept where it can be."""
    return unicodedata.normalize("NFKC", text).translate(_DIGITS)


def _number(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def readings(digits: str) -> set[Decimal | str]:
    """What a run of digits and separators may mean: with "," or "." as the decimal point,
    the other (or a space, an apostrophe) grouping thousands in threes. A run that is no
    number (a version, 3.6.3) is its own value, compared as written."""
    if digits.isdigit():
        return {Decimal(digits)}
    out: set[Decimal | str] = set()
    for decimal_mark in (".", ","):
        body = digits
        tail = ""
        last = max(body.rfind("."), body.rfind(","))
        if last >= 0 and body[last] == decimal_mark:
            body, tail = body[:last], body[last + 1 :]
        groups = re.split(r"[.,'\u2019 \u00a0\u202f]", body)
        if any(sep == decimal_mark for sep in re.findall(r"[.,]", body)):
            continue
        if len(groups) > 1 and (
            not 1 <= len(groups[0]) <= 3 or any(len(g) != 3 for g in groups[1:])
        ):
            continue
        value = _number("".join(groups) + (f".{tail}" if tail else ""))
        if value is not None:
            out.add(value)
    return out or {digits}


def _scale_after(text: str, end: int) -> tuple[int, int]:
    """The scale written after a figure ending at ``end``, and where it ends (1 and ``end``
    when there is none)."""
    attached = _ATTACHED_SCALE.match(text, end)
    if attached:
        if attached.group(1):  # 5M is five million; "5 m" (a space) is five metres
            return _LATIN_SCALES[attached.group(1).casefold()], attached.end()
        return CJK_SCALES[attached.group(2)], attached.end()
    word = _WORD.match(text, _skip_space(text, end))
    if word:
        folded = word.group(0).casefold()
        factor = SCALES.get(folded) or SCALES.get(folded.rstrip("."))
        if factor and factor != 100:
            return factor, word.end()
    return 1, end


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \u00a0\u202f":
        pos += 1
    return pos


def _cjk_value(numeral: str) -> int | None:
    """A Chinese numeral ("十二", "三百五十", "两千万") as an integer."""
    total, section, current = 0, 0, 0
    for ch in numeral:
        if ch in CJK_DIGITS:
            current = CJK_DIGITS[ch]
        elif ch in ("十", "百", "千"):
            section += (current or 1) * CJK_SCALES[ch]
            current = 0
        elif ch in CJK_SCALES:
            total = (total + section + current) * CJK_SCALES[ch]
            section, current = 0, 0
        else:
            return None
    return total + section + current


def figures(
    text: str, taken: list[tuple[int, int]] | None = None, *, names: bool = True
) -> list[Figure]:
    """The figures of ``text`` (a :func:`prepared` text), outside the spans ``taken`` (dates);
    ``names``: digits a name holds (COVID-19) are no figure (a claim's); else they are (the
    evidence's, read generously: 12GB-16GB)."""
    taken = taken or []
    out: list[Figure] = []

    def free(a: int, b: int) -> bool:
        return not any(a < y and x < b for x, y in taken)

    for m in (_FIGURE if names else _ANY_FIGURE).finditer(text):
        a, b = m.start(1), m.end(1)
        if not free(a, b):
            continue
        values = readings(m.group(1))
        factor, end = _scale_after(text, b)
        if factor != 1:
            values = {v * factor for v in values if isinstance(v, Decimal)} or values
        sign = _PERCENT_AFTER.match(text, end)
        if sign:
            end = sign.end()
        if values:
            out.append(Figure(text[a:end].strip(), frozenset(values), a, end))
    for m in _CJK_NUMERAL.finditer(text):
        if not free(m.start(), m.end()):
            continue
        value = _cjk_value(m.group(0))
        if value is not None:
            out.append(Figure(m.group(0), frozenset({Decimal(value)}), m.start(), m.end()))
    out.extend(_word_figures(text, free))
    return sorted(out, key=lambda f: f.start)


def _word_figures(text: str, free: Callable[[int, int], bool]) -> Iterator[Figure]:
    """Figures written in words: "twelve", "twenty-one", "three hundred thousand", "a
    million"; "one" and "a" only with a scale after them or a per cent."""
    words = list(_WORD.finditer(text))
    k = 0
    while k < len(words):
        run: list[re.Match[str]] = []
        j = k
        while j < len(words):
            folded = words[j].group(0).casefold().rstrip(".")
            parts = folded.split("-")
            if all(p in UNITS or p in TENS or p in SCALES for p in parts) and not (
                folded in SCALES and not run and folded not in ("hundred", "thousand", "million")
            ):
                run.append(words[j])
                j += 1
                continue
            # "a million", "a hundred": the article is the one.
            following = words[j + 1].group(0).casefold() if j + 1 < len(words) else ""
            if folded in ("a", "an") and not run and SCALES.get(following, 0) >= 100:
                run.append(words[j])
                j += 1
                continue
            break
        if not run:
            k += 1
            continue
        shown_words = [w.group(0).casefold().rstrip(".") for w in run]
        value = _word_value(shown_words)
        start, end = run[0].start(), run[-1].end()
        percent = j < len(words) and _is_percent(words, j)
        if percent:
            pair = words[j].group(0).casefold() not in PERCENT and j + 1 < len(words)
            end = words[j + 1 if pair else j].end()
        lone_one = shown_words in (["one"], ["a"], ["an"])
        scale_only = all(w in SCALES or w in ("a", "an") for w in shown_words)
        if (
            value is not None
            and not (lone_one and not percent)
            and not (scale_only and shown_words[0] not in ("a", "an"))
            and free(start, end)
        ):
            yield Figure(text[start:end], frozenset({Decimal(value)}), start, end)
        k = j if j > k else k + 1


def _word_value(words: list[str]) -> int | None:
    total, current = 0, 0
    seen = False
    for word in words:
        for part in word.split("-"):
            if part in ("a", "an"):
                current = max(current, 1)
                continue
            if part in UNITS:
                current += UNITS[part]
                seen = True
            elif part in TENS:
                current += TENS[part]
                seen = True
            elif part in SCALES:
                scale = SCALES[part]
                if scale == 100:
                    current = max(current, 1) * 100
                else:
                    total += max(current, 1) * scale
                    current = 0
                seen = True
            else:
                return None
    return total + current if seen else None


def _is_percent(words: list[re.Match[str]], j: int) -> bool:
    first = words[j].group(0).casefold()
    if first in PERCENT or first in PERCENT_SIGNS:
        return True
    return j + 1 < len(words) and (first, words[j + 1].group(0).casefold()) in PERCENT_PAIRS


def dates(text: str) -> list[Date]:
    """The dates of ``text`` (a :func:`prepared` text), in order, none overlapping."""
    found: list[Date] = []

    def add(shown: str, readings: set[Reading], a: int, b: int) -> None:
        valid = {r for r in readings if _valid(r)}
        if valid and not any(a < d.end and d.start < b for d in found):
            found.append(Date(shown, frozenset(valid), a, b))

    for m in _ISO.finditer(text):
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        add(m.group(0), {(y, mo, d)}, m.start(), m.end())
    for m in _CJK_DATE.finditer(text):
        if m.group(4):
            add(m.group(0), {(int(m.group(4)), None, None)}, m.start(), m.end())
            continue
        year = int(m.group(1)) if m.group(1) else None
        day = int(m.group(3)) if m.group(3) else None
        add(m.group(0), {(year, int(m.group(2)), day)}, m.start(), m.end())
    for m in _NUMERIC.finditer(text):
        first, second, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
        if len(m.group(4)) == 2:
            year += 2000 if year < 50 else 1900
        add(m.group(0), {(year, second, first), (year, first, second)}, m.start(), m.end())
    for shown, reading, a, b in _word_dates(text):
        add(shown, {reading}, a, b)
    return sorted(found, key=lambda d: d.start)


def _valid(reading: tuple[int | None, int | None, int | None]) -> bool:
    y, m, d = reading
    return (
        (m is None or 1 <= m <= 12)
        and (d is None or 1 <= d <= 31)
        and (y is None or 1000 <= y <= 2999)
    )


_DAY = pattern(r"(\d{1,2})(?:st|nd|rd|th|er|\.|º|ª)?$", re.IGNORECASE)
_YEAR = pattern(r"\d{4}$")
_LINKS = frozenset({"de", "of", "del", "di", "van"})


def _word_dates(
    text: str,
) -> Iterator[tuple[str, tuple[int | None, int | None, int | None], int, int]]:
    """Dates with a month's name: the day before it or after it, the year after it."""
    words = [m for m in re.finditer(r"[^\W_]+(?:-[^\W\d_]+)?\.?|\d+", text)]
    for k, word in enumerate(words):
        folded = word.group(0).casefold()
        month = MONTHS.get(folded) or MONTHS.get(folded.rstrip("."))
        if month is None:
            continue
        start, end = word.start(), word.end()
        day = year = None
        back, edge = k - 1, start
        if back >= 0 and words[back].group(0).casefold() in _LINKS:
            back, edge = back - 1, words[back].start()
        if (
            back >= 0
            and (found := _DAY.match(words[back].group(0)))
            and _near(text, words[back].end(), edge)
        ):
            day, start = int(found.group(1)), words[back].start()
        ahead, edge = k + 1, end
        if ahead < len(words) and words[ahead].group(0).casefold() in _LINKS:
            ahead, edge = ahead + 1, words[ahead].end()
        if ahead < len(words) and _near(text, edge, words[ahead].start()):
            after = words[ahead].group(0)
            if day is None and (found := _DAY.match(after)) and not _YEAR.match(after.rstrip(".")):
                day, end = int(found.group(1)), words[ahead].end()
                ahead += 1
                if ahead < len(words) and _near(text, end, words[ahead].start(), comma=True):
                    after = words[ahead].group(0)
                else:
                    after = ""
            if after and _YEAR.match(after.rstrip(".")):
                year, end = int(after.rstrip(".")), words[ahead].end() - after.endswith(".")
        if day is None and year is None:
            continue
        if folded.rstrip(".") in AMBIGUOUS_MONTHS and year is None and day is None:
            continue
        yield text[start:end], (year, month, day), start, end


def _near(text: str, a: int, b: int, *, comma: bool = True) -> bool:
    """Only spaces, a comma or the words' own dots between positions ``a`` and ``b``."""
    gap = text[a:b]
    return len(gap) <= 4 and all(ch in " ,.\u00a0" for ch in gap) and (comma or "," not in gap)
