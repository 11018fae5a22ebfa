"""Fonts for every script a draft holds, for the LaTeX engines, and the refusal when one is lacking.

pandoc's LaTeX template sets Latin Modern, which has no Chinese, Arabic, Hebrew, Cyrillic or
Greek letters: xelatex and lualatex then leave those letters out with a log line each ("Missing
character") and still write the PDF, and pdflatex stops on them. So before the build the draft's
letters are compared with what the fonts fontconfig knows hold (``fc-list``'s charsets):

- CJK text gets ``CJKmainfont`` (xeCJK under xelatex, luatexja under lualatex), the installed
  CJK font that holds most of it (Noto CJK on Debian);
- other letters Latin Modern lacks get a ``mainfont`` holding them and Latin (DejaVu on Debian);
- text written mostly right to left gets the document's ``dir: rtl`` and its ``lang`` (``ar``,
  ``he``, ...) unless the draft says otherwise, so babel shapes and orders it;
- pdflatex, which has no such fonts, is refused for any of them in one line.

After the build, the engine's log (pandoc's ``--log``) is read for missing characters: letters
missing refuse the PDF in one line naming the script and the Debian package with a font for it;
symbols missing (an emoji) are a warning.

``publish/convert`` calls :func:`plan` before pandoc runs (its header lines and variables join
the build) and :func:`missing_characters` and :func:`judge_missing` on the log after it; the
engine runs there too (``_latex_pdf``), in :func:`engine_env`. The script table it starts from is
``renderers/fonts.py``'s.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from ..errors import CiteledgerError
from ..tree import MetaValue, stringify
from .box import stage_box
from .fallback import ScriptFonts, luatex_header, usable, xetex_header
from .fonts import CJK, NOTO, SCRIPTS, Script, script_of

# fonts' table holds the scripts typst's own fonts lack; Latin Modern lacks these too.
LATIN_MODERN_LACKS = (
    *SCRIPTS,
    Script("Greek", ((0x0370, 0x03FF), (0x1F00, 0x1FFF)), "fonts-dejavu-core"),
    Script("Cyrillic", ((0x0400, 0x052F),), "fonts-dejavu-core"),
    Script("Armenian", ((0x0530, 0x058F),), NOTO),
    Script("Georgian", ((0x10A0, 0x10FF),), NOTO),
    Script("Ethiopic", ((0x1200, 0x137F),), NOTO),
    # ⁰⁴⁵ and ₀₁₂ (¹²³ are Latin-1): footnote-style numbers in prose, set by DejaVu.
    Script("superscript and subscript", ((0x2070, 0x209F),), "fonts-dejavu-core"),
)
_CJK_NAMES = {s.name for s in SCRIPTS if s.package == CJK}
_RTL = {"Arabic": "ar", "Hebrew": "he"}
# CJK punctuation and full-width forms: set by the CJK font, counted with the CJK text.
_CJK_MARKS = ((0x3000, 0x303F), (0xFF00, 0xFFEF))
_LATIN_SAMPLE = "AZaz"
LATIN_MODERN = "Latin Modern Roman"


@dataclass
class Plan:
    """What one LaTeX build sets, and the scripts of the draft (name -> characters)."""

    scripts: dict[str, set[str]] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)
    header: list[str] = field(default_factory=list)  # LaTeX for header-includes


def letters_by_script(text: str) -> dict[Script, set[str]]:
    """The draft's letters (and CJK punctuation) in scripts Latin Modern lacks."""
    found: dict[Script, set[str]] = {}
    han = next(s for s in LATIN_MODERN_LACKS if s.name.startswith("Han"))
    for char in set(unicodedata.normalize("NFC", text)):
        code = ord(char)
        if code < 0x0370:
            continue
        if any(lo <= code <= hi for lo, hi in _CJK_MARKS):
            found.setdefault(han, set()).add(char)
            continue
        script = script_of(char, LATIN_MODERN_LACKS)
        if script is not None and unicodedata.category(char)[0] in "LMN":
            found.setdefault(script, set()).add(char)
    return found


def plan(engine: str, text: str, meta: dict[str, MetaValue], draft: Path) -> Plan:
    """The fonts and direction for ``text`` under ``engine``; a refusal when it cannot set it."""
    found = letters_by_script(text)
    result = Plan({s.name: chars for s, chars in found.items()})
    if not found:
        # Symbols in the prose Latin Modern lacks (≥, ∈, ✓) get a fallback of their own.
        if engine != "pdflatex" and "mainfont" not in meta and _symbols(text):
            fallen = _fallbacks(engine, text, found, meta, draft)
            if fallen is not None:
                result.header.append(fallen)
        return result
    if engine == "pdflatex":
        names = " and ".join(s.name for s in found)
        packages = " ".join(dict.fromkeys(s.package for s in found))
        raise CiteledgerError(
            f"{draft}: pdflatex cannot set the {names} text of the draft",
            hint=f"use --pdf-engine xelatex or lualatex (Debian: apt-get install {packages}), "
            "or the default --pdf-engine typst",
        )
    cjk_scripts = [s for s in found if s.name in _CJK_NAMES]
    cjk = set().union(*(found[s] for s in cjk_scripts))
    other = set().union(*(chars for s, chars in found.items() if s.name not in _CJK_NAMES))
    # A draft written in a script the main font lacks gets a main font of that script; a few
    # words of it in a Latin draft get a fallback font for them alone (renderers/fallback).
    if "mainfont" not in meta and not _mostly_foreign(text, found):
        fallen = _fallbacks(engine, text, found, meta, draft)
        if fallen is not None:
            result.header.append(fallen)
            if engine == "xelatex" and (cjk or any(s.name == "Thai" for s in found)):
                # A run of CJK (or Thai) has no spaces: without the locale's rules XeTeX
                # finds no break in it, and a line of it runs off the page.
                locale = "zh" if cjk else "th"
                result.header.append(
                    f'\\XeTeXlinebreaklocale "{locale}"\\XeTeXlinebreakskip=0pt plus 1pt'
                )
            return result
    # Letters the document's main fonts must hold; CJK text goes to a CJK package if any.
    wanted = set(other)
    if cjk and "CJKmainfont" not in meta:
        package = _CJK_PACKAGE[engine]
        prefer = _cjk_preference(found)
        if _tex_has(package[0]):
            font = best_font(cjk, prefer=prefer)
            if font is None or not covers(font, cjk):
                _refuse(draft, engine, cjk_scripts, cjk)
            result.variables["CJKmainfont"] = font
        elif engine == "xelatex":
            # No xeCJK: a CJK font (they hold Latin too) sets the whole text, and XeTeX breaks
            # lines between CJK characters by the locale's rules.
            wanted |= cjk
            result.header.append('\\XeTeXlinebreaklocale "zh"\\XeTeXlinebreakskip=0pt plus 1pt')
        else:
            raise CiteledgerError(
                f"{draft}: {engine} sets CJK text with {package[0]}, which TeX Live lacks here",
                hint=f"Debian: apt-get install {package[1]}; or use --pdf-engine xelatex or the "
                "default --pdf-engine typst",
            )
    if wanted and "mainfont" not in meta:
        lacking = [s for s in found if s.name not in _CJK_NAMES or wanted & found[s]]
        needed = wanted | set(_LATIN_SAMPLE)
        cjk_first = bool(wanted & cjk)
        for role, words in _ROLES:
            prefer = tuple(f"{w} CJK" for w in words) if cjk_first else words
            font = best_font(needed, prefer=prefer, mono=role == "monofont")
            if role == "mainfont" and (font is None or not covers(font, needed)):
                # Name the scripts no installed font holds, when some are the cause; else the
                # draft's mix is what no one font holds.
                unset = [sc for sc in lacking if not _settable(found[sc])]
                chars = set().union(*(found[sc] for sc in unset)) if unset else wanted
                _refuse(draft, engine, unset or lacking, chars)
            if font is not None and role not in meta:
                result.variables[role] = font
    rtl = _rtl_language(text)
    if rtl and "dir" not in meta:
        result.variables["dir"] = "rtl"
        if "lang" not in meta:
            result.variables["lang"] = rtl
    return result


def _mostly_foreign(text: str, found: dict[Script, set[str]]) -> bool:
    """Whether the letters of ``found``'s scripts outnumber the draft's Latin letters: the
    draft is written in them, so they are its main font's business."""
    chars = set().union(*found.values())
    foreign = sum(1 for c in text if c in chars)
    latin = sum(1 for c in text if c.isascii() and c.isalpha())
    return foreign > latin


def _fallbacks(
    engine: str, text: str, found: dict[Script, set[str]], meta: dict[str, MetaValue], draft: Path
) -> str | None:
    """The header that sets each script of ``found`` in fonts of its own, the document's fonts
    kept; None when the engine has no way (lualatex needs luaotfload's fallback)."""
    if engine == "lualatex" and not _tex_has("luaotfload-fallback.lua"):
        return None
    scripts: list[ScriptFonts] = []
    for script, letters in found.items():
        # Every character of the script in the draft, its punctuation and marks too.
        chars = {c for c in unicodedata.normalize("NFC", text) if script.holds(c)} | letters
        cjk = script.name in _CJK_NAMES
        prefer_serif = _cjk_preference(found) if cjk else ("Serif", "Sans")
        prefer_sans = (
            tuple(p.replace("Serif", "Sans") for p in prefer_serif)
            if cjk
            else tuple(reversed(prefer_serif))
        )
        serif = best_font(chars, prefer=prefer_serif)
        if not usable(serif) or serif is None or not covers(serif, chars):
            _refuse(draft, engine, [script], chars)
        sans = best_font(chars, prefer=prefer_sans)
        mono = best_font(chars, prefer=prefer_serif, mono=True)
        scripts.append(
            ScriptFonts(
                script.name,
                frozenset(chars),
                serif,
                sans if usable(sans) and sans is not None and covers(sans, chars) else serif,
                mono if usable(mono) and mono is not None and covers(mono, chars) else serif,
            )
        )
    symbols = _symbols(text)
    serif = best_font(symbols, prefer=("Serif", "Sans"))
    if symbols and usable(serif) and serif is not None:
        held = {c for c in symbols if covers(serif, {c})}
        sans = best_font(held, prefer=("Sans", "Serif"))
        sans = sans if usable(sans) and sans is not None and covers(sans, held) else serif
        scripts.append(ScriptFonts("symbols", frozenset(held), serif, sans, sans))
    if not scripts:
        return None
    if engine == "xelatex":
        return xetex_header(scripts)
    # A role the draft names keeps its font (its fallbacks added); the others are Latin Modern.
    fonts = {k: _meta_text(meta[k]) if k in meta else "" for k in _ROLE_DEFAULT}
    fonts = {k: v if usable(v) else "" for k, v in fonts.items()}
    main, sans, mono = (fonts[k] or default for k, default in _ROLE_DEFAULT.items())
    return luatex_header(scripts, main, sans, mono)


def _meta_text(value: MetaValue) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and value.get("t") == "MetaString":
        return str(value.get("c", ""))
    if isinstance(value, dict) and value.get("t") in ("MetaInlines", "MetaBlocks"):
        return stringify(value["c"])
    return ""


def _symbols(text: str) -> set[str]:
    """The symbols of the prose (past Latin-1) that Latin Modern lacks and an installed font
    has; none when fontconfig does not know Latin Modern (nothing to compare with)."""
    candidates = {
        c for c in text if ord(c) >= 0x2000 and unicodedata.category(c) in ("Sm", "So", "Sc")
    }
    if not candidates or not dict(_fonts()).get(LATIN_MODERN):
        return set()
    lacking = {c for c in candidates if not covers(LATIN_MODERN, {c})}
    return {c for c in lacking if best_font({c}) is not None}


# The fonts pandoc's template leaves fontspec to pick: Latin Modern's.
_ROLE_DEFAULT = {
    "mainfont": LATIN_MODERN,
    "sansfont": "Latin Modern Sans",
    "monofont": "Latin Modern Mono",
}


# The package that sets CJK text under each engine, and the Debian package that has it.
_CJK_PACKAGE = {
    "xelatex": ("xeCJK.sty", "texlive-lang-chinese"),
    "lualatex": ("luatexja-fontspec.sty", "texlive-lang-japanese"),
}
_ROLES = (
    ("mainfont", ("Serif", "Sans")),
    ("sansfont", ("Sans", "Serif")),
    ("monofont", ("Mono",)),
)


@functools.lru_cache(maxsize=8)
def _tex_has(name: str) -> bool:
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return False
    proc = subprocess.run([kpsewhich, name], capture_output=True, text=True, check=False)
    return proc.returncode == 0 and bool(proc.stdout.strip())


def _cjk_preference(found: dict[Script, set[str]]) -> tuple[str, ...]:
    names = {s.name for s in found}
    if any(n.startswith("Korean") for n in names):
        return ("Serif CJK KR", "Sans CJK KR", "CJK KR")
    if any(n.startswith("Japanese") for n in names):
        return ("Serif CJK JP", "Sans CJK JP", "CJK JP")
    return ("Serif CJK SC", "Sans CJK SC", "CJK SC", "Serif CJK", "CJK")


def _rtl_language(text: str) -> str | None:
    """``ar``/``he`` when letters of that script outnumber the Latin ones of the draft."""
    counts = {name: 0 for name in _RTL}
    latin = 0
    for char in text:
        code = ord(char)
        if 0x0590 <= code <= 0x05FF:
            counts["Hebrew"] += 1
        elif 0x0600 <= code <= 0x06FF or 0x0750 <= code <= 0x077F:
            counts["Arabic"] += 1
        elif char.isascii() and char.isalpha():
            latin += 1
    name, count = max(counts.items(), key=lambda item: item[1])
    return _RTL[name] if count > latin and count else None


def _refuse(draft: Path, engine: str, scripts: list[Script], chars: set[str]) -> NoReturn:
    names = " and ".join(s.name for s in scripts) or "the draft's"
    packages = " ".join(dict.fromkeys(s.package for s in scripts)) or NOTO
    sample = "".join(sorted(chars)[:8])
    raise CiteledgerError(
        f"{draft}: {engine} has no installed font for the {names} text of the draft ({sample})",
        hint=f"install one (Debian: apt-get install {packages}), or use the default "
        "--pdf-engine typst",
    )


# Fonts ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _fonts() -> tuple[tuple[str, tuple[tuple[int, int], ...]], ...]:
    """Every regular font fontconfig knows: (family, charset ranges)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return ()
    proc = subprocess.run(
        [fc_list, "--format", "%{family[0]}\t%{style[0]}\t%{charset}\n"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    fonts: dict[str, tuple[tuple[int, int], ...]] = {}
    for line in proc.stdout.splitlines():
        family, _sep, rest = line.partition("\t")
        style, _sep, charset = rest.partition("\t")
        last = style.lower().split()[-1] if style.strip() else ""
        if not family or last not in ("regular", "book", "roman", "normal"):
            continue
        fonts.setdefault(family, _ranges(charset))
    return tuple(fonts.items())


def _ranges(charset: str) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for item in charset.split():
        lo, _sep, hi = item.partition("-")
        try:
            out.append((int(lo, 16), int(hi or lo, 16)))
        except ValueError:
            continue
    return tuple(out)


def _holds(ranges: tuple[tuple[int, int], ...], char: str) -> bool:
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in ranges)


def covers(family: str, chars: Iterable[str]) -> bool:
    ranges = dict(_fonts()).get(family)
    if ranges is None:
        return False
    return all(_holds(ranges, c) for c in chars)


def _settable(chars: set[str]) -> bool:
    font = best_font(chars)
    return font is not None and covers(font, chars)


def best_font(chars: set[str], prefer: tuple[str, ...] = (), *, mono: bool = False) -> str | None:
    """The installed family holding most of ``chars``; ties go to the first of ``prefer`` its
    name contains, then to the shorter name (a family rather than one of its variants)."""
    best: tuple[int, int, int, str] | None = None
    for family, ranges in _fonts():
        if ("Mono" in family) != mono or "Math" in family:
            continue
        held = sum(1 for c in chars if _holds(ranges, c))
        if not held:
            continue
        rank = next((i for i, p in enumerate(prefer) if p in family), len(prefer))
        key = (-held, rank, len(family), family)
        if best is None or key < best:
            best = key
    return best[3] if best else None


# After the build -------------------------------------------------------------------------


def missing_characters(log: Path) -> list[str]:
    """The characters pandoc's ``--log`` says the engine had no glyph for."""
    try:
        entries = json.loads(log.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    chars: dict[str, None] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("type") == "MissingCharacter":
            text = str(entry.get("message", ""))
            # "There is no 周 (U+5468) (U+5468) in font ..."
            if text.startswith("There is no "):
                rest = text[len("There is no ") :]
                chars[rest.split(" (U+", 1)[0]] = None
    return [c for c in chars if c]


def judge_missing(missing: list[str], engine: str, draft: Path, out: Path) -> str | None:
    """A refusal when letters are missing; a warning line (returned) when only symbols are."""
    if not missing:
        return None
    letters = [c for c in missing if unicodedata.category(c[:1] or " ")[0] in "LMN"]
    if letters:
        scripts = letters_by_script("".join(letters))
        names = " and ".join(s.name for s in scripts) or "some"
        packages = " ".join(dict.fromkeys(s.package for s in scripts)) or NOTO
        raise CiteledgerError(
            f"{draft}: {engine} left out the {names} letters {''.join(letters[:8])} "
            f"(no font had them); {out} not written",
            hint=f"install a font for them (Debian: apt-get install {packages}), or use the "
            "default --pdf-engine typst",
        )
    return (
        f"warn: {out}: {engine} had no font for {len(missing)} symbol(s), left out: "
        f"{' '.join(missing[:12])}"
    )


def pandoc_variables(variables: dict[str, str]) -> list[str]:
    args: list[str] = []
    for key, value in variables.items():
        args += ["-V", f"{key}={value}"]
    return args


__all__ = [
    "CJK",
    "Plan",
    "boxed_engine",
    "judge_missing",
    "missing_characters",
    "pandoc_variables",
    "plan",
]


def engine_env() -> dict[str, str]:
    """The environment of a LaTeX engine run on a draft: TeX opens no file outside its working
    folder and TeX's own trees (``openin_any=p``: no absolute path, no ``..``, no dot file),
    writes none there (``openout_any=p``), and runs no program (``shell_escape=f``, not even
    the restricted list). A refused file is named in the engine's error, never quoted."""
    return {**os.environ, "openin_any": "p", "openout_any": "p", "shell_escape": "f"}


# Each engine's own switches on top: no shell escape on the command line too, and for lualatex
# no sockets. Not ``--safer``: luaotfload, which pandoc's template loads through fontspec,
# refuses to run under it (luaotfload#416), so no lualatex PDF could be made at all. Lua's own
# ``io.open`` is not held by ``openin_any``: a draft's raw TeX under lualatex is trusted code,
# which the trust model lets only a trusted draft bring.
ENGINE_FLAGS = {
    "pdflatex": ("-no-shell-escape",),
    "xelatex": ("-no-shell-escape",),
    "lualatex": ("-no-shell-escape", "--nosocket"),
}


@contextlib.contextmanager
def boxed_engine(engine: str, draft: Path) -> Iterator[tuple[str, list[str]]]:
    """The ``--pdf-engine`` for pandoc that runs ``engine`` inside a box: a mirror of the
    draft's folder where no symlink leads out (``renderers/box.py``), as the engine's working
    folder, with :data:`ENGINE_FLAGS`. pandoc runs the engine in the folder it was started in,
    and TeX reads ``\\input{inc.tex}`` there through any symlink; so the engine pandoc is
    given is a small script named as the engine (pandoc knows an engine by its name) that
    changes into the box first. Where there is no ``sh`` the engine runs as it is. Yields the
    engine and the draft folder's entries left out because they lead outside it."""
    real = shutil.which(engine)
    sh = shutil.which("sh")
    if real is None or sh is None or os.name == "nt":
        yield engine, []
        return
    with tempfile.TemporaryDirectory(prefix="citeledger-tex-") as work:
        box, bin_dir = Path(work, "root"), Path(work, "bin")
        box.mkdir()
        bin_dir.mkdir()
        outside = stage_box(draft.parent, box)
        flags = " ".join(ENGINE_FLAGS.get(engine, ()))
        wrapper = bin_dir / engine
        wrapper.write_text(
            f"#!{sh}\ncd {shlex.quote(str(box))} || exit 1\n"
            f'exec {shlex.quote(real)} {flags} "$@"\n',
            encoding="utf-8",
        )
        wrapper.chmod(0o700)
        yield str(wrapper), outside
