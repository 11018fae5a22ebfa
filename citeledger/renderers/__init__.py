"""Renderers: post-processing of the files pandoc wrote, for what a filter cannot express.

``finish(path, ledger=..., options=...)`` picks the renderer by the file's suffix: ``.docx``
(``renderers/docx.py``: Word marks equal to ledger ids, endnotes) and ``.pptx``
(``renderers/pptx.py``: Sources slides). ``citeledger finish`` and ``citeledger convert`` both
call it. The office libraries load only here, inside ``finish``; what the filters and the
renderers both need (``docx_contract``, ``slides``) lives below both, so neither imports the
other.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BadInput

if TYPE_CHECKING:
    from ..filters.base import FilterOptions
    from ..ledger import Ledger

SUFFIXES = (".docx", ".pptx")


def finish(path: Path, *, ledger: Ledger, options: FilterOptions) -> None:
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
    if suffix == ".docx":
        from .docx import finish_docx

        finish_docx(path, ledger=ledger, options=options)
    else:
        from .pptx import finish_pptx

        finish_pptx(path, ledger=ledger, options=options)


def recorded_options(path: Path) -> dict[str, str]:
    """The options the filter recorded in a written file (``{"notes": ..., ...}``), so that
    ``citeledger finish`` repeats nothing the build already said; empty when none."""
    if Path(path).suffix.lower() == ".docx":
        from .docx import recorded_options as docx_recorded

        return docx_recorded(Path(path))
    return {}
