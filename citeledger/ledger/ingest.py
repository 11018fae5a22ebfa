"""Tool output in: every URL of a JSON document (search results, extracts), with its title."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import CiteledgerError
from .urls import normalize_url


def urls_from_json(
    payload: Any, warn: Callable[[str], None] = lambda line: None
) -> list[tuple[str, str]]:
    """Every object's ``url``/``link``/``source_url`` with its ``title``/``name``, in document
    order, de-duplicated by URL identity. Values that are not URLs the ledger accepts are
    skipped, each named to ``warn`` (tool output carries ``javascript:`` links and the like)."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    stack: list[Any] = [payload]
    while stack:  # iterative: deeply nested tool output must not hit the recursion limit
        node = stack.pop()
        if isinstance(node, dict):
            raw = next(
                (
                    node[k]
                    for k in ("url", "link", "source_url")
                    if isinstance(node.get(k), str) and node[k].strip()
                ),
                None,
            )
            if raw is not None:
                try:
                    key = normalize_url(raw)
                except CiteledgerError as exc:
                    warn(f"skipped {exc.message}")
                else:
                    if key not in seen:
                        seen.add(key)
                        name = node.get("title") or node.get("name") or ""
                        found.append((key, name if isinstance(name, str) else ""))
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return found
