"""citeledger as a user gets it: a wheel built from this checkout, installed with its
dependencies (and the ``mcp`` extra) into a throwaway virtual environment. The bench times that
environment's console scripts beside that environment's own ``python -c pass``: an editable
install, or a Python whose ``site`` loads other packages' start-up hooks, would time something
else.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def clean_env() -> dict[str, str]:
    """The environment without PYTHONPATH: a checkout on it would be imported instead of the
    installed wheel (and would make pip think citeledger installed already)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def install(work: Path) -> Path:
    """Build the wheel, make the environment, install; returns the environment's bin folder."""
    wheels = work / "wheel"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)])
    (wheel,) = wheels.glob("citeledger-*.whl")
    env = work / "venv"
    _run([sys.executable, "-m", "venv", str(env)])
    bin_dir = env / "bin"
    _run(
        [
            str(bin_dir / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            f"citeledger[mcp] @ {wheel.as_uri()}",
        ]
    )
    return bin_dir


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=clean_env())
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(argv)}\n{done.stderr[-2000:]}")
