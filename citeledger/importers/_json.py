"""Small readers of loose JSON, shared by the provider importers: a provider's answer is
untrusted input, so every field is looked at before it is used."""

from __future__ import annotations

from typing import Any


def text(value: Any) -> str:
    """``value`` when it is a string, else ""."""
    return value if isinstance(value, str) else ""


def items(value: Any) -> list[dict[str, Any]]:
    """The objects of ``value`` when it is a list (others skipped), else none."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def whole(value: Any) -> int | None:
    """``value`` when it is a whole number (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def key(data: dict[str, Any], *names: str) -> Any:
    """The first of ``names`` ``data`` holds (a provider's camelCase and its SDK's snake_case)."""
    for name in names:
        if name in data:
            return data[name]
    return None
