"""A box for a PDF engine: a fresh folder mirroring the draft's, where no symlink leads out.

A PDF engine (typst, a LaTeX engine) reads the files a draft names relative to its root or
working folder, and follows a symlink it meets there: ``inc.txt -> ~/.ssh/id_ed25519`` inside
the draft's folder put the outside file into the PDF. So each engine runs inside a box: a fresh
folder mirroring the draft's, where each file is a link to the real file it was checked to be,
and a symlink that leads out of the draft's folder (or to a folder) has no entry.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

BOX_MAX_FILES = 20_000
# Folders no draft reads from, left out of the mirror (a project's dependencies, caches).
_BOX_SKIPS = frozenset({"node_modules", "__pycache__"})


def stage_box(folder: Path, box: Path, *, max_files: int = BOX_MAX_FILES) -> list[str]:
    """Mirror ``folder`` into the empty folder ``box`` for an engine to run in: every regular
    file inside it (and every symlink whose real target is a regular file inside it) as a link
    to that real file; dot entries, devices and links to folders are left out, and after
    ``max_files`` files (nearest first) the rest. Returns the entries left out because they
    lead outside ``folder``, as paths relative to it."""
    top = os.path.realpath(folder)
    outside: list[str] = []
    queue: list[tuple[str, Path]] = [(top, Path(box))]
    count = 0
    while queue and count < max_files:
        here, mirror = queue.pop(0)
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.name in _BOX_SKIPS or count >= max_files:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    (mirror / entry.name).mkdir()
                    queue.append((entry.path, mirror / entry.name))
                    continue
                real = os.path.realpath(entry.path)
                if not _inside(real, top):
                    outside.append(os.path.relpath(entry.path, top))
                    continue
                if not stat.S_ISREG(os.stat(real).st_mode):
                    continue
                os.symlink(real, mirror / entry.name)
                count += 1
            except OSError:
                continue
    return outside


def _inside(real: str, folder: str) -> bool:
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)
