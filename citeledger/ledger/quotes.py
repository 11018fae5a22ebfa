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
  spaces and joiners, soft hyphens.

Everything here is a handful of passes of ``str`` methods and regular expressions whose
matches cannot overlap, so matching is linear in the page size (a 50 MB page is fine).
"""

from __future__ import annotations

import re
import unicodedata

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
_MD_LINK = re.compile(r"!?\[([^\[\]]*)\]\((?:[^()\s]|\([^()]*\))*\)")
_MD_ESCAPE = re.compile(r"\\(?=[^\w\s])")
_DASH_RUN = re.compile(r"-{2,}")
# Whitespace other than a lone space; a lone space is already in its final form.
_SPACE_RUN = re.compile(r"[^\S ]\s*| \s+")

# Scripts written without spaces between words: two characters count as one word.
_CJK_RANGES = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"

MIN_WORDS = 3


def normalize_for_match(text: str) -> str:
    """The comparison form of ``text`` under the rules in the module docstring."""
    text = unicodedata.normalize("NFKC", text or "")
    if "[" in text:
        text = _MD_LINK.sub(r"\1", text)
    if "\\" in text:
        text = _MD_ESCAPE.sub("", text)
    for old, new in _TYPOGRAPHY:
        if old in text:
            text = text.replace(old, new)
    text = text.casefold()
    if "--" in text:
        text = _DASH_RUN.sub("-", text)
    return _SPACE_RUN.sub(" ", text).strip()


def quote_in_text(quote: str, page: str) -> bool:
    """True when ``quote`` appears in ``page`` under the matching rules; an empty quote never
    matches (it would prove nothing)."""
    needle = normalize_for_match(quote)
    return bool(needle) and needle in normalize_for_match(page)


def word_count(text: str) -> int:
    """Words for the minimum-length rule: runs of letters/digits outside CJK scripts count one
    each, and every two CJK characters count one (Chinese and Japanese prose has no spaces)."""
    text = text or ""
    # Compiled here, not at import: the astral-plane classes cost start-up that `add` never uses.
    cjk = re.compile(f"[{_CJK_RANGES}]")
    wordish = re.compile(rf"[^\W{_CJK_RANGES}]+")
    return sum(1 for token in text.split() if wordish.search(token)) + len(cjk.findall(text)) // 2
