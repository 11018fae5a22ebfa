"""Ledger benchmarks (not a test): start-up cost of `citeledger add`, and how add and ingest
scale with the ledger size.

    python bench/bench_ledger.py [--runs 15]

Targets: `citeledger add` at most 8x `python -c pass`; an ingest's cost per source roughly flat
from 100 to 10,000 sources (one transaction, dict lookups); one add into a ledger of N sources
grows at most linearly in N, and costs less than reading the ledger and parsing it with json
(what sources.py does at every call): the file is checked in one compiled pass
(``ledger/layout.py``), no source is built, and the new entry is inserted into the text read.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from citeledger.ledger import transaction


def _process_seconds(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _citeledger() -> list[str]:
    """The console script installed with this Python (not a version manager's shim on PATH,
    which would time a shell script too), else ``python -m citeledger``."""
    beside = Path(sys.executable).parent / "citeledger"
    script = str(beside) if beside.exists() else shutil.which("citeledger")
    return [script] if script else [sys.executable, "-m", "citeledger"]


def startup(runs: int, work: Path) -> None:
    """Runs alternate between the two commands so both see the same machine load; the minimum
    is the least disturbed run, the median the typical one."""
    for name in [k for k in os.environ if k.endswith("_LEDGER")]:
        del os.environ[name]
    base: list[float] = []
    add: list[float] = []
    for i in range(runs):
        base.append(_process_seconds([sys.executable, "-c", "pass"], work))
        argv = [*_citeledger(), "--ledger", "start.json", "add", f"https://example.org/{i}"]
        add.append(_process_seconds(argv, work))
    print(f"start-up ({runs} alternating runs)          median     min")
    for label, times in (("python -c pass", base), ("citeledger add URL", add)):
        print(
            f"  {label:<20} {statistics.median(times) * 1000:18.1f} ms {min(times) * 1000:6.1f} ms"
        )
    ratio_median = statistics.median(add) / statistics.median(base)
    ratio_min = min(add) / min(base)
    print(f"  ratio {ratio_median:27.1f}x {ratio_min:8.1f}x   (target <= 8x)")


def _fill(path: Path, n: int) -> None:
    with transaction(path) as ledger:
        for i in range(n):
            ledger.add(f"https://example.org/source/{i}", title=f"Source number {i}")


def scaling(work: Path) -> None:
    print()
    print("scaling (in-process; ingest = one transaction adding N new sources)")
    header = ("sources", "ingest total", "per source", "one add at N", "json.loads")
    print("  " + "  ".join(f"{h:>12}" for h in header))
    for n in (100, 1_000, 10_000):
        ingest_path = work / f"ingest-{n}.json"
        started = time.perf_counter()
        _fill(ingest_path, n)
        ingest = time.perf_counter() - started

        adds = []
        for i in range(5):
            started = time.perf_counter()
            with transaction(ingest_path) as ledger:
                ledger.add(f"https://example.org/extra/{i}")
            adds.append(time.perf_counter() - started)
        add = statistics.median(adds)
        parses = []
        for _ in range(5):
            started = time.perf_counter()
            json.loads(ingest_path.read_bytes())
            parses.append(time.perf_counter() - started)
        print(
            f"  {n:>12}  {ingest * 1000:>9.1f} ms  {ingest / n * 1e6:>9.1f} us"
            f"  {add * 1000:>9.2f} ms  {statistics.median(parses) * 1000:>9.2f} ms"
        )


def cli_ingest(work: Path) -> None:
    print()
    print("citeledger ingest FILE (whole process, JSON of N search results)")
    for n in (100, 1_000, 10_000):
        payload = {
            "results": [{"url": f"https://example.org/r/{i}", "title": f"R {i}"} for i in range(n)]
        }
        (work / f"search-{n}.json").write_text(json.dumps(payload), encoding="utf-8")
        started = time.perf_counter()
        subprocess.run(
            [*_citeledger(), "--ledger", f"cli-{n}.json", "ingest", f"search-{n}.json"],
            cwd=work,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        elapsed = time.perf_counter() - started
        print(f"  {n:>8} sources  {elapsed * 1000:8.1f} ms  {elapsed / n * 1e6:8.1f} us/source")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="citeledger-bench-") as folder:
        work = Path(folder)
        startup(args.runs, work)
        scaling(work)
        cli_ingest(work)


if __name__ == "__main__":
    main()
