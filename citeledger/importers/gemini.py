"""Gemini: a ``generateContent`` answer grounded with Google Search.

The answer is ``candidates[0].content.parts[].text``; ``groundingMetadata`` holds
``groundingChunks`` (each ``web.uri`` and ``web.title``) and ``groundingSupports``, each a
``segment`` of the text (``startIndex``, ``endIndex``, often its ``text``) and the
``groundingChunkIndices`` it rests on. The REST API spells the keys in camelCase, the Python
SDK's dumps in snake_case: both are read.

Segment indexes count UTF-8 bytes, not characters: ``°``, ``–`` or ``ã`` before a segment puts a
character-counting reader in the wrong place, so the bytes are decoded. When the segment's own
``text`` is given and the bytes do not end in it, the text is looked for instead.

``web.uri`` is a ``vertexaisearch.cloud.google.com/grounding-api-redirect/...`` address that
expires within days, and ``web.title`` is often the bare domain: both kept as given, with a
warning (``draft.py``), unless ``--resolve`` follows the redirect to the page's own URL.
"""

from __future__ import annotations

from typing import Any

from ._json import items, key, text, whole
from .answer import Answer, Cited, Cut, cut


def is_gemini(payload: Any) -> bool:
    """An answer with ``candidates`` (one of them grounded or not)."""
    return isinstance(payload, dict) and bool(items(payload.get("candidates")))


def read_gemini(payload: dict[str, Any], where: str) -> Answer:
    """The answer's text and citations (see the module docstring)."""
    candidate = items(payload.get("candidates"))[0]
    content = candidate.get("content")
    parts = items(content.get("parts")) if isinstance(content, dict) else []
    texts = [text(p.get("text")) for p in parts if not p.get("thought")]
    meta = key(candidate, "groundingMetadata", "grounding_metadata")
    meta = meta if isinstance(meta, dict) else {}
    chunks = items(key(meta, "groundingChunks", "grounding_chunks"))
    supports = items(key(meta, "groundingSupports", "grounding_supports"))
    warnings: list[str] = []
    if not supports:
        warnings.append(f"{where}: the answer carries no groundingSupports: nothing is cited")
    offsets = []
    total = 0
    for t in texts:
        offsets.append(total)
        total += len(t)
    body = "".join(texts)
    cuts: list[Cut] = []
    for support in supports:
        segment = support.get("segment")
        if not isinstance(segment, dict):
            continue
        end = _segment_end(texts, offsets, segment)
        if end is None:
            warnings.append(f"{where}: a grounding segment does not fit the text: left out")
            continue
        indices = key(support, "groundingChunkIndices", "grounding_chunk_indices")
        sources: list[Cited] = []
        for index in indices if isinstance(indices, list) else []:
            number = whole(index)
            if number is None or not 0 <= number < len(chunks):
                warnings.append(f"{where}: a support names chunk {index!r}, which is missing")
                continue
            web = chunks[number].get("web") or key(chunks[number], "retrievedContext")
            if isinstance(web, dict) and text(web.get("uri")):
                sources.append(Cited(text(web.get("uri")), text(web.get("title"))))
        if sources:
            cuts.append(Cut(end, end, tuple(sources)))
    clean, citations = cut(body, cuts)
    return Answer(clean, citations, "gemini", warnings)


def _segment_end(texts: list[str], offsets: list[int], segment: dict[str, Any]) -> int | None:
    """The character offset, in the joined text, where ``segment`` ends."""
    part = whole(key(segment, "partIndex", "part_index")) or 0
    if not 0 <= part < len(texts):
        return None
    own = texts[part]
    data = own.encode("utf-8")
    end = whole(key(segment, "endIndex", "end_index"))
    said = text(segment.get("text"))
    if end is not None and 0 <= end <= len(data):
        chars = len(data[:end].decode("utf-8", errors="ignore"))
        if not said or own[:chars].endswith(said):
            return offsets[part] + chars
    if said:
        found = own.find(said)
        if found >= 0:
            return offsets[part] + found + len(said)
    return None
