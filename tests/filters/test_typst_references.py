"""A cross-reference to a figure in the default PDF: ``@fig:x`` with no bibliography becomes
``#ref(<fig:x>)``, and the figure keeps its label however often the tree is made compilable
(convert does it before the filter and the filter again): a reference read back as a second
definition once cleared the figure's label, and typst refused the whole PDF."""

from __future__ import annotations

import json

from citeledger.filters.run import make_compilable
from citeledger.pandoc import run_pandoc


def test_a_figure_keeps_its_label_when_the_tree_is_made_compilable_twice() -> None:
    text = "See @fig:a.\n\n![A caption](x.png){#fig:a}\n"
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=text))
    make_compilable(doc)
    make_compilable(doc)
    typst = run_pandoc(["-f", "json", "-t", "typst"], stdin=json.dumps(doc)).decode("utf-8")
    assert "#ref(<fig:a>)" in typst
    assert "<fig:a>\n" in typst.split("#figure(", 1)[1]
