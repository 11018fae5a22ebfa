"""``-M KEY=VALUE`` read as pandoc reads it, with citeledger's options made plain: one reader
for ``convert``, ``verify`` and ``finish``. Out of the package's ``__init__`` (the options
table), which it reads."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import BadInput
from ..tree import MetaValue
from . import BY_KEY, is_option_meta

# pandoc's own -M (2.x and 3.x alike): the key ends at the first "=" or ":", a key alone is
# true, and only these spellings are booleans; any other value is a string as written.
_META_BOOLS = {
    "true": True,
    "True": True,
    "TRUE": True,
    "false": False,
    "False": False,
    "FALSE": False,
}
_META_HINT = "write -M KEY=VALUE, e.g. -M citeledger.notes=endnotes"


def meta_entries(items: Iterable[str], *, only_options: bool = False) -> dict[str, MetaValue]:
    """``-M`` entries as pandoc metadata (key -> MetaValue), for ``convert`` (the draft's
    metadata, as pandoc's ``-M``) and ``finish`` (``only_options``: there is no document).

    Read by pandoc's rules, with citeledger's options made plain: a key naming an option, with
    or without the ``citeledger.`` prefix, is ``citeledger.<key>`` (``only_options``: every
    key, so an unknown one is warned about). A key repeated is a list, as in pandoc
    (``-M author=A -M author=B``); an option repeated, an empty key, and an option that is not
    true/false given without a value are refused."""
    meta: dict[str, MetaValue] = {}
    for text in items:
        key, raw = _split_meta(text)
        option = BY_KEY.get(key.removeprefix("citeledger.").replace("_", "-"))
        if option is not None:
            key = option.meta_key
            if raw is None and option.kind != "bool":
                example = option.choices[0] if option.choices else "VALUE"
                raise BadInput(
                    f"-M {text!r}: no value, and {key} is not a true/false option",
                    hint=f"write -M KEY=VALUE, e.g. -M {key}={example}",
                )
        elif only_options and not is_option_meta(key):
            key = f"citeledger.{key}"
        value = _meta_scalar(raw)
        if key in meta:
            if option is not None:
                raise BadInput(f"-M {key} is given twice", hint="give each option once")
            old = meta[key]
            value = {"t": "MetaList", "c": [*_meta_items(old), value]}
        meta[key] = value
    return meta


def _split_meta(text: str) -> tuple[str, str | None]:
    """The key and the value as written (None: no value)."""
    cuts = [i for i in (text.find("="), text.find(":")) if i >= 0]
    key, raw = (text[: min(cuts)], text[min(cuts) + 1 :]) if cuts else (text, None)
    # pandoc keeps blanks around a key; no citeledger key or pandoc variable has them.
    key = key.strip()
    if not key:
        raise BadInput(f"-M {text!r}: no key", hint=_META_HINT)
    return key, raw


def _meta_scalar(raw: str | None) -> MetaValue:
    if raw is None:
        return {"t": "MetaBool", "c": True}
    if raw in _META_BOOLS:
        return {"t": "MetaBool", "c": _META_BOOLS[raw]}
    return {"t": "MetaString", "c": raw}


def _meta_items(value: MetaValue) -> list[MetaValue]:
    return list(value["c"]) if value["t"] == "MetaList" else [value]
