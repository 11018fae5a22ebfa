"""Perplexity: a Sonar chat completion.

The answer is ``choices[0].message.content``, whose ``[1]``, ``[2]`` name the entries of the
response's ``citations`` (a list of URLs) in order; ``search_results`` gives each its ``title``
(and is the list itself where ``citations`` is absent). A number with no entry is said, and the
claim marked ``[unverified]``. A reasoning model's ``<think>...</think>`` is no part of the
answer: left out, and said so.
"""

from __future__ import annotations

import re
from typing import Any

from ._json import items, text
from .answer import UNVERIFIED, Answer, Cited, Cut, cut

_RUN = re.compile(r"(?:\[[0-9]{1,4}\])+")
_THINK = re.compile(r"<think>.*?</think>\s*", re.DOTALL)


def is_perplexity(payload: Any) -> bool:
    """A chat completion that lists its ``citations`` or ``search_results`` beside it."""
    if not isinstance(payload, dict) or not items(payload.get("choices")):
        return False
    return isinstance(payload.get("citations"), list) or bool(items(payload.get("search_results")))


def read_perplexity(payload: dict[str, Any], where: str) -> Answer:
    """The answer's text and citations (see the module docstring)."""
    message = items(payload.get("choices"))[0].get("message")
    body = text(message.get("content")) if isinstance(message, dict) else ""
    warnings: list[str] = []
    if _THINK.search(body):
        body = _THINK.sub("", body)
        warnings.append(f"{where}: left out the model's <think> reasoning")
    results = items(payload.get("search_results"))
    titles = {text(r.get("url")): text(r.get("title")) for r in results}
    raw = payload.get("citations")
    urls = [u for u in raw if isinstance(u, str)] if isinstance(raw, list) else []
    if not urls:
        urls = [text(r.get("url")) for r in results]
    cuts: list[Cut] = []
    missing: set[int] = set()
    for m in _RUN.finditer(body):
        sources: list[Cited] = []
        for number in (int(n) for n in re.findall(r"[0-9]+", m.group())):
            if 1 <= number <= len(urls) and urls[number - 1]:
                url = urls[number - 1]
                sources.append(Cited(url, titles.get(url, "")))
            else:
                missing.add(number)
        if len(sources) < m.group().count("["):
            sources.append(UNVERIFIED)  # a number naming no page reads as no ledger id
        cuts.append(Cut(m.start(), m.end(), tuple(sources)))
    if missing:
        shown = ", ".join(f"[{n}]" for n in sorted(missing))
        warnings.append(
            f"{where}: {shown} name no entry of its {len(urls)} citations: marked [unverified]"
        )
    clean, citations = cut(body, cuts)
    return Answer(clean, citations, "perplexity", warnings)
