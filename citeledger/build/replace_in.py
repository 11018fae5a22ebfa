"""``render --replace-in``: a markdown draft's Sources block rewritten in place, checked through
pandoc (the block its lines name must be the one pandoc reads, and the new draft must read as the
old one with only the block changed); otherwise nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import BadInput, DraftError
from ..ledger.files import read_file

# Drafts are text; far above any real one.
MAX_DRAFT_BYTES = 256 * 1024 * 1024


def draft_ids(draft: str, from_format: str | None = None) -> list[int]:
    path = Path(draft)
    if not path.is_file():
        raise DraftError(f"no draft file {draft}", hint="check the path")
    from ..document.markers import cited_ids_in_file

    return list(cited_ids_in_file(path, from_format=from_format))


def refuse_non_markdown(draft: str) -> None:
    """The block is markdown: written into an HTML page it would land after ``</html>``."""
    from ..formats import is_markdown_source
    from ..pandoc import format_for

    fmt = format_for(draft)
    if not is_markdown_source(fmt):
        raise BadInput(
            f"--replace-in {draft}: a {fmt} file, not a markdown draft",
            hint="rewrite the markdown draft it was built from, then build it again",
        )


def _replace_block(target: Path, original: str, block: str) -> str:
    """The draft with its Sources block replaced. A markdown draft is checked through pandoc:
    the block its lines name must be the one pandoc reads, and the new draft must read as the
    old one with only the block changed; otherwise nothing is written."""
    from ..document.sources_block import AmbiguousBlock, replace_in_text
    from ..formats import is_markdown_source
    from ..pandoc import format_for, run_pandoc

    fmt = format_for(target)

    def read(text: str) -> Any:
        return json.loads(run_pandoc(["-f", fmt, "-t", "json"], stdin=text, what=str(target)))

    markdown = is_markdown_source(fmt)
    try:
        return replace_in_text(original, block, read=read if markdown else None)
    except AmbiguousBlock as exc:
        raise DraftError(
            f"render --replace-in {target}: cannot tell which lines are its Sources block: {exc}",
            hint="replace the block by hand (citeledger render --cited-in DRAFT prints it)",
        ) from None


def replace_block_in(draft: str, block: str) -> Path:
    """Write ``block`` over the Sources block of the markdown draft ``draft``; returns its path."""
    from ..outputs import write_bytes

    target = Path(draft)
    try:
        original = read_file(
            target,
            limit=MAX_DRAFT_BYTES,
            what="draft",
            error=DraftError,
            missing_hint="check the path of the draft",
        ).decode("utf-8")
    except UnicodeDecodeError:
        raise DraftError(f"draft {draft} is not UTF-8 text") from None
    updated = _replace_block(target, original, block)
    if updated != original:
        # The draft is edited where it lives: through a symlinked draft, its target.
        write_bytes(target, updated.encode("utf-8"), follow=True)
    return target
