"""All of citeledger's speed figures in one run, as ratios against the obvious baseline.

    python bench/run.py                # the full run (several minutes)
    python bench/run.py --quick        # a smoke run on small inputs (well under a minute)
    python bench/run.py --record       # also write bench/RESULTS.md

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
- ``citeledger quote`` on a 50 MB page against reading, hashing and decoding the page.

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
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import bench_agent
import bench_filter
import bench_ledger
import bench_support
import bench_wiki

from citeledger.document.markers import scan
from citeledger.ledger import load_ledger
from citeledger.pandoc import pandoc_path, pandoc_version, run_pandoc
from citeledger.publish.wiki import FORMATS, build_wiki
from citeledger.verify import verify

HERE = Path(__file__).resolve().parent


@dataclass
class Sample:
    wall: float
    cpu: float


@dataclass
class Row:
    what: str
    size: str
    baseline: str
    base: Sample
    ours: Sample
    target: str = ""

    @property
    def ratio(self) -> float:
        return self.ours.wall / self.base.wall

    @property
    def cpu_ratio(self) -> float:
        return self.ours.cpu / self.base.cpu if self.base.cpu > 0 else float("nan")


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def _cpu() -> float:
    return time.process_time() + _children_cpu()


def measure(fn: Callable[[], object]) -> Sample:
    wall0, cpu0 = time.perf_counter(), _cpu()
    fn()
    return Sample(time.perf_counter() - wall0, _cpu() - cpu0)


def side_by_side(
    base: Callable[[], object], ours: Callable[[], object], runs: int, warm: bool = True
) -> tuple[Sample, Sample]:
    """Alternate the two, ``runs`` times each; medians of wall and CPU time."""
    if warm:
        base()
        ours()
    b: list[Sample] = []
    o: list[Sample] = []
    for _ in range(runs):
        b.append(measure(base))
        o.append(measure(ours))

    def med(samples: list[Sample]) -> Sample:
        return Sample(
            statistics.median(s.wall for s in samples), statistics.median(s.cpu for s in samples)
        )

    return med(b), med(o)


def command(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> Callable[[], None]:
    def run() -> None:
        proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
        if proc.returncode != 0:
            sys.exit(f"failed: {' '.join(argv)}\n{proc.stderr.decode()[-2000:]}")

    return run


def _script(name: str) -> str:
    """The console script installed with this Python: a version manager's shim found first on
    PATH (pyenv's is a shell script) would add its own start to every run."""
    beside = Path(sys.executable).parent / name
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
    replaces, one after another: goal at most 1.0x. Also with ``-j 1`` (one output at a time),
    to show what the parallel writers bring on this machine."""
    pandoc = pandoc_path()
    outputs = ("html", "docx", "pptx")

    def plain() -> None:
        for fmt in outputs:
            command([pandoc, draft.name, "-o", f"plain.{fmt}"], work)()

    cli = [sys.executable, "-m", "citeledger", "--ledger", "ledger.json", "convert", draft.name]
    for fmt in outputs:
        cli += ["-o", f"convert.{fmt}"]
    baseline = "3 x pandoc -o, one after another"
    what = "citeledger convert -o html -o docx -o pptx"
    b, o = side_by_side(plain, command(cli, work, _bytecode_env()), runs)
    rows = [Row(what, _kb(draft), baseline, b, o, "<= 1.0x")]
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
        cli = [sys.executable, "-m", "citeledger", "verify", draft.name, "--ledger", "ledger.json"]
        b, o = side_by_side(command(parse, work), command(cli, work), runs)
        goal = "<= 1.5x" if draft == drafts[-1] and len(drafts) > 1 else ""
        rows.append(Row("citeledger verify (process)", _kb(draft), "pandoc -t json", b, o, goal))
        raw = subprocess.run(parse, cwd=work, capture_output=True, check=True).stdout
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
    cl = bench_ledger._citeledger()
    env = _bytecode_env()
    baseline = command([sys.executable, "-c", "pass"], work, env)
    counter = iter(range(10**9))

    def add_into(ledger: str) -> Callable[[], None]:
        def run() -> None:
            url = f"https://example.org/new/{next(counter)}"
            command([*cl, "--ledger", ledger, "add", url], work, env)()

        return run

    b, o = side_by_side(baseline, add_into("empty.json"), max(runs, 5))
    rows = [Row("citeledger add URL", "new ledger", "python -c pass", b, o, "<= 3.0x")]
    for n in sizes:
        bench_ledger._fill(work / f"ledger-{n}.json", n)
        b, o = side_by_side(baseline, add_into(f"ledger-{n}.json"), runs)
        rows.append(Row("citeledger add URL", f"{n:,} sources", "python -c pass", b, o))
    per_source: dict[int, Sample] = {}
    for n in sizes:
        results = {
            "results": [{"url": f"https://example.org/r/{i}", "title": f"R {i}"} for i in range(n)]
        }
        (work / f"search-{n}.json").write_text(json.dumps(results), encoding="utf-8")
        samples = []
        for r in range(runs):
            ingest = [*cl, "--ledger", f"ingest-{n}-{r}.json", "ingest", f"search-{n}.json"]
            samples.append(measure(command(ingest, work)))
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
    for name, (base, ours) in bench_agent.process_calls(folder, draft).items():
        b, o = side_by_side(base, ours, max(runs, 5))
        what, baseline = _AGENT_BASELINES[name]
        rows.append(Row(what, "10 sources", baseline, b, o, "<= 1.5x"))
    try:
        seen = bench_agent.mcp_seconds(folder, draft, max(runs, 5))
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


def wiki_row(work: Path, pages: int, size: int, runs: int) -> Row:
    folder = work / "wiki"
    folder.mkdir()
    draft = folder / "draft.md"
    draft.write_text(bench_wiki.make_draft(pages, size, 500), encoding="utf-8")
    (folder / "ledger.json").write_text(bench_wiki.make_ledger(500), encoding="utf-8")
    ledger = load_ledger(folder / "ledger.json")
    fmt = FORMATS["gfm"]

    def plain() -> None:
        run_pandoc([str(draft), "-f", "markdown", "-t", fmt.writer, *fmt.args])

    def wiki() -> None:
        build_wiki([draft], folder / "out", ledger, fmt="gfm", say=lambda _l: None)

    b, o = side_by_side(plain, wiki, runs, warm=False)
    return Row(
        f"citeledger wiki, {pages} pages", _kb(draft), "pandoc -t gfm, whole draft", b, o, "<= 1.5x"
    )


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
        sys.executable,
        "-c",
        "import hashlib, sys; d = open(sys.argv[1], 'rb').read(); "
        "hashlib.sha256(d).hexdigest(); d.decode('utf-8')",
        "page.txt",
    ]
    counter = iter(range(runs + 2))

    def quote() -> None:
        text = f"needle sentence number {next(counter)} is at the very end"
        argv = [sys.executable, "-m", "citeledger", "--ledger", "ledger.json", "quote", "1"]
        command([*argv, "--text", text, "--from", "page.txt"], folder)()

    b, o = side_by_side(command(floor, folder), quote, runs)
    return Row("citeledger quote --from PAGE", _kb(page), "read + sha256 + decode", b, o)


# --- the table ------------------------------------------------------------------------------------

HEADER = (
    "measurement",
    "input",
    "baseline",
    "baseline time",
    "citeledger time",
    "ratio",
    "cpu ratio",
)


def seconds(t: float) -> str:
    if t >= 0.1:
        return f"{t:.2f} s"
    if t >= 0.001:
        return f"{t * 1000:.1f} ms"
    return f"{t * 1e6:.0f} us"


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| " + " | ".join(HEADER) + " | target |",
        "|" + "|".join(["---"] * 3 + ["---:"] * 4 + ["---"]) + "|",
    ]
    for r in rows:
        cells = [
            r.what,
            r.size,
            r.baseline,
            seconds(r.base.wall),
            seconds(r.ours.wall),
            f"{r.ratio:.2f}x",
            f"{r.cpu_ratio:.2f}x" if r.cpu_ratio == r.cpu_ratio else "n/a",  # nan: not measured
            r.target,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def machine() -> list[str]:
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return [
        f"- cores: {os.cpu_count()}{f' ({model})' if model else ''}",
        f"- load average when the run started: {load}",
        f"- Python {platform.python_version()} on {platform.system()} {platform.machine()}",
        f"- pandoc {'.'.join(map(str, pandoc_version()))}",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small inputs, one run each")
    ap.add_argument("--runs", type=int, default=None, help="runs per measurement (default 3)")
    ap.add_argument("--record", action="store_true", help="write bench/RESULTS.md")
    args = ap.parse_args()
    runs = args.runs or (1 if args.quick else 3)
    sizes_kb = [100] if args.quick else [100, 400, 1600]
    ledger_sizes = [100, 1_000] if args.quick else [100, 1_000, 10_000]
    wiki_pages, wiki_size = (50, 160_000) if args.quick else (500, 1_600_000)
    quote_mb = 5 if args.quick else 50
    started = time.perf_counter()
    info = machine()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="citeledger-bench-") as tmp:
        work = Path(tmp)
        drafts = [bench_filter.make_report(work, kb) for kb in sizes_kb]
        steps: list[tuple[str, Callable[[], list[Row]]]] = [
            ("filter", lambda: filter_rows(work, drafts, sizes_kb, runs)),
            ("convert", lambda: convert_rows(work, drafts[-1], runs)),
            ("verify", lambda: verify_rows(work, drafts, runs)),
            ("ledger", lambda: ledger_rows(work, ledger_sizes, runs)),
            ("agent", lambda: agent_rows(work, runs)),
            ("wiki", lambda: [wiki_row(work, wiki_pages, wiki_size, runs)]),
            ("quote", lambda: [quote_row(work, quote_mb, runs)]),
            ("support", lambda: bench_support.run_rows(work, runs, side_by_side, Row)),
        ]
        for name, step in steps:
            print(f"measuring {name} ...", file=sys.stderr, flush=True)
            rows += step()
    elapsed = time.perf_counter() - started
    invocation = "python bench/run.py" + (" --quick" if args.quick else "")
    if args.runs:
        invocation += f" --runs {args.runs}"
    if args.record:
        invocation += " --record"
    lines = table(rows)
    print("\n".join(lines))
    print(f"\n{runs} alternating run(s) per pair; {elapsed:.0f} s in all", file=sys.stderr)
    if args.record:
        doc = [
            "# Benchmark results",
            "",
            "Written by `python bench/run.py --record`. Ratios, not absolute times, are the",
            "figures that matter: absolute times depend on the machine and its load. Each pair",
            "was measured side by side in one run, alternating baseline and citeledger; wall",
            'times are medians; "cpu ratio" compares CPU seconds (process plus children),',
            "which a busy machine disturbs far less than the wall clock.",
            "",
            f"Command: `{invocation}` ({runs} run(s) per pair, {elapsed:.0f} s in all), "
            f"{dt.date.today().isoformat()}.",
            "",
            "Machine:",
            "",
            *info,
            "",
            *lines,
            "",
        ]
        (HERE / "RESULTS.md").write_text("\n".join(doc), encoding="utf-8")
        print(f"wrote {HERE.name}/RESULTS.md", file=sys.stderr)


if __name__ == "__main__":
    main()
