"""A report written in markdown: its citations, in whichever style the agent wrote them,
become ledger ids.

- inline links ``[title](url)``: a link standing as a citation (in parentheses, alone or in a
  group ``([a](u), [b](v))``, or whose words are the address, a domain or a number) is taken
  out; a link whose words belong to the sentence keeps its words and loses the link;
- footnotes holding a URL ``[^3]`` (Perplexity's export), reference links ``[Site][3]``
  (ChatGPT's) and numbers ``[3]`` into a numbered References list: each names its URL;
- per-occurrence numbering (a Deep Research export numbers every citation anew, 73 numbers for
  34 pages): each number names its URL, and one URL is one source;
- an address in parentheses ``(https://...)``.

Code (fenced blocks, code spans), HTML comments, images and headings are left as written, and
so is a footnote that holds no URL. The lists the citations pointed into are cut
(``report_lists.py``): the draft's Sources block is rendered from the ledger.
"""

from __future__ import annotations

import re

from ..errors import NothingFound
from ..ledger.urls import url_key
from .answer import UNVERIFIED, Answer, Citation, Cited, Cut, cut
from .report_lists import Lists, read_lists, url_in

_FENCE = re.compile(
    r"^[ ]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ ]{0,3}\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL
)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HEADING_LINE = re.compile(r"^#{1,6}[ \t].*$", re.MULTILINE)
_LABEL = r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
_DEST = r"\(\s*<?(https?://[^\s<>]+?)>?(?:\s+\"[^\"\n]*\")?\s*\)"
INLINE = re.compile(r"(?<![!\]\\])" + _LABEL + _DEST, re.IGNORECASE)
REFLINK = re.compile(r"(?<![!\]\\])" + _LABEL + r"\[([^\[\]\n]*)\]")
FOOTREF = re.compile(r"\[\^([^\]\s]+)\](?!:)")
NUMBERS = re.compile(r"(?<![\\!^])\[([0-9]{1,4}(?:[ \t]*[,\u2013-][ \t]*[0-9]{1,4})*)\](?![(:])")
BARE = re.compile(r"\((https?://[^\s()<>]+(?:\([^\s()]*\))?)\)", re.IGNORECASE)
# A number in brackets at an entry's start, which a kept entry must not carry as a marker.
_NUMBER_MARK = re.compile(r"^\s*\[([0-9]{1,4})\]")
# A link whose words are a citation's, not the sentence's.
_CITATION_WORDS = re.compile(
    r"^(?:https?://\S+|(?:www\.)?[\w-]+(?:\.[\w-]+)+(?:/\S*)?|[0-9]{1,4}|source|link|ref)$",
    re.IGNORECASE,
)


def protected(text: str, *, headings: bool = True) -> list[tuple[int, int]]:
    """The stretches no citation is read in: code blocks and spans, comments, and (unless
    ``headings`` is off) headings."""
    spans = [m.span() for m in _FENCE.finditer(text)]
    patterns = (_CODE_SPAN, _COMMENT, _HEADING_LINE) if headings else (_CODE_SPAN, _COMMENT)
    for pattern in patterns:
        spans += [m.span() for m in pattern.finditer(text) if not _inside(m.start(), spans)]
    return spans


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def read_report(
    text: str, where: str, *, kind: str = "markdown", numbers: dict[int, Cited] | None = None
) -> Answer:
    """The report's text and citations (see the module docstring). ``numbers``: what each
    ``[n]`` names when the caller knows (STORM's map), over a References list's numbers."""
    text = text.replace("\r\n", "\n")
    shielded = protected(text)
    lists = read_lists(text, protected(text, headings=False), where)
    table = {**lists.numbers, **(numbers or {})}
    taken = shielded + [(c.start, c.end) for c in lists.cuts]
    cuts: list[Cut] = list(lists.cuts)
    warnings = list(lists.warnings)
    for found in _occurrences(text, lists, table, taken, warnings, where):
        cuts.append(found)
        taken.append((found.start, found.end))
    _groups(text, cuts)
    body, citations = cut(text, cuts)
    for citation in citations:
        # A citation that was its paragraph's whole text (``([Site](url))`` under a table).
        before, after = body[: citation.at], body[citation.at :]
        citation.alone = (not before or before.endswith("\n\n")) and (
            not after or after.startswith("\n")
        )
    body = _collapse(body, citations)
    if lists.kept:
        kept = [_NUMBER_MARK.sub(r"\1.", line, count=1) for line in lists.kept]
        body = body.rstrip() + "\n\n## Works without a link\n\n" + "\n".join(kept) + "\n"
    if not citations:
        _fenced_report(text, where)
    cited = {url_key(s.url) for c in citations for s in c.sources if s.url}
    listed = [c for c in lists.listed if url_key(c.url) not in cited]
    return Answer(body, citations, kind, warnings, listed)


def _fenced_report(text: str, where: str) -> None:
    """A report that cites nothing outside code, whose text a model put inside a ```` ```markdown
    ```` fence (one of GPT Researcher's real outputs): said, with the fence's lines, rather than
    read as code and found to cite nothing."""
    for m in _FENCE.finditer(text):
        info = text[m.start() : text.find("\n", m.start())].strip().strip("`~").strip().lower()
        if info in ("markdown", "md") and INLINE.search(m.group()):
            first = text.count("\n", 0, m.start()) + 1
            last = text.count("\n", 0, m.end() - 1) + 1
            raise NothingFound(
                f"{where}: the report's text is inside a ```{info} fence (lines {first}-{last}), "
                "read as code: it cites nothing outside it",
                hint=f"delete the fence's lines ({first} and {last}) and import again",
            )


def _collapse(body: str, citations: list[Citation]) -> str:
    """``body`` with the runs of blank lines the cuts left made one, each citation moved with
    its text."""
    runs = [(m.start() + 2, m.end()) for m in re.finditer(r"\n{3,}", body)]
    if not runs:
        return body
    for citation in citations:
        gone = 0
        for start, end in runs:
            if start >= citation.at:
                break
            gone += min(end, citation.at) - start
        citation.at -= gone
    return re.sub(r"\n{3,}", "\n\n", body)


def _occurrences(
    text: str,
    lists: Lists,
    table: dict[int, Cited],
    taken: list[tuple[int, int]],
    warnings: list[str],
    where: str,
) -> list[Cut]:
    out: list[Cut] = []

    def free(start: int) -> bool:
        return not _inside(start, taken) and not any(c.start <= start < c.end for c in out)

    for m in FOOTREF.finditer(text):
        pages = lists.footnotes.get(m.group(1))
        if pages and free(m.start()):
            out.append(Cut(m.start(), m.end(), pages))
    for m in REFLINK.finditer(text):
        label = (m.group(2) or m.group(1)).strip().lower()
        cited = lists.references.get(label)
        if cited is not None and free(m.start()):
            if label.isdigit():  # ChatGPT's [Site][3]: the words name the citation
                out.append(Cut(m.start(), m.end(), (cited,)))
            else:
                out.append(_link_cut(m.start(), m.end(), m.group(1), cited))
    # The title a References list gives a link the text cites, over the link's words
    # ("Deloitte, 2023").
    titles: dict[str, str] = {}
    for entry in lists.listed:
        if entry.title:
            titles.setdefault(url_key(entry.url), entry.title)
    for m in INLINE.finditer(text):
        if free(m.start()):
            found = url_in(f"[{m.group(1)}]({m.group(2)})")
            title = titles.get(url_key(m.group(2))) or (found[1] if found else "")
            out.append(_link_cut(m.start(), m.end(), m.group(1), Cited(m.group(2), title)))
    unknown: set[int] = set()
    if table:
        for m in NUMBERS.finditer(text):
            if not free(m.start()):
                continue
            wanted = _numbers(m.group(1))
            named = [table[n] for n in wanted if n in table]
            unknown.update(n for n in wanted if n not in table)
            if named and len(named) == len(wanted):
                out.append(Cut(m.start(), m.end(), tuple(named)))
            elif len(named) < len(wanted):
                # A number naming no page: the claim is marked [unverified], never left to
                # read as a ledger id.
                out.append(Cut(m.start(), m.end(), (*named, UNVERIFIED)))
    for m in BARE.finditer(text):
        if free(m.start()):
            out.append(Cut(m.start(), m.end(), (Cited(m.group(1)),)))
    if unknown:
        shown = ", ".join(f"[{n}]" for n in sorted(unknown)[:10])
        warnings.append(
            f"{where}: {shown} name no entry with a URL: marked [unverified]; cite the page's "
            "id there if you find it"
        )
    return out


def _link_cut(start: int, end: int, words: str, cited: Cited) -> Cut:
    """A link taken out when its words are a citation's, else replaced by its words."""
    plain = words.strip()
    if not plain or _CITATION_WORDS.match(plain):
        return Cut(start, end, (cited,))
    return Cut(start, end, (cited,), keep=words)


def _numbers(spec: str) -> list[int]:
    out: list[int] = []
    for piece in re.split(r"[ \t]*,[ \t]*", spec.strip()):
        ends = re.split(r"[ \t]*[\u2013-][ \t]*", piece)
        low, high = int(ends[0]), int(ends[-1])
        out.extend(range(low, high + 1) if 0 <= high - low <= 50 else [low, high])
    return out


def _groups(text: str, cuts: list[Cut]) -> None:
    """Parentheses holding only citations (``([a](u), [b](v))``, ``([Site][1])``) go with
    them: the cuts they enclose become one cut of the whole group."""
    removed = sorted((c for c in cuts if c.sources), key=lambda c: c.start)
    k = 0
    while k < len(removed):
        first = removed[k]
        open_at = _skip_back(text, first.start)
        if open_at is None:
            k += 1
            continue
        j = k
        pos = first.end
        while True:
            rest = re.match(r"[ \t]*[,;]?[ \t]*", text[pos:])
            nxt = pos + (rest.end() if rest else 0)
            if nxt < len(text) and text[nxt] == ")":
                group = removed[k : j + 1]
                for c in group:
                    cuts.remove(c)
                sources = tuple(s for c in group for s in c.sources)
                cuts.append(Cut(open_at, nxt + 1, sources))
                break
            if j + 1 < len(removed) and removed[j + 1].start == nxt:
                j += 1
                pos = removed[j].end
                continue
            break
        k = j + 1


def _skip_back(text: str, start: int) -> int | None:
    """The position of a ``(`` right before ``start`` (spaces between allowed), or None."""
    i = start
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return i - 1 if i > 0 and text[i - 1] == "(" else None
