#!/usr/bin/env python3
"""Quarto post-render step: ``citeledger finish`` on each Word and PowerPoint file the render
wrote (Quarto never runs it, so without this step Word marks are Word's own numbers, not the
ledger ids, and pptx has no paginated Sources slides).

Quarto lists the outputs in ``$QUARTO_PROJECT_OUTPUT_FILES`` (one per line, relative to the
project folder, where it runs this script), or in the file named by
``$QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES``. Arguments given to this script go to
``citeledger finish`` (``--ledger PATH``); without them the ledger is ``$CITELEDGER_LEDGER``,
else ``ledger.json`` in the project folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def outputs() -> list[str]:
    listed = os.environ.get("QUARTO_PROJECT_OUTPUT_FILES", "")
    in_file = os.environ.get("QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES")
    if in_file and Path(in_file).is_file():
        listed = Path(in_file).read_text(encoding="utf-8")
    names = [line.strip() for line in listed.splitlines() if line.strip()]
    return [n for n in names if n.lower().endswith((".docx", ".pptx")) and Path(n).is_file()]


def main() -> int:
    files = outputs()
    if not files:
        return 0
    cmd = [sys.executable, "-m", "citeledger", "finish", *sys.argv[1:], *files]
    return subprocess.run(cmd, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
