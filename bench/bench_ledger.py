"""Ledger benchmarks (not a test): start-up cost of `citeledger add`, and how add and ingest
scale with the ledger size.

    python bench/bench_ledger.py [--runs 15]

Targets: `citeledger add` at most 8x `python -c pass`; an ingest's cost per source roughly flat
from 100 to 10,000 sources (one transaction, dict lookups); one add into a ledger of N sources
grows at most linearly in N (it rewrites the whole file, which is the price of one plain JSON
file that sources.py can still read).
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


def _median_process_seconds(argv: list[str], runs: int, cwd: Path, vary: bool = False) -> float:
    times = []
    for i in range(runs):
        args = [a.replace("{i}", str(i)) for a in argv] if vary else argv
        started = time.perf_counter()
        subprocess.run(args, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _citeledger() -> list[str]:
    script = shutil.which("citeledger")
    return [script] if script else [sys.executable, "-m", "citeledger"]


def startup(runs: int, work: Path) -> None:
    env_free = {k: v for k, v in os.environ.items() if not k.endswith("_LEDGER")}
    os.environ.clear()
    os.environ.update(env_free)
    base = _median_process_seconds([sys.executable, "-c", "pass"], runs, work)
    add = _median_process_seconds(
        [*_citeledger(), "--ledger", "start.json", "add", "https://example.org/{i}"],
        runs,
        work,
        vary=True,
    )
    print("start-up (median of", runs, "runs)")
    print(f"  python -c pass          {base * 1000:7.1f} ms")
    print(
        f"  citeledger add URL      {add * 1000:7.1f} ms   ratio {add / base:4.1f}x (target <= 8x)"
    )


def _fill(path: Path, n: int) -> None:
    with transaction(path) as ledger:
        for i in range(n):
            ledger.add(f"https://example.org/source/{i}", title=f"Source number {i}")


def scaling(work: Path) -> None:
    print()
    print("scaling (in-process; ingest = one transaction adding N new sources)")
    header = ("sources", "ingest total", "per source", "one add at N", "per source")
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
        print(
            f"  {n:>12}  {ingest * 1000:>9.1f} ms  {ingest / n * 1e6:>9.1f} us"
            f"  {add * 1000:>9.2f} ms  {add / n * 1e6:>9.2f} us"
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
