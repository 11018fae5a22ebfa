"""A fallback font per script for the LaTeX engines: the letters the main font lacks, and only
those, are set in a font that has them, and the rest of the document keeps its main font.

Four Greek letters in an English report used to make DejaVu the main font of the whole PDF
(looser lines, headings stretched word by word). Now each script the draft holds outside the
main font gets its own fonts (serif, sans and mono, as fontconfig finds them), chosen by
``renderers/latex.plan`` only when the draft has such letters:

- xelatex: XeTeX's character classes. Each of the draft's characters of that script gets the
  script's class, and ``\\XeTeXinterchartoks`` switches the font family on the way into a run of
  them and back on the way out (the family, not a group, so bold and italic carry over and a
  run may end at a brace). Only the draft's own characters get a class: a few lines for four
  Greek letters.
- lualatex: luaotfload's ``fallback`` feature on the main, sans and mono fonts: where the font
  has no glyph, the first of the script fonts that has one sets it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A font family name fontconfig gave: written into TeX, so held to letters, digits, spaces
# and a few marks (a name with anything else is not used).
_FAMILY = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._+-]{0,80}")
LUA_FALLBACK = "citeledgerfallback"
_SHAPED = {
    "Arabic": "Arabic",
    "Hebrew": "Hebrew",
    "Devanagari": "Devanagari",
    "Bengali": "Bengali",
    "Tamil": "Tamil",
    "Thai": "Thai",
}


@dataclass(frozen=True)
class ScriptFonts:
    """One script of the draft outside the main font: its characters and the fonts for them."""

    name: str
    chars: frozenset[str]
    serif: str
    sans: str
    mono: str


def usable(family: str | None) -> bool:
    return family is not None and _FAMILY.fullmatch(family) is not None


def _cs(name: str, k: int) -> str:
    """A control sequence name of letters only (TeX names cannot hold digits)."""
    return f"citeledger{name}" + "".join(chr(ord("A") + int(d)) for d in str(k))


def xetex_header(scripts: list[ScriptFonts]) -> str:
    """The preamble lines that set each script's characters in its own fonts under xelatex."""
    lines = [
        r"\makeatletter",
        r"\XeTeXinterchartokenstate=1",
        # Entering a run: remember the family in force, take the script's one of the same
        # role (sans in a sans heading, mono in code); leaving: back to the remembered one.
        r"\newcommand{\citeledger@enter}[3]{%",
        r"  \edef\citeledger@family{\f@family}\edef\citeledger@sf{\sfdefault}%",
        r"  \edef\citeledger@tt{\ttdefault}%",
        r"  \ifx\citeledger@family\citeledger@sf #2\else",
        r"  \ifx\citeledger@family\citeledger@tt #3\else #1\fi\fi}",
        r"\newcommand{\citeledger@leave}{\fontfamily{\citeledger@family}\selectfont}",
    ]
    enters: list[str] = []
    classes: list[str] = []
    for k, script in enumerate(scripts):
        cls, serif, sans, mono = (_cs(w, k) for w in ("class", "serif", "sans", "mono"))
        classes.append(cls)
        # Scripts that shape their letters need fontspec told the script.
        options = f"[Script={_SHAPED[script.name]}]" if script.name in _SHAPED else ""
        lines += [
            f"\\newfontfamily\\{serif}{{{script.serif}}}{options}",
            f"\\newfontfamily\\{sans}{{{script.sans}}}{options}",
            f"\\newfontfamily\\{mono}{{{script.mono}}}{options}",
            f"\\newXeTeXintercharclass\\{cls}",
        ]
        lines += [
            f'\\XeTeXcharclass "{ord(c):04X}=\\{cls}' for c in sorted(script.chars) if ord(c) > 0x7F
        ]
        enters.append(f"\\citeledger@enter{{\\{serif}}}{{\\{sans}}}{{\\{mono}}}")
    boundary = r"\e@alloc@intercharclass@top"
    for k, cls in enumerate(classes):
        for outside in ("0", boundary):
            lines.append(f"\\XeTeXinterchartoks {outside} \\{cls} = {{{enters[k]}}}")
            lines.append(f"\\XeTeXinterchartoks \\{cls} {outside} = {{\\citeledger@leave}}")
        for j, other in enumerate(classes):
            if j != k:
                lines.append(
                    f"\\XeTeXinterchartoks \\{cls} \\{other} = {{\\citeledger@leave{enters[j]}}}"
                )
    lines.append(r"\makeatother")
    return "\n".join(lines)


def luatex_header(scripts: list[ScriptFonts], main: str, sans: str, mono: str) -> str:
    """The preamble lines that give lualatex's main, sans and mono fonts a fallback chain of
    the scripts' fonts (luaotfload's ``fallback``), one chain per shape so bold stays bold,
    the fonts themselves unchanged."""
    lines: list[str] = []
    for role, font in (("serif", main), ("sans", sans), ("mono", mono)):
        features: list[str] = []
        for shape, suffix in _SHAPES:
            name = f"{LUA_FALLBACK}{role}{shape.lower()}"
            chain = ",".join(f'"{getattr(s, role)}{suffix}:mode=harf;"' for s in scripts)
            lines.append(f'\\directlua{{luaotfload.add_fallback("{name}", {{{chain}}})}}')
            raw = f"RawFeature={{fallback={name}}}"
            features.append(raw if not shape else f"{shape}Features={{{raw}}}")
        command = {"serif": "setmainfont", "sans": "setsansfont", "mono": "setmonofont"}[role]
        lines.append(f"\\{command}{{{font}}}[{', '.join(features)}]")
    return "\n".join(lines)


# fontspec's shapes and luaotfload's way to name them after a family.
_SHAPES = (("", ""), ("Bold", "/B"), ("Italic", "/I"), ("BoldItalic", "/BI"))
