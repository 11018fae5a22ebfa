"""A quote attached to a source: checked against its page, kept by digest in the evidence trail.

Callable without the command line (the MCP server runs it in-process): :func:`attach_quote`
takes arguments, returns what it did and raises ``CiteledgerError`` subclasses.

The page is a file the agent saved (``--from``), or, without one, the page text ``ingest`` kept
for the source from its search result. A quote the page does not hold is refused with the
nearest passage of the page (``drift.nearest_passage``, as ``recheck`` finds it) and what
differs, so the agent can copy the page's real words instead of guessing again.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import BadInput, EvidenceError, QuoteNotFound
from .drift import nearest_passage
from .evidence_pages import Evidence, read_evidence
from .evidence_store import evidence_dir, read_stored, store_text
from .light import pattern, record
from .model import Quote, Source, today
from .quotes import MIN_WORDS, quote_in_text, word_count
from .store import load_ledger, transaction

# Evidence is the passage that supports a claim, not the page.
MAX_QUOTE = 4_000
# At most this many differences are named in a refusal.
_DIFFS_SHOWN = 3
# Where an agent cut a passage short: three dots (spaced or not, bracketed or not) or "…".
_ELLIPSIS = pattern(r"\[?(?:\.\s?){3}\]?|\[?\u2026\]?")


@record(frozen=True)
class Attached:
    """What :func:`attach_quote` did: the source's id, how many quotes it holds now, whether
    this one was new (the same text is stored once), and where the page came from."""

    id: int
    count: int
    added: bool
    page: str


def attach_quote(path: Path, sid: int, text: str, evidence: str | None) -> Attached:
    """Check ``text`` against ``evidence`` (a file name, ``-`` for standard input, or None for
    the page ``ingest`` kept) and attach it to source ``sid`` of the ledger at ``path``."""
    text = text.strip()
    if word_count(text) < MIN_WORDS:
        raise BadInput("quote too short", hint=f"use at least {MIN_WORDS} words of verbatim text")
    if len(text) > MAX_QUOTE:
        raise BadInput(
            f"quote is {len(text)} characters long",
            hint=f"keep evidence to the passage that supports the claim, at most {MAX_QUOTE}",
        )
    source = load_ledger(path, missing_ok=True).get(sid)
    if source is None:
        raise BadInput(f"no source [{sid}] in ledger {path}", hint="run `citeledger list` for ids")
    if evidence is None:
        page, where = _kept_page(path, source)
    else:
        page = read_evidence(evidence)
        where = "standard input" if evidence == "-" else evidence
    if not quote_in_text(text, page.text):
        raise QuoteNotFound(
            f"quote for [{sid}] not found verbatim in {where}; {refusal(text, page.text)}",
            hint="copy the exact wording from the page, do not paraphrase",
        )
    # The text is kept before the ledger names it: a failure between the two leaves an unnamed
    # file in the evidence folder, never a quote whose text is missing.
    stored = store_text(evidence_dir(path), page.text, encoded=page.encoded)
    with transaction(path) as book:
        held = book.get(sid)
        if held is None:  # removed by a reset since the check above
            raise BadInput(f"no source [{sid}] in ledger {path}", hint="run `citeledger list`")
        added = book.add_quote(
            held,
            Quote(
                text=text,
                added=today(),
                sha256=page.sha256,
                origin=page.origin,
                text_sha256=stored,
            ),
        )
        count = len(held.quotes)
    return Attached(sid, count, added, where)


def _kept_page(path: Path, source: Source) -> tuple[Evidence, str]:
    """The page text ``ingest`` kept for ``source``, as evidence read from a file would be."""
    if not source.page_sha256:
        raise BadInput(
            f"[{source.id}] has no page text kept by ingest, and no --from was given",
            hint="save the fetched page and pass --from FILE (or - for standard input)",
        )
    stored = read_stored(evidence_dir(path), source.page_sha256)
    if stored.text is None:
        raise EvidenceError(
            f"the page text of [{source.id}] ({stored.path or source.page_sha256}) is "
            f"{stored.status}",
            hint="save the fetched page and pass --from FILE",
        )
    origin = source.page_origin or "the page text ingest kept"
    return Evidence(stored.text, stored.digest, origin, "text"), origin


def refusal(quote: str, page: str) -> str:
    """The nearest passage of ``page`` and what differs from ``quote``, for a refusal; for a
    quote cut with an ellipsis whose parts are each on the page, that, since a quote is one
    passage (the nearest passage of a joined quote would name words that are on the page)."""
    parts = [p.strip() for p in _ELLIPSIS.split(quote) if p.strip()]
    if len(parts) > 1 and all(quote_in_text(p, page) for p in parts):
        shown = " and ".join(f"\u201c{p}\u201d" for p in parts)
        return (
            f"a quote is one passage, and this one is cut with an ellipsis: {shown} are each "
            "on the page; attach each part as its own quote"
        )
    near = nearest_passage(quote, page, slack=len(quote) // 4 + 12)
    if near is None:
        return "no passage of the page shares its longest words"
    said = f"nearest passage ({near.shared:.0%} of its words): \u201c{near.text}\u201d"
    diffs = differences(quote, near.text)
    return said + (f"; differs: {diffs}" if diffs else "")


def differences(quote: str, passage: str) -> str:
    """Where ``quote`` and ``passage`` differ, word by word: ``“8” where the page has “9”``."""
    import difflib

    mine, theirs = quote.split(), passage.split()
    # Compared as the matcher would see them: case and the punctuation around a word aside.
    fold = [_word(w) for w in mine], [_word(w) for w in theirs]
    matcher = difflib.SequenceMatcher(None, fold[0], fold[1], autojunk=False)
    blocks = matcher.get_opcodes()
    # The passage is widened around the quote: what it holds before and after is no difference.
    while blocks and blocks[0][0] == "insert":
        blocks = blocks[1:]
    while blocks and blocks[-1][0] == "insert":
        blocks = blocks[:-1]
    out: list[str] = []
    for op, a0, a1, b0, b1 in blocks:
        if op == "equal":
            continue
        ours, page = " ".join(mine[a0:a1]), " ".join(theirs[b0:b1])
        if op == "replace":
            out.append(f"\u201c{ours}\u201d where the page has \u201c{page}\u201d")
        elif op == "delete":
            out.append(f"\u201c{ours}\u201d is not in the page")
        else:
            out.append(f"the page has \u201c{page}\u201d here")
    more = len(out) - _DIFFS_SHOWN
    return "; ".join(out[:_DIFFS_SHOWN]) + (f"; and {more} more" if more > 0 else "")


def _word(token: str) -> str:
    return token.casefold().strip(".,;:!?\"'()[]\u201c\u201d\u2018\u2019")
