"""One escaping function per target syntax, for text that comes from the web.

Titles, URLs and quotes in a ledger are chosen by whoever wrote the page a research agent
fetched. Wherever citeledger writes them as raw markup of a target syntax (instead of a pandoc
element the writer escapes), it goes through the one function here for that syntax, so the
rules cannot drift apart between ``render --style``, the placements and the renderers:

- markdown text (``render``'s text styles): :func:`markdown_text`;
- HTML text and attribute values (the evidence cards, the wiki's page frame): :func:`html_text`;
- BibTeX field values: :func:`bibtex_text`, URLs :func:`latex_url`;
- LaTeX text: :func:`latex_text`, URLs for ``\\url``/``\\href``: :func:`latex_url`;
- typst markup and string literals: :func:`typst_markup`, :func:`typst_string`;
- Org text: :func:`org_text`; reStructuredText and Obsidian text: :func:`punctuation_escaped`;
- the terminal: :func:`terminal_text` (what the command line prints).

The wiki syntaxes live with their placement (``filters/wiki.py``): each needs the others' rules
not at all. Standard library only; the ledger core uses it too.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from urllib.parse import quote

# Markdown and the HTML a markdown reader passes through --------------------------------------


# The ASCII punctuation that starts markup inside a line in pandoc's markdown, CommonMark or GFM
# (links, images and footnotes open with "[", raw HTML with "<", entities with "&...;", code, math,
# emphasis, strikeout, super/subscript, citations): a backslash makes each literal. Text here
# never starts a line (it follows "[n] url — "), so heading and list markers need nothing.
#
# Quotes too: under pandoc's ``smart`` extension a lone ``"`` (or a ``'`` at either end of a word)
# pairs with the next one, also on the next line, so an entry whose title opens a quote would
# swallow the next entry into a Quoted element. Escaped, pandoc keeps the straight quote as
# written. An apostrophe inside a word (``don't``) is never a quote, and stays as it is.
# Each pattern here is compiled on first use (functools.cache): every command imports this
# module to print, and a compile is start-up time whether the pattern is used or not.
@functools.cache
def _md_special() -> re.Pattern[str]:
    return re.compile(r"([\\`*_\[\]<>$^~@\"]|&(?=#?[A-Za-z0-9]+;)|'(?!(?<=\w')\w))")


def markdown_text(text: str) -> str:
    """``text`` as markdown that shows exactly that text: no link, image, tag or entity can
    start in it (``<img onerror=...>``, ``[x](javascript:...)``, ``![](tracker)``, ``&lt;``),
    and no quote of it pairs with a quote of the next line."""
    return _md_special().sub(r"\\\1", text)


# HTML -----------------------------------------------------------------------------------------


def html_text(text: str) -> str:
    """``text`` as HTML character data or a quoted attribute value that shows exactly that
    text: no tag, entity or attribute can start in it (``<img onerror=...>`` is shown)."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#x27;")
    )


# The terminal ---------------------------------------------------------------------------------


# Also what is invisible yet changes what a reader copies or a program reads: the zero-width
# space, word joiner, invisible operators and BOM, and the tag characters (U+E0000-E007F) that
# smuggle hidden ASCII. The zero-width (non-)joiners stay: Persian and emoji need them.
@functools.cache
def _terminal_hidden() -> re.Pattern[str]:
    return re.compile(
        "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e"
        "\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff\U000e0000-\U000e007f]"
    )


def terminal_text(text: str) -> str:
    """``text`` safe to print: escape sequences (ESC, CSI as C1 ``\\x9b``, OSC), other
    control characters, bidirectional controls and lone surrogates are shown as ``\\uNNNN``
    instead of being obeyed; new lines and tabs stay. The form is JSON's own escape, so JSON
    printed through here stays valid."""
    # Printable ASCII (new lines and tabs aside) holds none of them: no pattern needed.
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return text
    hidden = _terminal_hidden()
    if not hidden.search(text):
        return text
    return hidden.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code > 0xFFFF:  # JSON's form: a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


# LaTeX and BibTeX ------------------------------------------------------------------------------

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    '"': r"\textquotedbl{}",
    "`": r"\textasciigrave{}",
    "[": "{[}",
    "]": "{]}",
    "'": r"\textquotesingle{}",
}
# BibTeX counts every brace, escaped or not, so braces are written as text commands whose own
# braces balance.
_BIBTEX_SPECIALS = {
    **_LATEX_SPECIALS,
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "@": r"\string@",
}
# Beyond Latin-1 and Latin Extended-A, the characters pdflatex's utf8 input knows.
_LATIN_EXTRA = frozenset(
    "\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2020\u2021\u2022\u2026\u20ac\u2122"
)
# Latin Extended-A letters pdflatex's T1 and TS1 encodings do not define (read from TeX Live's
# t1enc.dfu and ts1enc.dfu): Ħ ħ ĸ Ŀ ŀ ŉ Ŧ ŧ ſ. pdflatex stops at them, so they count as another
# script (xelatex and lualatex set them; pdflatex prints [...]).
_PDFLATEX_LACKS = frozenset("\u0126\u0127\u0138\u013f\u0140\u0149\u0166\u0167\u017f")
_RUN_MACROS = {"cjk": r"\citeledgercjk", "rtl": r"\citeledgerrtl", "other": r"\citeledgerscript"}
_LIGATURE_PAIRS = frozenset({"--", "''", "``", ",,", "<<", ">>", "!`", "?`"})


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (
        0x2E80 <= o <= 0x9FFF  # radicals, kana, CJK symbols, unified ideographs
        or 0xAC00 <= o <= 0xD7AF  # Hangul syllables
        or 0xF900 <= o <= 0xFAFF
        or 0xFF00 <= o <= 0xFFEF  # full-width forms
        or 0x20000 <= o <= 0x3FFFF
    )


def _script(ch: str) -> str:
    """ "latin" (pdflatex sets it), "cjk", "rtl", "other" (another script), "space", "drop"."""
    o = ord(ch)
    if o < 0x20 or 0x7F <= o <= 0x9F:
        return "space"
    if (o < 0x180 and ch not in _PDFLATEX_LACKS) or ch in _LATIN_EXTRA:
        return "latin"
    if unicodedata.category(ch) in ("Cf", "Cc", "Cs", "Co", "Cn"):
        return "drop"  # bidi marks, zero-width spaces: invisible, and fatal to pdflatex
    if _is_cjk(ch):
        return "cjk"
    if 0x0590 <= o <= 0x08FF or 0xFB1D <= o <= 0xFDFF or 0xFE70 <= o <= 0xFEFF:
        return "rtl"  # Hebrew, Arabic, Syriac, Thaana, their presentation forms
    return "other"


def latex_text(text: str) -> str:
    """Text as LaTeX that typesets exactly that text: specials escaped, ligatures (``--``,
    ``''``, ``,,``) broken, control characters as spaces, runs of scripts pdflatex cannot set
    wrapped in ``\\citeledgercjk{}``, ``\\citeledgerrtl{}`` or ``\\citeledgerscript{}`` (the
    filter's header defines them: xelatex and lualatex set such runs in an installed font,
    pdflatex prints ``[...]``)."""
    runs: list[tuple[str, str]] = []  # (kind, text); a space between two runs of one script
    for ch in text:  # joins them, so ``中文 标题`` is one run
        kind = _script(ch)
        if kind == "drop":
            continue
        if kind == "space":
            ch, kind = " ", "latin"
        if runs and runs[-1][0] == kind:
            runs[-1] = (kind, runs[-1][1] + ch)
        elif (
            kind != "latin"
            and len(runs) >= 2
            and runs[-1] == ("latin", " ")
            and runs[-2][0] == kind
        ):
            runs.pop()
            runs[-1] = (kind, runs[-1][1] + " " + ch)
        else:
            runs.append((kind, ch))
    out: list[str] = []
    for kind, chunk in runs:
        if kind == "latin":
            out.append(_escape_latin(chunk, _LATEX_SPECIALS))
        else:
            out.append(_RUN_MACROS[kind] + "{" + chunk + "}")
    return "".join(out)


def bibtex_text(text: str) -> str:
    """A BibTeX field value (inside ``{...}``) that typesets exactly ``text``: LaTeX's
    specials escaped, braces as text commands so BibTeX's brace count holds, control and
    invisible characters dropped. Other scripts stay as written (a ``.bib`` file is UTF-8
    for biber and for bibtex with inputenc)."""
    kept = "".join(" " if _script(ch) == "space" else ch for ch in text if _script(ch) != "drop")
    return _escape_latin(kept, _BIBTEX_SPECIALS)


def _escape_latin(text: str, specials: dict[str, str]) -> str:
    out: list[str] = []
    for i, ch in enumerate(text):
        out.append(specials.get(ch, ch))
        if text[i : i + 2] in _LIGATURE_PAIRS:
            out.append(r"\kern0pt{}")
    return "".join(out)


# Characters a URL may carry into \url/\href unchanged; the rest are percent-encoded (the same
# address to any server), which leaves only % and # to escape for LaTeX. ^ is encoded: TeX reads
# ^^5c as a backslash, and a URL could then run commands (\pdffiledump...).
_URL_SAFE = "/:?=&;,+!*'()@$-._~%#"


def latex_url(url: str) -> str:
    """A URL for ``\\url{}``/``\\href{}``, in a macro argument or a ``.bib`` field: backslash,
    braces, caret, spaces, quotes and non-ASCII percent-encoded; ``%`` and ``#`` escaped."""
    encoded = quote(url, safe=_URL_SAFE)
    return encoded.replace("%", r"\%").replace("#", r"\#")


# Org and reStructuredText ---------------------------------------------------------------------

# pandoc's org writer prints text as it is, and Org reads much of it as markup or code: links
# ``[[...]]``, export snippets ``@@latex:...@@``, LaTeX fragments ``\input{...}``, macros
# ``{{{...}}}``, inline source blocks ``src_sh{...}`` and calls ``call_x()`` (Babel runs them on
# export), ``#+INCLUDE:`` or a heading where a wrapped line starts. Org has no escape character;
# its manual's remedy is a zero-width space, which breaks each opener without changing what a
# reader sees.
_ORG_BEFORE = frozenset("*/=~+_^#:|[]{}<>@-,")
_ZWSP = "\u200b"


def org_text(text: str) -> str:
    """Text as Org that shows exactly that text: a zero-width space before each character that
    can open Org markup, and after each backslash (so no ``\\name`` is a LaTeX fragment)."""
    out: list[str] = []
    for ch in text:
        if ch in _ORG_BEFORE:
            out.append(_ZWSP + ch)
        elif ch == "\\":
            out.append(ch + _ZWSP)
        else:
            out.append(ch)
    return "".join(out)


@functools.cache
def _ascii_punct() -> re.Pattern[str]:
    return re.compile(r"([!-/:-@\[-`{-~])")


def punctuation_escaped(text: str) -> str:
    """A backslash before every ASCII punctuation character. reStructuredText lets any character
    be escaped, so no role, reference, substitution or bare ``scheme:`` link can start in the
    text; CommonMark lets any punctuation be, and Obsidian honours it for ``#tags``,
    ``==highlights==``, ``%%comments%%`` and ``[[links]]`` alike."""
    return _ascii_punct().sub(r"\\\1", text)


# typst -----------------------------------------------------------------------------------------

# Every character with a meaning in typst markup (a backslash escapes any of them); quotes stay
# as written so typst's smart quotes apply.
_TYPST_MARKUP = frozenset("\\#*_`$<>@[]=-+/~.:")


def typst_markup(text: str) -> str:
    """Text as typst markup that shows exactly that text."""
    out: list[str] = []
    for ch in text:
        if ch in _TYPST_MARKUP:
            out.append("\\" + ch)
        elif ch < " " or ch == "\x7f":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def typst_string(text: str) -> str:
    """A typst string literal holding ``text``."""
    body = text.replace("\\", "\\\\").replace('"', '\\"')
    body = "".join(" " if ch < " " or ch == "\x7f" else ch for ch in body)
    return f'"{body}"'
