#!/usr/bin/env python3
"""Quarto post-render step: ``citeledger finish`` on each Word and PowerPoint file the render
wrote (Quarto never runs it, so without this step Word marks are Word's own numbers, not the
ledger ids, and pptx has no paginated Sources slides).

Quarto lists the outputs in ``$QUARTO_PROJECT_OUTPUT_FILES`` (one per line, relative to the
project folder, where it runs this script), or in the file named by
``$QUARTO_USE_FILE_FOR_PROJECT_OUTPUT_FILES``. Arguments given to this script go to
``citeledger finish`` (``--ledger PATH``); without them the ledger is ``$CITELEDGER_LEDGER``,
else ``ledger.json`` in the project folder.

After a full render of a project (Quarto sets ``$QUARTO_PROJECT_RENDER_ALL``), it also asks
``citeledger finish --project .`` which ledger sources no page cites: each page's filter run
speaks only of its own citations (a website's pages each cite a part of the ledger) and
records them; this is the one check of the whole project. Quarto runs this script in the
project folder.

The ``citeledger`` it runs is the one on PATH, as the filter's ``pandoc-citeledger`` is: a
pipx or ``uv tool`` install puts both there and not into the python Quarto runs this script
with. Only when PATH has none does it try that python's ``-m citeledger``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
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
    whole = os.environ.get("QUARTO_PROJECT_RENDER_ALL") == "1"
    if not files and not whole:
        return 0
    found = shutil.which("citeledger")
    if found is not None:
        program = [found]
    elif importlib.util.find_spec("citeledger") is not None:
        program = [sys.executable, "-m", "citeledger"]
    else:
        print(
            "citeledger finish: no citeledger on PATH (the Word and PowerPoint files are "
            "left as pandoc wrote them): pipx install citeledger, or put the environment "
            "that has it on PATH",
            file=sys.stderr,
        )
        return 1
    project = ["--project", "."] if whole else []
    command = [*program, "finish", *sys.argv[1:], *project, *files]
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
