"""The model-free check: the details of a claim that its evidence does not carry.

A claim's detail is a figure, a date, a proper name or a negation. Figures and dates are
compared as values (:mod:`.numbers`), so a detail written another way ("twelve percent" for
"12%") is found; a name is found when the evidence holds the word, or one that differs from
it only in its last two letters (an inflection: "Germany" and "German", "Москва" and
"Москве"). A negation is compared with the evidence sentence the claim is closest to (the
most words in common): a claim that says "not" where that sentence does not, or that drops
the sentence's "not" while keeping the words it negated, has changed what the source says.

What this check cannot see, it does not claim: a name is a capitalised word other than the
sentence's first (a first word's capital says nothing) in a script with capitals, and not in
German, whose nouns all carry one (there only acronyms and words such as "iPhone" count);
Turkish negation by suffix and affixes ("un-", "in-") are not read. A claim whose details all
appear in the evidence may still be unsupported: that is the judge's part (:mod:`.judge`).
"""

from __future__ import annotations

import os
import re
from decimal import Decimal
from typing import Literal

from ...document.sentences import split_text
from ...ledger.light import (
    pattern,  # compiled on first use: verify without --support never uses them
    record,
)
from ...ledger.quotes import normalize_for_match
from .lexicon import (
    CJK_NEGATIONS,
    CJK_NOT_NEGATIONS,
    GERMAN_HINTS,
    JAPANESE_NEGATIONS,
    KOREAN_NEGATIONS,
    MONTHS,
    NEGATIONS,
    NEGATIVE_WORDS,
    OPENERS,
    SCALES,
    TENS,
    UNITS,
)
from .numbers import Date, dates, figures, prepared

DetailKind = Literal["number", "date", "name", "negation"]
# Words after a negation that it governs (the words a claim must share to have dropped it).
NEGATION_SCOPE = 4
_TOKEN = pattern(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_NAME = pattern(r"[^\W\d_][\w]*(?:[-'\u2019.][^\W_]+)*")
_CJK = pattern(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_OPENING = frozenset(".!?:;\"'\u201c\u2018\u00ab\u201e([\u2014-")


@record(frozen=True)
class Detail:
    """A detail of the claim the evidence does not carry: its kind, as written, and for a
    negation which way it went (``added``: the claim's; ``dropped``: the evidence's)."""

    kind: DetailKind
    shown: str
    way: str = ""

    def described(self) -> str:
        if self.kind == "negation" and self.way == "dropped":
            return f"the evidence says \u201c{self.shown}\u201d where the sentence does not"
        if self.kind == "negation":
            return f"\u201c{self.shown}\u201d (a negation the evidence does not make)"
        return f"\u201c{self.shown}\u201d (a {self.kind})"


@record
class ClaimEvidence:
    """The evidence of one claim as the check reads it, made once per set of texts.
    ``names``: what the cited sources call themselves (title, site, host): a claim that names
    its source ("Reuters reports ...") names what the evidence need not repeat. They count
    for names only, never for a figure, a date or a negation."""

    texts: tuple[str, ...]
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        joined = "\n".join(self.texts)
        text = prepared(joined)
        found = dates(text)
        self.readings = {r for d in found for r in d.readings}
        spans = [(d.start, d.end) for d in found]
        self.values = {v for f in figures(text, spans, names=False) for v in f.values}
        # A date's year and day are figures too: "in 1969", "the 21st".
        for year, _month, day in self.readings:
            self.values.update(Decimal(v) for v in (year, day) if v is not None)
        self.normal = normalize_for_match(joined)
        self.words = set(_TOKEN.findall(self.normal))
        own = normalize_for_match(" ".join(self.names))
        self.name_words = self.words | set(_TOKEN.findall(own)) if own else self.words
        self.sentences = [s for t in self.texts for s in split_text(t)]
        self._sentence_keys = [stems(normalize_for_match(s)) for s in self.sentences]

    def closest(self, claim_stems: set[str]) -> str | None:
        """The evidence sentence sharing the most words with the claim (None: none shares)."""
        best, best_score = None, 0
        for sentence, keys in zip(self.sentences, self._sentence_keys, strict=True):
            score = len(keys & claim_stems)
            if score > best_score:
                best, best_score = sentence, score
        return best


def stems(normal: str) -> set[str]:
    """The words of a normalised text as overlap compares them: each word of three letters
    or more (its first five), no negation or function word; CJK text by pairs of characters."""
    out = {
        t[:5]
        for t in _TOKEN.findall(normal)
        if len(t) >= 3 and t not in NEGATIONS and t not in OPENERS and not t.isdigit()
    }
    cjk = "".join(_CJK.findall(normal))
    out.update(cjk[i : i + 2] for i in range(len(cjk) - 1))
    return out


def overlap(claim: str, text: str) -> float:
    """The share of the claim's words (:func:`stems`) that ``text`` holds."""
    want = stems(normalize_for_match(claim))
    if not want:
        return 0.0
    return len(want & stems(normalize_for_match(text))) / len(want)


def missing_details(claim: str, evidence: ClaimEvidence) -> list[Detail]:
    """The details of ``claim`` (a sentence without its markers) that ``evidence`` lacks,
    in the order they stand in the claim; negations last."""
    text = prepared(claim)
    found: list[tuple[int, Detail]] = []
    claim_dates = dates(text)
    for date in claim_dates:
        if not _date_found(date, evidence):
            found.append((date.start, Detail("date", date.shown)))
    for figure in figures(text, [(d.start, d.end) for d in claim_dates]):
        if not figure.values & evidence.values:
            found.append((figure.start, Detail("number", figure.shown)))
    for start, name in names(claim):
        if not _name_found(name, evidence.name_words) and _joined(name) not in evidence.name_words:
            found.append((start, Detail("name", name)))
    out = [d for _, d in sorted(found, key=lambda pair: pair[0])]
    negation = negation_change(claim, evidence)
    if negation is not None:
        out.append(negation)
    return out


def _date_found(date: Date, evidence: ClaimEvidence) -> bool:
    for year, month, day in date.readings:
        if month is None and day is None and year in evidence.values:
            return True
        for other in evidence.readings:
            if all(a is None or a == b for a, b in zip((year, month, day), other, strict=True)):
                return True
    return False


def names(claim: str) -> list[tuple[int, str]]:
    """The proper names of a claim: capitalised words other than its first (see the module
    docstring), acronyms and words with a capital or digit inside ("iPhone", "H5N1")."""
    words = [w for w in _NAME.finditer(claim) if not _CJK.search(w.group(0))]
    folded = [w.group(0).casefold() for w in words]
    german = sum(1 for w in folded if w in GERMAN_HINTS) >= 2
    out: list[tuple[int, str]] = []
    for k, word in enumerate(words):
        token = re.sub(r"['\u2019]s?$", "", word.group(0).rstrip("."))  # Riverton's
        if word.start() and claim[word.start() - 1].isdigit():
            continue  # a unit against its figure: 12GB, 5km
        inner = any(ch.isupper() or ch.isdigit() for ch in token[1:]) and not token[1:].islower()
        acronym = len(token) >= 2 and token.isupper()
        if not (token[:1].isupper() or inner):
            continue
        if not (acronym or inner):
            before = claim[: word.start()].rstrip()
            if k == 0 or not before or before[-1] in _OPENING or german:
                continue
            key = token.casefold()
            if len(token) < 2 or key in OPENERS or key in MONTHS or _is_number_word(key):
                continue
        if out and claim[out[-1][0] + len(out[-1][1]) : word.start()] == " ":
            out[-1] = (out[-1][0], f"{out[-1][1]} {token}")  # one name: "Neil Armstrong"
        else:
            out.append((word.start(), token))
    return out


def _joined(name: str) -> str:
    """A name of several words as a host writes it: "Carbon Brief" as ``carbonbrief``."""
    return "".join(_TOKEN.findall(normalize_for_match(name)))


def _is_number_word(word: str) -> bool:
    return all(p in UNITS or p in TENS or p in SCALES for p in word.split("-"))


def _name_found(name: str, words: set[str]) -> bool:
    """Whether the evidence holds ``name``: each of its parts, as a word or an inflection of
    it (the same word but for its last two letters, five letters at least in common)."""
    for part in _TOKEN.findall(normalize_for_match(name)):
        if part in words:
            continue
        if len(part) < 4 or not any(_inflected(part, w) for w in words):
            return False
    return True


def _inflected(a: str, b: str) -> bool:
    """Two forms of one word: four letters or more in common, then short endings ("Andes",
    "Andean"; "Germany", "German"; "Москва", "Москве"), not "Austria" and "Australia"."""
    if a[:4] != b[:4]:
        return False
    common = len(os.path.commonprefix([a, b]))
    short, long = sorted((len(a) - common, len(b) - common))
    return (short <= 1 and long <= 3) or (short <= 2 and long <= 2)


def negations(normal: str) -> list[int]:
    """The positions (token indexes) of the negations in a normalised text; for CJK, Korean
    and Japanese text, one position (-1) when any negation stands in it."""
    tokens = _TOKEN.findall(normal)
    found = [
        k
        for k, t in enumerate(tokens)
        if not _disjunctive(tokens, k)
        and t in NEGATIONS
        or t.endswith("n't")
        or (t.startswith("n'") and len(t) > 2)
        or t.startswith("\u0646\u0645\u06cc")  # Persian نمی…: the verb's negative prefix
    ]
    cjk = normal
    for compound in CJK_NOT_NEGATIONS:
        cjk = cjk.replace(compound, "")
    if (
        any(ch in CJK_NEGATIONS for ch in cjk)
        or any(k in normal for k in KOREAN_NEGATIONS)
        or any(j in normal for j in JAPANESE_NEGATIONS)
    ):
        found.append(-1)
    return found


def _disjunctive(tokens: list[str], k: int) -> bool:
    """A negation that negates nothing: "little or no", "whether or not", "not only"."""
    before = tokens[k - 1] if k else ""
    after = tokens[k + 1] if k + 1 < len(tokens) else ""
    return before in ("or", "oder", "ou", "o", "of") or (tokens[k], after) in _NOT_ONLY


_NOT_ONLY = {("not", "only"), ("nicht", "nur"), ("non", "seulement"), ("no", "solo")}


def negation_change(claim: str, evidence: ClaimEvidence) -> Detail | None:
    """A negation the claim adds to, or drops from, the evidence sentence closest to it."""
    normal = normalize_for_match(claim)
    keys = stems(normal)
    sentence = evidence.closest(keys)
    if sentence is None:
        return None
    theirs = normalize_for_match(sentence)
    ours_at, theirs_at = negations(normal), negations(theirs)
    if ours_at and not theirs_at and not NEGATIVE_WORDS & set(_TOKEN.findall(theirs)):
        return Detail("negation", _word_at(normal, ours_at[0]), "added")
    if theirs_at and not ours_at:
        tokens = _TOKEN.findall(theirs)
        for at in theirs_at:
            if at < 0:
                return Detail("negation", _word_at(theirs, at), "dropped")
            governed = stems(" ".join(tokens[at + 1 : at + 1 + NEGATION_SCOPE]))
            # The claim keeps what the negation governed (half its words or more).
            if governed and 2 * len(governed & keys) >= len(governed):
                return Detail("negation", _word_at(theirs, at), "dropped")
    return None


def _word_at(normal: str, at: int) -> str:
    if at < 0:
        for ch in normal:
            if ch in CJK_NEGATIONS:
                return ch
        for word in (*KOREAN_NEGATIONS, *JAPANESE_NEGATIONS):
            if word in normal:
                return word.strip()
        return "not"
    return str(_TOKEN.findall(normal)[at])
