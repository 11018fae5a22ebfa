"""``render --replace-in``: a markdown draft's Sources block rewritten in place, checked through
pandoc (the block its lines name must be the one pandoc reads, the new draft must read as the
old one with only the block changed, and the new block must read back as the sources it was
rendered from); otherwise nothing is written."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import AmbiguousBlock, BadInput, DraftError
from ..ledger.files import read_file
from ..tree import PandocDoc

if TYPE_CHECKING:
    from ..document.draft import DraftCitations
    from ..ledger import Ledger
    from ..ledger.model import Source
    from ..options import Options

# Drafts are text; far above any real one.
MAX_DRAFT_BYTES = 256 * 1024 * 1024


def draft_citations(
    draft: str,
    flags: Options,
    ledger: Ledger | None,
    warn: Callable[[str], None],
    from_format: str | None = None,
) -> DraftCitations:
    """What ``draft`` cites, and its options (its front matter, ``flags`` winning)."""
    path = Path(draft)
    if not path.is_file():
        raise DraftError(f"no draft file {draft}", hint="check the path")
    from ..document.draft import read_citations

    return read_citations(path, from_format=from_format, flags=flags, ledger=ledger, warn=warn)


def refuse_non_markdown(draft: str, ledger: Path | None = None) -> None:
    """The block is markdown: written into an HTML page it would land after ``</html>``. And
    a draft that is the ``ledger`` (or its lock or evidence, also through a link) is refused
    before it is read."""
    from ..document.readers import input_format
    from ..formats import is_markdown_source

    if ledger is not None:
        from ..ledger.store import ledger_guard

        ledger_guard(ledger).check(Path(draft), what="draft")

    fmt = input_format(Path(draft))
    if not is_markdown_source(fmt):
        raise BadInput(
            f"--replace-in {draft}: a {fmt} file, not a markdown draft",
            hint="rewrite the markdown draft it was built from, then build it again",
        )


def _replace_block(
    target: Path,
    original: str,
    block: str,
    titles: Sequence[str],
    sources: Sequence[Source],
    keep_title: bool,
    ledger: Ledger | None = None,
) -> str:
    """The draft with its Sources block replaced. A markdown draft is checked through pandoc:
    the block its lines name must be the one pandoc reads, the new draft must read as the old
    one with only the block changed, and the new block must list ``sources`` with their URLs;
    otherwise nothing is written."""
    from ..document.draft import read_draft_text
    from ..document.readers import input_format
    from ..document.sources_lines import replace_in_text
    from ..formats import is_markdown_source

    fmt = input_format(target)
    trees: dict[str, PandocDoc] = {}

    def read(text: str) -> PandocDoc:
        if text not in trees:
            trees[text] = read_draft_text(text, fmt, str(target))
        return trees[text]

    markdown = is_markdown_source(fmt)
    if markdown and ledger is not None:
        _refuse_other_numbers(target, read(original), titles, ledger)
    try:
        updated = replace_in_text(
            original, block, titles, read=read if markdown else None, keep_title=keep_title
        )
    except AmbiguousBlock as exc:
        raise DraftError(
            f"render --replace-in {target}: cannot tell which lines are its Sources block: {exc}",
            hint="replace the block by hand (citeledger render --cited-in DRAFT prints it)",
        ) from None
    if markdown:
        problem = _read_back(read(updated), titles, sources)
        if problem:
            raise DraftError(
                f"render --replace-in {target}: left untouched, the new block would not "
                f"verify: {problem}",
                hint="fix that ledger entry (citeledger list shows it), then render again",
            )
    return updated


def _refuse_other_numbers(
    target: Path, tree: PandocDoc, titles: Sequence[str], ledger: Ledger
) -> None:
    """The draft's own block, before it is replaced: an entry that gives ``[n]`` the page the
    ledger numbers ``[m]`` says the draft's ``[n]`` means that page (a search tool's result
    number, a list another tool numbered). Rewriting the block would point every such ``[n]``
    at the ledger's ``[n]``, and verify would then pass: nothing is written. (An entry naming a
    page the ledger does not hold is a stale block's, and is replaced, as it always was.)"""
    from ..document.sources_block import entries, find_sources_block
    from ..ledger.urls import same_url

    block = find_sources_block(tree["blocks"], titles)
    for entry in entries(tree["blocks"], block) if block else []:
        held = ledger.get(entry.id)
        if held is None or not entry.url.startswith(("http://", "https://")):
            continue  # an id the ledger lacks is warned of; a stub entry ("[1] old") is text
        if same_url(entry.url, held.url):
            continue
        owner = ledger.find_url(entry.url)
        if owner is None or owner.id == entry.id:
            continue
        raise DraftError(
            f"render --replace-in {target}: left untouched: its Sources block gives [{entry.id}] "
            f"the URL {entry.url}, which the ledger numbers [{owner.id}]; the ledger's "
            f"[{entry.id}] is {held.url}",
            hint=f"write [{owner.id}] where the draft cites [{entry.id}] for this page, then "
            "render again",
        )


def _read_back(tree: PandocDoc, titles: Sequence[str], sources: Sequence[Source]) -> str | None:
    """What the rewritten draft's block, as pandoc reads it, gets wrong about ``sources``."""
    from ..document.sources_block import entries, find_sources_block
    from ..ledger.urls import same_url

    block = find_sources_block(tree["blocks"], titles)
    listed = {e.id: e for e in entries(tree["blocks"], block)} if block else {}
    for source in sources:
        entry = listed.get(source.id)
        if entry is None:
            return f"it reads back without [{source.id}]"
        if not same_url(entry.url, source.url):
            return f"[{source.id}] reads back as {entry.url}, not the ledger's {source.url}"
    return None


def replace_block_in(
    draft: str,
    block: str,
    sources_title: str,
    sources: Sequence[Source],
    *,
    keep_title: bool = True,
    ledger: Ledger | None = None,
) -> Path:
    """Write ``block`` (the rendered ``sources``) over the Sources block of the markdown draft
    ``draft``, found under "Sources", ``sources_title`` or a common title, keeping the title
    the draft gave it unless ``keep_title`` is false; returns its path. With ``ledger``, a
    block whose entries give an id another page than the ledger's is refused, not replaced."""
    from ..document.sources_titles import titles_for
    from ..files import write_bytes

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
    titles = titles_for(sources_title)
    updated = _replace_block(target, original, block, titles, sources, keep_title, ledger)
    if updated != original:
        # The draft is edited where it lives: through a symlinked draft, its target.
        write_bytes(target, updated.encode("utf-8"), follow=True)
    return target
