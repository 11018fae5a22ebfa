"""An agent's calls (not a test): what each call of the grounded-citations loop costs against
the least a call can cost, as ratios measured side by side.

    python bench/bench_agent.py [--runs 20]

- ``citeledger add URL``, ``quote N --text ... --from page.txt`` and ``list`` against
  ``python -c pass`` (target: at most 1.5x, sources.py's cost);
- ``citeledger verify`` of a one-page draft against ``python -c pass`` plus ``pandoc -t json``
  on it, one after the other (target: at most 1.5x);
- ``python -c "import re"`` against ``python -c pass``: the floor of any console script pip
  writes, which imports ``re`` before the program's own first line;
- through the MCP server (``citeledger mcp``, started once, as an agent's host starts it):
  ``verify`` against ``pandoc -t json`` alone (target: at most 1.5x) and ``add`` against
  ``python -c pass``.

Runs alternate between baseline and citeledger so both see the same load; medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from citeledger.ledger import Quote, today, transaction
from citeledger.pandoc import pandoc_path

# One page of prose: ten cited paragraphs and the Sources block render writes.
_PARAGRAPH = (
    "Sea ice covers a changing share of the polar oceans, and its extent is read from "
    "satellite passive microwave records that began in 1979.[{n}] The record shows a decline "
    "in every month of the year, steepest at the end of the melt season.[{n}]"
)
PAGE = "Sea ice floats on the ocean because frozen water is less dense than liquid water.\n"
QUOTE = "frozen water is less dense than liquid water"


def citeledger(bin_dir: Path | None = None) -> list[str]:
    """The console script in ``bin_dir`` (the bench's own install), else the one installed
    with this Python (a version manager's shim on PATH would time a shell script too), else
    ``python -m citeledger``."""
    beside = (bin_dir or Path(sys.executable).parent) / "citeledger"
    return [str(beside)] if beside.exists() else [sys.executable, "-m", "citeledger"]


def prepare(work: Path, sources: int = 10) -> Path:
    """A ledger of ``sources`` sources with a quote each, a saved page and a one-page draft
    citing them all with its Sources block; returns the draft."""
    (work / "page.txt").write_text(PAGE, encoding="utf-8")
    with transaction(work / "ledger.json") as book:
        for n in range(1, sources + 1):
            source = book.add(f"https://example.org/sea-ice/{n}", title=f"Sea ice {n}")[0]
            book.add_quote(source, Quote(text=QUOTE, added=today()))
    return prepare_draft(work, sources)


def prepare_draft(work: Path, sources: int = 10) -> Path:
    """The one-page draft citing sources 1 to ``sources``, with its Sources block."""
    body = "\n\n".join(_PARAGRAPH.format(n=n) for n in range(1, sources + 1))
    lines = [f"[{n}] https://example.org/sea-ice/{n} — Sea ice {n}" for n in range(1, sources + 1)]
    draft = work / "draft.md"
    draft.write_text(body + "\n\n## Sources\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return draft


def _run(argv: list[str], work: Path) -> None:
    done = subprocess.run(argv, cwd=work, capture_output=True, check=False)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(argv)}\n{done.stderr.decode()[-2000:]}")


def process_calls(
    work: Path, draft: Path, bin_dir: Path | None = None, run: Callable[..., None] | None = None
) -> dict[str, tuple[Callable[[], None], ...]]:
    """Each measured call and its baseline (several baselines run one after the other), from
    the console scripts and Python of ``bin_dir`` (default: this Python's)."""
    run = run or _run
    cl = [*citeledger(bin_dir), "--ledger", "ledger.json"]
    counter = iter(range(10**9))
    python = [str(bin_dir / "python") if bin_dir else sys.executable, "-c", "pass"]
    parse = [pandoc_path(), "-f", "markdown", "-t", "json", draft.name]

    def add() -> None:
        run([*cl, "add", f"https://example.org/new/{next(counter)}"], work)

    def start_and_parse() -> None:
        run(python, work)
        run(parse, work)

    return {
        "add": (lambda: run(python, work), add),
        "quote": (
            lambda: run(python, work),
            lambda: run([*cl, "quote", "1", "--text", QUOTE, "--from", "page.txt"], work),
        ),
        "list": (lambda: run(python, work), lambda: run([*cl, "list"], work)),
        "verify": (
            start_and_parse,
            lambda: run([*cl, "verify", draft.name], work),
        ),
    }


def mcp_seconds(
    work: Path, draft: Path, runs: int, bin_dir: Path | None = None
) -> dict[str, list[float]]:
    """Wall times, alternating: ``pandoc -t json``, verify through the server, ``python -c
    pass``, add through the server. The server starts once; its start is not timed."""
    import anyio
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    parse = [pandoc_path(), "-f", "markdown", "-t", "json", draft.name]
    python = [str(bin_dir / "python") if bin_dir else sys.executable, "-c", "pass"]
    times: dict[str, list[float]] = {"pandoc": [], "verify": [], "python": [], "add": []}

    async def talk() -> None:
        server = StdioServerParameters(
            command=citeledger(bin_dir)[0],
            args=[*citeledger(bin_dir)[1:], "--ledger", "ledger.json", "mcp"],
            env=dict(os.environ),
            cwd=work,
        )
        async with stdio_client(server) as streams, ClientSession(*streams) as session:
            await session.initialize()
            await session.call_tool("verify", {"files": [draft.name]})  # warm
            for k in range(runs):
                started = time.perf_counter()
                _run(parse, work)
                times["pandoc"].append(time.perf_counter() - started)
                started = time.perf_counter()
                done = await session.call_tool("verify", {"files": [draft.name]})
                times["verify"].append(time.perf_counter() - started)
                assert (done.structured_content or {}).get("ok"), done.content
                started = time.perf_counter()
                _run(python, work)
                times["python"].append(time.perf_counter() - started)
                started = time.perf_counter()
                await session.call_tool("add", {"urls": [f"https://example.org/mcp/{k}"]})
                times["add"].append(time.perf_counter() - started)

    anyio.run(talk)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    for name in [k for k in os.environ if k.endswith("_LEDGER")]:
        del os.environ[name]
    with tempfile.TemporaryDirectory(prefix="citeledger-agent-") as folder:
        work = Path(folder)
        draft = prepare(work)
        print(f"{'call':<28}{'baseline':>12}{'citeledger':>12}{'ratio':>8}   target")
        for name, (base, ours) in process_calls(work, draft).items():
            b: list[float] = []
            o: list[float] = []
            for _ in range(args.runs):
                for fn, into in ((base, b), (ours, o)):
                    started = time.perf_counter()
                    fn()
                    into.append(time.perf_counter() - started)
            _line(f"citeledger {name}", statistics.median(b), statistics.median(o))
        # The floor of any console script pip writes: it imports re before citeledger's first line.
        python, floor = [sys.executable, "-c", "pass"], [sys.executable, "-c", "import re"]
        b, o = [], []
        for _ in range(args.runs):
            for argv, into in ((python, b), (floor, o)):
                started = time.perf_counter()
                _run(argv, work)
                into.append(time.perf_counter() - started)
        _line("import re (script's floor)", statistics.median(b), statistics.median(o))
        seen = mcp_seconds(work, draft, args.runs)
        med = {k: statistics.median(v) for k, v in seen.items()}
        _line("mcp verify (vs pandoc)", med["pandoc"], med["verify"])
        _line("mcp add (vs python -c pass)", med["python"], med["add"])


def _line(label: str, base: float, ours: float) -> None:
    print(f"{label:<28}{base * 1000:9.1f} ms{ours * 1000:9.1f} ms{ours / base:7.2f}x   <= 1.5x")


if __name__ == "__main__":
    main()
