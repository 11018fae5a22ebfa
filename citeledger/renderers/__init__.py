"""Renderers: post-processing of the files pandoc wrote, for what a filter cannot express.

``postprocess(path, ledger=..., options=...)`` picks the renderer by the file's suffix: ``.docx``
(``renderers/docx.py``: Word marks equal to ledger ids, endnotes) and ``.pptx``
(``renderers/pptx.py``: Sources slides). ``citeledger finish`` and ``citeledger convert`` both call
it. The office libraries load only here, inside ``postprocess``; what the filters and the renderers
both need (``formats.docx_marks``, ``formats.slide_fit``) lives below both, so neither imports the
other. What both renderers do to the file itself (refuse a DOCTYPE, save in place) is
``renderers/office_file.py``, which the renderers import instead of this package.

The PDF engines' side lives here too: ``renderers/typst.py`` (the typst wheel's compile),
``renderers/latex.py`` (fonts and direction for the LaTeX engines, their log read back) and
``renderers/fonts.py`` (the scripts a typst PDF drew blank).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BadInput
from ..formats import rendered_suffixes
from ..options import RECORD_PROPERTY, Options, from_record
from .office_file import refuse_doctype

if TYPE_CHECKING:
    from ..ledger import Ledger

SUFFIXES = rendered_suffixes()
LEGACY_PROPERTY = "citeledger-docx"


def postprocess(path: Path, *, ledger: Ledger, options: Options) -> None:
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
        from .docx import postprocess_docx

        postprocess_docx(path, ledger=ledger, options=options)
    else:
        from .pptx import postprocess_pptx

        postprocess_pptx(path, ledger=ledger, options=options)


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
