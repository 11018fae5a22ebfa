"""Verify time against pandoc's own parse, on generated drafts of 100 KB, 400 KB and 1.6 MB.

For each size: ``pandoc -f markdown -t json`` on the file (the parse every run pays), the
verifier's own work in-process (``json.loads`` of pandoc's output, the marker scan, sentences,
locations and checks), and the whole ``citeledger verify`` command as a process. Target: the
verifier's own work adds at most 50% on top of pandoc's parse, and grows linearly.

    python bench/bench_verify.py            # best of 3 runs per measurement
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from citeledger.ledger import load_ledger
from citeledger.pandoc import pandoc_path
from citeledger.verify import VerifyOptions, verify
from citeledger.verify.markers import scan

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


def best(fn: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    pandoc = pandoc_path()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ledger_file = folder / "ledger.json"
        ledger_file.write_text(ledger_json(), encoding="utf-8")
        ledger = load_ledger(ledger_file)
        print(f"{'size':>7} {'pandoc':>8} {'verify':>8} {'ratio':>6} {'us/KB':>6} {'process':>8}")
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

            t_pandoc = best(parse)

            def own_work(
                text: str = text, name: str = path.name, out: dict[str, bytes] = out
            ) -> None:
                doc = json.loads(out["json"])
                verify(
                    doc,
                    ledger,
                    VerifyOptions(figures=True, evidence=True),
                    scan=scan(doc),
                    source_name=name,
                    source_text=text,
                )

            t_verify = best(own_work)
            cmd = [sys.executable, "-m", "citeledger", "verify", str(path), "--figures"]
            cmd += ["--ledger", str(ledger_file)]
            t_process = best(lambda cmd=cmd: subprocess.run(cmd, capture_output=True, check=False))
            kb = len(text.encode("utf-8")) / 1000
            print(
                f"{label:>7} {t_pandoc:7.3f}s {t_verify:7.3f}s {t_verify / t_pandoc:5.0%} "
                f"{t_verify / kb * 1e6:6.0f} {t_process:7.3f}s"
            )


if __name__ == "__main__":
    main()
