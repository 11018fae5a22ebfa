"""The pattern of the ledger file as :func:`~.store.dump_ledger` writes it (see
:mod:`~.layout`), apart from the ledger model: the fast lane of ``add`` (:mod:`~.lane`) checks
a large ledger with it without loading the rest of the core.
"""

from __future__ import annotations

import re

from .light import pattern  # compiled on first use: start-up time

# A JSON string without control characters; the second also with escapes, but for an escaped
# surrogate (which the field-by-field load checks on a walk of its own). A text without a
# backslash takes the first, which sre runs as one loop over a character class.
_PLAIN_STR = r'"[^"\\\x00-\x1f]*+"'
_STR = (
    r'"[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u(?![dD][89a-fA-F])[0-9a-fA-F]{4})'
    r'[^"\\\x00-\x1f]*+)*+"'
)
# is_canonical's pattern (urls._CANONICAL_ONE) ending at the closing quote of a JSON string: a
# canonical URL holds no character JSON escapes.
_U = r"A-Za-z0-9\-._~!$&'()*+,;=:@%"
_URL = (
    r'"https?://(?!(?:dx\.|www\.)?doi\.org[/?"])[a-z0-9-]++(?:\.[a-z0-9-]++)*+'
    rf'(?:/[{_U}/]*+(?<!/))?(?:\?[{_U}/?]++)?"'
)


# The same URL, sound beyond its characters (what the lane of ``add`` proves, lane_large.py):
# at most MAX_URL_LENGTH characters, each ``%`` starting an upper-case escape (``urls
# ._BAD_ESCAPE``), no tracking parameter after a ``?`` or ``&`` (``urls._TRACKING_HINT``), and
# no ``&`` in the path (such a URL goes to the core, which tells whether it tracks). Proven by
# the pattern, so the lane needs no list of the URLs.
_TRACKING = (
    r"utm_|gclid|gclsrc|dclid|gbraid|wbraid|fbclid|msclkid|yclid|mc_eid|mc_cid|_ga"
    r"|_gl|igshid|twclid|ttclid|li_fat_id|mkt_tok|_hs|srsltid|oly_|vero_id|ref_src|_openstat"
)
_V = r"A-Za-z0-9\-._~!$'()*+,;=:@/"
_SOUND_URL = (
    r'"(?=[^"]{0,4096}")https?://(?!(?:dx\.|www\.)?doi\.org[/?"])[a-z0-9-]++(?:\.[a-z0-9-]++)*+'
    rf"(?:/[{_V}]*+(?:%[0-9A-F]{{2}}[{_V}]*+)*+(?<!/))?"
    rf'(?:(?=\?[^"])(?:(?:[?&](?!(?i:{_TRACKING}))|%[0-9A-F]{{2}})[{_V}]*+)++)?"'
)


# Any JSON string without an escape: a URL the canonical pattern does not take (a DOI address,
# a path in another script) is checked on its own (:func:`_odd_urls`).
_ANY_URL = r'"[^"\\\x00-\x1f]++"'


def _pattern(string: str, url: str) -> str:
    """The whole file, with ``string`` for a JSON string. Each list is written with its item
    once (an item, then a comma only where another item follows), which keeps the pattern,
    and the time Python takes to compile it at every call, small."""
    quote = (
        rf'\n        \{{\n          "text": {string},\n          "added": {string}'
        rf'(?:,\n          "sha256": {string})?(?:,\n          "origin": {string})?'
        rf'(?:,\n          "text_sha256": {string})?\n        \}}'
    )
    source = (
        rf'\n    \{{\n      "id": [1-9][0-9]{{0,5}},\n      "url": {url},\n'
        rf'      "title": {string},\n      "accessed": {string},\n'
        rf'(?:      "issued": {string},\n)?(?:      "site": {string},\n)?'
        rf'(?:      "archived": {url},\n)?(?:      "page_sha256": "[0-9a-f]{{64}}",\n)?'
        rf'(?:      "page_origin": {string},\n)?'
        rf'      "quotes": (?:\[\]|\[(?:{quote}(?:,(?=\n        \{{)|(?=\n      \])))++'
        r"\n      \])\n    \}"
    )
    return (
        rf'\{{\n  "version": 1,\n  "sources": (?:\[\]|\[(?:{source}(?:,(?=\n    \{{)|'
        r'(?=\n  \])))++\n  \])(?:,\n  "last_id": (?:0|[1-9][0-9]{0,17}))?\n\}\n?'
    )


# The patterns, compiled when first used: a call that reads no ledger pays for none.
_COMPILED: dict[tuple[bool, bool | None], re.Pattern[str]] = {}


def layout(escapes: bool, canonical: bool | None = True) -> re.Pattern[str]:
    """The pattern of the whole file (see :mod:`~.layout`); ``escapes``: for a text that
    holds a backslash; ``canonical``: every URL in canonical form (else any string without an
    escape, each then checked on its own; None: canonical and sound, :data:`_SOUND_URL`)."""
    key = (escapes, canonical)
    if key not in _COMPILED:
        url = _URL if canonical else _SOUND_URL if canonical is None else _ANY_URL
        _COMPILED[key] = re.compile(_pattern(_STR if escapes else _PLAIN_STR, url))
    return _COMPILED[key]


def layout_match(text: str, canonical: bool | None = True) -> bool:
    """Whether :func:`layout` takes the whole of ``text``."""
    return layout("\\" in text, canonical).fullmatch(text) is not None


# Each source's id and URL, and each archived copy's address, as the layout writes them.
ID_LINE = pattern(r'\n    \{\n      "id": ([0-9]+),')
URL_LINE = pattern(r'\n      "url": "([^"]*)"')
ARCHIVED_LINE = pattern(r'\n      "archived": "([^"]*)"')
LAST_ID = pattern(r'"last_id": ([0-9]+)\n\}\n?\Z')
# Each source's id, URL and title (the inside of its JSON string) in a text the layout took:
# ``list``'s columns (lane_large.rows). The layout proved every entry's first lines, so the
# pattern only marks where each column starts and ends: sre finds a match by its literal start
# (a brace, rare there), skips the fixed text between the columns with a counted ``.``, which
# costs one step however long (``,\n      "url": "`` is 16 characters, ``",\n      "title":
# "`` 19), and takes the title as the rest of its line but the closing ``",``.
ENTRY_ROW = pattern(r'\{\n      "id": ([0-9]+)(?s:.{16})([^"]*)(?s:.{19})([^\n]*)",\n')
