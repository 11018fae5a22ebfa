"""pandoc-citeledger: resolve ledger citations during a pandoc conversion.

Use::

    pandoc report.md --filter pandoc-citeledger -o report.docx
    pandoc report.md --filter pandoc-citeledger -M citeledger.ledger=sources.json -o report.tex

The filter finds the markers (``[n]``, ``[unverified]``, ``[tool:name]``, ``[policy]``) in the
document tree, runs the verifier (the same one as ``citeledger verify``), and places the
citations the way the target format's readers expect. A failed verification stops the build:
each finding goes to stderr with its location, the filter exits non-zero and pandoc writes no
output. Warnings go to stderr and the build goes on (unless strict). The draft's own Sources
block is never copied: the list is rendered from the ledger (cited ids only). A document
without markers passes through unchanged.

Placement per output format (``filters/<module>.py``):

- html, html5, epub, markdown, gfm, commonmark, rst, org and any other format (``html``):
  ``[n]`` links to ``#src-n`` and carries the id ``cite-n-k``; the Sources list gives each entry
  the anchor ``src-n`` (raw ``<a id>`` in gfm/commonmark) and ``↩`` links back to each citation.
- latex, beamer (``latex``): endnote marks keyed by ledger id, one entry per source at the end,
  linked both ways; the macros arrive through ``header-includes`` (the author's are kept).
  xelatex and lualatex set CJK and right-to-left titles in an installed font (Noto CJK, DejaVu);
  pdflatex prints ``[...]`` for them.
- typst (``typst``): ``#link(<src-n>)[[n]]`` marks and a labelled Sources grid.
- docx, pptx, mediawiki, dokuwiki, chunkedhtml: see their modules.

Options, from document metadata (a ``citeledger:`` map in the YAML block, or ``-M`` with a
dotted key such as ``-M citeledger.notes=endnotes``):

``citeledger.ledger`` (path; default ``$CITELEDGER_LEDGER``, else ``$HERMES_CITATION_LEDGER``,
    else ``ledger.json`` in the working directory)
    The ledger that holds the ids.
``citeledger.notes`` (``footnotes`` | ``endnotes`` | ``list``; default ``footnotes``)
    Where the format allows the choice: Word footnotes or endnotes; LaTeX raised endnote marks
    (``footnotes`` and ``endnotes`` alike) or, with ``list``, bracketed ``[n]`` marks; in every
    format ``list`` means only a Sources list with linked ``[n]`` marks.
``citeledger.numbering`` (``ledger`` | ``sequential``; default ``ledger``)
    The visible mark: the ledger id, or the order of first citation. Word marks equal to the
    ledger id need the docx renderer (``citeledger finish report.docx``); bare pandoc gives
    Word's own sequential numbering.
``citeledger.sources-title`` (text; default ``Sources``)
    The title of the Sources list, slide or section.
``citeledger.strict`` (bool; default false)
    Warnings fail the build.
``citeledger.min-coverage`` (number 0-1; default none)
    Fail when fewer sentences of 4+ words carry a marker.
``citeledger.evidence`` (bool; default false)
    Fail when a cited source has no verbatim quote in the ledger.
``citeledger.figures`` (bool; default false)
    Warn when a sentence's numbers appear in none of its sources' quotes.
``citeledger.provenance`` (``keep`` | ``drop``; default ``keep``)
    Keep or drop the ``[unverified]``, ``[tool:x]`` and ``[policy]`` markers in the output.
``citeledger.slide-notes`` (bool; default false)
    pptx: each slide's speaker notes list the sources it cites, with their quotes.
``citeledger.wiki-refs`` (``anchors`` | ``native``; default ``anchors``)
    mediawiki: ``[n]`` linked to a per-page list of ``<span id="src-N">`` anchors, or
    MediaWiki's own ``<ref name="src-N">`` with ``<references/>``.
"""

from __future__ import annotations

import gc
import io
import json
import os
import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any

from ..errors import BadInput, CiteledgerError, VerificationFailed
from ..ledger import Ledger, load_ledger, resolve_ledger_path
from ..tree import Json, stringify, text_to_inlines
from ..verify.markers import Marker, scan
from .base import (
    NOTES,
    NUMBERING,
    PROVENANCE,
    WIKI_REFS,
    FilterOptions,
    Placement,
    State,
    base_format,
)

# Output formats whose readers expect something other than the generic html/markdown form.
# Values are module names in this package; each exports ``Placement``.
PLACEMENTS = {
    "docx": "docx",
    "latex": "latex",
    "beamer": "latex",
    "context": "html",  # ConTeXt takes no raw LaTeX; pandoc's own links and anchors work
    "typst": "typst",
    "pptx": "pptx",
    "mediawiki": "wiki",
    "dokuwiki": "wiki",
    "chunkedhtml": "chunked",
    "obsidian": "wiki",  # not a pandoc writer: citeledger wiki writes it with gfm
}
DEFAULT_PLACEMENT = "html"

_BOOL_TRUE = {"true", "yes", "on", "1"}
_BOOL_FALSE = {"false", "no", "off", "0", ""}

_OPTION_KEYS = {
    "ledger": "ledger",
    "notes": "notes",
    "numbering": "numbering",
    "sources-title": "sources_title",
    "strict": "strict",
    "min-coverage": "min_coverage",
    "evidence": "evidence",
    "figures": "figures",
    "provenance": "provenance",
    "slide-notes": "slide_notes",
    "wiki-refs": "wiki_refs",
    "verify": "verify",
}


def meta_value(value: Json) -> Any:
    """A pandoc MetaValue as plain Python (strings, bools, lists, dicts)."""
    t = value.get("t")
    c = value.get("c")
    if t == "MetaBool":
        return bool(c)
    if t == "MetaString":
        return c
    if t == "MetaInlines":
        return stringify(c)
    if t == "MetaBlocks":
        return stringify(c)
    if t == "MetaList":
        return [meta_value(v) for v in c]
    if t == "MetaMap":
        return {k: meta_value(v) for k, v in c.items()}
    return c


def _as_bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _BOOL_TRUE:
        return True
    if text in _BOOL_FALSE:
        return False
    raise BadInput(f"citeledger.{key}: {value!r} is not true or false", hint="write true or false")


def _choice(key: str, value: Any, allowed: tuple[str, ...]) -> str:
    text = str(value).strip().lower()
    if text not in allowed:
        raise BadInput(
            f"citeledger.{key}: {value!r} is not one of {', '.join(allowed)}",
            hint=f"set -M citeledger.{key}={allowed[0]}",
        )
    return text


def read_options(meta: dict[str, Json], warn: Callable[[str], None]) -> FilterOptions:
    """Options from a ``citeledger`` map and from flat ``citeledger.<key>`` entries (what
    ``-M citeledger.key=value`` makes); a flat key wins, an unknown key is a warning."""
    raw: dict[str, Any] = {}
    if "citeledger" in meta:
        nested = meta_value(meta["citeledger"])
        if isinstance(nested, dict):
            raw.update(nested)
        elif isinstance(nested, str) and nested:
            raw["ledger"] = nested
    for key, value in meta.items():
        if key.startswith("citeledger."):
            raw[key[len("citeledger.") :]] = meta_value(value)
    opts = FilterOptions()
    for key, value in raw.items():
        name = _OPTION_KEYS.get(key.replace("_", "-"))
        if name is None:
            warn(f"warn: unknown option citeledger.{key} ignored (see the filter's manual)")
            continue
        if name in ("strict", "evidence", "figures", "slide_notes", "verify"):
            setattr(opts, name, _as_bool(key, value))
        elif name == "notes":
            opts.notes = _choice(key, value, NOTES)
        elif name == "numbering":
            opts.numbering = _choice(key, value, NUMBERING)
        elif name == "wiki_refs":
            opts.wiki_refs = _choice(key, value, WIKI_REFS)
        elif name == "provenance":
            opts.provenance = _choice(key, value, PROVENANCE)
        elif name == "min_coverage":
            try:
                opts.min_coverage = float(value)
            except (TypeError, ValueError):
                raise BadInput(
                    f"citeledger.min-coverage: {value!r} is not a number",
                    hint="give a fraction such as 0.6",
                ) from None
        else:
            setattr(opts, name, str(value))
    return opts


def placement_for(fmt: str, state: State) -> Placement:
    module = import_module(f"{__package__}.{PLACEMENTS.get(base_format(fmt), DEFAULT_PLACEMENT)}")
    placement: Placement = module.Placement(state)
    return placement


def _replace_hits(state: State, placement: Placement) -> None:
    """Swap every marker for its placed form. Occurrences are counted in document order;
    replacement then runs from the end of each inline list so earlier indices stay valid."""
    planned: list[tuple[list[Json], int, int, list[Json]]] = []
    for hit in state.scan.hits:
        out: list[Json] = []
        prev_cite = False
        for piece in hit.pieces:
            if isinstance(piece, Marker):
                if piece.ids:
                    for source_id in piece.ids:
                        if prev_cite:
                            out += placement.separator()
                        state.seen[source_id] = state.seen.get(source_id, 0) + 1
                        out += placement.cite(
                            state.source(source_id),
                            state.number(source_id),
                            state.seen[source_id],
                        )
                        prev_cite = True
                else:
                    out += placement.provenance(piece)
                    prev_cite = False
            else:
                out += text_to_inlines(piece)
                prev_cite = False
        planned.append((hit.container, hit.start, hit.end, out))
    for container, start, end, out in reversed(planned):
        container[start : end + 1] = out


def apply(
    doc: Json,
    fmt: str,
    *,
    options: FilterOptions | None = None,
    ledger: Ledger | None = None,
    warn: Callable[[str], None] | None = None,
) -> Json:
    """Run the filter on a pandoc JSON document in place and return it.

    prepare: options, ledger, markers, verification; action: marker -> citation;
    finalize: the Sources list and whatever the format needs besides.
    """
    say = warn or (lambda line: print(line, file=sys.stderr))
    meta = doc.get("meta", {})
    opts = options or read_options(meta, say)
    found = scan(doc)
    if not found.hits and found.sources is None and opts.min_coverage is None:
        return doc  # nothing cites anything: the document passes through untouched
    if ledger is None:
        path = resolve_ledger_path(opts.ledger)
        ledger = load_ledger(path)
    if opts.verify:
        _verify(doc, ledger, opts, found, say)
    state = State(doc=doc, format=fmt, options=opts, ledger=ledger, scan=found)
    for _hit, marker in found.markers():
        for source_id in marker.ids:
            state.order.setdefault(source_id, len(state.order) + 1)
    placement = placement_for(fmt, state)
    _replace_hits(state, placement)
    if found.sources is not None:
        blocks = doc["blocks"]
        first = blocks[found.sources.start]
        if first.get("t") == "Header":
            state.sources_level = first["c"][0]
        state.sources_at = found.sources.start
        del blocks[found.sources.start : found.sources.end]
    placement.finish()
    return doc


def verify_for_build(
    doc: Json,
    ledger: Ledger,
    opts: Any,
    found: Any,
    *,
    source_name: str,
    source_text: str | None = None,
) -> Any:
    """The verifier as every build runs it (filter, convert, wiki): the list comes from the
    ledger, so the draft need not carry a Sources block. ``opts`` holds strict, min_coverage,
    evidence and figures."""
    from ..verify import VerifyOptions, verify

    return verify(
        doc,
        ledger,
        VerifyOptions(
            strict=opts.strict,
            min_coverage=opts.min_coverage,
            evidence=opts.evidence,
            figures=opts.figures,
            require_sources_block=False,
        ),
        scan=found,
        source_name=source_name,
        source_text=source_text,
    )


def _verify(doc: Json, ledger: Ledger, opts: FilterOptions, found: Any, say: Any) -> None:
    report = verify_for_build(
        doc, ledger, opts, found, source_name=os.environ.get("CITELEDGER_SOURCE_NAME", "input")
    )
    # Inside a build only findings are news: the stats line and "citations OK" stay quiet.
    for line in report.lines():
        if line.startswith(("warn", "FAIL")):
            say(line)
    if report.failed:
        raise VerificationFailed(
            "verification failed; no output written",
            hint="fix the findings above, or run citeledger verify on the draft",
        )


def main(doc: Any = None) -> Any:
    """Console script ``pandoc-citeledger`` (pandoc passes the target format as argv[1]).

    Given a panflute Doc (tests), returns the filtered Doc; otherwise reads pandoc JSON on
    stdin and writes it to stdout.
    """
    if doc is not None:
        import panflute

        data = json.loads(json.dumps(doc.to_json()))
        apply(data, doc.format)
        return panflute.load(io.StringIO(json.dumps(data)))
    fmt = sys.argv[1] if len(sys.argv) > 1 else "html"
    # The tree is a large acyclic structure of fresh objects: a collection pass finds nothing
    # to free and, on a 1.6 MB report, costs more than the filter's own work.
    gc.disable()
    try:
        data = json.loads(sys.stdin.buffer.read())
        apply(data, fmt)
    except CiteledgerError as exc:
        print(f"pandoc-citeledger: {exc.line()}", file=sys.stderr)
        sys.exit(exc.exit_code)
    out = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    sys.stdout.buffer.write(out.encode("utf-8"))
    sys.stdout.flush()
    return None
