"""Verify time against pandoc's own parse, on generated drafts of 100 KB, 400 KB and 1.6 MB.

For each size: ``pandoc -f markdown -t json`` on the file (the parse every run pays), the
verifier's own work in-process (``json.loads`` of pandoc's output, the marker scan, sentences,
locations and checks), and the whole ``citeledger verify`` command as a process. Target: the
verifier's own work adds at most 50% on top of pandoc's parse, and grows linearly.

    python bench/bench_verify.py

Each measurement is the best of 5, taken in alternation; "ratio" compares wall clocks, "cpu
ratio" CPU seconds (steadier on a busy machine), "us/KB" is the verifier's CPU time per KB
(flat when growth is linear), "process" the whole command as a user runs it.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from citeledger.document.markers import scan
from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.pandoc import pandoc_path
from citeledger.verify import verify

SIZES = {"100 KB": 100_000, "400 KB": 400_000, "1.6 MB": 1_600_000}
SOURCES = 60
WORDS = [
    *("ice", "water", "floats", "because", "it", "is", "less", "dense", "than", "liquid"),
    *("the", "study", "found", "percent", "of", "samples", "in", "showed", "growth", "e.g."),
    *("Dr.", "Smith", "measured", "U.S.", "lakes", "near", "sea", "level", "during", "winter"),
]


def draft(size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    parts = ["# Report", ""]
    total = 0
    section = 0
    while total < size:
        if rng.random() < 0.08:
            section += 1
            parts += [f"## Section {section}", ""]
        sentences = []
        for _ in range(rng.randint(3, 7)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(6, 18))]
            if rng.random() < 0.2:
                words.insert(3, f"{rng.randint(1, 99)}.{rng.randint(0, 9)}%")
            sentence = " ".join(words).capitalize() + "."
            k = rng.random()
            if k < 0.6:
                ids = [rng.randint(1, SOURCES) for _ in range(rng.randint(1, 2))]
                sentence += "".join(f"[{i}]" for i in ids)
            elif k < 0.65:
                sentence += "[unverified]"
            sentences.append(sentence)
        if rng.random() < 0.05:
            sentences.append("See `code [3]` and $x[2]$ and [a link](https://example.org).")
        para = " ".join(sentences)
        parts += [para, ""]
        total += len(para) + 2
    parts += ["## Sources", ""]
    parts += [f"[{i}] https://example.org/source/{i} — Source {i}" for i in range(1, SOURCES + 1)]
    return "\n".join(parts) + "\n"


def ledger_json() -> str:
    sources = [
        {
            "id": i,
            "url": f"https://example.org/source/{i}",
            "title": f"Source {i}",
            "accessed": "2025-01-01",
            "quotes": [{"text": f"The study found {i}.5% of samples", "added": "2025-01-01"}],
        }
        for i in range(1, SOURCES + 1)
    ]
    return json.dumps({"version": 1, "sources": sources})


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of one call; CPU counts this process and the children it waited
    for (pandoc), so a loaded machine inflates it far less than the wall clock."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0 = time.process_time()
    start = time.perf_counter()
    fn()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, time.process_time() - cpu0 + children


def main(rounds: int = 5) -> None:
    pandoc = pandoc_path()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ledger_file = folder / "ledger.json"
        ledger_file.write_text(ledger_json(), encoding="utf-8")
        ledger = load_ledger(ledger_file)
        print(
            f"{'size':>7} {'pandoc':>8} {'verify':>8} {'ratio':>6} {'cpu ratio':>9} "
            f"{'us/KB':>6} {'process':>8}"
        )
        for label, size in SIZES.items():
            path = folder / f"draft-{size}.md"
            text = draft(size)
            path.write_text(text, encoding="utf-8")
            out: dict[str, bytes] = {}

            def parse(path: Path = path, out: dict[str, bytes] = out) -> None:
                out["json"] = subprocess.run(
                    [pandoc, "-f", "markdown", "-t", "json", str(path)],
                    check=True,
                    capture_output=True,
                ).stdout

            def own_work(
                text: str = text, name: str = path.name, out: dict[str, bytes] = out
            ) -> None:
                doc = json.loads(out["json"])
                verify(
                    doc,
                    ledger,
                    Options(figures=True, evidence=True),
                    scan=scan(doc),
                    source_name=name,
                    source_text=text,
                )

            cmd = [sys.executable, "-m", "citeledger", "verify", str(path), "--figures"]
            cmd += ["--ledger", str(ledger_file)]

            def process(cmd: list[str] = cmd) -> None:
                subprocess.run(cmd, capture_output=True, check=False)

            # Alternate the measurements so that each sees the same background load.
            runs: dict[str, list[tuple[float, float]]] = {"pandoc": [], "verify": [], "proc": []}
            for _ in range(rounds):
                runs["pandoc"].append(timed(parse))
                runs["verify"].append(timed(own_work))
                runs["proc"].append(timed(process))
            wall = {k: min(w for w, _ in v) for k, v in runs.items()}
            cpu = {k: min(c for _, c in v) for k, v in runs.items()}
            kb = len(text.encode("utf-8")) / 1000
            print(
                f"{label:>7} {wall['pandoc']:7.3f}s {wall['verify']:7.3f}s "
                f"{wall['verify'] / wall['pandoc']:5.0%} {cpu['verify'] / cpu['pandoc']:9.0%} "
                f"{cpu['verify'] / kb * 1e6:6.0f} {wall['proc']:7.3f}s"
            )


if __name__ == "__main__":
    main()
