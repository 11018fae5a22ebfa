"""Cite a document the way an author does: ``sentence.[n]`` after some sentence ends.

Used by the real-documents corpus tests. The script touches only prose lines a person would cite:
never fenced or indented code, front matter, tables, headings, HTML, reference definitions or
Quarto cells, and never inside a code span, math, a link or an attribute. Ids cycle through the
ledger, so every source is cited and some sentences cite two sources.
"""

from __future__ import annotations

import re

# A sentence end: a word, its full stop, then the end of the line or a space and a capital
# (Latin or Cyrillic); an Arabic-script word's full stop before a space or the end; a CJK
# character's full stop (。) anywhere.
_SENTENCE_END = re.compile(
    r"(?<=[A-Za-z]{3})\.(?=$| [A-Z])"
    r"|(?<=[а-яё]{3})\.(?=$| [А-ЯЁ])"
    r"|(?<=[\u0620-\u064a\u067e-\u06cc]{3})\.(?=$| )"
    r"|(?<=[\u4e00-\u9fff])。"
)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_SKIP_START = ("|", "+", "<", "#", ":::", "[", "!", "{", "%", "\\", "=", "-", "*")

# Sources an author of these documents might cite, Wikipedia titles with parentheses included:
# their URLs end in ")", which a regex over the text cuts off.
URLS = [
    "https://en.wikipedia.org/wiki/Pandoc",
    "https://en.wikipedia.org/wiki/Markdown",
    "https://en.wikipedia.org/wiki/Python_(programming_language)",
    "https://en.wikipedia.org/wiki/Lua_(programming_language)",
    "https://en.wikipedia.org/wiki/Mercury_(planet)",
    "https://en.wikipedia.org/wiki/Typesetting",
    "https://doi.org/10.1371/journal.pcbi.1007128",
    "https://en.wikipedia.org/wiki/Quarto_(publishing)",
]


def cite(text: str, *, ids: int = len(URLS), every: int = 3) -> tuple[str, int]:
    """``text`` with ``[n]`` after every ``every``-th citable sentence end (ids 1..``ids`` in
    turn; every fifth citation gets a second id), and the number of markers added."""
    out: list[str] = []
    fence: str | None = None
    front = text.startswith("---\n")
    seen = 0
    markers = 0
    blank_before = True
    for number, line in enumerate(text.split("\n")):
        if front:
            out.append(line)
            if number > 0 and line.rstrip() in ("---", "..."):
                front = False
            continue
        m = _FENCE.match(line)
        if fence is not None:
            closing = m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
            if closing and m and not line[m.end() :].strip():
                fence = None
            out.append(line)
            continue
        if m:
            fence = m.group(1)
            out.append(line)
            continue
        citable = (
            line.strip()
            and not line.startswith(("    ", "\t"))
            and not line.lstrip().startswith(_SKIP_START)
            and not (blank_before and re.match(r"^\S+\s*$", line))  # a one-word line
        )
        blank_before = not line.strip()
        if not citable:
            out.append(line)
            continue
        pieces: list[str] = []
        pos = 0
        for end in _SENTENCE_END.finditer(line):
            cut = end.end()
            if not _outside_markup(line[:cut]):
                continue
            seen += 1
            if seen % every:
                continue
            n = (markers % ids) + 1
            mark = f"[{n}]"
            if markers % 5 == 4:
                mark += f"[{(n % ids) + 1}]"
            markers += mark.count("[")
            pieces.append(line[pos:cut] + mark)
            pos = cut
        pieces.append(line[pos:])
        out.append("".join(pieces))
    return "\n".join(out), markers


def _outside_markup(prefix: str) -> bool:
    """Whether the end of ``prefix`` is in plain prose: not in a code span, math, a link's
    text or target, an HTML tag, an attribute or a citation."""
    if prefix.count("`") % 2 or prefix.count("$") % 2:
        return False
    depth = 0
    for opening, closing in ("[]", "()", "<>", "{}"):
        depth += prefix.count(opening) - prefix.count(closing)
    return depth == 0 and "@" not in prefix.rsplit(" ", 1)[-1]
