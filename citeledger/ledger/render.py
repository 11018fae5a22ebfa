"""Sources blocks as text, in the grounded-citations formats.

Pure functions of the ledger, shared by ``citeledger render``, the verifier and the renderers,
so a block looks the same wherever it is made::

    markdown   ## Sources / blank line / [n] url — title, then `` (archived url)`` when the
               ledger holds an archived copy's address (in every text style)
    plain      Sources: / [n] url — title            (chat replies, slides)
    evidence   markdown, plus each quote as sources.py writes it, a line ``    > "quote"``
               under its source; with ``digests``, below it a line ``      (sha256 <digest>)``
               when the ledger kept the text it was checked against (the evidence trail). A
               reader of a chat answer never checks a digest, and it costs tokens, so it is
               asked for; the ledger keeps it either way
    footnotes  [^n]: url — title
    org        * Sources / blank line / - [n] url — title: a plain list, since Org reads a line
               that starts with ``[n]`` as the definition of footnote n (every citation in the
               text would become a footnote numbered anew)
    rst        Sources / ======= / blank line / - [n] url — title: reStructuredText's heading
               and a plain list (a paragraph would join the lines into one entry)
    latex      \\section*{Sources} / a paragraph {[}n{]} \\url{url} --- title per entry
    typst      = Sources / blank line / - \\[n\\] #link("url") — title
    bibtex     @misc{sourceN, title, howpublished = {\\url{...}}, note = {Accessed ...}}, with
               author, year, organization and url when the ledger knows them; the library's
               key, when it gave one, instead of sourceN
    csljson    CSL-JSON, what pandoc's citeproc (--bibliography) and Zotero read (ledger/csl.py)

Entries come in id order. Titles and quotes are web content: the text styles show them on one
line, without hidden characters, escaped as markdown text (a title cannot become a link, an
image or HTML once the block is rendered); BibTeX fields are escaped for BibTeX and the URL for
``\\url`` (``citeledger.escape``).

A URL is printed bare, as sources.py prints it, when markdown reads it back unchanged; otherwise
as an angle-bracket autolink ``<url>``, which pandoc (and every CommonMark reader) reads back as
exactly that URL. Bare, ``https://en.wikipedia.org/wiki/Python_(programming_language)`` loses
its ``)`` to a GitHub-style autolinker, ``a--b`` becomes an en dash under pandoc's ``smart``,
``_x_`` emphasis, a trailing ``.`` the end of a sentence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from operator import attrgetter

from ..errors import BadInput
from ..escape import (
    bibtex_text,
    latex_text,
    latex_url,
    markdown_text,
    punctuation_escaped,
    typst_markup,
    typst_string,
)
from .bibliography import ISSUED_RE, MAX_NAME_SHOWN
from .csl import csljson_text
from .display import display_text
from .model import Ledger, Quote, Source
from .urls import shown

STYLES = (
    "markdown",
    "plain",
    "footnotes",
    "bibtex",
    "evidence",
    "csljson",
    "org",
    "rst",
    "latex",
    "typst",
)
# Styles whose block opens with a Sources heading, which is what lets --replace-in find the
# block again and rewrite it instead of appending a second one.
HEADED_STYLES = ("markdown", "plain", "evidence")
# The style whose block a draft read by each pandoc reader reads back as its Sources entries,
# for the readers where the markdown block does not (keyed by the reader's family); ``render
# --cited-in DRAFT`` writes it unless ``--style`` names another.
READER_STYLES = {"org": "org", "rst": "rst", "latex": "latex", "typst": "typst"}


# A URL that markdown reads back as the same text: no markup characters (an underscore only
# inside a word, where it is no emphasis), no "--" or ".." (smart punctuation), no entity, and
# not ending in punctuation a sentence could own.
_BARE_URL = re.compile(r"https?://[\w/:?=#%+&;,.-]*[\w/=#%+-]")
_NOT_BARE = re.compile(r"--|\.\.|&#?\w+;|(?<![^\W_])_|_(?![^\W_])")
_ORG_OPENERS = re.compile(r"[*/=~+_^\\\[\]{}<>@$|]")
_ANGLE_ESCAPES = {"<": "%3C", ">": "%3E", " ": "%20"}


def _is_bare(url: str) -> bool:
    return bool(_BARE_URL.fullmatch(url)) and not _NOT_BARE.search(url)


def markdown_url(url: str) -> str:
    """``url`` as render writes it in a markdown block (see the module docstring)."""
    if _is_bare(url):
        return url
    return "<" + re.sub(r"[<> ]", lambda m: _ANGLE_ESCAPES[m.group(0)], url) + ">"


def _entry(source: Source) -> str:
    url = markdown_url(source.url)
    title = markdown_text(source.display_lead)
    text = f"{url} — {title}" if title else url
    if source.archived:
        text += f" (archived {markdown_url(source.archived)})"
    return text


def _org_entry(source: Source) -> str:
    """An org list item: the URL bare when Org reads it back whole, else an ``[[url]]`` link
    (``href`` holds no bracket), then the title (:func:`_org_title`)."""
    url = source.url if _is_bare(source.url) else f"[[{source.href}]]"
    title = _org_title(source.display_lead)
    return f"- [{source.id}] {url} — {title}" if title else f"- [{source.id}] {url}"


def _org_title(text: str) -> str:
    """The title as Org shows it: as written when it holds no character that opens Org markup,
    else as verbatim text (``=...=``, or ``~...~`` when it holds ``=``; "" when it holds both,
    which no verbatim can). Org has no escape character; its remedy, a zero-width space before
    each opener (``escape.org_text``), is what ``render`` cannot print (the command line shows
    invisible characters as ``\\u200b``), and pandoc's Org reader stops with a parse error at a
    backslash that opens no LaTeX command. The build lists the ledger's own entries instead of
    this block, so only a reader of the .org file sees this title."""
    if not _ORG_OPENERS.search(text):
        return text
    for mark in "=~":
        if mark not in text:
            return f"{mark}{text}{mark}"
    return ""


def _rst_entry(source: Source) -> str:
    """An rst list item: the URL bare when docutils reads it back whole, else an anonymous
    embedded link (``href`` holds no ``<``, ``>`` or backquote), the title's punctuation escaped
    so no role, reference or link starts in it."""
    url = source.url if _is_bare(source.url) else f"`{source.href} <{source.href}>`__"
    title = punctuation_escaped(source.display_lead)
    return f"- [{source.id}] {url} — {title}" if title else f"- [{source.id}] {url}"


def _latex_entry(source: Source) -> str:
    """A LaTeX paragraph: the bracket as pandoc's LaTeX writer escapes it (``{[}n{]}``, which
    no macro takes for an optional argument), the URL in ``\\url`` as written (``href`` holds
    no brace or backslash; ``%`` and ``#`` escaped; not ``escape.latex_url``, whose
    percent-encoded letters pandoc's reader keeps), the title escaped."""
    title = latex_text(source.display_lead)
    url = source.href.replace("%", "\\%").replace("#", "\\#")
    text = f"{{[}}{source.id}{{]}} \\url{{{url}}}"
    return f"{text} --- {title}" if title else text


def _typst_entry(source: Source) -> str:
    """A typst list item: the bracket escaped (a bare ``[`` opens a content block), the URL a
    ``#link`` string, the title escaped as markup."""
    title = typst_markup(source.display_lead)
    text = f"- \\[{source.id}\\] #link({typst_string(source.href)})"
    return f"{text} — {title}" if title else text


def _rst_heading(title: str) -> list[str]:
    """A title underlined at least as wide as it shows (a wide character takes two columns)."""
    width = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in title)
    return [punctuation_escaped(title), "=" * max(width, 3)]


def _evidence_lines(quote: Quote, digests: bool) -> list[str]:
    """A quote of the evidence style; then, with ``digests``, the digest of the text it was
    checked against when the ledger kept that text, so a reader of the published block can ask
    for that very file (``<ledger stem>.evidence/<digest>.txt``). The digest has a line of its
    own: a caller that reads sources.py's quote lines finds each one exactly as sources.py
    printed it. A digest
    that is not one is not shown."""
    lines = [f'    > "{markdown_text(quote.display_text)}"']
    digest = quote.text_sha256
    if digests and digest and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest):
        lines.append(f"      (sha256 {digest})")
    return lines


def _bibtex_entry(s: Source) -> str:
    """One ``@misc`` entry; the library's fields only when the ledger holds them, so an entry
    without them is what sources.py wrote."""
    fields = [
        f"title = {{{bibtex_text(s.display_title or s.url)}}}",
        f"howpublished = {{\\url{{{latex_url(s.url)}}}}}",
        f"note = {{Accessed {bibtex_text(s.display_accessed)}}}",
    ]
    if s.details:
        fields[1:1] = bibtex_details(s)
    return f"@misc{{{s.key or f'source{s.id}'},\n  " + ",\n  ".join(fields) + "\n}"


def bibtex_details(s: Source) -> list[str]:
    """The author, year, organization and url fields of a source that has details."""
    out: list[str] = []
    names = []
    for name in s.author or []:
        if name.get("literal"):
            names.append("{" + bibtex_text(display_text(name["literal"], MAX_NAME_SHOWN)) + "}")
        elif name.get("family") or name.get("given"):
            family = bibtex_text(display_text(name.get("family", ""), MAX_NAME_SHOWN))
            given = bibtex_text(display_text(name.get("given", ""), MAX_NAME_SHOWN))
            names.append(f"{{{family}}}, {given}" if given else f"{{{family}}}")
    if names:
        out.append("author = {" + " and ".join(names) + "}")
    year = ISSUED_RE.match(s.issued or "")
    if year:
        out.append(f"year = {{{year.group(1)}}}")
    if s.site:
        out.append(f"organization = {{{bibtex_text(display_text(s.site, 200))}}}")
    out.append(f"url = {{{latex_url(s.url)}}}")
    return out


def pick_sources(ledger: Ledger, ids: Iterable[int] | None) -> list[Source]:
    """The ledger's sources whose ids are in ``ids`` (all when ``None``), in id order; ids the
    ledger does not hold are skipped (the caller reports them if it cares)."""
    if ids is None:  # every source (list, a whole block): no filter, and a C-speed key
        return sorted(ledger.sources, key=_BY_ID)
    wanted = set(ids)
    return sorted((s for s in ledger.sources if s.id in wanted), key=_BY_ID)


_BY_ID = attrgetter("id")


def render_block(
    ledger: Ledger,
    ids: Iterable[int] | None = None,
    style: str = "markdown",
    *,
    title: str = "Sources",
    digests: bool = False,
) -> str:
    """The Sources block for ``ids`` (all sources when ``None``) in ``style``, without a final
    newline, under ``title``; an empty string when nothing is picked. ``digests``: the
    evidence style names each quote's kept text by its sha256."""
    if style not in STYLES:
        raise BadInput(f"unknown render style {style!r}", hint="use one of " + ", ".join(STYLES))
    picked = pick_sources(ledger, ids)
    if not picked:
        return ""
    if style == "bibtex":
        return "\n".join(_bibtex_entry(s) for s in picked)
    if style == "csljson":
        return csljson_text(picked)
    if style == "footnotes":
        return "\n".join(f"[^{s.id}]: {_entry(s)}" for s in picked)
    shown_title = " ".join(title.split()) or "Sources"
    if style == "org":
        lines = [f"* {_org_title(shown_title) or 'Sources'}", ""]
        return "\n".join(lines + [_org_entry(s) for s in picked])
    if style == "rst":
        return "\n".join([*_rst_heading(shown_title), ""] + [_rst_entry(s) for s in picked])
    if style == "latex":
        head = f"\\section*{{{latex_text(shown_title)}}}"
        return "\n\n".join([head] + [_latex_entry(s) for s in picked])
    if style == "typst":
        head = f"= {typst_markup(shown_title)}"
        return "\n".join([head, ""] + [_typst_entry(s) for s in picked])
    heading = markdown_text(shown_title)
    lines = [f"{heading}:"] if style == "plain" else [f"## {heading}", ""]
    for s in picked:
        lines.append(f"[{s.id}] {_entry(s)}")
        if style == "evidence":
            for q in s.quotes:
                lines.extend(_evidence_lines(q, digests))
                if s.page_note(q):
                    lines.append(f"      (text: {markdown_text(s.page_note(q))})")
    return "\n".join(lines)


def parse_id_spec(spec: str) -> set[int]:
    """``"1,3,5-7"`` as ``{1, 3, 5, 6, 7}``; anything else raises ``BadInput``."""
    out: set[int] = set()
    for chunk in spec.replace(" ", "").split(","):
        if not chunk:
            continue
        match = re.fullmatch(r"([0-9]{1,7})(?:-([0-9]{1,7}))?", chunk)
        if match is None:
            # Clipped: a 5,000-digit "id" is not echoed whole.
            raise BadInput(
                f"--only: {shown(chunk)} is not an id or a range", hint="write e.g. 1,3,5-7"
            )
        low = int(match.group(1))
        if low < 1:
            raise BadInput(f"--only: {chunk!r} names id 0", hint="ids start at 1")
        high = int(match.group(2) or low)
        if high < low:
            raise BadInput(f"--only: range {chunk!r} runs backwards", hint=f"write {high}-{low}")
        if high - low > 1_000_000:
            raise BadInput(f"--only: range {chunk!r} is too large")
        out.update(range(low, high + 1))
    if not out:
        raise BadInput(f"--only: {shown(spec)} names no ids", hint="write e.g. 1,3,5-7")
    return out
