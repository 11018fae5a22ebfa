"""What the filter costs inside a pandoc build.

Generates cited reports of about 100 KB, 400 KB and 1.6 MB (500 ledger sources, about 60% of
sentences cited, some sources cited many times) and times, side by side in one run,
``pandoc -o x.docx --filter pandoc-citeledger`` against plain ``pandoc -o x.docx``, and the same
for latex and pptx. Prints the median of several alternating runs and the ratio.

    python bench/bench_filter.py [--runs 3] [--sizes 100,400,1600] [--profile]

``--profile`` runs the filter once under cProfile on the largest report's JSON and prints the
top entries (where the filter's own time goes). Not part of the test run.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from citeledger.pandoc import pandoc_path

WORDS = [
    "ice",
    "water",
    "sea",
    "arctic",
    "summer",
    "winter",
    "extent",
    "thickness",
    "salinity",
    "density",
    "model",
    "record",
    "satellite",
    "survey",
    "decline",
    "trend",
    "melt",
    "freeze",
    "ocean",
    "current",
    "heat",
    "flux",
    "albedo",
    "snow",
    "cover",
    "season",
    "basin",
    "observation",
    "estimate",
    "measurement",
    "uncertainty",
    "region",
    "average",
]
N_SOURCES = 500


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 18))]
    return " ".join(words).capitalize() + "."


def make_report(folder: Path, target_kb: int, seed: int = 1, *, dense: bool = False) -> Path:
    """A report of about ``target_kb`` KB citing the 500 sources of ``folder/ledger.json``: 60%
    of sentences cite one or two of them, or, ``dense``, every sentence cites two or three."""
    rng = random.Random(seed)
    ledger = {
        "version": 1,
        "sources": [
            {
                "id": i,
                "url": f"https://example.org/source/{i}",
                "title": f"Source number {i} on sea ice",
                "accessed": "2024-05-01",
                "quotes": [],
            }
            for i in range(1, N_SOURCES + 1)
        ],
    }
    (folder / "ledger.json").write_text(json.dumps(ledger), encoding="utf-8")
    parts = ["---\ntitle: Generated report\n---\n"]
    size = 0
    cited: set[int] = set()
    section = 0
    while size < target_kb * 1024:
        section += 1
        parts.append(f"\n## Section {section}\n")
        for _ in range(rng.randint(3, 6)):
            sentences = []
            for _ in range(rng.randint(3, 7)):
                s = sentence(rng)
                if dense or rng.random() < 0.6:
                    counts = (2, 3) if dense else (1, 1, 1, 2)
                    ids = rng.sample(range(1, N_SOURCES + 1), rng.choice(counts))
                    cited.update(ids)
                    s += "".join(f"[{i}]" for i in ids)
                sentences.append(s)
            paragraph = " ".join(sentences) + "\n"
            parts.append("\n" + paragraph)
            size += len(paragraph)
    entries = [f"[{i}] https://example.org/source/{i}" for i in sorted(cited)]
    parts.append("\n## Sources\n\n" + "\n".join(entries) + "\n")
    path = folder / f"report-{target_kb}k{'-dense' if dense else ''}.md"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def timed(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{proc.stderr.decode()[-2000:]}")
    return elapsed


def profile(draft: Path, env: dict[str, str]) -> None:
    from citeledger.filters.run import apply

    raw = subprocess.run(
        [pandoc_path(), "-t", "json", str(draft)], capture_output=True, check=True
    ).stdout
    os.environ.update(env)
    prof = cProfile.Profile()
    prof.enable()
    doc = json.loads(raw)
    apply(doc, "docx", say=lambda line: None)
    out = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(22)
    print(f"\ncProfile of the filter's work on {draft.name} ({len(out) // 1024} KB of JSON):")
    print(buf.getvalue())


def console_filter() -> str:
    """The installed ``pandoc-citeledger``, or exit saying how to install it."""
    found = shutil.which("pandoc-citeledger")
    if found is None:
        sys.exit("pandoc-citeledger is not on PATH: pip install -e .")
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="100,400,1600")
    ap.add_argument("--formats", default="docx,latex,pptx")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    pandoc_filter = console_filter()
    pandoc = pandoc_path()
    suffix = {"docx": "docx", "latex": "tex", "pptx": "pptx"}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = {**os.environ, "CITELEDGER_LEDGER": str(folder / "ledger.json")}
        drafts = [make_report(folder, int(kb)) for kb in args.sizes.split(",")]
        print(f"pandoc {pandoc}; {args.runs} alternating runs each, median seconds\n")
        print(f"{'report':>14} {'format':>6} {'plain':>8} {'filter':>8} {'ratio':>6}")
        for draft in drafts:
            kb = draft.stat().st_size // 1024
            for fmt in args.formats.split(","):
                out = f"x.{suffix[fmt]}"
                base = [pandoc, draft.name, "-o", out]
                with_filter = [*base, "--filter", pandoc_filter]
                plain_t: list[float] = []
                filt_t: list[float] = []
                timed(base, folder, env)  # warm the page cache
                for _ in range(args.runs):
                    plain_t.append(timed(base, folder, env))
                    filt_t.append(timed(with_filter, folder, env))
                p, f = statistics.median(plain_t), statistics.median(filt_t)
                print(f"{draft.name + f' {kb}K':>14} {fmt:>6} {p:8.3f} {f:8.3f} {f / p:6.2f}x")
        if args.profile:
            profile(drafts[-1], env)


if __name__ == "__main__":
    main()
