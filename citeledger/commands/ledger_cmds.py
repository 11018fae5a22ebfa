"""The ledger verbs: reset, add, ingest, quote, list, render.

Names, flags, output lines and exit codes are those of the grounded-citations ``sources.py``, so
agents and scripts written for it keep working: ``[n] url`` per added source, 0 ok, 1 when a
check says no (quote not on the page, no URL in the input, nothing to render), 2 for bad input.

``--ledger PATH`` is accepted before the verb (``citeledger --ledger L add ...``) and after it
(``citeledger add --ledger L ...``); the one after the verb wins. Without it:
``$CITELEDGER_LEDGER``, ``$HERMES_CITATION_LEDGER``, ``$HERMES_HOME/cache/citations/ledger.json``
when ``$HERMES_HOME`` is set, else ``./ledger.json`` (see ``locate_ledger``).

Module-level imports stay light (``add`` runs at every retrieval): evidence reading, PDF
support and the draft marker finder load inside the verbs that use them.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import BadInput, BadURL, CiteledgerError, DraftError, NothingFound, QuoteNotFound
from ..ledger import (
    Ledger,
    Quote,
    Source,
    load_ledger,
    normalize_url,
    reset_ledger,
    today,
    transaction,
)
from ..ledger.files import read_file, read_stream
from ..ledger.model import MAX_ID
from ..ledger.quotes import MIN_WORDS, quote_in_text, word_count
from ..ledger.render import (
    HEADED_STYLES,
    STYLES,
    parse_id_spec,
    pick_sources,
    render_block,
)
from ..ledger.store import locate_ledger
from ..options import Options

LedgerOpt = Annotated[
    str | None,
    typer.Option(
        "--ledger",
        metavar="PATH",
        help="Ledger file (default: $CITELEDGER_LEDGER, $HERMES_CITATION_LEDGER, "
        "$HERMES_HOME/cache/citations/ledger.json, ./ledger.json).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of lines.")]


def flag(name: str, metavar: str, help: str) -> Any:
    """A verb's option that takes a value, in one call (typer's keywords are long to repeat)."""
    return typer.Option(name, metavar=metavar, help=help)


# Tool output and drafts read by the verbs; far above any search result page.
MAX_INPUT_BYTES = 256 * 1024 * 1024
# Evidence is the passage that supports a claim, not the page.
MAX_QUOTE = 4_000


def ledger_location(ctx: typer.Context, explicit: str | None = None) -> tuple[Path, str]:
    """The ledger a command works on and why: its own ``--ledger``, else the one given before
    the verb, else the environment and default (``locate_ledger``)."""
    if explicit:
        return locate_ledger(explicit)
    root = ctx.find_root()
    global_value = (root.params or {}).get("ledger") if root is not None else None
    return locate_ledger(global_value or None)


def ledger_path(ctx: typer.Context, explicit: str | None = None) -> Path:
    """The ledger path alone. Other command modules (verify, wiki, finish) use this too."""
    return ledger_location(ctx, explicit)[0]


def global_ledger(ctx: typer.Context, options: Options) -> Options:
    """``options`` with the ledger given before the verb, when the command got none itself."""
    root = ctx.find_root()
    global_value = (root.params or {}).get("ledger") if root is not None else None
    if options.is_set("ledger") or not global_value:
        return options
    return options.updated({"ledger": global_value})


def _main_callback(
    ctx: typer.Context,
    ledger: LedgerOpt = None,
) -> None:
    """A citation ledger, a pandoc filter and one verifier for grounded research."""


def _echo(line: str) -> None:
    print(line)


def _warn(line: str) -> None:
    print(f"citeledger: warning: {line}", file=sys.stderr)


# ISO 8601 calendar dates, alone or with a time of day, in extended (2024-01-31T14:05:09.5+01:00)
# or basic (20240131T140509Z) form; a space may stand for the T, as RFC 3339 allows. Groups:
# year, month, day, hour, minute, second, offset hours, offset minutes.
_ISO_FORMS = (
    re.compile(
        r"(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?"
        r"(?:[Zz]|[+-](\d{2})(?::?(\d{2}))?)?)?"
    ),
    re.compile(
        r"(\d{4})(\d{2})(\d{2})(?:[Tt](\d{2})(?:(\d{2})(?:(\d{2})(?:[.,]\d+)?)?)?"
        r"(?:[Zz]|[+-](\d{2})(\d{2})?)?)?"
    ),
)
_DATE_FORMS = (
    "give an ISO 8601 date or date-time: YYYY-MM-DD or YYYYMMDD, optionally followed by "
    "Thh:mm[:ss[.fff]] and Z or +hh:mm, e.g. 2024-01-31 or 2024-01-31T14:05:09Z; "
    "a date-time is stored as its date"
)


def _check_accessed(value: str) -> str:
    """The access date as the ledger stores it, ``YYYY-MM-DD``, from an ISO 8601 date or
    date-time. A date-time keeps the calendar date it was written with (no time-zone
    conversion): the day the page was read, where it was read. Anything else (``31/01/2024``,
    ``yesterday``, a bare year) is refused, so every ledger's dates sort and render alike."""
    for form in _ISO_FORMS:
        match = form.fullmatch(value.strip())
        if match is None:
            continue
        y, mo, d, h, mi, sec, zh, zm = (int(part or 0) for part in match.groups())
        try:
            day = _dt.date(y, mo, d)
            _dt.time(h, mi, sec)
            _dt.time(zh, zm)
        except ValueError:
            break
        return day.isoformat()
    raise BadInput(f"--accessed {value!r} is not an ISO 8601 date or date-time", hint=_DATE_FORMS)


def reset(
    ctx: typer.Context,
    ledger: LedgerOpt = None,
) -> None:
    """Start a clean ledger."""
    path = ledger_path(ctx, ledger)
    saved = reset_ledger(path)
    if saved is not None:
        _warn(f"the unreadable old ledger was kept as {saved}")
    _echo(f"ledger reset: {path}")


_ACCESSED_HELP = "Access date, ISO 8601 (2024-01-31 or 2024-01-31T14:05Z; default: today)."


def add(
    ctx: typer.Context,
    urls: Annotated[
        list[str], typer.Argument(metavar="URL...", help="http(s) URL, doi:10.x/y or arXiv:id.")
    ],
    title: Annotated[str | None, flag("--title", "TEXT", "Title (one-URL calls).")] = None,
    accessed: Annotated[str | None, flag("--accessed", "DATE", _ACCESSED_HELP)] = None,
    as_json: JsonOpt = False,
    ledger: LedgerOpt = None,
) -> None:
    """Register source URL(s) and print their ids as `[n] url`."""
    path = ledger_path(ctx, ledger)
    canonical, refused = _check_urls(path, urls)
    errors: list[CiteledgerError] = list(refused.values())
    problems = [f"argument {n + 1}: {exc.line()}" for n, exc in refused.items()]
    date = today()
    if accessed:
        try:
            date = _check_accessed(accessed)
        except BadInput as exc:
            errors.append(exc)
            problems.append(exc.line())
    if len(errors) == 1 and len(urls) == 1:
        raise errors[0]
    if errors:
        raise BadInput(
            f"nothing added, {len(errors)} bad argument(s): " + "; ".join(problems),
            hint="fix or drop each one and run add again: a batch is added whole or not at all",
        )
    if title and len(urls) > 1:
        _warn("--title is ignored when several URLs are added at once")
        title = None
    with transaction(path) as book:
        pairs = zip(urls, canonical, strict=True)
        entries = [_register(book, raw, key, title or "", date) for raw, key in pairs]
    if as_json:
        _echo(json.dumps([e.to_dict() for e in entries], indent=2, ensure_ascii=False))
    else:
        for e in entries:
            _echo(f"[{e.id}] {e.url}")


def _check_urls(path: Path, urls: list[str]) -> tuple[list[str | None], dict[int, BadURL]]:
    """Every argument's canonical URL, checked before the ledger is touched (a bad one changes
    nothing), and the refusals by position. An argument that is no URL but names an entry of a
    ledger sources.py wrote (it stored any text, e.g. ``example.com/page``) is not refused: its
    canonical form is None and ``_register`` prints that entry's id."""
    canonical: list[str | None] = []
    refused: dict[int, BadURL] = {}
    for n, raw in enumerate(urls):
        try:
            canonical.append(normalize_url(raw))
        except BadURL as exc:
            canonical.append(None)
            refused[n] = exc
    if refused:
        try:
            book = load_ledger(path, missing_ok=True)
        except CiteledgerError:  # the transaction reports it if the URLs are fine
            return canonical, refused
        refused = {n: exc for n, exc in refused.items() if book.find_url(urls[n]) is None}
    return canonical, refused


def _register(book: Ledger, raw: str, canonical: str | None, title: str, date: str) -> Source:
    if canonical is not None:
        return book.add(canonical, title=title, accessed=date)[0]
    existing = book.find_url(raw)
    if existing is None:  # a reset removed it since the check: refuse, nothing is written
        raise BadURL(
            f"{raw!r} is not a URL and no longer in ledger {book.path}",
            hint="give a full http(s) URL",
        )
    book.fill_title(existing, title)
    _warn(
        f"[{existing.id}] {existing.url} is not an http(s) URL: an entry carried over from an "
        "older ledger, cited as it stands"
    )
    return existing


def urls_from_json(payload: Any) -> list[tuple[str, str]]:
    """Every object's ``url``/``link``/``source_url`` with its ``title``/``name``, in document
    order, de-duplicated by URL identity. Values that are not URLs the ledger accepts are
    skipped with a warning (tool output carries ``javascript:`` links and the like)."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    stack: list[Any] = [payload]
    while stack:  # iterative: deeply nested tool output must not hit the recursion limit
        node = stack.pop()
        if isinstance(node, dict):
            raw = next(
                (
                    node[k]
                    for k in ("url", "link", "source_url")
                    if isinstance(node.get(k), str) and node[k].strip()
                ),
                None,
            )
            if raw is not None:
                try:
                    key = normalize_url(raw)
                except CiteledgerError as exc:
                    _warn(f"skipped {exc.message}")
                else:
                    if key not in seen:
                        seen.add(key)
                        name = node.get("title") or node.get("name") or ""
                        found.append((key, name if isinstance(name, str) else ""))
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return found


def _read_text_input(source: str, what: str) -> str:
    if source == "-":
        data = read_stream(
            sys.stdin.buffer,
            limit=MAX_INPUT_BYTES,
            what=f"{what} on standard input",
            error=BadInput,
        )
        where = "standard input"
    else:
        data = read_file(
            source,
            limit=MAX_INPUT_BYTES,
            what=what,
            error=BadInput,
            missing_hint="check the path, or use - for stdin",
        )
        where = source
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{what} {where} is not UTF-8 (bad byte at offset {exc.start})") from None


def ingest(
    ctx: typer.Context,
    file: Annotated[
        str, typer.Argument(metavar="FILE|-", help="JSON tool output, or - for stdin.")
    ],
    ledger: LedgerOpt = None,
) -> None:
    """Register every URL found in JSON tool output (search results, extracts)."""
    path = ledger_path(ctx, ledger)
    raw = _read_text_input(file, "JSON input")
    where = "standard input" if file == "-" else file
    try:
        payload = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"{where} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            hint="pass the tool's raw JSON output",
        ) from None
    except RecursionError:
        raise BadInput(f"{where} nests too deeply to read") from None
    except ValueError as exc:  # a number of thousands of digits, say
        raise BadInput(f"{where} is not JSON citeledger can read ({exc})") from None
    pairs = urls_from_json(payload)
    if not pairs:
        raise NothingFound(
            f"no URLs found in {where}", hint="expected objects with url, link or source_url"
        )
    date = today()
    with transaction(path) as book:
        entries = [book.add(url, title=name, accessed=date)[0] for url, name in pairs]
    for e in entries:
        _echo(f"[{e.id}] {e.url}")


def _parse_id(value: str) -> int:
    """A ledger id as typed (``3`` or ``[3]``): ASCII digits only (``²`` or ``٣`` is no id)."""
    text = value.strip().strip("[]")
    if not re.fullmatch(r"[0-9]{1,7}", text) or not 1 <= int(text) <= MAX_ID:
        shown = value if len(value) <= 20 else value[:17] + "..."
        raise BadInput(
            f"{shown!r} is not a ledger id",
            hint=f"give the number n of a source [n], 1 to {MAX_ID}",
        )
    return int(text)


def quote(
    ctx: typer.Context,
    source_id: Annotated[str, typer.Argument(metavar="ID", help="Ledger id the quote supports.")],
    text: Annotated[str, flag("--text", "TEXT", "The exact quote, copied from the page.")],
    evidence: Annotated[str, flag("--from", "FILE|-", "The fetched page (text/HTML/PDF), or -.")],
    ledger: LedgerOpt = None,
) -> None:
    """Attach verbatim supporting evidence to a source."""
    from ..evidence import read_evidence

    path = ledger_path(ctx, ledger)
    sid = _parse_id(source_id)
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
    _echo(f"[{sid}] evidence attached ({count} quote(s))")


def _keep_evidence_text(ledger: Path, text: str) -> str:
    """The evidence trail (``ledger/evidence_store.py``): the matched text, kept by digest."""
    from ..ledger.evidence_store import evidence_dir, store_text

    return store_text(evidence_dir(ledger), text)


def list_sources(
    ctx: typer.Context,
    as_json: JsonOpt = False,
    ledger: LedgerOpt = None,
) -> None:
    """Show the ledger."""
    path, why = ledger_location(ctx, ledger)
    sources = pick_sources(load_ledger(path, missing_ok=True), None)
    if as_json:
        _echo(json.dumps([s.to_dict() for s in sources], indent=2, ensure_ascii=False))
        return
    if not sources:
        # Which ledger and why: an agent that expected sources learns it is looking elsewhere.
        _echo(f"ledger is empty: {path} ({why})")
        return
    for s in sources:
        title = f"  {s.display_title}" if s.title else ""
        n = len(s.quotes)
        mark = f"  ({n} quote{'s' if n != 1 else ''})" if n else ""
        _echo(f"[{s.id}] {s.url}{title}{mark}")


def _draft_ids(draft: str) -> list[int]:
    path = Path(draft)
    if not path.is_file():
        raise DraftError(f"no draft file {draft}", hint="check the path")
    from citeledger.verify.markers import cited_ids_in_file

    return list(cited_ids_in_file(path))


def _refuse_non_markdown(draft: str) -> None:
    """The block is markdown: written into an HTML page it would land after ``</html>``."""
    from ..pandoc import TEXT_FORMATS, format_for

    fmt = format_for(draft)
    if fmt not in TEXT_FORMATS:
        raise BadInput(
            f"--replace-in {draft}: a {fmt} file, not a markdown draft",
            hint="rewrite the markdown draft it was built from, then build it again",
        )


_REPLACE_IN_HELP = "Rewrite this draft's trailing Sources block in place (implies --cited-in)."


def render(
    ctx: typer.Context,
    style: Annotated[
        str, flag("--style", "STYLE", "markdown, plain, footnotes, bibtex or evidence.")
    ] = "markdown",
    only: Annotated[str | None, flag("--only", "IDS", "Ids to include, e.g. 1,3,5-7.")] = None,
    cited_in: Annotated[
        str | None, flag("--cited-in", "DRAFT", "Include only the ids this draft cites.")
    ] = None,
    replace_in: Annotated[str | None, flag("--replace-in", "DRAFT", _REPLACE_IN_HELP)] = None,
    ledger: LedgerOpt = None,
) -> None:
    """Render a Sources block."""
    if style not in STYLES:
        raise BadInput(f"unknown --style {style!r}", hint="use one of " + ", ".join(STYLES))
    if replace_in and style not in HEADED_STYLES:
        raise BadInput(
            f"--replace-in cannot place a {style} block",
            hint="use --style " + ", ".join(HEADED_STYLES) + "; or print the block and paste it",
        )
    if replace_in:
        _refuse_non_markdown(replace_in)
    path = ledger_path(ctx, ledger)
    wanted = parse_id_spec(only) if only else None
    book = load_ledger(path, missing_ok=True)
    draft = replace_in or cited_in
    if draft:
        cited = _draft_ids(draft)
        absent = [i for i in cited if book.get(i) is None]
        if absent:
            _warn(f"{draft} cites {', '.join(f'[{i}]' for i in absent)}, not in ledger {path}")
        wanted = set(cited) if wanted is None else wanted & set(cited)
    block = render_block(book, wanted, style)
    if not block:
        raise NothingFound("no sources to render", hint=f"ledger {path}")
    if replace_in:
        from ..outputs import write_bytes

        target = Path(replace_in)
        try:
            original = read_file(
                target,
                limit=MAX_INPUT_BYTES,
                what="draft",
                error=DraftError,
                missing_hint="check the path of the draft",
            ).decode("utf-8")
        except UnicodeDecodeError:
            raise DraftError(f"draft {replace_in} is not UTF-8 text") from None
        updated = _replace_block(target, original, block)
        if updated != original:
            # The draft is edited where it lives: through a symlinked draft, its target.
            write_bytes(target, updated.encode("utf-8"), follow=True)
        _echo(f"Sources block rewritten in {target}")
        return
    _echo(block)


def _replace_block(target: Path, original: str, block: str) -> str:
    """The draft with its Sources block replaced. A markdown draft is checked through pandoc:
    the block its lines name must be the one pandoc reads, and the new draft must read as the
    old one with only the block changed; otherwise nothing is written."""
    from ..pandoc import TEXT_FORMATS, format_for, run_pandoc
    from ..verify.sources_block import AmbiguousBlock, replace_in_text

    fmt = format_for(target)

    def read(text: str) -> Any:
        return json.loads(run_pandoc(["-f", fmt, "-t", "json"], stdin=text, what=str(target)))

    markdown = fmt.split("+", 1)[0] in TEXT_FORMATS
    try:
        return replace_in_text(original, block, read=read if markdown else None)
    except AmbiguousBlock as exc:
        raise DraftError(
            f"render --replace-in {target}: cannot tell which lines are its Sources block: {exc}",
            hint="replace the block by hand (citeledger render --cited-in DRAFT prints it)",
        ) from None


def register(app: typer.Typer) -> None:
    """Add the ledger verbs and the global ``--ledger`` option to ``app``."""
    app.callback()(_main_callback)
    app.command("reset")(reset)
    app.command("add")(add)
    app.command("ingest")(ingest)
    app.command("quote")(quote)
    app.command("list")(list_sources)
    app.command("render")(render)
