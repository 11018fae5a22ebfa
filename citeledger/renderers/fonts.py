"""Scripts a typst PDF drew blank because the machine has no font for them.

typst falls back through every font it finds, and where none holds a glyph it draws nothing and
says nothing (typst/typst#5137: no missing-glyph warning yet; it only warns about the named font
families it lacks, which a machine with another CJK font does not miss). A Japanese report on a
machine without a CJK font would come out with blank lines and no word of it. So after each
compile (``renderers/typst.compile_pdf``) the scripts of the typst source are compared with the
text of the PDF it got back: a script whose characters are mostly absent from the PDF is named
in one line with the Debian package that provides a font for it. Other characters no font had
(an emoji, a rare symbol: typst prints an empty box, whose text in the PDF is no character) are
named a set at a time (emoji, symbols, letters), each with the draft's line where the first
of them stands and how to get a font for them. Only drafts holding characters outside what
typst's own fonts surely hold (Latin, Greek, Cyrillic, punctuation) pay for reading the PDF.

The script table is also where ``renderers/latex.py`` starts when it picks fonts for LaTeX.
"""

from __future__ import annotations

import io
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Script:
    name: str
    ranges: tuple[tuple[int, int], ...]
    package: str  # the Debian package with a font for it

    def holds(self, char: str) -> bool:
        code = ord(char)
        return any(lo <= code <= hi for lo, hi in self.ranges)


CJK = "fonts-noto-cjk"
NOTO = "fonts-noto-core"
# Scripts typst's own fonts (Libertinus Serif, New Computer Modern, DejaVu) do not cover.
SCRIPTS = (
    Script("Han (Chinese, Japanese kanji)", ((0x3400, 0x4DBF), (0x4E00, 0x9FFF)), CJK),
    Script("Japanese kana", ((0x3040, 0x30FF), (0x31F0, 0x31FF)), CJK),
    Script("Korean Hangul", ((0x1100, 0x11FF), (0x3130, 0x318F), (0xAC00, 0xD7AF)), CJK),
    Script("Arabic", ((0x0600, 0x06FF), (0x0750, 0x077F)), NOTO),
    Script("Hebrew", ((0x0590, 0x05FF),), NOTO),
    Script("Devanagari", ((0x0900, 0x097F),), NOTO),
    Script("Bengali", ((0x0980, 0x09FF),), NOTO),
    Script("Tamil", ((0x0B80, 0x0BFF),), NOTO),
    Script("Thai", ((0x0E00, 0x0E7F),), NOTO),
)


def script_of(char: str, scripts: tuple[Script, ...]) -> Script | None:
    """The first of ``scripts`` that holds ``char``."""
    return next((script for script in scripts if script.holds(char)), None)


def scripts_in(text: str) -> dict[Script, set[str]]:
    found: dict[Script, set[str]] = {}
    for char in set(text):
        script = script_of(char, SCRIPTS) if ord(char) >= 0x0590 else None
        if script is not None:
            found.setdefault(script, set()).add(char)
    return found


def pdf_text(pdf: bytes) -> str | None:
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(pdf))
        return "".join(page.extract_text() or "" for page in reader.pages)
    except Exception:  # a PDF pypdf cannot read says nothing about fonts
        return None


def missing_scripts(source: str, pdf: bytes) -> list[Script]:
    """The scripts of ``source`` whose characters are mostly absent from ``pdf``'s text."""
    wanted = scripts_in(unicodedata.normalize("NFKC", source))
    if not wanted:
        return []
    text = pdf_text(pdf)
    if text is None:
        return []
    drawn = set(unicodedata.normalize("NFKC", text))
    return [s for s in SCRIPTS if s in wanted and len(wanted[s] & drawn) * 2 < len(wanted[s])]


def font_warning(out: str, missing: list[Script]) -> str:
    names = " and ".join(s.name for s in missing)
    packages = " ".join(dict.fromkeys(s.package for s in missing))
    return (
        f"warn: {out}: no font for the {names} text, which typst drew blank; install one and "
        f"convert again (Debian: apt-get install {packages})"
    )


# What typst's own fonts (Libertinus Serif, New Computer Modern) hold for certain: a character
# in these is never a reason to read the PDF back.
_HELD = ((0xA0, 0x24F), (0x2B0, 0x2FF), (0x370, 0x52F), (0x1E00, 0x1FFF), (0x2010, 0x205E))
_SILENT = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp", "Mn", "Mc", "Me"})
EMOJI_PACKAGE = "fonts-noto-color-emoji"
SYMBOL_PACKAGE = "fonts-symbola"


def _candidate(char: str) -> bool:
    code = ord(char)
    if code < 0x80 or any(lo <= code <= hi for lo, hi in _HELD):
        return False
    if unicodedata.category(char) in _SILENT:
        return False
    return script_of(char, SCRIPTS) is None  # the scripts' own check names those


def missing_glyphs(source: str, pdf: bytes) -> list[str]:
    """The characters of ``source`` (typst text) that no font had: absent from the PDF's
    text. Read back only when ``source`` holds a character typst's fonts may lack."""
    wanted = sorted({c for c in unicodedata.normalize("NFC", source) if _candidate(c)})
    if not wanted:
        return []
    text = pdf_text(pdf)
    if text is None:
        return []
    drawn = set(text) | set(unicodedata.normalize("NFKC", text))
    return [c for c in wanted if c not in drawn and unicodedata.normalize("NFKC", c) not in drawn]


def _kind(char: str) -> str:
    code = ord(char)
    if code >= 0x1F000 or 0x2600 <= code <= 0x27BF or 0x2B00 <= code <= 0x2BFF:
        return "emoji"
    return "symbols" if unicodedata.category(char).startswith("S") else "characters"


def glyph_warnings(out: str, missing: list[str], draft_name: str, draft_text: str) -> list[str]:
    """One line per set of ``missing`` characters (emoji, symbols, other characters): which,
    the first line of the draft holding one, and how to get a font that has them."""
    groups: dict[str, list[str]] = {}
    for char in missing:
        groups.setdefault(_kind(char), []).append(char)
    lines = draft_text.splitlines()
    warnings: list[str] = []
    for kind, chars in groups.items():
        first = next((n for n, line in enumerate(lines, 1) if any(c in line for c in chars)), None)
        where = f"{draft_name}:{first}" if first else draft_name
        package = {"emoji": EMOJI_PACKAGE, "symbols": SYMBOL_PACKAGE}.get(kind, NOTO)
        shown = " ".join(f"{c} (U+{ord(c):04X})" for c in chars[:8])
        more = f" and {len(chars) - 8} more" if len(chars) > 8 else ""
        warnings.append(
            f"warn: {where}: no font has the {kind} {shown}{more}, which typst printed as "
            f"empty boxes in {out}; install a font that has them (Debian: apt-get install "
            f"{package}; typst finds it by itself) or name one with -M mainfont=FONT, then "
            "convert again"
        )
    return warnings
