"""Quote drift: is a quote still on the page, and if not, what does the page say instead?

``citeledger recheck --from-dir DIR`` reads fresh copies of the ledger's pages that the user
saved in DIR, one regular file per source (links are passed over), named by the source's id
or by its URL slug, with any extension (the reader picks text, HTML or PDF by content, as
``quote`` does):

- ``DIR/3.html``, ``DIR/3.txt``, ``DIR/3``: the page of source [3];
- ``DIR/<slug>.html``: the page of the source whose URL has that slug. The slug of a URL is the
  URL without its scheme, every run of characters other than ASCII letters and digits turned
  into one ``-``, no ``-`` at either end, cut to :data:`MAX_SLUG` characters:
  ``https://example.com/a/b?x=1`` is ``example-com-a-b-x-1``. Case is kept (paths are
  case-sensitive). A slug shared by two sources of the ledger names neither (use the id).

A file's key is its name up to the first dot (a slug holds no dot). Two files for one source
are refused: which one is the fresh page would be a guess.

A quote that is not in its fresh page has drifted; the report shows the nearest passage of the
new text, found in time linear in the page. The quote's longest words (the likely rare ones,
:data:`PROBED` of them) are the anchors, each found by one literal search of the page. Every
place an anchor occurs votes for the passage that would hold the quote if the anchor sat where
it sits in the quote; the passages most anchors agree on are scored by the share of the quote's
words they hold, and the best wins. The scans and the candidates are bounded, so a 50 MB page
costs a fixed number of C-speed searches, never the quote's length times the page's (no edit
distance).
"""

from __future__ import annotations

import os
import unicodedata
from collections import Counter
from pathlib import Path

from ..errors import BadInput
from . import Ledger
from .display import display_text
from .light import pattern, record

MAX_SLUG = 120
_SCHEME = pattern(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_NOT_SLUG = pattern(r"[^A-Za-z0-9]+")
_WORD = pattern(r"\w+")
PROBED = 12
COUNT_CAP = 10_000
CANDIDATES = 32
_BUCKET = 32
PASSAGE_SHOWN = 300


def url_slug(url: str) -> str:
    """The slug of ``url`` (see the module docstring)."""
    slug = _NOT_SLUG.sub("-", _SCHEME.sub("", url.strip())).strip("-")
    return slug[:MAX_SLUG].rstrip("-")


def fresh_pages(folder: Path, ledger: Ledger) -> tuple[dict[int, Path], list[Path]]:
    """The fresh page file of each source that has one in ``folder``, and the files that name
    no source. ``BadInput`` for a folder that is not one and for two files of one source."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except FileNotFoundError:
        raise BadInput(f"no folder {folder}", hint="save the fresh pages into a folder") from None
    except NotADirectoryError:
        raise BadInput(
            f"--from-dir {folder} is a file, not a folder",
            hint="give the folder the fresh pages are saved in",
        ) from None
    except OSError as exc:
        raise BadInput(f"cannot read folder {folder}: {exc.strerror or exc}") from None
    by_slug: dict[str, list[int]] = {}
    for s in ledger.sources:
        by_slug.setdefault(url_slug(s.url), []).append(s.id)
    found: dict[int, Path] = {}
    stray: list[Path] = []
    for entry in entries:
        # Regular files only: a link (to ~/.ssh/id_ed25519, say) would have its text shown
        # as the "nearest passage", steered by a quote merged from someone else's ledger.
        if entry.name.startswith(".") or not entry.is_file(follow_symlinks=False):
            continue
        key = entry.name.split(".", 1)[0]
        if key.isascii() and key.isdigit():
            sid: int | None = int(key) if ledger.get(int(key)) is not None else None
        else:
            owners = by_slug.get(key, [])
            sid = owners[0] if len(owners) == 1 else None
        path = Path(entry.path)
        if sid is None:
            stray.append(path)
            continue
        if sid in found:
            raise BadInput(
                f"two fresh pages for [{sid}] in {folder}: {found[sid].name} and {entry.name}",
                hint="keep one of them",
            )
        found[sid] = path
    return found, stray


@record(frozen=True)
class Passage:
    text: str
    shared: float  # the share of the quote's words the passage holds, 0 to 1


def nearest_passage(quote: str, page: str, slack: int = 0) -> Passage | None:
    """The passage of ``page`` nearest to ``quote`` (see the module docstring); None when the
    page holds none of the quote's longest words. ``slack`` characters more are read after
    it (a page that says more than the quote still shows the quote's last words)."""
    quote = unicodedata.normalize("NFKC", quote)
    words = [m.group().casefold() for m in _WORD.finditer(quote)]
    if not words:
        return None
    folded = page.casefold()
    # Positions found in the folded page are positions in the page when folding kept the
    # length (nearly always); otherwise the passage is shown from the folded text.
    shown = page if len(folded) == len(page) else folded
    offsets: dict[str, int] = {}
    for m in _WORD.finditer(quote):
        offsets.setdefault(m.group().casefold(), m.start())
    # Long words are the likely rare ones: only they are counted, a bounded number of scans of
    # the page (each a C-speed literal search), so the cost stays linear in the page.
    candidates = sorted(offsets, key=len, reverse=True)[:PROBED]
    counts: dict[str, list[int]] = {}
    for word in candidates:
        found = _occurrences(folded, word)
        if found:
            counts[word] = found
    if not counts:
        return None
    # Each occurrence votes for the start it implies (where the quote would begin if the word
    # sat where it sits in the quote); the starts most words agree on are the candidates.
    votes: Counter[int] = Counter()
    first: dict[int, int] = {}
    for word, places in counts.items():
        for pos in places:
            start = max(0, pos - offsets[word])
            bucket = start // _BUCKET
            votes[bucket] += 1
            first[bucket] = min(start, first.get(bucket, start))
    ranked = sorted(
        votes, key=lambda b: votes[b] + votes.get(b - 1, 0) + votes.get(b + 1, 0), reverse=True
    )
    starts = sorted(first[b] for b in ranked[:CANDIDATES])
    bag = Counter(words)
    best: Passage | None = None
    for start in starts:
        text = _widen(shown, start, start + len(quote) + slack)
        seen = Counter(m.group().casefold() for m in _WORD.finditer(text))
        shared = sum((bag & seen).values()) / len(words)
        if best is None or shared > best.shared:
            best = Passage(display_text(text, PASSAGE_SHOWN), shared)
    return best


def _occurrences(text: str, word: str) -> list[int]:
    """Where ``word`` stands in ``text`` as a whole word, at most :data:`COUNT_CAP` places:
    ``str.find`` (a C-speed literal search), then a look at the neighbouring characters."""
    out: list[int] = []
    pos = text.find(word)
    n = len(word)
    tries = 0
    while pos >= 0 and len(out) < COUNT_CAP:
        tries += 1
        if tries > 10 * COUNT_CAP:  # mostly inside longer words ("a" in "aaaa..."): no anchor
            return []
        before = text[pos - 1] if pos else " "
        after = text[pos + n] if pos + n < len(text) else " "
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            out.append(pos)
        pos = text.find(word, pos + n)
    return out


def _widen(page: str, start: int, end: int) -> str:
    """``page[start:end]`` widened to whole words (at most 40 characters each way)."""
    low = start
    while low > 0 and start - low < 40 and not page[low - 1].isspace():
        low -= 1
    high = min(end, len(page))
    while high < len(page) and high - end < 40 and not page[high].isspace():
        high += 1
    return page[low:high]
