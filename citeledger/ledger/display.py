"""How every output and message shows text a ledger holds: one line, no hidden characters,
clipped.

Titles, names, sites and quotes come from web pages and other people's libraries. This module
sits below the model and the bibliography fields alike, since both show such text.
"""

from __future__ import annotations

from .light import pattern

# What no output may show: C0 and C1 controls and DEL (XML cannot hold them, a terminal obeys
# them), noncharacters and lone surrogates, and the bidirectional controls that make a reader
# see other text than is there. Zero-width joiners stay: scripts need them.
_HIDDEN_RE = pattern(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff\ufffe\uffff]"
)


def display_text(text: str, limit: int) -> str:
    """``text`` on one line, without hidden characters, at most ``limit`` characters (cut at a
    word boundary where one is near, with "…"): what every output and message shows."""
    one = " ".join(_HIDDEN_RE.sub(" ", text).split())
    if len(one) <= limit:
        return one
    cut = one[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "\u2026"
