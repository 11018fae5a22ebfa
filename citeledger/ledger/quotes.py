"""Verbatim quote matching: is this quote really on the page the agent fetched?

A quote is evidence only if the page contains it, so the matcher must never accept a changed
letter or digit. It must, however, see through what retrieval tools and typography do to the
same sentence, or agents get pushed toward weaker fragments:

- whitespace runs (line wraps, tabs, non-breaking and other Unicode spaces) are one space;
- case is ignored (``str.casefold``);
- markdown markup: an inline link or image collapses to its label, emphasis/code/strike markers
  (``* _ ` ~``) and backslash escapes drop (extractors such as web_extract return markdown);
- Unicode NFKC (ligatures, full-width forms, ``…``), curly vs straight quotes and apostrophes,
  en/em dashes, minus and other dashes vs hyphen (a run of dashes counts as one), zero-width
  spaces and joiners, soft hyphens;
- a word hyphenated across a line break in the page (PDF text layers: ``incom-\nprehensible``)
  matches the quote's ``incomprehensible``, and also its ``incom-prehensible`` and its
  ``incom- prehensible`` (the artefact an agent copies): the page alone cannot tell a break
  inside a word from a real hyphen at the line's end (``well-\nknown``), so both readings match,
  and no letter of either is changed. The page's form (:func:`page_form`) marks such a break
  with :data:`BREAK`; :func:`found_in` reads the mark as "a hyphen, or nothing".

Everything here is a handful of passes of ``str`` methods and regular expressions whose
matches cannot overlap, so matching is linear in the page size (a 50 MB page is fine).
"""

from __future__ import annotations

import re
import unicodedata

from .light import pattern  # compiled on first use: start-up time

# (character, replacement) pairs, applied with str.replace: on a non-ASCII page one C-speed
# scan per pair beats str.translate's per-character lookups by an order of magnitude.
_TYPOGRAPHY: tuple[tuple[str, str], ...] = (
    *((ch, "'") for ch in "\u2018\u2019\u201a\u201b\u2032\u02bc\uff07"),
    *((ch, '"') for ch in "\u201c\u201d\u201e\u201f\u2033\uff02"),
    *((ch, "-") for ch in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"),
    *((ch, "") for ch in "\u00ad\u200b\u200c\u200d\u2060\ufeff"),
    *((ch, "") for ch in "*_`~"),
)
# Inline link or image: ``[label](destination)``. The label excludes ``[`` as well as ``]`` so
# that failed attempts from successive ``[`` scan disjoint stretches (no quadratic blow-up).
# Written as two literal openings, not ``!?\[``: a pattern that starts with a set of characters
# is scanned for at C speed, one that starts with an optional one tried at every position.
_MD_LINK = pattern(r"(?:!\[|\[)([^\[\]]*)\]\((?:[^()\s]|\([^()]*\))*\)")
_MD_ESCAPE = pattern(r"\\(?=[^\w\s])")
_DASH_RUN = pattern(r"-{2,}")
# Whitespace other than a lone space; a lone space is already in its final form.
_SPACE_RUN = pattern(r"[^\S ]\s*| \s+")

# Scripts written without spaces between words: two characters count as one word.
_CJK_RANGES = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"

MIN_WORDS = 3

# A hyphen (or soft or Unicode hyphen) at a line's end between two letters, as a page's form
# marks it; a control character that no normalised text holds otherwise (C0 controls are white
# space to the matcher or absent from text layers).
BREAK = "\x01"
# The hyphen comes first and the letter before it is looked behind for from there: a pattern that
# opens with a look-behind is tried at every position of the page (seven times slower on 50 MB).
_LINE_BREAK_HYPHEN = pattern(
    r"[-\u00ad\u2010\u2011](?<=[^\W\d_][-\u00ad\u2010\u2011])[ \t]*\r?\n[ \t]*(?=[^\W\d_])"
)
# In a quote: letters side by side, or a hyphen (with or without a space after it) or a space
# between two (a soft hyphen at a line's end leaves ``unen capsulated`` to a copy).
_ASCII_WORD = pattern(r"\w")
_QUOTE_JOIN = pattern(r"(?<=[^\W\d_])(?:- ?| )?(?=[^\W\d_])")
# A hyphen at a quote's very start (before a letter) or end (after one).
_EDGE_HYPHEN_START = pattern(r"- ?(?=[^\W\d_])")
_EDGE_HYPHEN_END = pattern(r"(?<=[^\W\d_])-$")


def normalize_for_match(text: str, *, breaks: bool = False) -> str:
    """The comparison form of ``text`` under the rules in the module docstring; with
    ``breaks``, a page's form: each hyphenated line break marked as :data:`BREAK`."""
    text = unicodedata.normalize("NFKC", text or "")
    if breaks and "\n" in text:
        text = _LINE_BREAK_HYPHEN.sub(BREAK, text)
    if "[" in text:
        text = _MD_LINK.sub(_label, text)
    if "\\" in text:
        text = _MD_ESCAPE.sub("", text)
    for old, new in _TYPOGRAPHY:
        if old in text:
            text = text.replace(old, new)
    text = text.casefold()
    if "--" in text:
        text = _DASH_RUN.sub("-", text)
    return _SPACE_RUN.sub(" ", text).strip()


def _label(link: re.Match[str]) -> str:
    # A function, not the template r"\1", which Python expands afresh at every match.
    return link.group(1)


def page_form(page: str) -> str:
    """The comparison form of a page: :func:`normalize_for_match`, with each hyphenated line
    break marked as :data:`BREAK` (see the module docstring)."""
    return normalize_for_match(page, breaks=True)


def found_in(needle: str, page: str) -> bool:
    """Whether ``needle`` (a quote's :func:`normalize_for_match` form) is in ``page`` (a
    :func:`page_form`). Pages without a hyphenated line break take one substring search; the
    others a regular expression that is the quote's text with, between two letters, an optional
    :data:`BREAK` (linear: no nested repetition)."""
    if not needle:
        return False
    if needle in page:
        return True
    if BREAK not in page:
        return False
    pieces: list[str] = []
    pos = 0
    # A quote that starts or ends at a hyphen the page broke its line after: the hyphen, or
    # the mark that stands for it (a quote cut at ``in-`` of ``in-\ncomplete``).
    lead = _EDGE_HYPHEN_START.match(needle)
    if lead:
        pieces.append(f"(?:{re.escape(lead.group())}|{BREAK})")
        pos = lead.end()
    tail = _EDGE_HYPHEN_END.search(needle, pos)
    end = tail.start() if tail else len(needle)
    for m in _QUOTE_JOIN.finditer(needle, pos, end):
        pieces.append(re.escape(needle[pos : m.start()]))
        pieces.append(f"(?:{re.escape(m.group())}|{BREAK})" if m.group() else f"{BREAK}?")
        pos = m.end()
    pieces.append(re.escape(needle[pos:end]))
    if tail:
        pieces.append(f"(?:-|{BREAK})")
    return re.search("".join(pieces), page) is not None


def quote_in_text(quote: str, page: str) -> bool:
    """True when ``quote`` appears in ``page`` under the matching rules; an empty quote never
    matches (it would prove nothing). A large page is first looked at in windows around one of
    the quote's words (:func:`found_in_windows`); only when they do not hold it is the whole
    page put in its matching form."""
    needle = normalize_for_match(quote)
    if not needle:
        return False
    if len(page) >= WINDOWED_FROM and found_in_windows(needle, page):
        return True
    return found_in(needle, page_form(page))


# Pages from this many characters on are first searched in windows (below, the whole page's
# form costs less than the search).
WINDOWED_FROM = 1 << 20
# The windows looked at, at most, before the whole page is normalised after all.
_MAX_WINDOWS = 256
# Raw characters a window holds beyond twice the quote's length on either side of the word.
_MARGIN = 256
# How far back a cut looks for the bracket or parenthesis that tells it is outside a link: at
# first, and at most (further back, the whole page is normalised instead).
_LOOK_BACK = 1 << 12
_LOOK_BACK_MAX = 1 << 20
_ANCHOR = pattern(r"[a-z0-9]{4,}")
# Every character NFKC turns into text holding a bracket, a parenthesis, a hyphen or white space
# (tests/ledger/test_quote_windows.py recomputes the set with the running Python's Unicode
# tables): where one is near a cut, the raw text does not tell what the matching form holds.
_NFKC_SPECIAL = pattern(
    "[\u00a0\u00a8\u00af\u00b4\u00b8\u02d8-\u02dd\u037a\u0384-\u0385\u1fbd"
    "\u1fbf-\u1fc1\u1fcd-\u1fcf\u1fdd-\u1fdf\u1fed-\u1fee\u1ffd-\u1ffe\u2000-\u200a"
    "\u2011\u2017\u202f\u203e\u205f\u207d-\u207e\u208d-\u208e\u2474-\u2487"
    "\u249c-\u24b5\u3000\u309b-\u309c\u3200-\u321e\u3220-\u3243\ufc5e-\ufc63"
    "\ufdfa-\ufdfb\ufe35-\ufe36\ufe47-\ufe4c\ufe59-\ufe5a\ufe63\ufe70\ufe72\ufe74"
    "\ufe76\ufe78\ufe7a\ufe7c\ufe7e\uff08-\uff09\uff0d\uff3b\uff3d\uffe3"
    "\U0001f110-\U0001f129]"
)


def found_in_windows(needle: str, page: str) -> bool:
    """Whether ``needle`` (a :func:`normalize_for_match` form) is in the matching form of
    windows of ``page`` around its longest word: True only when :func:`found_in` on the whole
    page's form would say so. False says nothing (the word is spelled otherwise in the page, or
    the windows cannot be cut safely): the caller then normalises the whole page.

    A window is whole lines, and each of its two cuts is one where the page's form is the form
    of the text before it, a space, and the form of the text after it (:func:`_safe_cut`), so
    the window's form is a stretch of the page's form: no link, hyphenated line break or run of
    white space the page's form reads across the cut is read differently in the window. Every
    step is a ``str`` search of the raw page: a 50 MB page with the quote in it is searched,
    not normalised."""
    words = _ANCHOR.findall(needle)
    if not words:
        return False
    word = max(words, key=len)
    # Without its first letter: one search finds the word in lower case and capitalised.
    anchor = word[1:]
    margin = 2 * len(needle) + _MARGIN
    n = len(page)
    pos = page.find(anchor)
    covered = 0
    # The windows together normalise at most a quarter of the page (long lines make long
    # windows): past that, the whole page costs less than more windows and then the whole.
    budget = n // 4
    for _ in range(_MAX_WINDOWS):
        if pos < 0:
            return False
        if pos + margin > covered:
            start = _cut(page, page.rfind("\n", 0, max(0, pos - margin)) + 1, -1)
            end = page.find("\n", min(n, pos + margin))
            end = _cut(page, n if end < 0 else end + 1, 1)
            budget -= end - start
            if start < 0 or end < 0 or budget < 0:
                return False
            if found_in(needle, page_form(page[start:end])):
                return True
            covered = end
        pos = page.find(anchor, pos + 1)
    return False


def _cut(page: str, at: int, step: int) -> int:
    """The first safe cut from the line start ``at`` on, a line at a time in the direction of
    ``step``; -1 when a few lines give none."""
    for _ in range(16):
        if at <= 0 or at >= len(page) or _safe_cut(page, at):
            return max(0, min(at, len(page)))
        if step < 0:
            at = page.rfind("\n", 0, at - 1) + 1
        else:
            found = page.find("\n", at)
            at = len(page) if found < 0 else found + 1
    return -1


def _safe_cut(page: str, at: int) -> bool:
    """Whether the page's form reads nothing across the line break before ``at``: it ends no
    hyphenated line break (the line does not end in a hyphen), and it is inside no inline link
    (the nearest bracket before it is no ``[``, the nearest parenthesis no ``(``: a link's text
    holds no bracket, and the parts of its target that may hold a line break no parenthesis).
    Characters NFKC turns into any of these make the raw text no guide: not safe."""
    back = max(0, at - 66)
    if _NFKC_SPECIAL.search(page, back, at):
        return False
    line = page[back : at - 1]
    if line.endswith("\r"):
        line = line[:-1]
    line = line.rstrip(" \t")
    if not line or line[-1] in "-\u00ad\u2010\u2011":
        return False
    return _outside(page, at, "[", "]") and _outside(page, at, "(", ")")


def _outside(page: str, at: int, opening: str, closing: str) -> bool:
    """Whether the nearest of ``opening`` and ``closing`` before ``at`` is ``closing`` (or
    there is none), with no character NFKC could turn into either on the way."""
    end, span = at, _LOOK_BACK
    while span <= _LOOK_BACK_MAX:
        start = max(0, end - span)
        if _NFKC_SPECIAL.search(page, start, end):
            return False
        hit = max(page.rfind(opening, start, end), page.rfind(closing, start, end))
        if hit >= 0:
            return page[hit] == closing
        if start == 0:
            return True
        end, span = start, span * 4
    return False


def same_quote_at(texts: list[str], text: str) -> int | None:
    """The index of the first of ``texts`` that is ``text`` under the matching rules (as the
    ledger keeps one copy of a quote), or None: how ``quote --drop-text`` finds the quote it
    takes back."""
    key = normalize_for_match(text)
    if not key:
        return None
    return next((i for i, held in enumerate(texts) if normalize_for_match(held) == key), None)


def word_count(text: str) -> int:
    """Words for the minimum-length rule: runs of letters/digits outside CJK scripts count one
    each, and every two CJK characters count one (Chinese and Japanese prose has no spaces)."""
    text = text or ""
    if text.isascii():  # no CJK: a word is a token holding a letter or digit (or _)
        return sum(1 for token in text.split() if _ASCII_WORD.search(token))
    if max(text) < "\u3040":  # below every CJK range: \w is a letter, digit or _
        return sum(1 for token in text.split() if any(c.isalnum() or c == "_" for c in token))
    # Compiled here, not at import: the astral-plane classes cost start-up that `add` never uses
    # (and a quote of text without CJK: compiling them is half of Python's own start).
    cjk = re.compile(f"[{_CJK_RANGES}]")
    wordish = re.compile(rf"[^\W{_CJK_RANGES}]+")
    return sum(1 for token in text.split() if wordish.search(token)) + len(cjk.findall(text)) // 2
