"""Quotes a provider gave, not matched against a saved page: a second kind of evidence.

An answer API hands back, beside each citation, words it says the source holds: Anthropic's
``cited_text``, the snippets STORM kept in ``url_to_info.json``. citeledger did not fetch the
page and cannot show the words are on it, so such a quote is kept apart from the page-checked
ones (``quotes``, each matched by ``citeledger quote``): a source's ``provider_quotes`` list,
each entry saying which provider gave it and where it was read::

    {"text": "...", "added": "YYYY-MM-DD", "provider": "anthropic",
     "origin": "cited_text of a web_search_result_location in answer.json"}

Kept in their own list so that every reader that counts ``quotes`` (an older citeledger, the
grounded-citations ``sources.py``, the evidence cards) never takes one for a page-checked quote;
an older citeledger keeps the list untouched as a key it does not know. ``verify --evidence``
names which kind each cited source carries, and the ``provider-quotes`` option decides whether
this kind passes the gate.
"""

from __future__ import annotations

from ..errors import LedgerShapeError
from .display import display_text
from .light import field, record

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_KEYS = frozenset({"text", "added", "provider", "origin"})
# A provider's passage is evidence of a claim, not the page: longer ones are cut when stored.
MAX_PROVIDED = 4_000
MAX_PROVIDED_SHOWN = 2_000


@record
class ProviderQuote:
    """Words a provider said a source holds (see the module docstring)."""

    text: str
    added: str
    provider: str
    origin: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> ProviderQuote:
        if not isinstance(data, dict):
            raise LedgerShapeError(f"{where} is not an object")
        values: dict[str, str] = {}
        for key in _KEYS:
            value = data.get(key, "")
            if not isinstance(value, str):
                raise LedgerShapeError(f"{where}.{key} is not a string")
            values[key] = value
        if not values["text"]:
            raise LedgerShapeError(f"{where}.text is missing or empty")
        extra = {k: v for k, v in data.items() if k not in _KEYS}
        return cls(values["text"], values["added"], values["provider"], values["origin"], extra)

    @property
    def display_text(self) -> str:
        return display_text(self.text, MAX_PROVIDED_SHOWN)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "added": self.added, "provider": self.provider}
        if self.origin:
            out["origin"] = self.origin
        out.update((k, v) for k, v in self.extra.items() if k not in out)
        return out


def provider_quotes_from(data: dict[str, Any], where: str) -> list[ProviderQuote]:
    """The ``provider_quotes`` of a source's JSON object (none when absent)."""
    raw = data.get("provider_quotes", [])
    if not isinstance(raw, list):
        raise LedgerShapeError(f"{where}.provider_quotes is not a list")
    return [ProviderQuote.from_dict(q, f"{where}.provider_quotes[{i}]") for i, q in enumerate(raw)]


def clip_provided(text: str) -> str:
    """A provider's passage as stored: at most :data:`MAX_PROVIDED` characters."""
    text = text.strip()
    return text if len(text) <= MAX_PROVIDED else text[: MAX_PROVIDED - 1] + "\u2026"
