"""Anthropic: a Messages API answer with web search (or search results as content).

The answer is the ``content`` list of the message: ``text`` blocks, between them the tool's
``server_tool_use`` and ``web_search_tool_result`` blocks. A cited stretch of text is a block of
its own whose ``citations`` each name a source: ``web_search_result_location`` (``url``,
``title``, ``cited_text``) or, for search results passed as content, ``search_result_location``
(``source``, ``title``, ``cited_text``). The full stop often comes in the next block
(``"...in Petoskey, Michigan"``, then ``". "``), so the marker goes after the sentence, not the
block.

``cited_text`` is up to 150 characters of the source's own words: kept as a provider quote
(``ledger/provided.py``), never as a page-checked one. Text before the last tool block is the
model's remarks while it searched ("I'll search for ..."): left out, and said so. Document
citations (``char_location``, ``page_location``, ``content_block_location``) name no web page:
said and left out.
"""

from __future__ import annotations

from typing import Any

from ._json import items, text
from .answer import Answer, Cited, Cut, cut

_TOOL_BLOCKS = frozenset(
    {"server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "tool_use"}
    | {"tool_result", "mcp_tool_use", "mcp_tool_result"}
)
_WEB = "web_search_result_location"
_SEARCH = "search_result_location"


def is_anthropic(payload: Any) -> bool:
    """A message whose ``content`` is a list of typed blocks with at least one text block."""
    if not isinstance(payload, dict) or payload.get("choices") is not None:
        return False
    blocks = items(payload.get("content"))
    return bool(blocks) and any(b.get("type") == "text" for b in blocks)


def read_anthropic(payload: dict[str, Any], where: str) -> Answer:
    """The answer's text and citations (see the module docstring)."""
    blocks = items(payload.get("content"))
    last_tool = max((k for k, b in enumerate(blocks) if b.get("type") in _TOOL_BLOCKS), default=-1)
    warnings: list[str] = []
    skipped = [b for b in blocks[:last_tool] if b.get("type") == "text" and text(b.get("text"))]
    if skipped:
        warnings.append(
            f"{where}: left out {len(skipped)} text block(s) written before the last search "
            "(the model's remarks while searching)"
        )
    body = ""
    cuts: list[Cut] = []
    unplaced: set[str] = set()
    for block in blocks[last_tool + 1 :]:
        if block.get("type") != "text":
            continue
        body += text(block.get("text"))
        sources: list[Cited] = []
        for c in items(block.get("citations")):
            kind = text(c.get("type"))
            url = text(c.get("url")) if kind == _WEB else text(c.get("source"))
            if kind not in (_WEB, _SEARCH) or not url:
                unplaced.add(kind or "untyped")
                continue
            quote = text(c.get("cited_text"))
            origin = f"cited_text of a {kind} in {where}"
            quotes = (quote,) if quote.strip() else ()
            sources.append(Cited(url, text(c.get("title")), quotes, "anthropic", origin))
        if sources:
            cuts.append(Cut(len(body), len(body), tuple(sources)))
    for kind in sorted(unplaced):
        warnings.append(f"{where}: {kind} citations name no web page: left out")
    clean, citations = cut(body, cuts)
    return Answer(clean, citations, "anthropic", warnings)
