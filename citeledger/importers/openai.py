"""OpenAI: a Responses API answer, or a Chat Completions one from a search model.

The Responses API returns ``output``, a list of items; the answer is each ``message`` item's
``output_text`` parts, each with ``annotations`` of type ``url_citation`` (``start_index``,
``end_index``, ``url``, ``title``). Chat Completions returns ``choices[0].message.content``
with ``annotations`` whose ``url_citation`` object holds the same fields.

Web-search answers carry the model's own inline citation inside each span, a markdown link in
parentheses: ``... in 2023 ([reuters.com](https://www.reuters.com/...?utm_source=openai))``.
That link is taken out with its parentheses and the space before them, and the marker placed
after the sentence, so no link is left behind; a span holding no link is cited at its end. A
span whose indexes do not fit the text is found by its link instead, and otherwise skipped with
a warning.
"""

from __future__ import annotations

import re
from typing import Any

from ..ledger.urls import url_key
from ._json import items, text, whole
from .answer import Answer, Cited, Cut, cut

# A markdown link: [label](destination "title"?).
LINK = re.compile(
    r"\[([^\[\]\n]*)\]\(\s*<?([^()\s<>]+(?:\([^()\s]*\)[^()\s<>]*)*)>?"
    r"(?:\s+\"[^\"]*\")?\s*\)"
)
# A group of links in parentheses, separated by commas, semicolons or spaces.
_GROUP = re.compile(r"\((?:\s*" + LINK.pattern + r"\s*[,;]?)+\s*\)")


def is_openai(payload: Any) -> bool:
    """A Responses API answer (``output`` holding a message) or a Chat Completions one."""
    if not isinstance(payload, dict):
        return False
    if any(item.get("type") == "message" for item in items(payload.get("output"))):
        return True
    choices = items(payload.get("choices"))
    message = choices[0].get("message") if choices else None
    return isinstance(message, dict) and isinstance(message.get("annotations"), list)


def read_openai(payload: dict[str, Any], where: str) -> Answer:
    """The answer's text and citations (see the module docstring)."""
    parts: list[tuple[str, list[dict[str, Any]]]] = []
    for item in items(payload.get("output")):
        if item.get("type") != "message":
            continue
        for part in items(item.get("content")):
            if part.get("type") == "output_text":
                parts.append((text(part.get("text")), items(part.get("annotations"))))
    if not parts:
        for choice in items(payload.get("choices"))[:1]:
            message = choice.get("message")
            if isinstance(message, dict):
                notes = [
                    a["url_citation"] if isinstance(a.get("url_citation"), dict) else a
                    for a in items(message.get("annotations"))
                ]
                parts.append((text(message.get("content")), notes))
    warnings: list[str] = []
    cuts: list[Cut] = []
    body = ""
    for part_text, notes in parts:
        base = len(body) + (2 if body else 0)
        body = body + "\n\n" + part_text if body else part_text
        for note in notes:
            found = _citation(part_text, note, where, warnings)
            if found is not None:
                cuts.append(Cut(found.start + base, found.end + base, found.sources))
    clean, citations = cut(body, cuts)
    return Answer(clean, citations, "openai", warnings)


def _citation(body: str, note: dict[str, Any], where: str, warnings: list[str]) -> Cut | None:
    if note.get("type", "url_citation") != "url_citation":
        return None
    url = text(note.get("url"))
    if not url:
        return None
    cited = (Cited(url, text(note.get("title"))),)
    start, end = whole(note.get("start_index")), whole(note.get("end_index"))
    spanned = start is not None and end is not None and 0 <= start <= end <= len(body)
    if spanned:
        assert start is not None and end is not None
        link = _link_in(body, url, start, end)
        if link is not None:
            return Cut(*link, cited)
        return Cut(end, end, cited)
    link = _link_in(body, url, 0, len(body))
    if link is not None:
        return Cut(*link, cited)
    warnings.append(
        f"{where}: a url_citation of {url} has indexes outside the text "
        f"({start}..{end} of {len(body)} characters) and no link to it: left out"
    )
    return None


def _link_in(body: str, url: str, start: int, end: int) -> tuple[int, int] | None:
    """Where the inline link to ``url`` within ``start``..``end`` stands, with the
    parentheses around it (and around the links beside it), or None."""
    wanted = _key(url)
    for m in LINK.finditer(body, max(0, start - 2), min(len(body), end + 2)):
        if _key(m.group(2)) != wanted:
            continue
        for group in _GROUP.finditer(body, max(0, m.start() - 400), min(len(body), m.end() + 400)):
            if group.start() <= m.start() and m.end() <= group.end():
                return group.start(), group.end()
        return m.start(), m.end()
    return None


def _key(url: str) -> str:
    try:
        return url_key(url)
    except Exception:  # noqa: BLE001 - any address that is none matches nothing
        return url
