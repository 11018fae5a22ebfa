"""Where a ledger's writers take their lock: a file in a folder beside the ledger that tells git
to ignore it, as ``.pytest_cache/`` and ``.ruff_cache/`` do.

A lock file beside the ledger (``ledger.json.lock``, even a hidden ``.ledger.json.lock``) is
picked up by a writer's ``git add .``. The folder ``.citeledger-lock/`` holds a ``.gitignore``
of ``*``, so neither it nor its lock files are ever staged, and a project needs no ignore rule
of its own. The lock files are never deleted (see :mod:`.store`); the folder stays with them.
"""

from __future__ import annotations

import os
from pathlib import Path

FOLDER = ".citeledger-lock"
_GITIGNORE = "# Lock files of citeledger's ledger writers; created automatically.\n*\n"


def lock_path(ledger: Path) -> Path:
    """The lock file of ``ledger``: beside the file a symlinked ledger points to, where its
    writers go."""
    target = Path(os.path.realpath(ledger)) if ledger.is_symlink() else ledger
    return target.parent / FOLDER / f"{target.name}.lock"


def prepare_lock_path(ledger: Path) -> Path:
    """``lock_path(ledger)``, its folder made and ignored by git. ``OSError`` when the folder
    cannot be made."""
    lock = lock_path(ledger)
    folder = lock.parent
    folder.mkdir(exist_ok=True)
    # Never written through: an existing file (or a link) is kept as it is.
    try:
        fd = os.open(folder / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return lock
    try:
        os.write(fd, _GITIGNORE.encode("ascii"))
    finally:
        os.close(fd)
    return lock
