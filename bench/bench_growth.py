"""Rows at growing sizes (issue 37): each measure at each size side by side with its baseline,
so that a ratio that grows with the size shows where cost grows faster than the work.

- ledgers of 100, 1,000, 10,000 and 50,000 sources: ``add``, ``quote`` (a new quote each run,
  so each run writes), ``list`` and ``verify`` of a one-page draft, each process against the
  install's Python reading the ledger and parsing it with json (what sources.py does at every
  call: a baseline that grows with the ledger, :data:`READ_JSON`; verify: plus ``pandoc -t
  json`` of the page), and ``add`` at 10,000 sources against ``python -c pass`` as well (the
  issue's absolute target);
- reports of 1.7, 5 and 10 MB and one of about 100,000 citations: ``verify`` against ``pandoc
  -t json``, the filter against plain ``pandoc -t docx``, ``convert`` to html, docx and pptx
  against the three plain ``pandoc -o`` runs;
- wikis of 500, 2,000 and 5,000 pages (3.2 KB a page) against one plain conversion of the draft.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

import bench_agent
import bench_filter
import bench_wiki
from measure import Row, side_by_side
from measure import command as plain_command

from citeledger.ledger import Quote, load_ledger, today, transaction
from citeledger.pandoc import pandoc_path, run_pandoc
from citeledger.publish.wiki import FORMATS, build_wiki

NEEDLES = 200
# Every process here is timed with its peak memory (see measure.py).
command = partial(plain_command, peak=True)


def _size(n: int, unit: str) -> str:
    return f"{n:,} {unit}"


def _ledger(folder: Path, n: int) -> None:
    """``n`` sources (the first ten with a quote each), a page with a sentence for each run's
    new quote, and the one-page draft of bench_agent citing the first ten."""
    with transaction(folder / "ledger.json") as book:
        for i in range(1, n + 1):
            source = book.add(f"https://example.org/sea-ice/{i}", title=f"Sea ice {i}")[0]
            if i <= 10:
                book.add_quote(source, Quote(text=bench_agent.QUOTE, added=today()))
    sentences = [f"Needle sentence number {k} sits on this page." for k in range(NEEDLES)]
    (folder / "page.txt").write_text(
        bench_agent.PAGE + "\n".join(sentences) + "\n", encoding="utf-8"
    )


# What sources.py does at every call, and so the least a ledger call can cost: read the ledger
# and parse it with json. It grows with the ledger as every call's work does, so a ratio against
# it that stays flat is cost that grows no faster than the work (against ``python -c pass``,
# which does not grow, no call that reads its ledger could look linear).
READ_JSON = "import json, sys; json.loads(open(sys.argv[1], 'rb').read())"
JSON_BASELINE = "python: read + json.loads of the ledger"


def ledger_rows(work: Path, bin_dir: Path, sizes: list[int], runs: int) -> list[Row]:
    """add, quote, list and verify at each size against :data:`READ_JSON` (the growth rows),
    and at 10,000 sources against ``python -c pass`` too (the issue's absolute target)."""
    python = command([str(bin_dir / "python"), "-c", "pass"], work)
    cl = [str(bin_dir / "citeledger"), "--ledger", "ledger.json"]
    rows: list[Row] = []
    for n in sizes:
        folder = work / f"ledger-{n}"
        folder.mkdir()
        _ledger(folder, n)
        draft = bench_agent.prepare_draft(folder)
        counter = iter(range(10**9))
        needle = iter(range(NEEDLES))
        read_json = command([str(bin_dir / "python"), "-c", READ_JSON, "ledger.json"], folder)

        def add(folder: Path = folder, counter=counter) -> None:
            command([*cl, "add", f"https://example.org/new/{next(counter)}"], folder)()

        def quote(folder: Path = folder, needle=needle) -> None:
            text = f"needle sentence number {next(needle)} sits on this page"
            command([*cl, "quote", "1", "--text", text, "--from", "page.txt"], folder)()

        parse = command([pandoc_path(), "-f", "markdown", "-t", "json", draft.name], folder)

        def json_and_parse(read_json: Callable[[], None] = read_json, parse=parse) -> None:
            read_json()
            parse()

        measures: list[tuple[str, str, Callable[[], None], Callable[[], None]]] = [
            ("citeledger add URL", JSON_BASELINE, read_json, add),
            ("citeledger quote N --text --from page.txt", JSON_BASELINE, read_json, quote),
            ("citeledger list", JSON_BASELINE, read_json, command([*cl, "list"], folder)),
            (
                "citeledger verify, one page",
                JSON_BASELINE + " + pandoc -t json",
                json_and_parse,
                command([*cl, "verify", draft.name], folder),
            ),
        ]
        for what, baseline, base, ours in measures:
            b, o = side_by_side(base, ours, runs)
            series = f"{what.split(' ')[1].rstrip(',')}, ledger"
            rows.append(Row(what, _size(n, "sources"), baseline, b, o, "", series, n))
        if n == 10_000:
            b, o = side_by_side(python, add, runs)
            rows.append(
                Row("citeledger add URL", _size(n, "sources"), "python -c pass", b, o, "<= 3.0x")
            )
    return rows


# The rows of :func:`report_rows`, each of which may be measured alone.
REPORT_MEASURES = frozenset({"verify", "filter", "convert"})


def report_rows(
    work: Path,
    bin_dir: Path,
    sizes_kb: list[int],
    runs: int,
    keep: Callable[[list[Row]], None] | None = None,
    measures: frozenset[str] = REPORT_MEASURES,
) -> list[Row]:
    """verify, the filter (docx) and convert on reports of growing size; the last size
    given is made dense (every sentence cited: about 24,000 citations a MB). ``keep`` hears
    the rows measured so far after each size: a 10 MB report takes most of an hour on a
    busy machine, and a run cut short keeps the sizes it finished. ``measures``: which of
    the rows to measure (each row measures the same whichever others are measured)."""
    pandoc = pandoc_path()
    folder = work / "reports"
    folder.mkdir(exist_ok=True)  # a run of two report steps makes the same reports again
    flt = str(bin_dir / "pandoc-citeledger")
    cl = [str(bin_dir / "citeledger"), "--ledger", "ledger.json"]
    env = {**os.environ, "CITELEDGER_LEDGER": str(folder / "ledger.json")}
    rows: list[Row] = []
    for k, kb in enumerate(sizes_kb):
        dense = k == len(sizes_kb) - 1 and len(sizes_kb) > 1
        draft = bench_filter.make_report(folder, kb, dense=dense)
        text = draft.read_text(encoding="utf-8")
        cites = text[: text.rindex("## Sources")].count("]")
        size = f"{draft.stat().st_size / 1e6:.1f} MB" + (f", {cites:,} citations" if dense else "")
        x = float(draft.stat().st_size)
        name = draft.name
        tag = "dense" if dense else ""
        if "verify" in measures:
            rows.append(_verify_row(pandoc, cl, folder, name, size, x, tag, runs))
        if "filter" in measures:
            rows.append(_filter_row(pandoc, flt, folder, env, name, size, x, tag, runs))
        if "convert" in measures:
            rows.append(_convert_row(pandoc, cl, folder, name, size, x, dense, tag, runs))
        if keep is not None:
            keep(rows)
    return rows


def _verify_row(
    pandoc: str, cl: list[str], folder: Path, name: str, size: str, x: float, tag: str, runs: int
) -> Row:
    parse = command([pandoc, "-f", "markdown", "-t", "json", name], folder)
    b, o = side_by_side(parse, command([*cl, "verify", name], folder), runs, warm=False)
    series = _s("verify", tag)
    return Row("citeledger verify (process)", size, "pandoc -t json", b, o, "", series, x)


def _filter_row(
    pandoc: str,
    flt: str,
    folder: Path,
    env: dict[str, str],
    name: str,
    size: str,
    x: float,
    tag: str,
    runs: int,
) -> Row:
    plain = command([pandoc, name, "-o", "plain.docx"], folder, env)
    filtered = command([pandoc, name, "-o", "filter.docx", "--filter", flt], folder, env)
    b, o = side_by_side(plain, filtered, runs, warm=False)
    what = "pandoc --filter pandoc-citeledger -t docx"
    return Row(what, size, "pandoc -t docx", b, o, "", _s("filter docx", tag), x)


def _convert_row(
    pandoc: str,
    cl: list[str],
    folder: Path,
    name: str,
    size: str,
    x: float,
    dense: bool,
    tag: str,
    runs: int,
) -> Row:
    def three() -> None:
        for fmt in ("html", "docx", "pptx"):
            command([pandoc, name, "-o", f"plain.{fmt}"], folder)()

    convert = [*cl, "convert", name, "-o", "c.html", "-o", "c.docx", "-o", "c.pptx"]
    b, o = side_by_side(three, command(convert, folder), runs, warm=False)
    target = "<= 0.75x" if not dense else ""
    return Row(
        "citeledger convert -o html -o docx -o pptx",
        size,
        "3 x pandoc -o, one after another",
        b,
        o,
        target,
        _s("convert", tag),
        x,
    )


def _s(name: str, tag: str) -> str:
    """The series a report row belongs to: the dense report is a point of its own."""
    return "" if tag else f"{name}, report"


def wiki_rows(work: Path, pages_list: list[int], runs: int) -> list[Row]:
    rows: list[Row] = []
    fmt = FORMATS["gfm"]
    for pages in pages_list:
        folder = work / f"wiki-{pages}"
        folder.mkdir()
        draft = folder / "draft.md"
        draft.write_text(bench_wiki.make_draft(pages, pages * 3200, 500), encoding="utf-8")
        (folder / "ledger.json").write_text(bench_wiki.make_ledger(500), encoding="utf-8")
        ledger = load_ledger(folder / "ledger.json")

        def plain(draft: Path = draft) -> None:
            run_pandoc([str(draft), "-f", "markdown", "-t", fmt.writer, *fmt.args])

        def wiki(draft: Path = draft, folder: Path = folder, ledger=ledger) -> None:
            build_wiki([draft], folder / "out", ledger, fmt="gfm", say=lambda _l: None)

        b, o = side_by_side(plain, wiki, runs, warm=False)
        size = f"{pages:,} pages, {draft.stat().st_size / 1e6:.1f} MB"
        target = "<= 1.2x" if pages == 500 else ""
        rows.append(
            Row(
                "citeledger wiki (in-process)",
                size,
                "pandoc -t gfm, whole draft",
                b,
                o,
                target,
                "wiki, pages",
                pages,
            )
        )
    return rows
