"""``citeledger rewrite --keys DRAFT``: a draft written with the library's citation keys
(``[@okafor2023]``) gets the ledger's ``[n]`` markers in place (``edit/rewrite_keys.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import BadInput, DraftError
from ..ledger import load_ledger
from ._common import LedgerOpt, echo, flag, ledger_path

_KEYS_HELP = "Markdown draft whose [@key] citations become [n] markers, in place."


def rewrite(
    ctx: typer.Context,
    ledger: LedgerOpt = None,
    keys: Annotated[str | None, flag("--keys", "DRAFT", _KEYS_HELP)] = None,
) -> None:
    """Turn a draft's [@key] citations into the ledger's [n] markers, in place."""
    if not keys:
        raise BadInput("rewrite needs --keys DRAFT", hint="citeledger rewrite --keys draft.md")
    from ..edit.rewrite import read_markdown_draft
    from ..edit.rewrite_keys import plan_key_rewrite

    path = ledger_path(ctx, ledger)
    book = load_ledger(path, missing_ok=True)
    draft = Path(keys)
    text = read_markdown_draft(draft)
    plan = plan_key_rewrite(draft, text, book)
    if plan.text is None:
        echo(f"{draft}: no [@key] citation to convert")
        return
    try:
        now = draft.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DraftError(f"cannot read {draft} again: {exc}") from None
    if now != plan.original:
        raise DraftError(f"{draft} changed while rewrite ran; it was left as it is")
    from ..files import write_bytes

    write_bytes(draft, plan.text.encode("utf-8"), follow=True)
    echo(f"{draft}: {plan.citations} citation(s) converted to [n] markers")
    echo(f"next: citeledger render --replace-in {draft} gives it its Sources block")


def register(app: typer.Typer) -> None:
    app.command("rewrite")(rewrite)
