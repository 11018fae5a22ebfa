"""What both reference-document scripts share: a zip written the same way every time, so
running a script twice gives the same bytes and a template change shows up as a real diff."""

from __future__ import annotations

import io
import sys
import zipfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

FIXED_TIME = (2024, 1, 1, 0, 0, 0)


def fixed_zip(data: bytes) -> bytes:
    """The same members with fixed timestamps and modes, ``[Content_Types].xml`` first (Office
    wants it there), the rest sorted."""
    src = zipfile.ZipFile(io.BytesIO(data))
    names = sorted(src.namelist(), key=lambda n: (n != "[Content_Types].xml", n))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in names:
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            dst.writestr(info, src.read(name))
    return out.getvalue()


def saved(package: Any, title: str) -> bytes:
    """A python-docx Document or python-pptx Presentation saved the same way every time: fixed
    core properties (author, dates, revision) and :func:`fixed_zip`."""
    core = package.core_properties
    core.title = title
    core.author = "citeledger"
    core.last_modified_by = "citeledger"
    core.revision = 1
    core.created = core.modified = datetime(*FIXED_TIME)
    out = io.BytesIO()
    package.save(out)
    return fixed_zip(out.getvalue())


def write_main(build: Callable[[], bytes], default: Path, argv: list[str] | None) -> None:
    """The scripts' command line: ``[OUT]``, the bundled file by default."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else default
    target.write_bytes(build())
    print(f"wrote {target}")
