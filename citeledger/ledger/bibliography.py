"""What a reference library knows about a source besides its URL: who wrote it, when, where.

Four optional fields of a source, written to the ledger only when set (a ledger without them
stays byte for byte what sources.py wrote)::

    "author": [{"family": "Okafor", "given": "Ada"}, {"literal": "WHO"}]   CSL names
    "issued": "2023-04"        YYYY, YYYY-MM or YYYY-MM-DD (a library's free text kept as is)
    "site":   "Nature"         the container or publisher: journal, website, book
    "key":    "okafor2023"     the library's citation key (``[@okafor2023]`` in a draft)

They come from web pages and other people's libraries: names, dates and sites are shown through
:func:`~citeledger.ledger.display.display_text` and escaped wherever titles are; a key is checked
against the citation-key grammar on load, since it is written unescaped as a BibTeX key.

:func:`lead` composes what every output shows before the URL, in one house style: ``Author
(Year). Title. Site`` (``Title (Year). Site`` without an author). With none of the four fields
set it is the title alone, so a Sources entry of such a source reads as it always did.
"""

from __future__ import annotations

from .display import display_text
from .light import pattern, record

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME_PARTS = ("family", "given", "literal", "non-dropping-particle", "dropping-particle", "suffix")
MAX_NAMES = 100
MAX_NAME = 300
MAX_SITE = 500
MAX_KEY = 200
NAMES_SHOWN = 3  # more authors than this show as the first and "et al."
MAX_NAME_SHOWN = 120
MAX_SITE_SHOWN = 200
MAX_ISSUED_SHOWN = 64

# A part of pandoc's citation-key grammar: a letter, digit or _ first, then word characters and
# the punctuation Zotero, Better BibTeX and JabRef keys use. The key is written unescaped as a
# BibTeX key and inside LaTeX's \cite, so nothing LaTeX or BibTeX reads as markup (``,{}%#~$&``).
KEY_RE = pattern(r"[A-Za-z0-9_][\w:.+?/-]*")
ISSUED_RE = pattern(r"(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?")
# The keys citeledger makes for sources the library gave none: never stored as a key.
GENERATED_KEY = pattern(r"source([0-9]{1,6})")

Names = list[dict[str, str]]


@record(frozen=True)
class Details:
    """The optional fields of one source, as ``add`` or a library item gives them."""

    author: Names | None = None
    issued: str | None = None
    site: str | None = None
    key: str | None = None

    def __bool__(self) -> bool:
        return bool(self.author or self.issued or self.site or self.key)


def one_line(text: str, limit: int) -> str:
    """A name part or a site as the ledger stores it: one line, clipped."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "\u2026"


def clean_names(raw: Any) -> Names:
    """CSL names as the ledger stores them: the known parts that are text, each on one line;
    names with no part left are dropped. Anything that is not a list of objects gives []."""
    if not isinstance(raw, list):
        return []
    out: Names = []
    for item in raw[:MAX_NAMES]:
        if not isinstance(item, dict):
            continue
        name = {
            part: one_line(item[part], MAX_NAME)
            for part in NAME_PARTS
            if isinstance(item.get(part), str) and item[part].strip()
        }
        if name:
            out.append(name)
    return out


def parse_names(text: str) -> Names:
    """``--author "Okafor, Ada; World Health Organization"``: names separated by ``;``, each
    ``Family, Given`` or, without a comma, one literal name."""
    out: Names = []
    for chunk in text.split(";"):
        if not chunk.strip():
            continue
        family, comma, given = chunk.partition(",")
        if comma and family.strip() and given.strip():
            out.append({"family": family.strip(), "given": given.strip()})
        else:
            out.append({"literal": chunk.strip().strip(",").strip()})
    return clean_names(out)


def check_names(raw: Any, where: str) -> str | None:
    """What is wrong with a stored ``author`` value, or None."""
    if not isinstance(raw, list):
        return f"{where} is not a list of names"
    for i, name in enumerate(raw):
        if not isinstance(name, dict):
            return f"{where}[{i}] is not an object"
        for part in NAME_PARTS:
            if part in name and not isinstance(name[part], str):
                return f"{where}[{i}].{part} is not a string"
    return None


def check_key(key: str) -> str | None:
    if len(key) > MAX_KEY or not KEY_RE.fullmatch(key):
        return "is not a citation key (a letter, digit or _ first, then letters, digits, _:.-/)"
    return None


def _name_text(name: dict[str, Any]) -> str:
    def part(key: str) -> str:
        value = name.get(key)
        return value if isinstance(value, str) else ""

    if part("literal"):
        return part("literal")
    family = " ".join(p for p in (part("non-dropping-particle"), part("family")) if p) or part(
        "given"
    )
    given = " ".join(p for p in (part("given"), part("dropping-particle")) if p)
    if family == part("given"):
        given = ""
    text = f"{family}, {given}" if family and given else family
    return f"{text}, {part('suffix')}" if part("suffix") else text


def names_text(names: list[dict[str, Any]] | None) -> str:
    """``Okafor, Ada; Lee, Bo`` (the first name and "et al." past :data:`NAMES_SHOWN`)."""
    shown = [display_text(_name_text(n), MAX_NAME_SHOWN) for n in names or []]
    shown = [n for n in shown if n]
    if len(shown) > NAMES_SHOWN:
        return f"{shown[0]} et al."
    return "; ".join(shown)


def year_text(issued: str | None) -> str:
    """The year of ``issued``; a date that is no ISO date is shown whole (as text)."""
    if not issued:
        return ""
    match = ISSUED_RE.match(issued.strip())
    return match.group(1) if match else display_text(issued, MAX_ISSUED_SHOWN)


def _sentence(text: str) -> str:
    return text if not text or text.endswith((".", "?", "!")) else text + "."


def lead(title: str, details: Details) -> str:
    """The entry's text before its URL, without a final full stop (see the module docstring):
    ``title`` (the display title) when no detail is known."""
    names = names_text(details.author)
    year = year_text(details.issued)
    site = display_text(details.site or "", MAX_SITE_SHOWN)
    if not (names or year or site):
        return title
    parts: list[str] = []
    if names:
        parts.append(f"{names} ({year})" if year else names)
        if title:
            parts.append(title)
    elif title or year:
        parts.append(f"{title} ({year})".strip() if year else title)
    if site:
        parts.append(site)
    return " ".join([*(_sentence(p) for p in parts[:-1]), parts[-1]])


def issued_from_csl(raw: Any) -> str | None:
    """A CSL date (``{"date-parts": [[2023, 4]]}``, ``{"raw": "2023"}``, ``{"literal": ...}``)
    as the ledger stores it: ``YYYY[-MM[-DD]]``, or the library's text; None when absent."""
    if isinstance(raw, str):
        return one_line(raw, MAX_ISSUED_SHOWN) or None
    if not isinstance(raw, dict):
        return None
    parts = raw.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        numbers: list[int] = []
        for value in parts[0][:3]:
            text = str(value).strip() if isinstance(value, (int, str)) else ""
            if not text.isdigit():
                break
            numbers.append(int(text))
        if numbers and 0 < numbers[0] <= 9999:
            shapes = ("{:04d}", "{:04d}-{:02d}", "{:04d}-{:02d}-{:02d}")
            return shapes[len(numbers) - 1].format(*numbers)
    for field in ("raw", "literal"):
        value = raw.get(field)
        if isinstance(value, str) and value.strip():
            return one_line(value, MAX_ISSUED_SHOWN)
    return None


def csl_date(value: str) -> dict[str, Any]:
    """``2023-04`` as ``{"date-parts": [[2023, 4]]}``; other text as ``{"literal": text}``."""
    match = ISSUED_RE.fullmatch(value)
    if match is None:
        return {"literal": value}
    return {"date-parts": [[int(p) for p in match.groups() if p is not None]]}
