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

- html, html5, epub, markdown, gfm, commonmark and any other format (``html``):
  ``[n]`` links to ``#src-n`` and carries the id ``cite-n-k``; the Sources list gives each entry
  the anchor ``src-n`` (raw ``<a id>`` in gfm/commonmark) and ``↩`` links back to each citation.
  HTML a browser shows (html, html5, revealjs, chunkedhtml) also gives each citation a title
  and an evidence card (title, host, access date, quotes, archived copy) on hover and focus,
  letters its back-links ``^ a b c``, and carries the stylesheet and script inline
  (``filters/cards.py``); ``marker-style: superscript`` raises the marks.
- latex, beamer (``latex``): endnote marks keyed by ledger id, one entry per source at the end,
  linked both ways; the macros arrive through ``header-includes`` (the author's are kept).
  xelatex and lualatex set CJK and right-to-left titles in an installed font (Noto CJK, DejaVu);
  pdflatex prints ``[...]`` for them.
- typst (``typst``): ``#link(<src-n>)[[n]]`` marks and a labelled Sources grid.
- org, rst (``escaped``): as html, with the entries' text escaped by citeledger, where pandoc's
  writer leaves markup live (Org links and Babel calls, a bare ``javascript:`` in rst).
- docx, pptx, mediawiki, dokuwiki, chunkedhtml: see their modules.

A heading that holds a marker keeps the identifier pandoc would give it without the marker
(``# Introduction[1]`` is ``#introduction``, not ``#introduction1``), and links to it follow.
A link whose text is a marker (``[7]`` with a ``[7]: https://...`` definition, ``[7](url)``)
is a citation like any other when written as one (attached to its text, or an id or URL the
ledger knows; ``See issue [1328](...)`` stays a link): verified (its URL must be the ledger's)
and placed. The draft's own Sources block ("Sources", the configured title, or a common one
such as "References" or "参考文献") is dropped only when it is a citation list and the document
cites; the list takes its place under its title unless ``sources-title`` names another.

Where the filter goes in a pandoc command line (pandoc runs filters and ``--citeproc`` in the
order given):

1. filters that add or move text (include files, snippets; Lua or JSON) come first: a marker
   that arrives after this filter ran is neither verified nor placed;
2. ``--citeproc`` comes before this filter. A note style moves its note after the punctuation
   that follows a citation and takes a marker's opening bracket with it (``[@k].[10]`` becomes
   ``.[`` note ``10]``); the filter puts the bracket back after the note, which stays where
   citeproc put it. Run after the filter, citeproc takes the bracket out of the placed mark:
   nothing is lost (``citeledger verify`` still reads it), but the page shows ``.[`` note
   ``10]``;
3. ``--filter pandoc-citeledger``;
4. filters that restyle what is there (or a panflute filter holding ``citeledger.prepare``);
5. for .docx and .pptx, ``citeledger finish`` on the file pandoc wrote.

``citeledger convert`` and ``citeledger verify`` take the same steps as options (``-F``,
``-L``, ``-d``, ``-C``, ``--bibliography``, ``--csl``) and run them in this order themselves.

A bracket that is not a citation: ``citeledger convert``, ``wiki``, ``verify`` and ``render``
read the draft's text, so ``\\[1\\]`` (backslash-escaped brackets) stays the text "[1]". A bare
``pandoc --filter pandoc-citeledger`` build hands the filter pandoc's tree alone, where the
backslashes are already gone and ``\\[1\\]`` is a citation. There, write ``[1<!-- -->]``: the
empty HTML comment keeps the bracket from reading as a marker and prints nothing in any output
format. Or keep the bracket in code (```` `[1]` ````).

In a panflute filter of your own (``pip install 'citeledger[panflute]'``), citeledger runs in
the same pass, from :mod:`citeledger.filters.panflute`::

    #!/usr/bin/env python3
    import panflute as pf
    from citeledger.filters import panflute as citeledger


    def small_caps_headings(elem, doc):  # sees the placed citations and the Sources list
        if isinstance(elem, pf.Header):
            elem.content = [pf.SmallCaps(*elem.content)]


    if __name__ == "__main__":
        pf.run_filters([small_caps_headings], prepare=citeledger.prepare)

``pandoc draft.md --filter ./my_filter.py`` then writes what ``--filter pandoc-citeledger``
followed by the same filter without citeledger writes. ``prepare`` runs the whole of citeledger
(verification included) before your actions; ``finalize`` runs it after them, for actions that
write markers. Either sets ``doc.citeledger``, the run's state (``ledger``, ``options``,
``order``, ``number(id)``), or None when the document cites nothing. The work is this
filter's, on pandoc JSON: the panflute tree goes to JSON and back, and that is the cost. On the
1.6 MB benchmark report (``python bench/bench_panflute.py``; medians of 3 runs on a busy
2-core machine), ``-t docx`` took 14.2 s through a panflute filter holding only
``citeledger.prepare`` against 11.0 s with ``--filter pandoc-citeledger`` (1.3x; pandoc alone
5.6 s; ``-t latex`` 1.2x the wall time, 1.5x the CPU time), and 13.7 s with the console filter
followed by a panflute filter that does nothing: most of the difference is panflute reading and
writing the tree, which a panflute filter of your own pays anyway. The console filter stays the
fast path for a build without panflute actions. panflute 2.3 knows no typst raw blocks, so no
panflute filter runs on typst output: use the console filter there.

Options come from document metadata (a ``citeledger:`` map in the YAML block, or ``-M`` with a
dotted key such as ``-M citeledger.notes=endnotes``); they are listed below.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from ..errors import CiteledgerError
from ..options.manual import manual_text
from ..options.trust import nesting_error
from ..tree import no_gc
from .run import apply_handed, caller_from, exit_with

__doc__ = (__doc__ or "") + "\n" + manual_text() + "\n"


def main(doc: Any = None) -> Any:
    """Console script ``pandoc-citeledger`` (pandoc passes the target format as argv[1]; a
    caller that knows the draft's file name may pass it as argv[2]).

    Given a panflute Doc, filters it and returns it (:mod:`citeledger.filters.panflute`);
    otherwise reads pandoc JSON on stdin and writes it to stdout.
    """
    if doc is not None:
        # panflute is an optional extra: loaded only when a panflute filter hands in its Doc.
        from .panflute import main as panflute_main

        return panflute_main(doc)
    fmt = sys.argv[1] if len(sys.argv) > 1 else "html"
    if fmt in ("-h", "--help", "--version"):
        from .. import __version__

        _print_quietly(__doc__ if fmt != "--version" else f"pandoc-citeledger {__version__}")
        return None
    # The tree is a large acyclic structure of fresh objects: a collection pass finds nothing
    # to free and, on a 1.6 MB report, costs more than the filter's own work.
    with no_gc():
        try:
            environ: Mapping[str, str] = os.environ
            if len(sys.argv) > 2 and sys.argv[2]:
                # The draft's name, after the format (the Quarto shim passes it): findings
                # name the file, which pandoc never tells a filter.
                environ = {**os.environ, "CITELEDGER_SOURCE_NAME": sys.argv[2]}
            try:
                data = json.loads(sys.stdin.buffer.read())
            except RecursionError:
                raise nesting_error(caller_from(environ).source_name) from None
            apply_handed(data, fmt, environ)
        except CiteledgerError as exc:
            exit_with(exc)
        out = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    sys.stdout.buffer.write(out.encode("utf-8"))
    sys.stdout.flush()
    return None


def _print_quietly(text: str | None) -> None:
    """Print, and end quietly when the reader went away (``pandoc-citeledger -h | head -1``)."""
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)  # what the shell sees of a C program that SIGPIPE ended
