"""What the panflute path costs: citeledger run from a panflute filter against the console filter.

On the 1.6 MB generated report of ``bench_filter`` (500 sources, about 60% of sentences cited),
times side by side, alternating, in one run:

- ``pandoc -t FMT`` alone;
- ``--filter pandoc-citeledger`` (the raw-JSON console filter: the fast path);
- ``--filter pandoc-citeledger --filter noop.py``: the console filter, then a panflute filter
  with no actions (what a build with its own panflute filter pays without the panflute pieces);
- ``--filter composed.py``: one panflute filter, ``run_filters([], prepare=citeledger.prepare)``.

Prints median wall and CPU seconds (pandoc and its filters) and each one's ratio against the
console filter; the CPU figures are the steadier ones on a shared machine.

    python bench/bench_panflute.py [--runs 3] [--size 1600] [--formats docx]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_filter import console_filter, make_report

from citeledger.pandoc import pandoc_path

NOOP = """import panflute as pf

if __name__ == "__main__":
    pf.run_filters([])
"""
COMPOSED = """import panflute as pf
from citeledger.filters import panflute as citeledger

if __name__ == "__main__":
    pf.run_filters([], prepare=citeledger.prepare)
"""


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (CPU: every process it started, filters included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def script(folder: Path, name: str, body: str) -> str:
    path = folder / name
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--size", type=int, default=1600, help="report size in KB")
    ap.add_argument("--formats", default="docx")
    args = ap.parse_args()
    console = console_filter()
    pandoc = pandoc_path()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = {**os.environ, "CITELEDGER_LEDGER": str(folder / "ledger.json")}
        draft = make_report(folder, args.size)
        noop = script(folder, "noop.py", NOOP)
        composed = script(folder, "composed.py", COMPOSED)
        kb = draft.stat().st_size // 1024
        print(f"pandoc {pandoc}; {draft.name} ({kb} KB); median of {args.runs} alternating runs\n")
        for fmt in args.formats.split(","):
            base = [pandoc, draft.name, "-t", fmt, "-o", f"x.{fmt}"]
            variants = {
                "pandoc alone": base,
                "--filter pandoc-citeledger": [*base, "--filter", console],
                "console filter + panflute no-op": [*base, "--filter", console, "--filter", noop],
                "panflute, citeledger.prepare": [*base, "--filter", composed],
            }
            times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
            for argv in variants.values():
                timed(argv, folder, env)  # warm the page cache and the imports
            for _ in range(args.runs):
                for name, argv in variants.items():
                    times[name].append(timed(argv, folder, env))
            wall = {name: statistics.median(w for w, _ in t) for name, t in times.items()}
            cpu = {name: statistics.median(c for _, c in t) for name, t in times.items()}
            ref = "--filter pandoc-citeledger"
            print(f"-t {fmt}{'wall':>36}{'ratio':>8}{'cpu':>9}{'ratio':>8}")
            for name in variants:
                print(
                    f"  {name:<34}{wall[name]:6.2f} s{wall[name] / wall[ref]:7.2f}x"
                    f"{cpu[name]:7.2f} s{cpu[name] / cpu[ref]:7.2f}x"
                )


if __name__ == "__main__":
    main()
