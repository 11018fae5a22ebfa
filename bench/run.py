"""All of citeledger's speed figures in one run, as ratios against the obvious baseline.

    python bench/run.py                # the full run (half an hour on a busy 2-core machine)
    python bench/run.py --quick        # a smoke run on small inputs (a few minutes)
    python bench/run.py --record       # also write bench/RESULTS.md
    python bench/run.py --plot         # also draw bench/growth.svg (ratio against size)
    python bench/run.py --only quote --record --merge   # redo some rows, keep the others

Every console script is timed as a user runs it: a wheel of this checkout is built and
installed with its dependencies into a throwaway virtual environment (``install.py``), and its
scripts are timed beside that environment's own ``python -c pass`` (``--here`` times this
Python's scripts instead, for a quick look during development).

One table, every pair measured side by side in the same run (runs alternate between the
baseline and citeledger, so both see the same machine load):

- the filter inside pandoc against plain pandoc, for docx, latex and pptx, on generated reports
  of 100 KB, 400 KB and 1.6 MB (500 sources, about 60% of sentences cited);
- ``citeledger convert -o x.html -o x.docx -o x.pptx`` on the 1.6 MB report against the three
  plain ``pandoc -o`` runs it replaces, one after another (and the same with ``-j 1``);
- ``citeledger verify`` against ``pandoc -f markdown -t json`` on the same reports (the whole
  command, and the verifier's own work in-process);
- ``citeledger add`` against ``python -c pass``; add into ledgers of 100, 1,000 and 10,000
  sources; ingest of 100, 1,000 and 10,000 search results (per source, against the 100 case);
- an agent's calls (bench_agent): ``add``, ``quote`` and ``list`` against ``python -c pass``,
  ``verify`` of a one-page draft against ``python -c pass`` plus ``pandoc -t json``, and
  ``verify`` and ``add`` as calls to one running ``citeledger mcp`` server;
- a 500-page wiki build from one 1.6 MB draft against one pandoc conversion of that draft;
- ``citeledger quote`` on a 50 MB page against reading, hashing and decoding the page;
- the growth rows (``bench_growth``): ledgers of 100 to 50,000 sources, reports of 1.7 to 10 MB
  and one of about 100,000 citations, wikis of 500 to 5,000 pages; each measure's ratio at its
  largest size against its ratio at its smallest is the growth table (target at most 1.15).

Peak memory (the largest resident set of any process of a measured command) stands beside the
times where the command is a process.

Wall times are medians; CPU times (this process plus the children it waited for) are printed
beside them because they are steadier on a shared machine. The generators and helpers come from
the per-area benchmarks (bench_filter, bench_verify, bench_ledger, bench_wiki); this file only
schedules and tabulates.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import bench_agent
import bench_filter
import bench_growth
import bench_support
import install
import plot
from measure import Row, Sample, command, measure, side_by_side

from citeledger.document.markers import scan
from citeledger.ledger import load_ledger
from citeledger.pandoc import pandoc_path, pandoc_version, run_pandoc
from citeledger.verify import verify

HERE = Path(__file__).resolve().parent


# The folder of the console scripts and the Python timed (the bench's own install).
BIN = Path(sys.executable).parent


def _python() -> str:
    return str(BIN / "python") if (BIN / "python").exists() else sys.executable


def _script(name: str) -> str:
    """The console script of the timed install: a version manager's shim found first on PATH
    (pyenv's is a shell script) would add its own start to every run."""
    beside = BIN / name
    found = str(beside) if beside.exists() else shutil.which(name) or str(beside)
    if not Path(found).exists():
        sys.exit(f"{name} is not installed: pip install -e .")
    return found


def _kb(path: Path) -> str:
    size = path.stat().st_size
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.0f} KB"


# --- the measurements -----------------------------------------------------------------------------


def filter_rows(work: Path, drafts: list[Path], nominal_kb: list[int], runs: int) -> list[Row]:
    """Targets (issue 4): at most 2.2x at 400 KB and 2.0x at 1.6 MB, for every format."""
    pandoc, flt = pandoc_path(), _script("pandoc-citeledger")
    env = {**os.environ, "CITELEDGER_LEDGER": str(work / "ledger.json")}
    rows = []
    target = {400: "<= 2.2x", 1600: "<= 2.0x"}
    for draft, nominal in zip(drafts, nominal_kb, strict=True):
        for fmt, out in (("docx", "x.docx"), ("latex", "x.tex"), ("pptx", "x.pptx")):
            plain = [pandoc, draft.name, "-o", f"plain-{out}"]
            with_filter = [pandoc, draft.name, "-o", f"filter-{out}", "--filter", flt]
            b, o = side_by_side(command(plain, work, env), command(with_filter, work, env), runs)
            size = _kb(draft)
            rows.append(
                Row(
                    f"pandoc --filter pandoc-citeledger -t {fmt}",
                    size,
                    f"pandoc -t {fmt}",
                    b,
                    o,
                    target.get(nominal, ""),
                )
            )
    return rows


def convert_rows(work: Path, draft: Path, runs: int) -> list[Row]:
    """Issue 24: one ``citeledger convert`` to html, docx and pptx (read once, verified once,
    the outputs written at the same time) against the three plain ``pandoc -o`` runs it
    replaces, one after another: issue 24's goal was at most 1.0x, issue 37's is at most 0.75x.
    Also with ``-j 1`` (one output at a time), to show what the parallel writers bring on this
    machine."""
    pandoc = pandoc_path()
    outputs = ("html", "docx", "pptx")

    def plain() -> None:
        for fmt in outputs:
            command([pandoc, draft.name, "-o", f"plain.{fmt}"], work)()

    cli = [_script("citeledger"), "--ledger", "ledger.json", "convert", draft.name]
    for fmt in outputs:
        cli += ["-o", f"convert.{fmt}"]
    baseline = "3 x pandoc -o, one after another"
    what = "citeledger convert -o html -o docx -o pptx"
    b, o = side_by_side(plain, command(cli, work, _bytecode_env()), runs)
    rows = [Row(what, _kb(draft), baseline, b, o, "<= 0.75x")]
    b, o = side_by_side(plain, command([*cli, "-j", "1"], work, _bytecode_env()), runs)
    rows.append(Row(f"{what} -j 1", _kb(draft), baseline, b, o))
    return rows


def _bytecode_env() -> dict[str, str]:
    """An installed citeledger has its bytecode compiled (pip does it); a session that sets
    PYTHONDONTWRITEBYTECODE would time the compiler at every start instead."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def verify_rows(work: Path, drafts: list[Path], runs: int) -> list[Row]:
    pandoc = pandoc_path()
    ledger_path = work / "ledger.json"
    ledger = load_ledger(ledger_path)
    rows = []
    for draft in drafts:
        parse = [pandoc, "-f", "markdown", "-t", "json", draft.name]
        cli = [_script("citeledger"), "verify", draft.name, "--ledger", "ledger.json"]
        b, o = side_by_side(command(parse, work), command(cli, work), runs)
        goal = "<= 1.5x" if draft == drafts[-1] and len(drafts) > 1 else ""
        rows.append(Row("citeledger verify (process)", _kb(draft), "pandoc -t json", b, o, goal))
        raw = run_pandoc(parse[1:], cwd=work)
        text = draft.read_text(encoding="utf-8")

        def own_work(raw: bytes = raw, text: str = text, name: str = draft.name) -> None:
            doc = json.loads(raw)
            verify(doc, ledger, scan=scan(doc), source_name=name, source_text=text)

        b, o = side_by_side(command(parse, work), own_work, runs)
        rows.append(
            Row("verify, own work (in-process)", _kb(draft), "pandoc -t json", b, o, "<= 0.5x")
        )
    return rows


def ledger_rows(work: Path, sizes: list[int], runs: int) -> list[Row]:
    for name in [k for k in os.environ if k.endswith("_LEDGER")]:
        del os.environ[name]
    cl = [_script("citeledger")]
    env = _bytecode_env()
    baseline = command([_python(), "-c", "pass"], work, env)
    counter = iter(range(10**9))

    def add_into(ledger: str) -> Callable[[], None]:
        def run() -> None:
            url = f"https://example.org/new/{next(counter)}"
            command([*cl, "--ledger", ledger, "add", url], work, env)()

        return run

    b, o = side_by_side(baseline, add_into("empty.json"), max(runs, 5))
    rows = [Row("citeledger add URL", "new ledger", "python -c pass", b, o, "<= 3.0x")]
    per_source: dict[int, Sample] = {}
    for n in sizes:
        results = {
            "results": [{"url": f"https://example.org/r/{i}", "title": f"R {i}"} for i in range(n)]
        }
        (work / f"search-{n}.json").write_text(json.dumps(results), encoding="utf-8")
        samples = []
        for r in range(runs):
            ingest = [*cl, "--ledger", f"ingest-{n}-{r}.json", "ingest", f"search-{n}.json"]
            samples.append(measure(command(ingest, work, env)))
        wall = statistics.median(s.wall for s in samples) / n
        cpu = statistics.median(s.cpu for s in samples) / n
        per_source[n] = Sample(wall, cpu)
    first = sizes[0]
    for n in sizes:
        rows.append(
            Row(
                "citeledger ingest, per source",
                f"{n:,} results",
                f"per source at {first:,}",
                per_source[first],
                per_source[n],
                "<= 1x (linear)" if n != first else "",
            )
        )
    return rows


_AGENT_BASELINES = {
    "add": ("citeledger add URL", "python -c pass"),
    "quote": ("citeledger quote N --text --from page.txt", "python -c pass"),
    "list": ("citeledger list", "python -c pass"),
    "verify": ("citeledger verify, one page", "python -c pass + pandoc -t json"),
}


def agent_rows(work: Path, runs: int) -> list[Row]:
    """An agent's calls (bench_agent): each process against the least a process costs, and
    verify and add through one ``citeledger mcp`` server against pandoc and python alone."""
    folder = work / "agent"
    folder.mkdir()
    draft = bench_agent.prepare(folder)
    rows = []
    for name, (base, ours) in bench_agent.process_calls(folder, draft, BIN).items():
        b, o = side_by_side(base, ours, max(runs, 5))
        what, baseline = _AGENT_BASELINES[name]
        rows.append(Row(what, "10 sources", baseline, b, o, "<= 1.5x"))
    try:
        seen = bench_agent.mcp_seconds(folder, draft, max(runs, 5), BIN)
    except ImportError:
        print("  (mcp rows skipped: pip install 'citeledger[mcp]')", file=sys.stderr)
        return rows
    # The server's CPU is not this process's nor a child's it waited for: wall time only.
    med = {k: Sample(statistics.median(v), float("nan")) for k, v in seen.items()}
    what = "verify through citeledger mcp (a call)"
    rows.append(Row(what, "one page", "pandoc -t json", med["pandoc"], med["verify"], "<= 1.5x"))
    what = "add through citeledger mcp (a call)"
    rows.append(Row(what, "10 sources", "python -c pass", med["python"], med["add"], "<= 20 ms"))
    return rows


def quote_row(work: Path, megabytes: int, runs: int) -> Row:
    folder = work / "quote"
    folder.mkdir()
    page = folder / "page.txt"
    paragraph = (
        "Ice shelves [calve](https://example.org/x) icebergs when cracks *reach* the sea; the "
        "\u2014 process is \u201cslow\u201d until it is not, and nobody can say when.\n"
    ).encode()
    with page.open("wb") as fh:
        for _ in range(megabytes * 1_000_000 // len(paragraph)):
            fh.write(paragraph)
        for k in range(runs + 2):
            fh.write(f"Needle sentence number {k} is at the very end.\n".encode())
    (folder / "ledger.json").write_text(
        json.dumps({"version": 1, "sources": [{"id": 1, "url": "https://example.org/page"}]}),
        encoding="utf-8",
    )
    floor = [
        _python(),
        "-c",
        "import hashlib, sys; d = open(sys.argv[1], 'rb').read(); "
        "hashlib.sha256(d).hexdigest(); d.decode('utf-8')",
        "page.txt",
    ]
    counter = iter(range(runs + 2))

    def quote() -> None:
        text = f"needle sentence number {next(counter)} is at the very end"
        argv = [_script("citeledger"), "--ledger", "ledger.json", "quote", "1"]
        command([*argv, "--text", text, "--from", "page.txt"], folder, peak=True)()

    b, o = side_by_side(command(floor, folder, peak=True), quote, runs)
    what = "citeledger quote --from PAGE"
    return Row(
        what, _kb(page), "read + sha256 + decode", b, o, "<= 3.0x" if megabytes >= 50 else ""
    )


# --- the table ------------------------------------------------------------------------------------

HEADER = (
    "measurement",
    "input",
    "baseline",
    "baseline time",
    "citeledger time",
    "ratio",
    "cpu ratio",
    "peak memory (baseline / citeledger)",
)


def seconds(t: float) -> str:
    if t >= 0.1:
        return f"{t:.2f} s"
    if t >= 0.001:
        return f"{t * 1000:.1f} ms"
    return f"{t * 1e6:.0f} us"


def megabytes(kb: int) -> str:
    return f"{kb / 1024:.0f} MB" if kb else "n/a"


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| " + " | ".join(HEADER) + " | target |",
        "|" + "|".join(["---"] * 3 + ["---:"] * 5 + ["---"]) + "|",
    ]
    for r in rows:
        peak = (
            f"{megabytes(r.base.peak_kb)} / {megabytes(r.ours.peak_kb)}"
            if r.ours.peak_kb
            else "n/a"
        )
        cells = [
            r.what,
            r.size,
            r.baseline,
            seconds(r.base.wall),
            seconds(r.ours.wall),
            f"{r.ratio:.2f}x",
            f"{r.cpu_ratio:.2f}x" if r.cpu_ratio == r.cpu_ratio else "n/a",  # nan: not measured
            peak,
            r.target,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


GROWTH_TARGET = 1.15


def growth_table(rows: list[Row]) -> list[str]:
    """Each measure's ratio at its largest size against its ratio at its smallest (wall and
    CPU): at most 1.15 is cost that grows no faster than the work."""
    lines = [
        "| measure | sizes | ratio, smallest | ratio, largest | growth | cpu growth | target |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for name, rs in plot.series(rows).items():
        first, last = rs[0], rs[-1]
        growth = last.ratio / first.ratio
        cpu = last.cpu_ratio / first.cpu_ratio if first.cpu_ratio == first.cpu_ratio else 0
        lines.append(
            f"| {name} | {first.size} to {last.size} | {first.ratio:.2f}x | {last.ratio:.2f}x "
            f"| {growth:.2f} | {cpu:.2f} | <= {GROWTH_TARGET} |"
        )
    return lines


def machine() -> list[str]:
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return [
        f"- cores: {os.cpu_count()}{f' ({model})' if model else ''}",
        f"- load average when the run started: {_load()}",
        f"- Python {platform.python_version()} on {platform.system()} {platform.machine()}",
        f"- pandoc {'.'.join(map(str, pandoc_version()))}",
    ]


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def main() -> None:
    global BIN
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small inputs, one run each")
    ap.add_argument("--runs", type=int, default=None, help="runs per measurement (default 3)")
    ap.add_argument("--record", action="store_true", help="write bench/RESULTS.md")
    ap.add_argument("--plot", action="store_true", help="draw bench/growth.svg")
    ap.add_argument("--here", action="store_true", help="time this Python's scripts, no install")
    ap.add_argument(
        "--merge",
        action="store_true",
        help="with --record: keep the rows of results.json this run does not measure again",
    )
    ap.add_argument(
        "--replot", action="store_true", help="only redraw growth.svg from results.json"
    )
    ap.add_argument(
        "--only",
        default="",
        help="comma-separated steps (filter, convert, verify, ledger, "
        "agent, quote, growth-ledger, growth-report, growth-convert, growth-verify, growth-filter, "
        "growth-wiki)",
    )
    args = ap.parse_args()
    if args.replot:
        rows = plot.load_rows(HERE / "results.json")
        svg = plot.growth_svg(rows, "citeledger: ratio to its baseline as the work grows")
        (HERE / "growth.svg").write_text(svg, encoding="utf-8")
        return
    runs = args.runs or (1 if args.quick else 3)
    big = 1 if args.quick else max(1, runs // 2)  # runs at the largest sizes
    sizes_kb = [100] if args.quick else [100, 400, 1600]
    ingest_sizes = [100, 1_000] if args.quick else [100, 1_000, 10_000]
    ledger_sizes = [100, 1_000] if args.quick else [100, 1_000, 10_000, 50_000]
    report_kb = [400, 800, 400] if args.quick else [1_700, 5_000, 10_000, 4_200]
    wiki_pages = [50, 200] if args.quick else [500, 2_000, 5_000]
    quote_mb = 5 if args.quick else 50
    started = time.perf_counter()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="citeledger-bench-") as tmp:
        work = Path(tmp)
        # A cache folder of the run's own (the record of proven ledgers, ledger/checked_texts.py):
        # every call starts as a user's first, never from this machine's earlier runs.
        os.environ["XDG_CACHE_HOME"] = str(work / "cache")
        if not args.here:
            print("installing the wheel into a throwaway venv ...", file=sys.stderr, flush=True)
            BIN = install.install(work)
            # Every command from here runs the installed wheel, not this checkout.
            os.environ.pop("PYTHONPATH", None)
        info = machine()  # the load now, after the install, as the measuring starts
        drafts = [bench_filter.make_report(work, kb) for kb in sizes_kb]
        left_now: list[str] = []  # the step being measured and those after it

        def keep(done: list[Row]) -> None:
            """A long step's rows so far, recorded as it goes (the step is named unfinished)."""
            if args.record or args.plot:
                elapsed = time.perf_counter() - started
                report(args, rows + done, info, runs, big, elapsed, left_now)

        # Cheapest first: a run cut short (a deadline, a busy machine) has recorded the most.
        steps: list[tuple[str, Callable[[], list[Row]]]] = [
            ("agent", lambda: agent_rows(work, runs)),
            ("ledger", lambda: ledger_rows(work, ingest_sizes, runs)),
            ("growth-ledger", lambda: bench_growth.ledger_rows(work, BIN, ledger_sizes, runs)),
            ("quote", lambda: [quote_row(work, quote_mb, runs)]),
            ("verify", lambda: verify_rows(work, drafts, runs)),
            ("growth-report", lambda: bench_growth.report_rows(work, BIN, report_kb, big, keep)),
            # The convert rows of growth-report alone (issue 37's target), measured the same.
            (
                "growth-convert",
                lambda: bench_growth.report_rows(
                    work, BIN, report_kb, big, keep, measures=frozenset({"convert"})
                ),
            ),
            # The verify rows of growth-report alone, at every size with the runs of the small
            # rows (growth-report runs each report once): one run of a 10 MB verify is a noisy
            # figure for a growth ratio.
            (
                "growth-verify",
                lambda: bench_growth.report_rows(
                    work, BIN, report_kb, runs, keep, measures=frozenset({"verify"})
                ),
            ),
            # The docx filter rows of growth-report alone, measured the same.
            (
                "growth-filter",
                lambda: bench_growth.report_rows(
                    work, BIN, report_kb, big, keep, measures=frozenset({"filter"})
                ),
            ),
            ("growth-wiki", lambda: bench_growth.wiki_rows(work, wiki_pages, big)),
            ("filter", lambda: filter_rows(work, drafts, sizes_kb, runs)),
            ("convert", lambda: convert_rows(work, drafts[-1], runs)),
            ("support", lambda: bench_support.run_rows(work, runs, side_by_side, Row)),
        ]
        wanted = {w for w in args.only.split(",") if w}
        # growth-convert, -verify and -filter repeat rows of growth-report: run only when named.
        by_name = ("growth-convert", "growth-verify", "growth-filter")
        todo = [(n, step) for n, step in steps if n in wanted or (not wanted and n not in by_name)]
        for k, (name, step) in enumerate(todo):
            left_now[:] = [n for n, _ in todo[k:]]
            print(f"measuring {name} ... (load {_load()})", file=sys.stderr, flush=True)
            rows += step()
            if args.record or args.plot:  # after each step: a run cut short keeps its rows
                left = [n for n, _ in todo[k + 1 :]]
                report(args, rows, info, runs, big, time.perf_counter() - started, left)
    report(args, rows, info, runs, big, time.perf_counter() - started, [], final=True)


def report(
    args: argparse.Namespace,
    rows: list[Row],
    info: list[str],
    runs: int,
    big: int,
    elapsed: float,
    left: list[str],
    final: bool = False,
) -> None:
    invocation = "python bench/run.py" + (" --quick" if args.quick else "")
    if args.runs:
        invocation += f" --runs {args.runs}"
    if args.only:
        invocation += f" --only {args.only}"
    if args.record:
        invocation += " --record"
    if args.plot:
        invocation += " --plot"
    if args.merge and (HERE / "results.json").exists():
        rows = merged(plot.load_rows(HERE / "results.json"), rows)
        invocation += " --merge"
    lines = table(rows)
    growth = growth_table(rows)
    if final:
        print("\n".join(lines))
        print()
        print("\n".join(growth))
        print(f"\n{runs} alternating run(s) per pair; {elapsed:.0f} s in all", file=sys.stderr)
    if args.plot:
        svg = plot.growth_svg(rows, "citeledger: ratio to its baseline as the work grows")
        (HERE / "growth.svg").write_text(svg, encoding="utf-8")
        if final:
            print(f"wrote {HERE.name}/growth.svg", file=sys.stderr)
    if args.record:
        where = "a throwaway venv" if not args.here else "this Python"
        doc = [
            "# Benchmark results",
            "",
            "Written by `python bench/run.py --record`. Ratios, not absolute times, are the",
            "figures that matter: absolute times depend on the machine and its load. Each pair",
            "was measured side by side in one run, alternating baseline and citeledger; wall",
            'times are medians; "cpu ratio" compares CPU seconds (process plus children),',
            "which a busy machine disturbs far less than the wall clock. Peak memory is the",
            "largest resident set of any one process of the command.",
            "",
            f"Command: `{invocation}` ({runs} run(s) per pair, {big} at the largest sizes, "
            f"{elapsed:.0f} s in all), {dt.date.today().isoformat()}. Console scripts: a wheel "
            f"of this checkout installed into {where}, beside its own `python -c pass`.",
            "",
            "Machine:",
            "",
            *info,
            "",
            *([f"Partial: the run was stopped before {', '.join(left)}.", ""] if left else []),
            *lines,
            "",
            "## Growth",
            "",
            "Each measure's ratio at its largest size divided by its ratio at its smallest "
            f"(target at most {GROWTH_TARGET}); the plot: [growth.svg](growth.svg).",
            "",
            "The ledger rows (add, quote, list, verify) are measured against the install's",
            "Python reading the ledger and parsing it with json, what sources.py does at every",
            "call: a baseline that grows with the ledger, as every call's work does (against",
            "`python -c pass` no call that reads its ledger could look linear). `add` at",
            "10,000 sources keeps its row against `python -c pass` for the absolute target.",
            "",
            *growth,
            "",
        ]
        (HERE / "RESULTS.md").write_text("\n".join(doc) + _kept_by_hand(), encoding="utf-8")
        (HERE / "results.json").write_text(
            json.dumps([_row_json(r) for r in rows], indent=1) + "\n", encoding="utf-8"
        )
        if final:
            print(f"wrote {HERE.name}/RESULTS.md", file=sys.stderr)


KEPT = "<!-- Written by hand from here on: run.py --record keeps it. -->"


def _kept_by_hand() -> str:
    """The before-and-after sections measured by hand at the end of RESULTS.md (after the
    ``KEPT`` line): a record redoes the tables above them, not them."""
    old = HERE / "RESULTS.md"
    text = old.read_text(encoding="utf-8") if old.exists() else ""
    at = text.find(KEPT)
    return "" if at < 0 else "\n" + text[at:]


def merged(kept: list[Row], new: list[Row]) -> list[Row]:
    """The recorded rows with each row measured again (same measure, same size) replaced in its
    place, and rows measured for the first time at the end: several partial runs (one per step,
    on a machine that is quiet for a while at a time) make one table."""
    fresh = {(r.what, r.size, r.baseline): r for r in new}
    out = [fresh.pop((r.what, r.size, r.baseline), r) for r in kept]
    return out + [r for r in new if (r.what, r.size, r.baseline) in fresh]


def _row_json(r: Row) -> dict[str, object]:
    return {
        "what": r.what,
        "size": r.size,
        "baseline": r.baseline,
        "base": vars(r.base),
        "ours": vars(r.ours),
        "target": r.target,
        "series": r.series,
        "x": r.x,
    }


if __name__ == "__main__":
    main()
