"""org and rst: the html placement (``[n]`` linked to its entry, entries linked back), with the
entries' text escaped here, for writers that print text where their readers find markup.

pandoc's org writer prints a Str as it is, and Org reads links, LaTeX fragments, export
snippets, macros and Babel calls in plain text; pandoc's rst writer escapes emphasis and roles
but not a bare ``javascript:...``, which reStructuredText makes a link. So every Str of an entry
outside its link (the ``[n]``, the title, the access date) is written as raw text of the format,
escaped by the one function for its syntax (``escape.org_text``,
``escape.punctuation_escaped``); the link itself is the writer's, showing and opening the URL as
``Source.href`` percent-encoded it (an Org label cannot hold ``]]``, an rst one ``<...>``).
"""

from __future__ import annotations

from collections.abc import Callable

from ..escape import org_text, punctuation_escaped
from ..ledger import Source
from ..tree import Inlines, raw_inline, str_
from . import html

ESCAPERS: dict[str, Callable[[str], str]] = {"org": org_text, "rst": punctuation_escaped}


class EscapedEntries(html.HtmlEntries):
    def entry(self, source: Source, number: int) -> Inlines:
        escape = ESCAPERS[self.fmt]
        out: Inlines = []
        for el in super().entry(source, number):
            if el.get("t") == "Str":
                el = raw_inline(self.fmt, escape(el["c"]))
            elif el.get("t") == "Link" and el["c"][2][0] == source.href:
                el["c"][1] = [str_(source.href)]  # a label neither syntax can hold raw
            out.append(el)
        return out


class EscapedPlacement(html.HtmlPlacement):
    entries: EscapedEntries
    entries_type = EscapedEntries
