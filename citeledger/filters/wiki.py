"""mediawiki, dokuwiki and obsidian: ``[n]`` linked to the page's own list, in each wiki's syntax.

- **mediawiki** (``citeledger.wiki-refs: anchors``, the default): ``[[#src-12|[12]]]`` links to
  an entry that opens with ``<span id="src-12">``, an anchor MediaWiki keeps. With
  ``citeledger.wiki-refs: native`` the first citation of a source writes
  ``<ref name="src-12">[12] Title. URL</ref>``, later ones ``<ref name="src-12" />`` (one note,
  reused), and the page's list is MediaWiki's ``<references />`` under the Sources heading. The
  note's text starts with the ledger id because MediaWiki numbers notes itself.
- **dokuwiki**: DokuWiki has no inline anchors without a plugin; its anchors are section ids.
  ``[12]`` therefore links to the page's Sources section (``[[#sources|[12]]]``), where the
  entries are listed in ledger order.
- **obsidian** (used by ``citeledger wiki --format obsidian``; written with pandoc's gfm
  writer): ``\\[[[#^src-12|12]]\\]``, a block link to the entry, which ends with the block id
  ``^src-12``. The brackets stay outside the link: Obsidian does not allow ``]`` in a link alias.

Pandoc's mediawiki and dokuwiki writers do not escape wiki markup in text (``[[``, ``''``,
``{{``, ``**`` pass through), so the entries are raw wiki markup built here, with every title in
``<nowiki>`` (HTML-escaped for MediaWiki, which decodes entities inside it) and every URL
percent-encoded where the wiki's link syntax would end or reinterpret it. Obsidian titles get a
backslash before every ASCII punctuation character (CommonMark's escape, which Obsidian honours
for ``#tags``, ``==highlights==``, ``%%comments%%`` and ``[[links]]`` alike).
"""

from __future__ import annotations

import copy
import html
import re
import unicodedata
from urllib.parse import quote

from ..escape import punctuation_escaped
from ..ledger import Source
from ..options import Options
from ..tree import (
    Block,
    Inline,
    Inlines,
    Json,
    elements,
    link,
    raw_block,
    raw_inline,
    str_,
    stringify,
)
from . import base
from .base import source_anchor

# Characters a URL keeps as they are inside ``[url label]`` / ``[[url]]``; the rest (space,
# brackets, pipe, braces, quotes, angle brackets, non-ASCII) is percent-encoded. ``~`` is encoded
# too, and ``_`` where two meet: MediaWiki expands ``~~~`` to ``~~~~~`` into a signature when the
# page is saved and obeys ``__NOTOC__`` and its kin (and their translations) anywhere outside
# ``<nowiki>``, URLs included; DokuWiki reads ``~~NOTOC~~``. Both are unreserved characters, so
# ``%7E`` and ``%5F`` name the same resource (RFC 3986, section 6.2.2.2).
_URL_SAFE = "-._:/?#@!$&()*+,;=%"  # and ASCII letters and digits
_UNDERSCORE_RUN = re.compile(r"_{2,}")
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_TEXT = ("Plain", "Para")
_NOWIKI_END = re.compile(r"</nowiki\s*>", re.IGNORECASE)


def wiki_url(url: str) -> str:
    """``url`` as a wiki link target and label: the same resource, with nothing a wiki reads
    as markup, a signature or a page switch. A ``%`` that starts no escape is written ``%25``,
    as ``add`` stores it (a hand-edited ledger may hold ``%%``, Obsidian's comment)."""
    return _no_switches(quote(_LONE_PERCENT.sub("%25", url), safe=_URL_SAFE))


def _no_switches(url: str) -> str:
    encoded = url.replace("~", "%7E")  # quote() keeps "~" whatever it is told
    return _UNDERSCORE_RUN.sub(lambda m: "%5F" * len(m.group(0)), encoded)


def _inert_links(node: Json) -> None:
    """Every external link under ``node`` (the draft's own, in text and notes alike) without
    ``~~~`` or ``__``: pandoc's wiki writers print a link's URL as it is, and MediaWiki would
    sign or switch on it. An autolink keeps showing its (encoded) URL."""
    for el in elements(node):
        if el.get("t") != "Link":
            continue
        target = el["c"][2]
        if _SCHEME.match(target[0]):
            safe = _no_switches(target[0])
            if safe != target[0] and stringify(el["c"][1]) == target[0]:
                el["c"][1] = [str_(safe)]
            target[0] = safe


def _captions_to_images(node: Json, placed: dict[int, Inline]) -> None:
    """pandoc 3's MediaWiki writer draws a figure from its image's alt text and drops the
    Figure's caption, where the citations were placed: a figure whose caption holds a placed
    citation gets that caption as its image's alt text, so ``[[File:x.png|... [[#src-2|[2]]]]]``
    links where the draft's ``[2]`` stood."""
    for el in elements(node):
        if el.get("t") != "Figure":
            continue
        caption = el["c"][1][1]
        inlines = caption[0]["c"] if len(caption) == 1 and caption[0]["t"] in _TEXT else None
        if inlines is None or not any(id(i) in placed for i in elements(inlines)):
            continue
        images = [i for i in elements(el["c"][2]) if i.get("t") == "Image"]
        if len(images) == 1:
            images[0]["c"][1] = copy.deepcopy(inlines)


def mediawiki_text(text: str) -> str:
    return f"<nowiki>{html.escape(text, quote=False)}</nowiki>" if text else ""


def dokuwiki_text(text: str) -> str:
    if not text:
        return ""
    parts = _NOWIKI_END.split(text)
    return "<nowiki>" + "</nowiki>%%</nowiki>%%<nowiki>".join(parts) + "</nowiki>"


def dokuwiki_section_id(title: str) -> str:
    """DokuWiki's ``sectionID`` for a heading (its ``cleanID`` with accents folded, ``:`` and
    ``.`` dropped, leading digits and separators trimmed)."""
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    cleaned = re.sub(r"[^a-z0-9_.:-]+", "_", folded).strip("_")
    cleaned = cleaned.replace(":", "").replace(".", "")
    cleaned = cleaned.lstrip("0123456789._-")
    return cleaned or "section"


# An ISO 8601 date or date-time, as ``add`` writes it: shown as it is. Anything else a hand-edited
# ledger holds in ``accessed`` is web-grade text and is escaped like a title.
_ISO_DATE = re.compile(r"[0-9T:.+-]*Z?")


def _accessed(source: Source, fmt: str) -> str:
    """`` (accessed DATE)`` as markup of the wiki ``fmt``, or nothing."""
    date = source.display_accessed
    if not date:
        return ""
    if fmt == "obsidian":
        return punctuation_escaped(f" (accessed {date})")
    if not _ISO_DATE.fullmatch(date):
        date = dokuwiki_text(date) if fmt == "dokuwiki" else mediawiki_text(date)
    return f" (accessed {date})"


class WikiEntries(base.BaseEntries):
    """An entry as raw markup of the wiki (see the module docstring for the escaping)."""

    def __init__(self, fmt: str, options: Options) -> None:
        super().__init__(fmt, options)
        self.native = self.fmt == "mediawiki" and options.wiki_refs == "native"

    def markup(self, source: Source, number: int) -> str:
        """``[n] Title. URL (accessed DATE)`` as raw markup of the wiki (titles escaped): the
        list's entry, and the text of a native MediaWiki note."""
        title = source.lead_sentence
        url = wiki_url(source.url)
        accessed = _accessed(source, self.fmt) + self.archived(source)
        if self.fmt == "dokuwiki":
            return f"[{number}] {dokuwiki_text(title)} [[{url}]]{accessed}".replace("  ", " ")
        if self.fmt == "obsidian":
            return f"\\[{number}\\] {punctuation_escaped(title)} <{url}>{accessed}"
        url = url.replace("&", "&amp;")
        text = f"{mediawiki_text(title)} [{url} {url}]{accessed}".strip()
        if self.native:
            return f"[{number}] {text}"
        return f'<span id="{source_anchor(source.id)}">[{number}]</span> {text}'

    def archived(self, source: Source) -> str:
        """`` (archived URL)`` as markup of the wiki, or nothing."""
        if not source.archived:
            return ""
        url = wiki_url(source.archived)
        if self.fmt == "dokuwiki":
            return f" (archived [[{url}]])"
        if self.fmt == "obsidian":
            return f" (archived <{url}>)"
        url = url.replace("&", "&amp;")
        return f" (archived [{url} {url}])"

    def entry(self, source: Source, number: int) -> Inlines:
        raw = self.markup(source, number)
        if self.fmt == "obsidian":
            raw += f" ^{source_anchor(source.id)}"
        return [raw_inline("markdown" if self.fmt == "obsidian" else self.fmt, raw)]


class WikiPlacement(base.BasePlacement):
    """The format and the reference style are the entries' (``self.entries``), which the
    inline side shares: a native MediaWiki note holds the entry's markup."""

    entries: WikiEntries
    entries_type = WikiEntries

    def __init__(self, state: base.State) -> None:
        super().__init__(state)
        self.placed: dict[int, Inline] = {}  # every citation element placed, by id()

    # Inline side -------------------------------------------------------------------------
    def cite(self, source: Source, number: int, at: base.CiteContext) -> Inlines:
        out = self.cite_elements(source, number, at.occurrence)
        self.placed.update((id(el), el) for el in out)
        return out

    def cite_elements(self, source: Source, number: int, occurrence: int) -> Inlines:
        anchor = source_anchor(source.id)
        fmt = self.entries.fmt
        if self.entries.native:
            if occurrence == 1:
                markup = self.entries.markup(source, number)
                return [raw_inline("mediawiki", f'<ref name="{anchor}">{markup}</ref>')]
            return [raw_inline("mediawiki", f'<ref name="{anchor}" />')]
        if fmt == "dokuwiki":
            target = "#" + dokuwiki_section_id(self.state.options.sources_title)
            return [link([str_(f"[{number}]")], target)]
        if fmt == "obsidian":
            return [str_("["), raw_inline("markdown", f"[[#^{anchor}|{number}]]"), str_("]")]
        return [link([str_(f"[{number}]")], "#" + anchor)]

    # Block side --------------------------------------------------------------------------
    def list_blocks(self, sources: list[Source]) -> list[Block]:
        if self.entries.native:
            return [self.sources_header(), raw_block("mediawiki", "<references />")]
        items = [[{"t": "Plain", "c": self.entry(s, self.state.number(s.id))}] for s in sources]
        return [self.sources_header(), {"t": "BulletList", "c": items}]

    def finalize(self) -> None:
        super().finalize()
        if self.entries.fmt in ("mediawiki", "dokuwiki"):
            _inert_links(self.state.doc["blocks"])
        if self.entries.fmt == "mediawiki":
            _captions_to_images(self.state.doc["blocks"], self.placed)
