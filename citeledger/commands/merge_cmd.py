"""``citeledger merge OTHER.json [--rewrite DRAFT ...] [--dry-run]``.

Reads another writer's ledger into this one (``ledger/merge.py`` says how ids are kept and
translated), prints the id map (``other [3] -> [17]``), copies the evidence texts OTHER's
quotes name into this ledger's evidence folder, and with ``--rewrite`` translates the markers
of drafts written against OTHER (``citeledger/edit/rewrite.py``), so they verify against the merged
ledger. ``--dry-run`` does all the work and writes nothing. There is no ``renumber``: ids never
change inside a ledger, and merge is the only place ids of another ledger are translated.

OTHER is someone else's file: it is read with ``load_ledger``, which validates it as it
validates this ledger (shape, ids, every URL), and nothing from it is printed except through
the terminal-safe streams of the command line.

The order of the writes, and why:

1. everything that can fail is done first, with the ledger's lock held (so a concurrent
   ``add`` or ``merge`` waits, and the ids given to OTHER's sources are final): OTHER is read,
   the merge is computed, every draft is read, translated and checked (pandoc reads the result
   back), and the evidence texts are copied (content-addressed files, never in the way);
2. the ledger is written (temp file, fsync, rename) as the transaction closes: a superset of
   what it was, every existing id unchanged, so drafts written against it stay valid;
3. the drafts are written, each atomically, each only if it has not changed since step 1.

A failure in step 1 writes nothing. A failure in step 3 (a full disk, a draft edited
meanwhile) leaves that draft as it was, still against OTHER, and says so; running the same
command again finishes the job: the ledger merge is then a no-op with the same map, and the
drafts already rewritten are recognised by their Sources block and left alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import DraftError
from ..ledger import Ledger, load_ledger, transaction
from ._common import LedgerOpt, flag, ledger_path, warn

if TYPE_CHECKING:  # merging, evidence and pandoc load inside the command: `add` starts fast
    from ..edit.rewrite import Rewrite
    from ..ledger.evidence_store import Copied
    from ..ledger.merge import MergeResult

_REWRITE_HELP = "A markdown draft written against OTHER: translate its [n] markers (repeatable)."


def merge(
    ctx: typer.Context,
    other: Annotated[str, typer.Argument(metavar="OTHER.json", help="The ledger to merge in.")],
    rewrite: Annotated[list[str] | None, flag("--rewrite", "DRAFT", _REWRITE_HELP)] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the id map and what would change; write nothing."),
    ] = False,
    ledger: LedgerOpt = None,
) -> None:
    """Merge another ledger into this one, translating its ids (and its drafts' markers)."""
    from ..edit.rewrite import plan_rewrite, read_markdown_draft
    from ..ledger.evidence_store import copy_texts, evidence_dir
    from ..ledger.merge import merge_ledgers
    from ..ledger.store import ledger_guard

    path = ledger_path(ctx, ledger)
    other_path = Path(other)
    theirs = load_ledger(other_path)
    drafts: dict[Path, str] = {}
    # A draft is checked before it is read: one linked to the ledger would get markdown
    # written over the ledger.
    guard = ledger_guard(path, [(other_path, "the ledger merged in")])
    for name in rewrite or []:
        draft = Path(name)
        key = draft.resolve()
        if key not in {d.resolve() for d in drafts}:
            guard.check(draft, what="draft")
            drafts[draft] = read_markdown_draft(draft)

    def plan(book: Ledger) -> tuple[MergeResult, list[Rewrite]]:
        result = merge_ledgers(book, theirs)
        plans = [plan_rewrite(d, text, theirs, book, result.id_map) for d, text in drafts.items()]
        return result, plans

    if dry_run:
        book = load_ledger(path, missing_ok=True)
        result, plans = plan(book)
        copied = copy_texts(theirs, evidence_dir(path), dry_run=True)
        _report(result, plans, copied, theirs, path, dry_run=True)
        return
    with transaction(path) as book:
        result, plans = plan(book)
        copied = copy_texts(theirs, evidence_dir(path))
    failed: list[str] = []
    for p in plans:
        if p.text is None:
            continue
        try:
            _write_draft(p)
        except DraftError as exc:
            failed.append(exc.line())
    _report(result, plans, copied, theirs, path, dry_run=False)
    if failed:
        raise DraftError(
            f"ledger merged, but {len(failed)} draft(s) not rewritten: " + "; ".join(failed),
            hint="fix that and run the same merge again: it skips what is done",
        )


def _write_draft(plan: Rewrite) -> None:
    assert plan.text is not None
    try:
        now = plan.path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DraftError(f"cannot read {plan.path} again: {exc}") from None
    if now != plan.original:
        raise DraftError(f"{plan.path} changed while merge ran; it was left as it is")
    from ..files import write_bytes

    # The draft is edited where it lives: through a symlinked draft, its target.
    write_bytes(plan.path, plan.text.encode("utf-8"), follow=True)


def _report(
    result: MergeResult,
    plans: list[Rewrite],
    copied: Copied,
    theirs: Ledger,
    path: Path,
    *,
    dry_run: bool,
) -> None:
    from ..ledger.evidence_store import evidence_dir
    from ..ledger.quotes import MIN_WORDS
    from ..ledger.urls import shown

    for old in sorted(result.id_map):
        print(f"other [{old}] -> [{result.id_map[old]}]")
    would = "would be " if dry_run else ""
    summary = (
        f"{theirs.path} into {path}: {len(result.new)} new source(s), "
        f"{result.quotes_added} quote(s) added, {copied.written} evidence text(s) copied"
    )
    if not result.changed and not copied.written:
        print(f"nothing to merge from {summary.split(':', 1)[0]}: it is merged already")
    else:
        print(("dry run, nothing written: " if dry_run else "merged ") + summary)
    for source_id, text in result.quotes_refused:
        warn(
            f"other [{source_id}] quote {shown(text)} is shorter than "
            f"{MIN_WORDS} words: not merged (`citeledger quote` would refuse it too)"
        )
    for source_id, stored in copied.lost:
        warn(
            f"other [{source_id}] names evidence text "
            f"sha256 {stored.digest[:80]}, {stored.status} in {evidence_dir(theirs.path)}: "
            "not copied (`citeledger recheck` will report it)"
        )
    for p in plans:
        if p.already:
            print(f"{p.path}: cites the merged ledger already, left as it is")
        elif p.text is None:
            print(f"{p.path}: nothing to change")
        else:
            print(f"{p.path}: {p.markers} marker(s) {would}rewritten, Sources block re-rendered")


def register(app: typer.Typer) -> None:
    app.command("merge")(merge)
