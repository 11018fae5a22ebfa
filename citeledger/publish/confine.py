"""The local files a draft may have a build read: inside its folder and the ``--resource-path``
folders only, and what becomes of a local image those folders do not hold.

pandoc reads every local image into a Word, OpenDocument, EPUB or PowerPoint file, a LaTeX
engine reads what raw TeX names: a draft written by someone else could carry the reader's
``~/.ssh/id_ed25519.pub`` out inside the delivered document. So a build reads local files
only inside the draft's folder and the folders the user names (``--resource-path``), judged
by the real path (a symlink inside the folder that leads out is refused too), and points
each image at the file it checked, so pandoc's own search (which tries the working folder)
reads nothing else. Besides images: an EPUB's cover and stylesheets, raw HTML sources, and
raw TeX file commands.

A local image the folders do not hold is written as its alt text, with one warning line, as a
remote image that could not be fetched is (``images.py``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ..errors import ResourceRefused
from ..tree import Inline, Inlines, MetaValue, PandocDoc, elements, replace_elements, stringify
from .images import REMOTE_SCHEMES, is_remote

# Raw TeX commands that read a file, with the path as their argument.
_TEX_READS = (
    "input",
    "include",
    "verbatiminput",
    "lstinputlisting",
    "VerbatimInput",
    "InputIfFileExists",
    "IfFileExists",
    "includegraphics",
    "includepdf",
    "includesvg",
    "subfile",
    "import",
    "openin",
)
# Raw TeX commands refused wherever they point: they read a stream or run code.
_TEX_REFUSED = ("read", "readline", "directlua", "luaexec", "latelua", "write18", "ShellEscape")
_TEX_COMMAND = re.compile(r"\\(" + "|".join(_TEX_READS + _TEX_REFUSED) + r")(?![A-Za-z@])")
# After the command: a star, optional [..] arguments, a stream number and "=" for \openin,
# then a {braced} path or a bare one up to a space or a backslash.
_TEX_ARGUMENT = re.compile(
    r"\*?\s*(?:\[[^\]]*\]\s*)*(?:\\[A-Za-z@]+\s*=?\s*|\d+\s*=?\s*)?(?:\{([^{}]*)\}|([^\s{}\\%]+))"
)
# Where pandoc reads files for an EPUB besides images: its cover and stylesheets.
_EPUB_META_FILES = ("cover-image", "epub-cover-image", "css", "stylesheet", "epub-fonts")
_HTML_SRC = re.compile(
    r"""\b(?:src|href|poster|data)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I
)


@dataclass
class Confinement:
    """The folders a build may read files from: the draft's own first, then the user's."""

    draft: Path
    folders: tuple[Path, ...]
    embeds: bool = False  # pandoc is told to embed resources into text outputs too

    @classmethod
    def for_draft(
        cls, draft: Path, named: Iterable[str | Path] = (), *, embeds: bool = False
    ) -> Confinement:
        folders = [Path(os.path.realpath(Path(draft).parent or "."))]
        for item in named:
            for part in str(item).split(os.pathsep):
                if part:
                    folders.append(Path(os.path.realpath(part)))
        return cls(Path(draft), tuple(dict.fromkeys(folders)), embeds)

    def inside(self, real: Path) -> bool:
        return any(real == f or f in real.parents for f in self.folders)

    def resolve(self, target: str, element: str) -> Path:
        """The real path of the local file ``target`` names (the first folder that has it, as
        pandoc searches), refused in one line when any reading of it leads outside."""
        scheme = urlsplit(target).scheme.lower()
        if len(scheme) > 1 and scheme not in REMOTE_SCHEMES:
            self._refuse(element, target, f"a {scheme}: address, which a build never reads")
        found: Path | None = None
        for text in _spellings(target):
            path = Path(text)
            bases = [path] if path.is_absolute() else [f / path for f in self.folders]
            for candidate in bases:
                real = Path(os.path.realpath(candidate))
                if not self.inside(real):
                    self._refuse(element, target, "outside the draft's folder")
                if found is None and real.exists():
                    found = real
        return found or self.folders[0] / target

    def _refuse(self, element: str, target: str, why: str) -> None:
        shown = target if len(target) <= 120 else target[:117] + "..."
        raise ResourceRefused(
            f"{self.draft}: {element} {shown!r} is {why}; a draft reads only files in its "
            "own folder and the --resource-path folders",
            hint="copy the file next to the draft, or name its folder with --resource-path",
        )


def _spellings(target: str) -> list[str]:
    """The paths pandoc may read for ``target``: as written, percent-decoded, and without a
    query or fragment."""
    out = [target, unquote(target)]
    for text in list(out):
        for mark in ("?", "#"):
            if mark in text:
                out.append(text.split(mark, 1)[0])
    return [t for t in dict.fromkeys(out) if t]


def named_resource_folders(req: object) -> list[str]:
    """The folders the user named with ``--resource-path`` on the request, however it holds
    them (a path list, one string, or among pandoc options passed through)."""
    named: list[str] = []
    value = getattr(req, "resource_path", None)
    if isinstance(value, (str, Path)):
        named.append(str(value))
    elif isinstance(value, (list, tuple)):
        named.extend(str(v) for v in value)
    for attribute in ("pandoc_args", "pandoc_options", "extra_args"):
        args = getattr(req, attribute, None)
        if not isinstance(args, (list, tuple)):
            continue
        items = [str(a) for a in args]
        for i, arg in enumerate(items):
            if arg == "--resource-path" and i + 1 < len(items):
                named.append(items[i + 1])
            elif arg.startswith("--resource-path="):
                named.append(arg.split("=", 1)[1])
    return named


def embeds_resources(req: object) -> bool:
    """Whether the request passes pandoc ``--embed-resources`` (or the older
    ``--self-contained``), which reads local files into an HTML output as well."""
    for attribute in ("pandoc_args", "pandoc_options", "extra_args"):
        args = getattr(req, attribute, None)
        if isinstance(args, (list, tuple)) and any(
            str(a).split("=", 1)[0] in ("--embed-resources", "--self-contained") for a in args
        ):
            return True
    return bool(getattr(req, "embed_resources", False))


def confine_local_files(
    doc: PandocDoc, confinement: Confinement, *, writer: str, family: str, point: bool = True
) -> None:
    """Refuse (one line naming the element) any local file the output would read outside the
    allowed folders; with ``point``, aim each local image at the real file checked."""
    for el in elements([doc.get("blocks", []), list(doc.get("meta", {}).values())]):
        kind = el.get("t")
        if kind == "Image":
            target = el["c"][2][0]
            if not isinstance(target, str) or not target or is_remote(target):
                continue
            if target.lower().startswith("data:"):
                continue
            real = confinement.resolve(target, "image")
            if point:
                el["c"][2][0] = str(real)
        elif kind in ("RawInline", "RawBlock"):
            fmt, text = el["c"][0].lower(), el["c"][1]
            if fmt in ("tex", "latex") and writer == "pdf" and family == "latex":
                _check_raw_tex(text, confinement)
            elif fmt in ("html", "html5") and family.startswith("epub"):
                _check_raw_html(text, confinement)
    if family.startswith("epub"):
        meta = doc.get("meta", {})
        for key in _EPUB_META_FILES:
            if key in meta:
                for value in _meta_strings(meta[key]):
                    if value and not is_remote(value):
                        confinement.resolve(value, key)


def missing_images(doc: PandocDoc, confinement: Confinement) -> list[str]:
    """The local images of ``doc`` the allowed folders do not hold, as the draft names them."""
    found: list[str] = []
    for el in elements(doc.get("blocks", [])):
        if el.get("t") != "Image":
            continue
        target = el["c"][2][0]
        if not isinstance(target, str) or not target or is_remote(target):
            continue
        if target.lower().startswith("data:") or target in found:
            continue
        if not confinement.resolve(target, "image").exists():
            found.append(target)
    return found


def drop_missing_images(doc: PandocDoc, confinement: Confinement) -> list[str]:
    """Write each local image the allowed folders do not hold as its alt text; returns their
    targets. pandoc leaves a missing image out of a Word or PowerPoint file with a warning, but
    typst stops the whole PDF on it: every binary output treats it alike, as a remote image
    that could not be fetched."""
    missing: list[str] = []

    def change(el: Inline) -> Inlines | None:
        if el.get("t") != "Image":
            return None
        target = el["c"][2][0]
        if not isinstance(target, str) or not target or is_remote(target):
            return None
        if target.lower().startswith("data:") or confinement.resolve(target, "image").exists():
            return None
        missing.append(target)
        return list(el["c"][1])

    replace_elements(doc.get("blocks", []), change)
    return missing


def missing_warning(draft: Path | str, missing: list[str]) -> str | None:
    """One line for the local images a build did not find."""
    if not missing:
        return None
    shown = ", ".join(missing[:5]) + (f", and {len(missing) - 5} more" if len(missing) > 5 else "")
    count = len(missing)
    return f"warn: {draft}: {count} local image(s) not found, written as their alt text: {shown}"


def _check_raw_tex(text: str, confinement: Confinement) -> None:
    for match in _TEX_COMMAND.finditer(text):
        command = match.group(1)
        element = f"raw TeX \\{command}"
        if command in _TEX_REFUSED:
            raise ResourceRefused(
                f"{confinement.draft}: {element} reads a stream or runs code, which a draft "
                "may not",
                hint="remove it from the draft's raw LaTeX",
            )
        argument = _TEX_ARGUMENT.match(text, match.end())
        if argument is None:
            continue
        path = (argument.group(1) or argument.group(2) or "").strip()
        if not path:
            continue
        for one in path.split(","):
            if one.strip():
                confinement.resolve(one.strip(), element)


def _check_raw_html(text: str, confinement: Confinement) -> None:
    for match in _HTML_SRC.finditer(text):
        value = next(g for g in match.groups() if g is not None).strip()
        if value and not is_remote(value) and not value.lower().startswith(("data:", "#")):
            if "://" in value or value.lower().startswith("mailto:"):
                continue
            confinement.resolve(value, "raw HTML")


def _meta_strings(value: MetaValue) -> list[str]:
    if isinstance(value, dict) and value.get("t") == "MetaList":
        return [s for item in value["c"] for s in _meta_strings(item)]
    if isinstance(value, dict) and value.get("t") == "MetaMap":
        return [s for item in value["c"].values() for s in _meta_strings(item)]
    return [stringify(value).strip()]
