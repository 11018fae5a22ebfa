"""Sources slides: how many entries fit on one, by an estimate every slide format uses (the pptx
filter paginates for pandoc's default layout, the pptx renderer for the deck's real one, the
HTML slide shows for reveal.js's slide and beamer for its frame). Pure Python, below the
filters and the renderers so neither imports the other.

How many lines fit — the estimate (python-pptx cannot measure rendered text):

- usable box: the body placeholder's width and height minus the text insets (0.1 in left and
  right, 0.05 in top and bottom, set explicitly on the slide so the numbers hold);
- a line is ``font size × 1.2`` high (PowerPoint's single spacing), and each entry adds a space
  before of ``0.3 × font size`` (a box says otherwise where its format spaces lines and
  paragraphs differently: reveal.js, beamer);
- wrapping: greedy, at spaces, a Latin glyph taken as 0.5 em wide and a space as 0.25 em (Calibri
  and its metric twin Carlito average about 0.47 em over mixed-case text and URLs: 0.5 leaves a
  margin), a wide (CJK, fullwidth) character 1 em and breakable anywhere; a word longer than a
  line breaks across lines, as PowerPoint does with long URLs;
- an entry is never split across slides; a title so long that its entry would take more than
  half the box is shortened with "…" (the URL is never shortened).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..tree import Blocks

EMU_PER_PT = 12700
SOURCES_FONT_PT = 14.0
LINE_SPACING = 1.2
SPACE_BEFORE = 0.3
LATIN_EM = 0.5
SPACE_EM = 0.25
WIDE_EM = 1.0
INSET_LR = 91440
INSET_TB = 45720


@dataclass(frozen=True)
class BodyBox:
    """A body placeholder (outer size in EMU) and the font size its text is set in."""

    width: int
    height: int
    font_pt: float = SOURCES_FONT_PT
    line_spacing: float = LINE_SPACING  # a line's height in ems
    space_before: float = SPACE_BEFORE  # between entries, in ems
    inset_lr: int = INSET_LR
    inset_tb: int = INSET_TB

    @property
    def line_pt(self) -> float:
        return self.font_pt * self.line_spacing

    @property
    def inner_height_pt(self) -> float:
        return (self.height - 2 * self.inset_tb) / EMU_PER_PT

    @property
    def line_ems(self) -> float:
        """How many ems of text one line holds."""
        return (self.width - 2 * self.inset_lr) / EMU_PER_PT / self.font_pt

    def max_lines(self) -> int:
        """Lines that fit when the box holds one paragraph."""
        return int((self.inner_height_pt - self.space_before * self.font_pt) // self.line_pt)


# Pandoc's default reference.pptx, "Title and Content": body placeholder size in EMU and the
# master's first-level body size. The filter paginates for it (bare pandoc has no renderer to
# measure the real layout); the renderer falls back to its size for a layout without a body.
PANDOC_DEFAULT_BODY = BodyBox(width=8229600, height=3394472, font_pt=24.0)


@dataclass(frozen=True)
class SlideEntry:
    """One line of a Sources slide: ``text`` (``[n] Title — ``) followed by the linked URL,
    and `` (archived URL)`` when the ledger holds an archived copy's address."""

    text: str
    url: str
    source_id: int
    archived: str = ""

    @property
    def links(self) -> str:
        """The entry's text after ``text``, as shown."""
        return f"{self.url} (archived {self.archived})" if self.archived else self.url


def entry_text(number: int | str, title: str) -> str:
    """A Sources slide entry's ``text``: ``[n] Title — ``, or ``[n] `` for a source without a
    title; the URL follows it. ``number`` is the id as the list shows it."""
    return f"[{number}] {title} \u2014 " if title else f"[{number}] "


def hanging_indent(entries: list[SlideEntry], font_pt: float) -> int:
    """How far, in EMU, a Sources slide's entries hang: the widest ``[n]`` and half an em, so
    every entry's title starts at the same place and its wrapped lines align under it."""
    widest = max((len(e.text.split(" ", 1)[0]) for e in entries), default=3)
    return round((widest * LATIN_EM + 0.5) * font_pt * EMU_PER_PT)


def _char_em(ch: str) -> float:
    return WIDE_EM if unicodedata.east_asian_width(ch) in ("W", "F") else LATIN_EM


def _tokens(text: str) -> list[tuple[float, bool]]:
    """``(width in ems, preceded by a space)`` per unbreakable piece: a word, or one wide
    character (CJK text breaks between any two characters)."""
    out: list[tuple[float, bool]] = []
    word = 0.0
    spaced = False
    for ch in text:
        if ch.isspace():
            if word:
                out.append((word, spaced))
                word = 0.0
            spaced = True
            continue
        em = _char_em(ch)
        if em == WIDE_EM:
            if word:
                out.append((word, spaced))
                word, spaced = 0.0, False
            out.append((em, spaced))
            spaced = False
            continue
        word += em
    if word:
        out.append((word, spaced))
    return out


def wrapped_lines(text: str, box: BodyBox) -> int:
    """Lines ``text`` takes in ``box`` by the estimate in the module docstring."""
    capacity = box.line_ems
    lines = 1
    used = 0.0
    for width, spaced in _tokens(text):
        gap = SPACE_EM if spaced and used else 0.0
        if used and used + gap + width > capacity:
            lines += 1
            used, gap = 0.0, 0.0
        used += gap
        while used + width > capacity:  # a word wider than a line breaks across lines
            width -= capacity - used
            lines += 1
            used = 0.0
        used += width
    return lines


def entry_height_pt(entry: SlideEntry, box: BodyBox) -> float:
    return (
        wrapped_lines(entry.text + entry.links, box) * box.line_pt + box.space_before * box.font_pt
    )


def fit_entry(entry: SlideEntry, box: BodyBox) -> SlideEntry:
    """``entry``, its title shortened with "…" if the entry would take over half the box."""
    limit = max(1, box.max_lines() // 2)
    if wrapped_lines(entry.text + entry.links, box) <= limit:
        return entry
    match = re.match(r"(\[\d+\] )(.*?)( \u2014 )?$", entry.text, re.S)
    if not match:
        return entry
    prefix, title, dash = match.group(1), match.group(2), match.group(3) or ""
    words = title.split(" ")
    while len(words) > 1:
        words.pop()
        shorter = f"{prefix}{' '.join(words)}\u2026{dash}"
        if wrapped_lines(shorter + entry.links, box) <= limit:
            return SlideEntry(shorter, entry.url, entry.source_id, entry.archived)
    keep = title
    while keep:  # one huge word (or CJK run): cut characters
        keep = keep[: max(0, len(keep) - max(1, len(keep) // 8))]
        shorter = f"{prefix}{keep}\u2026{dash}"
        if wrapped_lines(shorter + entry.links, box) <= limit:
            return SlideEntry(shorter, entry.url, entry.source_id, entry.archived)
    return SlideEntry(f"{prefix}\u2026{dash}", entry.url, entry.source_id, entry.archived)


def paginate(entries: list[SlideEntry], box: BodyBox) -> list[list[SlideEntry]]:
    """Entries packed, in order, onto as many slides as they need."""
    pages: list[list[SlideEntry]] = []
    page: list[SlideEntry] = []
    used = 0.0
    room = box.inner_height_pt
    for raw in entries:
        entry = fit_entry(raw, box)
        height = entry_height_pt(entry, box)
        if page and used + height > room:
            pages.append(page)
            page, used = [], 0.0
        page.append(entry)
        used += height
    if page:
        pages.append(page)
    return pages


def sources_page_title(title: str, page: int, pages: int) -> str:
    return title if pages == 1 else f"{title} ({page}/{pages})"


def slide_level(blocks: Blocks) -> int:
    """Pandoc's default slide level: the highest level of a top-level heading that is followed
    directly by something other than a heading or a rule (6 when there is none). Every slide
    writer of pandoc finds it this way."""
    least = 6
    i = 0
    n = len(blocks)
    while i < n - 1:
        b = blocks[i]
        if b.get("t") == "Header":
            nxt = blocks[i + 1].get("t")
            if b["c"][0] < least and nxt not in ("Header", "HorizontalRule"):
                least = b["c"][0]
                i += 2
                continue
        i += 1
    return least
