"""The bench's measuring tools: a timed sample (wall, CPU, peak memory), a row of the table, and
two callables measured side by side (alternating, medians).

Peak memory is the largest resident set of any one process of a measured command's tree, as
GNU time reports it (``/usr/bin/time -f %M``: the kernel's figure for the command and its
waited-for children). It is taken for commands made with ``peak=True`` only: the wrapper adds
about a millisecond to each run, baseline and citeledger alike, which would blur the ratios of
the shortest commands (and Python's own ``wait4`` figure is no use: a child forked from this
process inherits this process's peak). In-process measurements have none.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Peaks (KB) of the commands run since the last measure() began.
_peaks: list[int] = []


@dataclass
class Sample:
    wall: float
    cpu: float
    peak_kb: int = 0  # 0: not measured (in-process)


@dataclass
class Row:
    what: str
    size: str
    baseline: str
    base: Sample
    ours: Sample
    target: str = ""
    # A measure taken at growing sizes: its name and this row's size in the measure's own unit.
    series: str = ""
    x: float = 0.0

    @property
    def ratio(self) -> float:
        return self.ours.wall / self.base.wall

    @property
    def cpu_ratio(self) -> float:
        return self.ours.cpu / self.base.cpu if self.base.cpu > 0 else float("nan")


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def _cpu() -> float:
    return time.process_time() + _children_cpu()


def measure(fn: Callable[[], object]) -> Sample:
    _peaks.clear()
    wall0, cpu0 = time.perf_counter(), _cpu()
    fn()
    wall, cpu = time.perf_counter() - wall0, _cpu() - cpu0
    return Sample(wall, cpu, max(_peaks, default=0))


def side_by_side(
    base: Callable[[], object], ours: Callable[[], object], runs: int, warm: bool = True
) -> tuple[Sample, Sample]:
    """Alternate the two, ``runs`` times each; medians of wall and CPU time, the largest peak."""
    if warm:
        base()
        ours()
    b: list[Sample] = []
    o: list[Sample] = []
    for _ in range(runs):
        b.append(measure(base))
        o.append(measure(ours))

    def med(samples: list[Sample]) -> Sample:
        return Sample(
            statistics.median(s.wall for s in samples),
            statistics.median(s.cpu for s in samples),
            max(s.peak_kb for s in samples),
        )

    return med(b), med(o)


TIME = "/usr/bin/time"


def run_process(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None, peak: bool = False
) -> None:
    """Run ``argv`` to its end (exit on failure); with ``peak``, note its peak memory for
    :func:`measure`."""
    report = None
    if peak and os.path.exists(TIME):
        fd, report = tempfile.mkstemp(prefix="peak-")
        os.close(fd)
        argv = [TIME, "-f", "%M", "-o", report, *argv]
    done = subprocess.run(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    if report is not None:
        text = Path(report).read_text(encoding="utf-8").strip().splitlines()
        os.unlink(report)
        if text and text[-1].isdigit():
            _peaks.append(int(text[-1]))
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(argv)}\n{done.stderr.decode(errors='replace')[-2000:]}")


def command(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None, peak: bool = False
) -> Callable[[], None]:
    def run() -> None:
        run_process(argv, cwd, env, peak)

    return run
