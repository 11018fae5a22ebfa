"""The default PDF: pandoc's typst text compiled by the ``typst`` wheel, with the draft's folder
as typst's root (a draft reads nothing outside it).

Images the build fetched live in a temporary folder outside that root, so typst reaches them
as a local package (``@citeledger/fetched``) whose one function loads a file of its own folder;
pandoc wrote the image with a placeholder path that names the file.

A typst error names the line of the draft it came from where the words around it can be found
there, and its cause, never only "check the draft".

``publish/convert`` hands :func:`compile_pdf` what pandoc's typst writer wrote; after the compile,
``renderers/fonts.py`` names any script the PDF drew blank.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from ..errors import CiteledgerError
from ..messages import Say
from .fonts import font_warning, missing_scripts

# An image path pandoc writes into the typst text; ``image("<PLACEHOLDER>/<file>"`` becomes a
# call of the package's function.
PLACEHOLDER = "citeledger-fetched"
_PLACED = re.compile(r'image\("' + PLACEHOLDER + r'/([0-9a-f]+\.[a-z]+)"')
_PACKAGE = ("citeledger", "fetched", "0.1.0")
_IMPORT = f'#import "@{_PACKAGE[0]}/{_PACKAGE[1]}:{_PACKAGE[2]}": fetched-image\n'
_LOCATION = re.compile(r"\.typ:(\d+):(\d+)")
_WORD = re.compile(r"[^\W\d_]{4,}")


def placeholder_name(path: Path) -> str:
    return f"{PLACEHOLDER}/{path.name}"


def compile_pdf(source: bytes, draft: Path, out: Path, fetched: list[Path], say: Say) -> bytes:
    import typst

    text = repair_source(source.decode("utf-8"))
    package_path = None
    with tempfile.TemporaryDirectory(prefix="citeledger-typst-") as packages:
        if fetched and _PLACED.search(text):
            package_path = _write_package(Path(packages), fetched)
            text = _IMPORT + _PLACED.sub(r'fetched-image("\1"', text)
        try:
            pdf = typst.compile(  # type: ignore[type-var]
                text.encode("utf-8"), root=str(draft.parent.resolve()), package_path=package_path
            )
        except Exception as exc:  # the typst wheel raises its own error types
            raise compile_error(exc, text, draft, out) from None
    if not isinstance(pdf, bytes):
        raise CiteledgerError(f"typst returned no PDF for {out}")
    missing = missing_scripts(text, pdf)
    if missing:
        say(font_warning(str(out), missing))
    return pdf


def repair_source(source: str) -> str:
    """pandoc's typst text, with what texmath writes and typst refuses put right: a double
    bar (Vmatrix, a norm) is one character to typst."""
    return source.replace('mat(delim: "||",', 'mat(delim: "‖",')


def _write_package(root: Path, fetched: list[Path]) -> str:
    folder = root.joinpath(*_PACKAGE)
    folder.mkdir(parents=True)
    (folder / "typst.toml").write_text(
        f'[package]\nname = "{_PACKAGE[1]}"\nversion = "{_PACKAGE[2]}"\nentrypoint = "lib.typ"\n',
        encoding="utf-8",
    )
    # A path in a package resolves against the package's folder: the fetched file's copy here.
    (folder / "lib.typ").write_text(
        "#let fetched-image(name, ..args) = image(name, ..args)\n", encoding="utf-8"
    )
    for path in fetched:
        (folder / path.name).write_bytes(path.read_bytes())
    return str(root)


def compile_error(exc: Exception, text: str, draft: Path, out: Path) -> CiteledgerError:
    """One line: the draft's line (found by the words of the typst line that failed), the
    cause in typst's words, and what to do about it."""
    message = str(getattr(exc, "message", "") or exc).strip()
    cause = message.splitlines()[0] if message else type(exc).__name__
    diagnostic = str(getattr(exc, "diagnostic", "") or "")
    where = f"{draft}"
    near = ""
    found = _LOCATION.search(diagnostic)
    if found:
        lines = text.splitlines()
        number = int(found.group(1))
        typst_line = lines[number - 1] if 0 < number <= len(lines) else ""
        draft_line = _draft_line(draft, typst_line)
        if draft_line is not None:
            where = f"{draft}:{draft_line}"
        else:
            near = f' (typst line {number}: "{_shorten(typst_line.strip())}")'
    hint = "fix that line of the draft, or try --pdf-engine xelatex"
    if cause.startswith("file not found"):
        hint = "an image or file the draft names is not in the draft's folder; fix the path"
    return CiteledgerError(f"{where}: typst could not compile {out}: {cause}{near}", hint=hint)


def _draft_line(draft: Path, typst_line: str) -> int | None:
    """The draft line sharing the most words (4+ letters) with ``typst_line``."""
    words = set(_WORD.findall(typst_line)) - {"image", "link", "label", "block", "figure"}
    if not words:
        return None
    try:
        lines = draft.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    best, best_score = None, 0
    for number, line in enumerate(lines, start=1):
        score = len(words & set(_WORD.findall(line)))
        if score > best_score:
            best, best_score = number, score
    return best if best_score * 2 >= min(len(words), 4) else None


def _shorten(text: str, width: int = 70) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
