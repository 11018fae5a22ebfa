"""The default PDF: pandoc's typst text compiled by the ``typst`` wheel, in a child process of
its own, bounded in time and memory, with a box mirroring the draft's folder as typst's root
(a draft reads nothing outside it).

typst follows a symlink it meets under its root, and a typst loop runs as long as it likes:
raw typst ``#read("inc.txt")`` with ``inc.txt -> ~/.ssh/id_ed25519`` put the key into the PDF,
``#for i in range(2000000000)`` asked for 32 GB, and a compile inside this process ignored
SIGTERM for ten minutes. So the compile runs in a child (``python -c``, importing only the
wheel) whose address space is bounded (``RLIMIT_AS``, :data:`MEMORY_ENV`, default 4G), which
is killed after :data:`TIME_ENV` seconds (default 300) or as soon as citeledger is told to stop
(the child is one of ``pandoc.py``'s tracked children), and whose root is a box
(``renderers/box.py``): links to the checked files of the draft's folder, none leading out.

Images the build fetched live in a temporary folder outside that root, so typst reaches them
as a local package (``@citeledger/fetched``) whose one function loads a file of its own folder;
pandoc wrote the image with a placeholder path that names the file.

A typst error names the line of the draft it came from where the words around it can be found
there, and its cause, never only "check the draft".

``publish/convert`` hands :func:`compile_pdf` what pandoc's typst writer wrote; after the compile,
``renderers/fonts.py`` names any script the PDF drew blank.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import CiteledgerError
from ..messages import Say
from ..pandoc import run_child
from .box import stage_box
from .fonts import font_warning, glyph_warnings, missing_glyphs, missing_scripts

TIME_ENV = "CITELEDGER_TYPST_TIMEOUT"
MEMORY_ENV = "CITELEDGER_TYPST_MEMORY"
DEFAULT_SECONDS = 300.0
DEFAULT_MEMORY = "4G"
_MEMORY = re.compile(r"([1-9][0-9]{0,5})([kKmMgG])")
_UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
# The child: bound its address space, then compile; an error of typst's as one JSON line.
_CHILD = r"""
import json, sys
limit = int(sys.argv[1])
if limit:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import typst
source = sys.stdin.buffer.read()
try:
    pdf = typst.compile(source, root=sys.argv[2], package_path=sys.argv[3] or None)
except MemoryError:
    sys.exit(75)
except Exception as exc:
    message = str(getattr(exc, "message", "") or exc)
    diagnostic = str(getattr(exc, "diagnostic", "") or "")
    sys.stderr.write(json.dumps({"message": message, "diagnostic": diagnostic}))
    sys.exit(3)
sys.stdout.buffer.write(pdf)
"""

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
    text = repair_source(source.decode("utf-8"))
    package_path = ""
    with tempfile.TemporaryDirectory(prefix="citeledger-typst-") as work:
        packages, box = Path(work, "packages"), Path(work, "root")
        packages.mkdir()
        box.mkdir()
        if fetched and _PLACED.search(text):
            package_path = _write_package(packages, fetched)
            text = _IMPORT + _PLACED.sub(r'fetched-image("\1"', text)
        outside = stage_box(draft.parent, box)
        try:
            pdf = _compile_in_child(text, box, package_path, draft, out)
        except CiteledgerError as exc:
            raise _named_in_draft(exc, box, draft, outside) from None
    missing = missing_scripts(text, pdf)
    if missing:
        say(font_warning(str(out), missing))
    blank = missing_glyphs(text, pdf)
    if blank:
        try:
            draft_text = draft.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            draft_text = ""
        for line in glyph_warnings(str(out), blank, str(draft), draft_text):
            say(line)
    return pdf


def _named_in_draft(
    exc: CiteledgerError, box: Path, draft: Path, outside: list[str]
) -> CiteledgerError:
    """The error with the box's paths told as the draft's folder's, and a file that is a
    symlink leading out of it named as such."""
    folder = str(draft.parent.absolute())
    message = exc.message.replace(str(box), folder)
    hint = exc.hint
    led = next((name for name in outside if os.path.join(folder, name) in message), None)
    if led is not None:
        hint = (
            f"{led} is a symlink leading outside the draft's folder, which a build never "
            "reads; copy the file into the folder instead"
        )
    return type(exc)(message, hint=hint)


class _TypstFailed(Exception):
    """typst's own error, as the child told it."""

    def __init__(self, message: str, diagnostic: str) -> None:
        super().__init__(message)
        self.message = message
        self.diagnostic = diagnostic


def _compile_in_child(text: str, box: Path, package_path: str, draft: Path, out: Path) -> bytes:
    seconds, memory = _time_limit(), _memory_limit()
    env = {**os.environ, **_NO_NETWORK}
    cmd = [sys.executable, "-c", _CHILD, str(memory), str(box), package_path]
    try:
        code, pdf, err = run_child(cmd, text.encode("utf-8"), cwd=box, env=env, timeout=seconds)
    except subprocess.TimeoutExpired:
        raise CiteledgerError(
            f"{draft}: typst took longer than {seconds:g} s on {out}: stopped",
            hint=f"look for a loop in the draft's raw typst, or raise {TIME_ENV}",
        ) from None
    if code == 3:
        try:
            told = json.loads(err.decode("utf-8", "replace"))
        except ValueError:
            told = {"message": err.decode("utf-8", "replace"), "diagnostic": ""}
        failed = _TypstFailed(str(told.get("message", "")), str(told.get("diagnostic", "")))
        raise compile_error(failed, text, draft, out)
    if code != 0 or not pdf.startswith(b"%PDF"):
        shown = os.environ.get(MEMORY_ENV, "").strip() or DEFAULT_MEMORY
        if code == 75 or code < 0 or b"memory allocation" in err:
            raise CiteledgerError(
                f"{draft}: typst needed more than {shown} of memory for {out}: stopped",
                hint=f"look for a huge loop or array in the draft's raw typst, or raise "
                f"{MEMORY_ENV} (e.g. 8G)",
            )
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {code}"]
        raise CiteledgerError(f"{draft}: typst could not compile {out}: {last[0]}")
    return pdf


# typst fetches ``@preview`` packages itself; the box gives it no way out to the network.
_NO_NETWORK = {
    key: "http://127.0.0.1:9"
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
}


def _time_limit() -> float:
    try:
        seconds = float(os.environ.get(TIME_ENV, "") or DEFAULT_SECONDS)
    except ValueError:
        seconds = DEFAULT_SECONDS
    return seconds if 0 < seconds < 1e7 else DEFAULT_SECONDS


def _memory_limit() -> int:
    """The child's address-space bound in bytes (0: none, where the system has no such
    limit)."""
    if not hasattr(os, "fork"):  # no resource module to bound with (Windows)
        return 0
    found = _MEMORY.fullmatch(os.environ.get(MEMORY_ENV, "").strip() or DEFAULT_MEMORY)
    if found is None:
        found = _MEMORY.fullmatch(DEFAULT_MEMORY)
    assert found is not None
    return int(found.group(1)) * _UNITS[found.group(2).lower()]


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
