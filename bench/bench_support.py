"""Seconds per cited sentence of ``verify --support``: the model-free check, and the judge
when a model folder (or a judge command) is given.

The draft is the labelled set of the tests (tests/fixtures/support/labelled.jsonl: 137 claims
against real sentences, each citing its own source whose quote is the sentence), repeated
``--repeat`` times. The cost of the check is verify with ``support`` less verify without it,
in-process on pandoc's tree (read once), divided by the sentences checked.

    python bench/bench_support.py                       # the model-free check
    python bench/bench_support.py --model DIR           # and an ONNX judge (citeledger[support])
    python bench/bench_support.py --judge "python3 my_judge.py"

``bench/run.py`` adds its rows (the judge's when $CITELEDGER_BENCH_SUPPORT_MODEL names a
model folder).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.pandoc import run_pandoc
from citeledger.verify import verify
from citeledger.verify.support.judge import Judge, load_judge

LABELLED = Path(__file__).resolve().parent.parent / "tests/fixtures/support/labelled.jsonl"
MODEL_ENV = "CITELEDGER_BENCH_SUPPORT_MODEL"


def prepare(folder: Path, repeat: int = 1) -> tuple[dict[str, Any], str, Path]:
    """The labelled set as a draft and its ledger in ``folder``: pandoc's tree, the text,
    the ledger's path."""
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]
    rows = rows * repeat
    sources, lines = [], ["# Claims", ""]
    for k, row in enumerate(rows, start=1):
        quote = {"text": row["evidence"], "added": "2026-12-01"}
        url = f"https://example.org/evidence/{k}"
        sources.append({"id": k, "url": url, "title": f"Row {k}", "quotes": [quote]})
        lines += [f"{row['claim']}[{k}]", ""]
    lines += ["## Sources", ""]
    lines += [f"[{k}] https://example.org/evidence/{k}" for k in range(1, len(rows) + 1)]
    text = "\n".join(lines) + "\n"
    ledger = folder / "ledger.json"
    ledger.write_text(json.dumps({"version": 1, "sources": sources}), encoding="utf-8")
    tree = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=text, what="bench"))
    return tree, text, ledger


def timed(
    tree: dict[str, Any], text: str, ledger_path: Path, options: Options, judge: Judge | None
) -> tuple[float, int]:
    """Seconds of one verify on a fresh copy of the tree, and the sentences it checked."""
    doc = json.loads(json.dumps(tree))
    ledger = load_ledger(ledger_path)
    start = time.perf_counter()
    report = verify(doc, ledger, options, source_name="claims.md", source_text=text, judge=judge)
    return time.perf_counter() - start, len(report.claims)


def per_sentence(
    tree: dict[str, Any], text: str, ledger: Path, runs: int, judge: Judge | None = None
) -> tuple[float, float, int]:
    """Median seconds of verify without the check and with it, and the sentences checked."""
    base, ours, checked = [], [], 0
    for _ in range(runs):
        base.append(timed(tree, text, ledger, Options(), None)[0])
        seconds, checked = timed(tree, text, ledger, Options(support=True), judge)
        ours.append(seconds)
    return statistics.median(base), statistics.median(ours), checked


def run_rows(work: Path, runs: int, side_by_side: Callable[..., Any], row: type) -> list[Any]:
    """bench/run.py's rows: verify with the check against verify without it, in-process."""
    folder = work / "support"
    folder.mkdir()
    tree, text, ledger = prepare(folder, repeat=3)
    out = []
    model = os.environ.get(MODEL_ENV)
    judges: list[tuple[str, Judge | None]] = [("model-free", None)]
    if model:
        judges.append((f"judge {Path(model).name}", load_judge(model, None)))
    for label, judge in judges:
        checked = timed(tree, text, ledger, Options(support=True), judge)[1]
        b, o = side_by_side(
            lambda: timed(tree, text, ledger, Options(), None),
            lambda judge=judge: timed(tree, text, ledger, Options(support=True), judge),
            runs,
        )
        each = max(o.wall - b.wall, 0.0) / max(checked, 1)
        size = f"{checked} sentences, {each * 1000:.2f} ms each"
        out.append(row(f"verify --support, {label} (in-process)", size, "verify", b, o))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", help="a folder holding model.onnx and tokenizer.json")
    ap.add_argument("--judge", help="a command that scores JSON lines")
    ap.add_argument("--repeat", type=int, default=3, help="copies of the labelled set")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="citeledger-bench-support-") as tmp:
        tree, text, ledger = prepare(Path(tmp), args.repeat)
        base, ours, checked = per_sentence(tree, text, ledger, args.runs)
        each = (ours - base) / max(checked, 1)
        print(
            f"model-free check: {checked} sentences, {each:.5f} s per sentence "
            f"(verify {base:.3f} s, with --support {ours:.3f} s)"
        )
        judge = load_judge(args.model, args.judge)
        if judge is not None:
            base, ours, checked = per_sentence(tree, text, ledger, args.runs, judge)
            each = (ours - base) / max(checked, 1)
            print(
                f"with {judge.name}: {each:.4f} s per sentence "
                f"(verify {base:.3f} s, with the judge {ours:.3f} s)"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
