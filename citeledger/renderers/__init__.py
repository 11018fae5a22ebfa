"""Renderers: post-processing of the files pandoc wrote, for what a filter cannot express.

``finish(path, ledger=..., options=...)`` picks the renderer by the file's suffix: ``.docx``
(``renderers/docx.py``: Word marks equal to ledger ids, endnotes) and ``.pptx``
(``renderers/pptx.py``: Sources slides). ``citeledger finish`` and ``citeledger convert`` both call
it. The office libraries load only here, inside ``finish``; what the filters and the renderers both
need (``formats.docx_marks``, ``formats.slide_fit``) lives below both, so neither imports the other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadInput
from ..formats import rendered_suffixes
from ..options import RECORD_PROPERTY, Options, from_record

if TYPE_CHECKING:
    from ..ledger import Ledger

SUFFIXES = rendered_suffixes()
LEGACY_PROPERTY = "citeledger-docx"


def finish(path: Path, *, ledger: Ledger, options: Options) -> None:
    """Apply the renderer for ``path``'s format to the file in place."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        what = f"a {suffix} file" if suffix else "a file without an extension"
        raise BadInput(
            f"{path}: citeledger finish works on .docx and .pptx files, not {what}",
            hint="give the .docx or .pptx that pandoc wrote",
        )
    if not path.is_file():
        raise BadInput(f"{path}: no such file", hint=f"give the {suffix} that pandoc wrote")
    refuse_doctype(path)
    if suffix == ".docx":
        from .docx import finish_docx

        finish_docx(path, ledger=ledger, options=options)
    else:
        from .pptx import finish_pptx

        finish_pptx(path, ledger=ledger, options=options)


# What each renderer loads when it runs: its module and its office library.
_LOADS = {
    ".docx": ("citeledger.renderers.docx", "docx"),
    ".pptx": ("citeledger.renderers.pptx", "pptx", "pptx.enum.text"),
}


def preload(suffix: str) -> None:
    """Import what the renderer of ``suffix`` needs, ahead of its run (convert does it while
    pandoc reads the draft); nothing for a suffix no renderer finishes."""
    from importlib import import_module

    for name in _LOADS.get(suffix.lower(), ()):
        import_module(name)


def refuse_doctype(path: Path) -> None:
    """Refuse a package any of whose XML parts declares a DOCTYPE. Office never writes one; a
    crafted file uses it for entities (a billion laughs, an external file), and the XML
    parser drops the declaration and then saves a part whose entities nothing defines, a file
    Word will not open."""
    import zipfile
    import zlib

    from ..files import check_archive

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


def recorded_options(path: Path) -> Options:
    """The options the filter recorded in a .docx or .pptx it built (``citeledger-options``),
    so ``citeledger finish`` repeats what the build was told; defaults when there are none."""
    from . import _oxml

    if Path(path).suffix.lower() not in SUFFIXES:
        return Options()
    return recorded_from_text(
        _oxml.custom_property(Path(path), RECORD_PROPERTY),
        _oxml.custom_property(Path(path), LEGACY_PROPERTY),
    )


def recorded_from_text(record: str | None, legacy: str | None = None) -> Options:
    """Recorded options from the JSON property, or from the ``notes=... numbering=...`` text
    that Word files built by citeledger 0.1 carry."""
    if record is not None:
        return from_record(record)
    values: dict[str, str] = {}
    for item in (legacy or "").split():
        key, sep, value = item.partition("=")
        if sep and key in ("notes", "numbering"):
            values[key] = value
    return from_record(json.dumps(values))


def save_in_place(package: Any, path: Path) -> None:
    """Save a python-docx or python-pptx package over ``path`` through the one safe write:
    a crash or a full disk leaves the file pandoc wrote, never half of the finished one."""
    import io

    from ..files import write_bytes

    buffer = io.BytesIO()
    package.save(buffer)
    write_bytes(path, buffer.getvalue(), follow=True)
