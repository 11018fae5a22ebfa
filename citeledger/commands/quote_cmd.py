"""``citeledger quote``: attach verbatim evidence to a source, matched against the fetched page
and kept by digest in the evidence trail."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import BadInput, QuoteNotFound
from ..ledger import Quote, load_ledger, today, transaction
from ..ledger.quotes import MIN_WORDS, quote_in_text, word_count
from ._common import LedgerOpt, echo, flag, ledger_path, parse_id

# Evidence is the passage that supports a claim, not the page.
MAX_QUOTE = 4_000


def quote(
    ctx: typer.Context,
    source_id: Annotated[str, typer.Argument(metavar="ID", help="Ledger id the quote supports.")],
    text: Annotated[str, flag("--text", "TEXT", "The exact quote, copied from the page.")],
    evidence: Annotated[str, flag("--from", "FILE|-", "The fetched page (text/HTML/PDF), or -.")],
    ledger: LedgerOpt = None,
) -> None:
    """Attach verbatim supporting evidence to a source."""
    from ..ledger.evidence_pages import read_evidence

    path = ledger_path(ctx, ledger)
    sid = parse_id(source_id)
    text = text.strip()
    if word_count(text) < MIN_WORDS:
        raise BadInput("quote too short", hint=f"use at least {MIN_WORDS} words of verbatim text")
    if len(text) > MAX_QUOTE:
        raise BadInput(
            f"quote is {len(text)} characters long",
            hint=f"keep evidence to the passage that supports the claim, at most {MAX_QUOTE}",
        )
    if load_ledger(path, missing_ok=True).get(sid) is None:
        raise BadInput(f"no source [{sid}] in ledger {path}", hint="run `citeledger list` for ids")
    page = read_evidence(evidence)
    where = "standard input" if evidence == "-" else evidence
    if not quote_in_text(text, page.text):
        raise QuoteNotFound(
            f"quote for [{sid}] not found verbatim in {where}",
            hint="copy the exact wording from the fetched page, do not paraphrase",
        )
    # The text is kept before the ledger names it: a failure between the two leaves an unnamed
    # file in the evidence folder, never a quote whose text is missing.
    stored = _keep_evidence_text(path, page.text)
    with transaction(path) as book:
        source = book.get(sid)
        if source is None:  # removed by a reset since the check above
            raise BadInput(f"no source [{sid}] in ledger {path}", hint="run `citeledger list`")
        book.add_quote(
            source,
            Quote(
                text=text,
                added=today(),
                sha256=page.sha256,
                origin=page.origin,
                text_sha256=stored,
            ),
        )
        count = len(source.quotes)
    echo(f"[{sid}] evidence attached ({count} quote(s))")


def _keep_evidence_text(ledger: Path, text: str) -> str:
    """The evidence trail (``ledger/evidence_store.py``): the matched text, kept by digest."""
    from ..ledger.evidence_store import evidence_dir, store_text

    return store_text(evidence_dir(ledger), text)


def register(app: typer.Typer) -> None:
    app.command("quote")(quote)
