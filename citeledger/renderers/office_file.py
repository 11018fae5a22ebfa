"""An Office file (a .docx or .pptx package) as both renderers take it and hand it back: refused
before anything opens it when a part declares a DOCTYPE, and saved over itself through the one
safe write. A module of its own so that ``docx.py`` and ``pptx.py`` need nothing from the
package's ``__init__``, which loads them.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path
from typing import Any

from ..errors import BadInput
from ..files import check_archive, write_bytes


def refuse_doctype(path: Path) -> None:
    """Refuse a package any of whose XML parts declares a DOCTYPE. Office never writes one; a
    crafted file uses it for entities (a billion laughs, an external file), and the XML
    parser drops the declaration and then saves a part whose entities nothing defines, a file
    Word will not open."""
    check_archive(path)
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.filename.lower().endswith((".xml", ".rels")):
                    continue
                if b"<!doctype" in archive.read(info).lower():
                    raise BadInput(
                        f"{path}: part {info.filename[:120]} declares a DOCTYPE, which Office "
                        "files never do: refusing to finish it",
                        hint="save the document again from Word or LibreOffice, or rebuild it "
                        "with citeledger convert",
                    )
    except (OSError, zipfile.BadZipFile, KeyError, RuntimeError, ValueError, zlib.error):
        return  # not a readable package: the renderer says so in its own words


def save_in_place(package: Any, path: Path) -> None:
    """Save a python-docx or python-pptx package over ``path`` through the one safe write:
    a crash or a full disk leaves the file pandoc wrote, never half of the finished one."""
    buffer = io.BytesIO()
    package.save(buffer)
    write_bytes(path, buffer.getvalue(), follow=True)
