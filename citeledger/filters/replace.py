"""One walk that replaces elements of a pandoc JSON tree by lists of others, wherever they sit
(a paragraph, a caption, a table cell, a note): the typst fixes and the remote-image step use it."""

from __future__ import annotations

from collections.abc import Callable

from ..tree import Json


def replace_elements(node: object, change: Callable[[Json], list[Json] | None]) -> None:
    """Replace, in every list under ``node``, each element ``change`` returns a list for; inner
    elements are seen first, and an element ``change`` returns None for stays (``change`` may
    still edit it in place)."""
    if isinstance(node, list):
        out: list[object] = []
        changed = False
        for item in node:
            replace_elements(item, change)
            if isinstance(item, dict) and "t" in item:
                new = change(item)
                if new is not None:
                    out.extend(new)
                    changed = True
                    continue
            out.append(item)
        if changed:
            node[:] = out
    elif isinstance(node, dict):
        content = node.get("c")
        if isinstance(content, list):
            replace_elements(content, change)
