"""The user's own pandoc steps, run on the draft before citeledger reads it.

``convert`` and ``verify`` take pandoc's options for them, with pandoc's names: ``--filter/-F``,
``--lua-filter/-L``, ``--defaults/-d``, ``--citeproc/-C``, ``--bibliography``, ``--csl``,
``--resource-path``. They run in the order that loses nothing, whatever order they were given
in:

1. the filters (JSON and Lua, in the order given) and the defaults files, while pandoc reads
   the draft: an include filter's text is then part of what is verified and placed;
2. citeproc, on the tree the filters left: ``[@key]`` resolved before citeledger scans, so a
   note style's notes are there when the marks are placed (the marker finder puts back the
   brackets a note style moves, see :mod:`.markers`);
3. citeledger: scan, verify, place (``filters.run.apply``), then pandoc writes.

Citeproc runs when ``--citeproc`` is given, and also when ``--bibliography`` is or the draft's
metadata names one (``bibliography:`` or ``references:``): a draft that names its bibliography
means it to be resolved (Quarto and R Markdown do the same). A defaults file decides for
itself. The bibliography and the CSL file are looked for in the resource path (the draft's
folder, then the working folder), as pandoc looks for them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from ..ledger.light import field, record
from ..pandoc_start import draft_resources
from ..tree import Json

JSON_FILTER = "filter"
LUA_FILTER = "lua-filter"


@record(frozen=True)
class Pipeline:
    """The user's steps. ``filters``: (kind, path) in the order pandoc runs them, kind
    :data:`JSON_FILTER` or :data:`LUA_FILTER`."""

    filters: Sequence[tuple[str, str]] = ()
    citeproc: bool = False
    bibliography: Sequence[str] = ()
    csl: str | None = None
    defaults: Sequence[str] = ()
    resource_path: str | None = None
    extra: Sequence[str] = field(default_factory=tuple)  # for the writing step (convert)

    def resources(self, draft: Path) -> str:
        """The resource path: the user's, else the draft's folder and the working folder."""
        if self.resource_path:
            return self.resource_path
        return draft_resources(str(draft))

    def reading_args(self, draft: Path) -> list[str]:
        """pandoc's options for reading the draft: defaults first (flags after them win),
        then the filters in order."""
        args: list[str] = []
        for path in self.defaults:
            args += ["--defaults", path]
        args += ["--resource-path", self.resources(draft)]
        for kind, path in self.filters:
            args.append(f"--{kind}={path}")
        if self.defaults:
            args += ["-o", "-"]  # a defaults file's output-file must not take the tree
        return args

    def reads_plainly(self) -> bool:
        """Whether pandoc reads the draft as it would with no pipeline: no filter and no
        defaults file run while it reads (citeproc runs after the reading, the writing step's
        options at the writing; the resource path is no concern of the markdown reader)."""
        return not self.filters and not self.defaults

    def wants_citeproc(self, meta: Json) -> bool:
        return (
            self.citeproc
            or bool(self.bibliography)
            or (not self.defaults and ("bibliography" in meta or "references" in meta))
        )

    def resolve_citations(self, doc: Json, draft: Path) -> Json:
        """``doc`` with citeproc run on it when :meth:`wants_citeproc` (else ``doc``)."""
        if not self.wants_citeproc(doc.get("meta", {})):
            return doc
        from ..pandoc import run_pandoc
        from .bib_cycles import refuse_cycles

        refuse_cycles(self._bibliographies(doc, draft))
        args = ["-f", "json", "-t", "json", "--citeproc", "--resource-path", self.resources(draft)]
        for path in self.bibliography:
            args += ["--bibliography", path]
        if self.csl:
            args += ["--csl", self.csl]
        out = run_pandoc(args, stdin=json.dumps(doc, ensure_ascii=False), what=str(draft))
        resolved: Json = json.loads(out)
        return resolved

    def _bibliographies(self, doc: Json, draft: Path) -> list[Path]:
        """The bibliography files citeproc will read: the flags' and the draft's own
        (``bibliography:``), each where the resource path finds it."""
        from ..tree import stringify

        named = list(self.bibliography)
        value = doc.get("meta", {}).get("bibliography")
        items = (
            value.get("c", [])
            if isinstance(value, dict) and value.get("t") == "MetaList"
            else [value]
        )
        named += [stringify(item).strip() for item in items if item]
        folders = [Path(p) for p in self.resources(draft).split(os.pathsep) if p]
        found: list[Path] = []
        for name in named:
            path = Path(name)
            candidates = [path] if path.is_absolute() else [path, *(f / path for f in folders)]
            found += [c for c in candidates if c.is_file()][:1]
        return found


def filter_order(
    argv: Sequence[str], json_filters: Sequence[str], lua_filters: Sequence[str]
) -> list[tuple[str, str]]:
    """The filters in the order the command line gave them (pandoc runs them in that order; a
    parser hands each option's values apart). Falls back to JSON filters, then Lua filters,
    when the command line is not this process's own (an API caller)."""
    names = {
        "-F": JSON_FILTER,
        "--filter": JSON_FILTER,
        "-L": LUA_FILTER,
        "--lua-filter": LUA_FILTER,
    }
    found: list[tuple[str, str]] = []
    k = 0
    while k < len(argv):
        token = argv[k]
        if token == "--":
            break
        if token in names and k + 1 < len(argv):
            found.append((names[token], argv[k + 1]))
            k += 2
            continue
        for name in ("--filter", "--lua-filter"):
            if token.startswith(name + "="):
                found.append((names[name], token[len(name) + 1 :]))
        k += 1
    given = [(JSON_FILTER, f) for f in json_filters] + [(LUA_FILTER, f) for f in lua_filters]
    if sorted(found) == sorted(given):
        return found
    return given
