"""A reference library file read for ``ingest``: which format it is, and BibTeX, BibLaTeX or
RIS turned into CSL-JSON items by pandoc (the ledger core reads only CSL items, never pandoc).

The format is the one given (``--from``), else sniffed: JSON that is a list of items with an
``id`` and a ``type`` is CSL-JSON, other JSON is tool output; text with a ``TY  -`` line (or a
``.ris`` name) is RIS; ``@type{`` entries (or a ``.bib`` name) are BibLaTeX when they use its
fields (``urldate``, ``date``, ``journaltitle``, ``@online``), else BibTeX.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import BadInput
from ..ledger.light import pattern  # compiled on first use: start-up time

FORMATS = ("auto", "json", "csljson", "bibtex", "biblatex", "ris")
PANDOC_READ = ("bibtex", "biblatex", "ris")

_RIS_LINE = pattern(r"^TY  - ", re.MULTILINE)
_BIB_ENTRY = pattern(r"^\s*@\w+\s*[{(]", re.MULTILINE)
_BIBLATEX = pattern(
    r"^\s*@online\s*[{(]|^\s*(?:urldate|date|journaltitle)\s*=", re.MULTILINE | re.IGNORECASE
)


def sniff(text: str, name: str) -> str:
    """The format of ``text`` read from ``name`` (see the module docstring); "json" for text
    that is none of the library formats (the JSON reader then says what is wrong)."""
    lowered = name.lower()
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            payload = json.loads(text)
        except (ValueError, RecursionError):
            return "json"
        from ..ledger.csl import is_csl

        return "csljson" if is_csl(payload) else "json"
    if lowered.endswith(".ris") or _RIS_LINE.search(text):
        return "ris"
    if lowered.endswith((".bib", ".bibtex", ".biblatex")) or _BIB_ENTRY.search(text):
        return "biblatex" if _BIBLATEX.search(text) else "bibtex"
    return "json"


def csl_from_library(text: str, fmt: str, where: str) -> list[Any]:
    """The CSL-JSON items pandoc reads from ``text`` in ``fmt`` (bibtex, biblatex or ris)."""
    from ..pandoc import run_pandoc

    out = run_pandoc(["-f", fmt, "-t", "csljson"], stdin=text, what=where)
    try:
        items = json.loads(out)
    except ValueError:
        items = None
    if not isinstance(items, list):
        raise BadInput(f"pandoc read no {fmt} entries from {where}")
    return items
