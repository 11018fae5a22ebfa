"""A quote taken back: an agent that attached a quote to the wrong source (verify's
``quote-from-other-source`` names it) removes it with ``quote N --drop K``, where K counts the
source's quotes from 1 in the order ``list --json`` and ``render --style evidence`` show them,
or with ``--drop-text``, the quote's words as the matcher compares them.

Under the ledger's lock and written atomically, as every change is; a refusal changes nothing
and lists the quotes the source holds, numbered, so the next call can name the right one. The
evidence text the quote was checked against stays in the evidence folder: other quotes may
name it, and the trail keeps what was once checked. Callable without the command line (the
MCP server runs it in-process).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import BadInput
from .display import display_text
from .light import record
from .model import Source
from .quotes import same_quote_at
from .store import transaction

# How much of each quote a refusal shows.
_SHOWN = 60


@record(frozen=True)
class Dropped:
    """What :func:`drop_quote` did: the source, the number the quote had, its text, and how
    many quotes the source holds now."""

    id: int
    number: int
    text: str
    left: int


def drop_quote(path: Path, sid: int, number: int | None = None, text: str | None = None) -> Dropped:
    """Remove quote ``number`` (from 1), or the quote whose text is ``text``, from source
    ``sid`` of the ledger at ``path``; ``BadInput`` when there is no such quote."""
    if (number is None) == (text is None):
        raise BadInput("name one quote to drop", hint="give --drop K or --drop-text TEXT")
    with transaction(path) as book:
        source = book.get(sid)
        if source is None:
            raise BadInput(f"no source [{sid}] in ledger {path}", hint="run `citeledger list`")
        count = len(source.quotes)
        if not count:
            raise BadInput(
                f"[{sid}] holds no quotes",
                hint="nothing to drop; `citeledger list` counts each source's",
            )
        pick = f"`citeledger quote {sid} --drop K` with K from 1 to {count}"
        if number is not None:
            if not 1 <= number <= count:
                raise BadInput(f"[{sid}] has no quote {number}: {held(source)}", hint=pick)
            index = number - 1
        else:
            found = same_quote_at([q.text for q in source.quotes], text or "")
            if found is None:
                shown = display_text(text or "", _SHOWN)
                raise BadInput(
                    f"[{sid}] holds no quote \u201c{shown}\u201d: {held(source)}", hint=pick
                )
            index = found
        quote = book.drop_quote(source, index)
        return Dropped(sid, index + 1, quote.text, len(source.quotes))


def held(source: Source) -> str:
    """The quotes of ``source``, numbered as ``--drop`` takes them, on one line."""
    quotes = [
        f"{n} \u201c{display_text(q.text, _SHOWN)}\u201d" for n, q in enumerate(source.quotes, 1)
    ]
    return f"it holds {len(quotes)}: " + ", ".join(quotes)
