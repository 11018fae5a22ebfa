"""The titles a Sources block may carry, and how a written title is compared with them.

A Sources block opens with its title, in any of the forms people and tools write it:

- a heading at any level, ATX (``## Sources``, ``## Sources ##``) or setext (underlined);
- a paragraph whose first line is ``**Sources:**``, ``**Sources**``, ``Sources:`` or
  ``Sources`` alone;
- on slides read back from PowerPoint, a paginated title: ``Sources (1/2)``; consecutive pages
  are one block.

The title is "Sources", the document's ``citeledger.sources-title``, or one of the titles
people give a numbered reference list (:data:`COMMON_TITLES`: "References", "Bibliography",
"Works cited", "参考文献", "Quellen", "Источники", "المراجع"...), in any case, with an optional
colon (and, on a heading line, an optional ``{#id .class}``). A block under a common title must
list an entry: an empty "# References" is where citeproc puts its bibliography, not a
placeholder for a Sources list.

Titles are compared folded (whitespace collapsed, any case), one frozen set per set of titles:
the tree's reader (:mod:`.sources_block`) and the raw lines' (:mod:`.sources_lines`) ask for
every heading and paragraph of a draft.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ..ledger.light import pattern  # compiled on first use: start-up time

DEFAULT_TITLE = "Sources"
# The titles of numbered reference lists in the documents people write, in the languages they
# write them in: a section under one is a Sources block when it lists ``[n] url`` entries.
COMMON_TITLES = (
    "References",
    "Reference",
    "Reference list",
    "Bibliography",
    "Works cited",
    "Works consulted",
    "Citations",
    "Notes and references",
    "References and notes",
    "Sources and references",
    "Literature",
    "Literature cited",
    "参考文献",
    "参考资料",
    "參考文獻",
    "參考資料",
    "出典",
    "참고 문헌",
    "참고문헌",
    "출처",
    "Quellen",
    "Quellenverzeichnis",
    "Literatur",
    "Literaturverzeichnis",
    "Einzelnachweise",
    "Références",
    "Bibliographie",
    "Referencias",
    "Fuentes",
    "Bibliografía",
    "Referências",
    "Fontes",
    "Bibliografia",
    "Fonti",
    "Riferimenti",
    "Bronnen",
    "Źródła",
    "Источники",
    "Литература",
    "Список литературы",
    "Джерела",
    "Kaynaklar",
    "Kaynakça",
    "المراجع",
    "المصادر",
    "مراجع",
    "مصادر",
    "منابع",
    "מקורות",
    "संदर्भ",
)
DEFAULT_TITLES = (DEFAULT_TITLE, *COMMON_TITLES)
ANY_HEADING = 99  # the "level" of a paragraph title: any heading ends its block

# A slide title's page: ``Sources (1/2)``.
PAGINATION = pattern(r"\s*\(\s*\d+\s*/\s*\d+\s*\)$", needs=("/",))


def own_titles(title: str | None) -> tuple[str, ...]:
    """The titles citeledger itself gives a list: "Sources" and the configured one (a built
    deck's Sources slides carry one of them, never a common title the draft did not use)."""
    if title and title.strip() and title.strip().casefold() != DEFAULT_TITLE.casefold():
        return (" ".join(title.split()), DEFAULT_TITLE)
    return (DEFAULT_TITLE,)


def titles_for(title: str | None) -> tuple[str, ...]:
    """The titles a draft's block may carry: the configured one first, "Sources", then the
    common titles."""
    own = own_titles(title)
    return own + tuple(t for t in COMMON_TITLES if not is_sources_title(t, own))


def title_core(text: str) -> str:
    """A title as written without its colon or page (``References:`` is "References")."""
    core = " ".join(text.split()).rstrip(":").rstrip()
    if not core.endswith(")"):  # no page: the pattern is not compiled for nothing
        return core
    return PAGINATION.sub("", core).rstrip(":").rstrip()


def may_be_empty(title: str, titles: Sequence[str]) -> bool:
    """Whether a block under ``title`` counts with no entries yet: "Sources", the configured
    title (``titles[0]``) or any title the caller named that is not a common one."""
    if is_sources_title(title, (DEFAULT_TITLE, *titles[:1])):
        return True
    return not is_sources_title(title, COMMON_TITLES)


def is_sources_title(text: str, titles: Sequence[str] = DEFAULT_TITLES) -> bool:
    """Whether ``text`` (a heading's or a slide's title, a paragraph's first line without its
    markup) names a Sources block: a title, any case, an optional colon, an optional page."""
    core = title_core(text)
    if not core:
        return False
    return core.casefold() in _folded(tuple(titles))


@functools.lru_cache(maxsize=16)
def _folded(titles: tuple[str, ...]) -> frozenset[str]:
    """The titles as :func:`is_sources_title` compares them, once per set of titles."""
    return frozenset(" ".join(t.split()).casefold() for t in titles)


@functools.lru_cache(maxsize=16)
def first_words(titles: tuple[str, ...]) -> frozenset[str]:
    """Each title's first word, folded: a paragraph whose first word is none of them opens no
    block, which spares reading the first line of every paragraph of a long draft."""
    return frozenset(t.casefold().split()[0] for t in titles if t.split())
