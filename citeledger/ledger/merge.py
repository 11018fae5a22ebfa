"""Merging another ledger into this one: the only way ids of another ledger are translated.

Ids never change inside a ledger (there is no ``renumber``): a draft's ``[3]`` means what the
ledger said ``[3]`` was when the draft was written. Merging therefore keeps every id of the
receiving ledger and translates the other ledger's ids:

- a source of the other ledger whose URL (normalised: ``url_key``) the ledger already holds
  keeps the ledger's id and gains the other's quotes, except those it already holds under the
  matching rules (``Ledger.add_quote``); an empty title is filled from the other's;
- any other source gets the next id (``Ledger.next_id``: above every id ever handed out, so the
  high-water mark ``last_id`` is respected), with the other's title, access date, quotes and
  unknown fields; past ``MAX_ID`` the merge fails as a whole;
- a quote of the other ledger is held to ``quote``'s own rules: one shorter than ``MIN_WORDS``
  words is not taken (and is reported), as ``quote`` would not have taken it;
- a library's fields (author, issued, site, key) and the archived copy's address travel as the
  title does: copied with a new
  source, filling only empty fields of one the ledger holds (a key another source here holds
  is not copied);
- sources are taken in the other ledger's id order, so the same two ledgers always give the
  same map, and merging the same ledger twice changes nothing the second time.

Pure ledger work: the caller holds the ledger's transaction and writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import Ledger, Quote
from .quotes import MIN_WORDS, word_count


@dataclass
class MergeResult:
    """``id_map``: each id of the other ledger and the id it has here. ``new``: the other's ids
    that became new sources here."""

    id_map: dict[int, int] = field(default_factory=dict)
    new: list[int] = field(default_factory=list)
    quotes_added: int = 0
    # (other id, quote text) of quotes ``quote`` itself would refuse: too short to prove
    # anything (a one-letter quote is on every page).
    quotes_refused: list[tuple[int, str]] = field(default_factory=list)
    titles_filled: int = 0
    details_filled: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.new or self.quotes_added or self.titles_filled or self.details_filled)


def merge_ledgers(into: Ledger, other: Ledger) -> MergeResult:
    """Merge ``other`` into ``into`` (see the module docstring)."""
    result = MergeResult()
    for theirs in sorted(other.sources, key=lambda s: s.id):
        ours = into.find_url(theirs.url)
        if ours is None:
            ours = into.carry_over(theirs.url, title=theirs.title, accessed=theirs.accessed)
            ours.extra = dict(theirs.extra)
            result.new.append(theirs.id)
        elif theirs.title and not ours.title:
            into.fill_title(ours, theirs.title)
            result.titles_filled += 1
        if theirs.details:
            before = ours.details
            into.fill_details(ours, theirs.details)
            if ours.details != before and theirs.id not in result.new:
                result.details_filled += 1
        if theirs.archived and not ours.archived:
            into.set_archived(ours, theirs.archived)
            if theirs.id not in result.new:
                result.details_filled += 1
        for quote in theirs.quotes:
            if word_count(quote.text) < MIN_WORDS:
                result.quotes_refused.append((theirs.id, quote.text))
                continue
            copy = Quote(
                quote.text,
                quote.added,
                quote.sha256,
                quote.origin,
                quote.text_sha256,
                dict(quote.extra),
            )
            if into.add_quote(ours, copy):
                result.quotes_added += 1
        result.id_map[theirs.id] = ours.id
    return result
