"""The option table written out for people: the manual's table of options, the listing
``citeledger config`` prints (every option's effective value and the layer it came from),
and the filter's own manual (:func:`manual_text`: the option list ``pandoc-citeledger --help``
prints after the filter module's docstring).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..ledger.light import record
from . import OPTIONS, Options
from .project import Project


def readme_table() -> str:
    """The manual's option table (docs/reference/options.md), row for row."""
    rows = [
        "| key | values (default first) | meaning |",
        "|---|---|---|",
    ]
    for o in OPTIONS:
        rows.append(f"| `{o.meta_key}` | {o.values_text()} | {o.summary} |")
    return "\n".join(rows)


@record(frozen=True)
class Setting:
    """One line of ``citeledger config``: an option, its effective value, where it came from."""

    key: str
    value: Any
    origin: str  # "flag --key", "front matter of FILE", "project file PATH", "default"


def settings(
    project: Project, front: Options | None, front_name: str, flags: Options
) -> list[Setting]:
    """Every option's effective value and the layer it came from, most specific first: the
    flag, the draft's front matter, the project file, the default."""
    layers: list[tuple[Options, str]] = [(flags, "flag {flag}")]
    if front is not None:
        layers.append((front, f"front matter of {front_name}"))
    layers.append((project.options, f"project file {project.path}"))
    out: list[Setting] = []
    for o in OPTIONS:
        for layer, origin in layers:
            if layer.is_set(o.key):
                value = getattr(layer, o.field)
                out.append(Setting(o.key, value, origin.format(flag=o.flag)))
                break
        else:
            out.append(Setting(o.key, o.default, "default"))
    drafts_origin = f"project file {project.path}" if project.drafts else "default"
    out.append(Setting("drafts", list(project.drafts), drafts_origin))
    return out


def manual_text() -> str:
    """The filter manual's option list (reStructuredText-ish, as the module docstring)."""
    out: list[str] = []
    for o in OPTIONS:
        if o.kind == "choice":
            shape = " | ".join(f"``{c}``" for c in o.choices) + f"; default ``{o.default}``"
        elif o.kind == "bool":
            shape = "bool; default false"
        elif o.kind == "fraction":
            shape = "number 0-1; default none"
        elif o.kind == "path":
            shape = "path; default " + (o.default_text or str(o.default)).replace("`", "``")
        else:
            shape = f"text; default ``{o.default}``"
        out.append(f"``{o.meta_key}`` ({shape})")
        out.extend(_wrap(o.manual, 96, "    "))
    return "\n".join(out)


def _wrap(text: str, width: int, indent: str) -> Iterable[str]:
    line = indent
    for word in text.split():
        if len(line) + len(word) + 1 > width and line.strip():
            yield line.rstrip()
            line = indent
        line += word + " "
    if line.strip():
        yield line.rstrip()
