"""The parts of a markdown report that say where its citations point: footnote definitions
holding a URL (``[^3]: https://...``, Perplexity's export), reference definitions
(``[1]: https://... "Title"``, ChatGPT's ``[Site][1]``), and a References or Sources section
listing numbered entries (``1. Title. https://...``, ``[1] https://... — Title``) or the links
the text cites (GPT Researcher's ``- [title](url)``).

Each is read into a table the text's citations are looked up in, and the stretch of the report
it takes is returned, to be cut: the draft gets one Sources block, rendered from the ledger. A
section entry without a URL cannot become a source: it is kept, under a heading of its own, and
named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..document.sources_titles import is_sources_title
from .answer import Cited, Cut

_URL = re.compile(r"https?://[^\s<>()\[\]]+(?:\([^\s()]*\)[^\s<>()\[\]]*)*", re.IGNORECASE)
_TRAILING = ".,;:!?'\"\u2019\u201d*_"
# A DOI named without an address (``DOI: 10.1080/07350015.2024.2308121``): the ledger takes it
# as its https://doi.org/ address.
_DOI = re.compile(r"\b(?:doi:?\s*)(10\.[0-9]{4,9}/[^\s\]\[<>\"]+)", re.IGNORECASE)
_JOINER = re.compile(r"^(?:and|or|&)\s+|\s+(?:and|or|&)$|^(?:and|or|&)$", re.IGNORECASE)
_ARCHIVED = re.compile(r"https?://web\.archive\.org/web/[0-9a-z_*]+/", re.IGNORECASE)
_MD_LINK = re.compile(r"\[([^\[\]\n]*)\]\(\s*<?(https?://[^\s<>]+?)>?(?:\s+\"[^\"]*\")?\s*\)")
FOOTNOTE_DEF = re.compile(
    r"^\[\^([^\]\s]+)\]:[ \t]*(.*(?:\n(?:[ \t]{2,}|\t)\S.*)*)\n?", re.MULTILINE
)
REFERENCE_DEF = re.compile(
    r"^[ ]{0,3}\[([^\]\^\n][^\]\n]*)\]:[ \t]*<?(https?://[^\s>]+)>?"
    r"(?:[ \t]+(?:\"([^\"\n]*)\"|'([^'\n]*)'|\(([^)\n]*)\)))?[ \t]*(?:\n|$)",
    re.MULTILINE | re.IGNORECASE,
)
# A heading: ATX (``## References``), a bold line (``**Sources**``) or ``References:``.
_HEADING = re.compile(
    r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$|^\*\*([^*\n]+)\*\*:?[ \t]*$"
    r"|^([A-Z][A-Za-z ]{2,30}):[ \t]*$",
    re.MULTILINE,
)
_BREAK = re.compile(r"^[ ]{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_MARKED = re.compile(r"^[ \t]*(?:[-*+][ \t]+|\[\^?[0-9]{1,4}\]|[0-9]{1,4}[.)])")
_ENTRY = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\[\^?([0-9]{1,4})\]:?|([0-9]{1,4})[.)])?[ \t]*(.*)$"
)


@dataclass
class Lists:
    """What the report's lists say: footnote labels and reference labels (lower-cased) to the
    source each names, numbers to sources (a numbered section, or numeric reference labels),
    the stretches to cut, the entries kept for want of a URL, and warnings."""

    footnotes: dict[str, tuple[Cited, ...]] = field(default_factory=dict)
    references: dict[str, Cited] = field(default_factory=dict)
    numbers: dict[int, Cited] = field(default_factory=dict)
    cuts: list[Cut] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Every entry with a URL of the sections cut, in the report's order: the titles a list
    # gives the links the text cites, and the pages it lists and the text does not cite.
    listed: list[Cited] = field(default_factory=list)


def url_in(text: str) -> tuple[str, str] | None:
    """The first URL of ``text`` and the title that goes with it: a link's words, else the
    words around a bare address (without list numbering and separators)."""
    link = _MD_LINK.search(text)
    if link is not None:
        url = link.group(2)
        label = link.group(1).strip()
        rest = (text[: link.start()] + " " + text[link.end() :]).strip()
        title = label if label and not _URL.fullmatch(label) else rest
        return url, _tidy(title)
    bare = _URL.search(text)
    if bare is None:
        doi = _DOI.search(text)
        if doi is None:
            return None
        found = doi.group(1).rstrip(_TRAILING)
        title = (text[: doi.start()] + " " + text[doi.start() + len(doi.group()) :]).strip()
        return f"https://doi.org/{found}", _tidy(title)
    url = bare.group().rstrip(_TRAILING)
    title = (text[: bare.start()] + " " + text[bare.start() + len(url) :]).strip()
    return url, _tidy(title)


def urls_in(text: str) -> tuple[Cited, ...]:
    """Each page a footnote names, in its order (a Google Docs note may list two addresses):
    the first with the title :func:`url_in` gives it, never an address; the others with their
    link's words, if any."""
    found = url_in(text)
    if found is None:
        return ()
    first_url, first_title = found
    pages: dict[str, str] = {}
    for m in _MD_LINK.finditer(text):
        words = m.group(1).strip()
        pages.setdefault(m.group(2), "" if _URL.fullmatch(words) else _tidy(words))
    rest = _MD_LINK.sub(" ", text)
    for m in _URL.finditer(rest):
        pages.setdefault(m.group().rstrip(_TRAILING), "")
    # An archived copy of a page the note names (an encyclopedia's "Archived from the
    # original") is that page, not another.
    named = {*pages, first_url}
    others = [
        Cited(url, title)
        for url, title in pages.items()
        if url != first_url and not (_ARCHIVED.match(url) and _ARCHIVED.sub("", url) in named)
    ]
    if others:  # a title that held the other addresses is no title
        left = _URL.sub(" ", first_title).strip()
        first_title = _tidy(_JOINER.sub("", left))
    return (Cited(first_url, first_title), *others)


def _tidy(title: str) -> str:
    title = re.sub(r"<\s*>|\(\s*\)|\[\s*\]", " ", title)
    title = re.sub(r"\s*(?:\u2014|\u2013|-|:|,)\s*$", "", " ".join(title.split()))
    title = re.sub(r"^(?:\u2014|\u2013|-|:|,)\s*", "", title)
    return title.strip(" .*_\"'\u201c\u201d")


def read_lists(text: str, inside: list[tuple[int, int]], where: str) -> Lists:
    """The report's footnote and reference definitions and its References section."""
    out = Lists()
    for m in FOOTNOTE_DEF.finditer(text):
        if _covered(m.start(), inside):
            continue
        pages = urls_in(m.group(2))
        if pages:
            out.footnotes[m.group(1)] = pages
            out.cuts.append(Cut(m.start(), m.end()))
    for m in REFERENCE_DEF.finditer(text):
        if _covered(m.start(), inside):
            continue
        title = next((g for g in m.group(3, 4, 5) if g), "")
        cited = Cited(m.group(2), title)
        label = m.group(1).strip().lower()
        out.references[label] = cited
        if label.isdigit():
            out.numbers[int(label)] = cited
        out.cuts.append(Cut(m.start(), m.end()))
    _section(text, inside, out, where)
    return out


def _section(text: str, inside: list[tuple[int, int]], out: Lists, where: str) -> None:
    """Every References/Sources section whose entries carry URLs (GPT Researcher writes its
    References, then a list of the pages it read): numbered entries into ``out.numbers`` (the
    last section's first), each entry with a URL into ``out.listed``, the section into
    ``out.cuts``, from its heading to its last entry (a closing remark after the list
    stays)."""
    heads = [m for m in _HEADING.finditer(text) if not _covered(m.start(), inside)]
    found: list[tuple[list[tuple[str, tuple[str, str] | None, re.Match[str] | None]], Cut]] = []
    for k in range(len(heads) - 1, -1, -1):
        head = heads[k]
        title = head.group(2) or head.group(3) or head.group(4) or ""
        if not is_sources_title(title.strip()):
            continue
        level = len(head.group(1) or "")
        end = len(text)
        for later in heads[k + 1 :]:
            if not later.group(1) or len(later.group(1)) <= level or not level:
                end = later.start()
                break
        entries = _entries(text, head.end(), end)
        read = [(line, *_entry_url(line)) for line, _ in entries]
        with_url = [(m, url) for _line, url, m in read if url is not None and m is not None]
        if not with_url or len(with_url) * 2 < len(entries):
            continue
        # The list ends at its last entry: one with a URL or a list marker (a closing remark
        # after the list is the report's text).
        last = max(
            k for k, (line, url, _m) in enumerate(read) if url is not None or _MARKED.match(line)
        )
        for m, url in with_url:
            number = m.group(1) or m.group(2)
            if number:
                out.numbers.setdefault(int(number), Cited(url[0], url[1]))
        kept = [line for line, url, _m in read[: last + 1] if url is None]
        if kept:
            out.warnings.append(
                f"{where}: {len(kept)} entr(ies) of {title.strip()!r} have no URL: kept "
                "in the draft under 'Works without a link', not in the ledger"
            )
        out.kept = kept + out.kept
        found.append((read, Cut(head.start(), _past_break(text, head.start(), entries[last][1]))))
    for read, section in reversed(found):
        out.listed += [Cited(url[0], url[1]) for _line, url, _m in read if url is not None]
        out.cuts.append(section)


def _past_break(text: str, start: int, end: int) -> int:
    """``end``, or past the thematic break that follows the list when one stands before its
    heading too (``---`` / References / ``---``): cut, the list leaves one rule, not two."""
    before = text[:start].rstrip()
    after = re.match(r"(?:[ \t]*\n)*([^\n]*)(?:\n|$)", text[end:])
    if after and _BREAK.match(after.group(1)) and _BREAK.match(before.rsplit("\n", 1)[-1]):
        return end + after.end()
    return end


def _entries(text: str, start: int, end: int) -> list[tuple[str, int]]:
    """The entries of a list from ``start`` to ``end``, each with the offset where it ends: a
    line, or the lines of an entry whose link's words run over several (a page title with line
    breaks), joined. Thematic breaks are no entries."""
    out: list[tuple[str, int]] = []
    pending = ""
    pos = start
    for line in text[start:end].splitlines(keepends=True):
        pos += len(line)
        if not pending and (not line.strip() or _BREAK.match(line)):
            continue
        pending = f"{pending} {line.strip()}" if pending else line.rstrip("\n")
        if pending.count("[") > pending.count("]") and pos < end:
            continue
        out.append((pending, pos))
        pending = ""
    return out


def _entry_url(line: str) -> tuple[tuple[str, str] | None, re.Match[str] | None]:
    m = _ENTRY.match(line)
    return (url_in(m.group(3)) if m else None), m


def _covered(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)
