"""``citeledger render``: print a Sources block, or rewrite a draft's block in place
(``--replace-in``, through :mod:`citeledger.edit.replace_in`). The block's title is
``--sources-title``, else the draft's ``citeledger: {sources-title: ...}``, else "Sources"; a
block replaced in place keeps the draft's own title. Without ``--style``, the block is written
in the layout the ``--cited-in`` draft's reader reads back as entries (``org`` for an .org
draft, ``rst`` for an .rst one: ``ledger.render.READER_STYLES``), else markdown."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .. import formats
from ..errors import BadInput, NothingFound
from ..ledger import load_ledger
from ..ledger.render import (
    HEADED_STYLES,
    READER_STYLES,
    STYLES,
    parse_id_spec,
    pick_sources,
    render_block,
)
from ..options import Options
from ._common import FromOpt, LedgerOpt, echo, flag, ledger_path, warn
from ._flags import with_flags

_REPLACE_IN_HELP = "Rewrite this draft's trailing Sources block in place (implies --cited-in)."
_DIGESTS_HELP = "With --style evidence: name each quote's kept evidence text by its sha256."


@with_flags("render")
def render(
    ctx: typer.Context,
    style: Annotated[
        str | None,
        flag(
            "--style",
            "STYLE",
            "markdown, plain, footnotes, bibtex, evidence, csljson, org or rst"
            " (default: the --cited-in draft's own layout, else markdown).",
        ),
    ] = None,
    only: Annotated[str | None, flag("--only", "IDS", "Ids to include, e.g. 1,3,5-7.")] = None,
    cited_in: Annotated[
        str | None, flag("--cited-in", "DRAFT", "Include only the ids this draft cites.")
    ] = None,
    replace_in: Annotated[str | None, flag("--replace-in", "DRAFT", _REPLACE_IN_HELP)] = None,
    from_format: FromOpt = None,
    ledger: LedgerOpt = None,
    digests: Annotated[bool, typer.Option("--digests", help=_DIGESTS_HELP)] = False,
    *,
    options: Options,
) -> None:
    """Render a Sources block (-f names the pandoc reader of the --cited-in draft)."""
    draft = replace_in or cited_in
    if style is None:
        # --replace-in rewrites markdown drafts only, and says so of any other.
        style = _draft_style(cited_in, from_format) if cited_in and not replace_in else "markdown"
    if style not in STYLES:
        raise BadInput(f"unknown --style {style!r}", hint="use one of " + ", ".join(STYLES))
    if replace_in and style not in HEADED_STYLES:
        raise BadInput(
            f"--replace-in cannot place a {style} block",
            hint="use --style " + ", ".join(HEADED_STYLES) + "; or print the block and paste it",
        )
    path = ledger_path(ctx, ledger)
    if replace_in:
        from ..edit.replace_in import refuse_non_markdown

        refuse_non_markdown(replace_in, path)
    wanted = parse_id_spec(only) if only else None
    book = load_ledger(path, missing_ok=True)
    flags = options
    if draft:
        from ..edit.replace_in import draft_citations

        cited = draft_citations(draft, options, book, warn, from_format)
        options = cited.options
        absent = [i for i in cited.ids if book.get(i) is None]
        if absent:
            warn(f"{draft} cites {', '.join(f'[{i}]' for i in absent)}, not in ledger {path}")
        wanted = set(cited.ids) if wanted is None else wanted & set(cited.ids)
    if digests and style != "evidence":
        raise BadInput(
            f"--digests applies to --style evidence, not {style}",
            hint="add --style evidence, or drop --digests",
        )
    block = render_block(book, wanted, style, title=options.sources_title, digests=digests)
    if not block:
        raise NothingFound("no sources to render", hint=f"ledger {path}")
    if replace_in:
        from ..edit.replace_in import replace_block_in

        picked = pick_sources(book, wanted)
        # --sources-title renames the draft's block; otherwise it keeps the title it has.
        keep = not flags.is_set("sources-title")
        target = replace_block_in(
            replace_in, block, options.sources_title, picked, keep_title=keep, ledger=book
        )
        echo(f"Sources block rewritten in {target}")
        return
    echo(block)


def _draft_style(draft: str, from_format: str | None) -> str:
    """The style of the block ``draft``'s reader reads back as entries."""
    from ..document.readers import input_format

    fmt = from_format or input_format(Path(draft))
    return READER_STYLES.get(formats.family(fmt), "markdown")


def register(app: typer.Typer) -> None:
    app.command("render")(render)
