"""A 500-page wiki build from one 1.6 MB draft against one pandoc conversion of the whole draft.

    python bench/bench_wiki.py [--format gfm] [--pages 500] [--size 1600000] [--repeat 3]
    python bench/bench_wiki.py --against OTHER_TREE [--repeat 5]

Prints the best-of-N wall time of ``pandoc draft.md -t FORMAT`` and of ``citeledger wiki``'s
build (read, verify, split, filter per page, batched pandoc runs for the pages and their
Sources entries, write), and their ratio. Target: under 2x.

``--against`` compares this checkout's build with another source tree's (a checkout of the
commit before a change, say) side by side: each round runs both builds in alternating order,
each right after a plain pandoc run of its own (its ratio's baseline, so that a machine whose
load drifts weighs on both sides of each ratio alike) and each in its own long-lived process
that imported its tree once. It prints every round, the min and median of each build's
ratios (wall and CPU), and whether both builds wrote the same files. On a shared machine the
ratios are the figures to compare, not the absolute times.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from citeledger.ledger import load_ledger
from citeledger.pandoc import run_pandoc
from citeledger.publish.wiki import FORMATS, build_wiki

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


def worker(root: Path, fmt: str, out: Path) -> None:
    """Build once per line on stdin; print the wall and CPU seconds of each build."""
    ledger = load_ledger(root / "ledger.json")
    for _line in sys.stdin:
        t, c = time.perf_counter(), _cpu()
        build_wiki([root / "draft.md"], out, ledger, fmt=fmt, say=lambda _l: None)
        print(json.dumps([time.perf_counter() - t, _cpu() - c]), flush=True)


def against(root: Path, fmt: str, other: Path, rounds: int) -> None:
    here = Path(__file__).resolve().parent.parent
    trees = {"this checkout": here, "other tree": other.resolve()}
    procs = {}
    for name, tree in trees.items():
        env = dict(os.environ, PYTHONPATH=str(tree))
        out = root / f"out-{len(procs)}"
        argv = [sys.executable, __file__, "--worker", str(root), fmt, str(out)]
        procs[name] = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
    form = FORMATS[fmt]
    plain_args = [str(root / "draft.md"), "-f", "markdown", "-t", form.writer, *form.args]
    ratios: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    try:
        for r in range(rounds):
            line = [f"round {r + 1}:"]
            for name in trees if r % 2 == 0 else reversed(trees):
                t, c = time.perf_counter(), _cpu()
                run_pandoc(plain_args)
                plain = (time.perf_counter() - t, _cpu() - c)
                proc = procs[name]
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
                wall, cpu = json.loads(proc.stdout.readline())
                wall_x, cpu_x = wall / plain[0], cpu / plain[1]
                ratios[name].append((wall_x, cpu_x))
                line.append(f"pandoc {plain[0]:.2f} s, {name} {wall:.2f} s ({wall_x:.2f}x);")
            print(" ".join(line), flush=True)
    finally:
        for proc in procs.values():
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait()
    for name, pairs in ratios.items():
        walls = [w for w, _c in pairs]
        cpus = [c for _w, c in pairs]
        print(
            f"{name}: wall ratio min {min(walls):.2f}x median {statistics.median(walls):.2f}x, "
            f"cpu ratio min {min(cpus):.2f}x median {statistics.median(cpus):.2f}x"
        )
    a, b = root / "out-0", root / "out-1"
    names = sorted(p.name for p in a.iterdir())
    same = names == sorted(p.name for p in b.iterdir()) and all(
        (a / n).read_bytes() == (b / n).read_bytes() for n in names
    )
    print(f"same files from both builds: {'yes' if same else 'NO'} ({len(names)} files)")


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        worker(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", default="gfm", choices=list(FORMATS))
    ap.add_argument("--pages", type=int, default=500)
    ap.add_argument("--size", type=int, default=1_600_000)
    ap.add_argument("--sources", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--against", type=Path, metavar="TREE", help="another source tree to compare")
    args = ap.parse_args()
    fmt = FORMATS[args.format]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        draft = root / "draft.md"
        draft.write_text(make_draft(args.pages, args.size, args.sources), encoding="utf-8")
        (root / "ledger.json").write_text(make_ledger(args.sources), encoding="utf-8")
        if args.against is not None:
            against(root, args.format, args.against, args.repeat)
            return
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
