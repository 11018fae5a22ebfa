"""A 500-page wiki build from one 1.6 MB draft against one pandoc conversion of the whole draft.

    python bench/bench_wiki.py [--format gfm] [--pages 500] [--size 1600000] [--repeat 3]

Prints the best-of-N wall time of ``pandoc draft.md -t FORMAT`` and of ``citeledger wiki``'s
build (read, verify, split, filter per page, one pandoc run for all pages, write), and their
ratio. Target: under 2x.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from citeledger.ledger import load_ledger
from citeledger.pandoc import run_pandoc
from citeledger.wiki import FORMATS, build_wiki

_TEXT = (
    "ice water density floats temperature glacier melt ocean salinity measured sample core "
    "layer pressure season winter summer polar shelf record climate model observation"
)
WORDS = _TEXT.split(" ")


def make_draft(pages: int, size: int, sources: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    per_page = size // pages
    out: list[str] = ["---", "title: Benchmark handbook", "---", ""]
    for p in range(1, pages + 1):
        out += [f"# Section {p}", ""]
        written = 0
        while written < per_page:
            n = rng.randint(8, 18)
            sentence = " ".join(rng.choice(WORDS) for _ in range(n)).capitalize()
            if rng.random() < 0.6:
                sentence += f".[{rng.randint(1, sources)}]"
            else:
                sentence += "."
            if rng.random() < 0.05:
                sentence += f" See [section {max(1, p - 1)}](#section-{max(1, p - 1)})."
            out.append(sentence)
            written += len(sentence) + 1
            if rng.random() < 0.2:
                out.append("")
        out.append("")
    return "\n".join(out)


def make_ledger(sources: int) -> str:
    items = [
        {
            "id": i,
            "url": f"https://example.org/papers/{i}",
            "title": f"Paper number {i} on ice",
            "accessed": "2025-01-01",
            "quotes": [],
        }
        for i in range(1, sources + 1)
    ]
    return json.dumps({"version": 1, "sources": items})


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def best(fn, repeat: int) -> tuple[float, float]:
    """Best wall time and best CPU time (this process and its pandoc children) of ``repeat``
    runs. CPU time is the steadier number on a shared machine; wall time is what a user waits."""
    walls, cpus = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), _cpu()
        fn()
        walls.append(time.perf_counter() - t)
        cpus.append(_cpu() - c)
    return min(walls), min(cpus)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", default="gfm", choices=list(FORMATS))
    ap.add_argument("--pages", type=int, default=500)
    ap.add_argument("--size", type=int, default=1_600_000)
    ap.add_argument("--sources", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    fmt = FORMATS[args.format]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        draft = root / "draft.md"
        draft.write_text(make_draft(args.pages, args.size, args.sources), encoding="utf-8")
        (root / "ledger.json").write_text(make_ledger(args.sources), encoding="utf-8")
        ledger = load_ledger(root / "ledger.json")
        size = draft.stat().st_size

        def plain() -> None:
            run_pandoc([str(draft), "-f", "markdown", "-t", fmt.writer, *fmt.args])

        def wiki() -> None:
            build_wiki([draft], root / "out", ledger, fmt=args.format, say=lambda _l: None)

        t_plain, c_plain = best(plain, args.repeat)
        t_wiki, c_wiki = best(wiki, args.repeat)
        pages = len(list((root / "out").iterdir()))
    print(f"draft: {size / 1e6:.2f} MB, {args.pages} sections, {args.sources} sources")
    print(f"pandoc -t {fmt.writer} (whole draft): {t_plain:.2f} s wall, {c_plain:.2f} s CPU")
    label = f"citeledger wiki --format {args.format} ({pages} files)"
    print(f"{label}: {t_wiki:.2f} s wall, {c_wiki:.2f} s CPU")
    print(f"ratio: {t_wiki / t_plain:.2f}x wall (target < 2x), {c_wiki / c_plain:.2f}x CPU")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
