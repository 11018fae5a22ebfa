"""``citeledger convert``: one draft, verified once, written to every output asked for.

The draft is read to pandoc's JSON tree once and verified once (the same verifier as
``citeledger verify`` and the filter). Each output then gets its own copy of the tree, the filter
applied in-process (``filters.main.apply`` with verification off: it already ran), and pandoc
writing from JSON with the bundled templates. Word and PowerPoint files go through the
renderers (``citeledger.renderers.finish``) before they are moved into place.

A verification failure stops everything before any output is written. Each output is written
to a temporary file in its folder and renamed only when complete, so a failed build never
leaves a partial file behind. An output that fails after that (pandoc refuses it, a PDF engine
or a renderer fails) is reported in one line and the others are still built; the run then
ends with one line naming what was and was not written, and a non-zero exit.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BadInput, CiteledgerError, DraftError, ToolMissing, VerificationFailed
from ..messages import Say, to_stderr
from ..options import Options, from_meta
from ..outputs import Guard, fill, staged
from ..pandoc import format_for, read_json, run_pandoc
from ..tree import Json

if TYPE_CHECKING:
    from ..document.markers import Scan
    from ..ledger import Ledger

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
TYPST_TEMPLATE = TEMPLATES / "report.typst"
LATEX_REPORT = TEMPLATES / "latex-report.tex"
REFERENCE_DOCS = {"docx": TEMPLATES / "reference.docx", "pptx": TEMPLATES / "reference.pptx"}

PDF_ENGINES = ("typst", "pdflatex", "xelatex", "lualatex")
# What each LaTeX engine needs from Debian for pandoc's template and the report look: the engine,
# LaTeX with the recommended and extra packages (titlesec, xurl, upquote), Latin Modern, and for
# xelatex the standard PostScript fonts (its hyperref driver loads ZapfDingbats:
# "Font \XeTeXLink@font=pzdr ... not loadable" without texlive-fonts-recommended). CJK text
# needs a CJK font besides (fonts-noto-cjk) under xelatex and lualatex.
TEX_PACKAGES = {
    "pdflatex": ("texlive-latex-recommended", "texlive-latex-extra", "lmodern"),
    "xelatex": (
        "texlive-xetex",
        "texlive-latex-recommended",
        "texlive-latex-extra",
        "texlive-fonts-recommended",
        "lmodern",
    ),
    "lualatex": ("texlive-luatex", "texlive-latex-recommended", "texlive-latex-extra", "lmodern"),
}
# One file of each package, looked up with kpsewhich before the build.
TEX_SENTINELS = {
    "texlive-latex-recommended": "booktabs.sty",
    "texlive-latex-extra": "titlesec.sty",
    "texlive-fonts-recommended": "pzdr.tfm",
    "lmodern": "lmodern.sty",
}
TEX_INSTALL_HINT = {
    engine: f"Debian: apt-get install {' '.join(packages)}; or use the default --pdf-engine typst"
    for engine, packages in TEX_PACKAGES.items()
}

# Output suffix -> pandoc writer ("pdf" is ours: typst or a LaTeX engine).
WRITERS = {
    ".docx": "docx",
    ".pptx": "pptx",
    ".pdf": "pdf",
    ".html": "html5",
    ".htm": "html5",
    ".xhtml": "html5",
    ".epub": "epub3",
    ".tex": "latex",
    ".latex": "latex",
    ".typ": "typst",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "plain",
    ".rst": "rst",
    ".org": "org",
    ".odt": "odt",
    ".wiki": "mediawiki",
    ".adoc": "asciidoc",
    ".json": "json",
    ".native": "native",
    ".ipynb": "ipynb",
}
# Writers that make a whole document only with --standalone (the rest always do, or should
# not: a gfm README with a YAML header is not what anyone wants).
STANDALONE = frozenset(
    {"html", "html4", "html5", "latex", "beamer", "context", "typst", "revealjs"}
)
BINARY = frozenset({"docx", "pptx", "odt", "epub", "epub2", "epub3", "pdf"})  # written with -o
# The report look of PDF through LaTeX (pandoc template variables).
LATEX_VARIABLES = (
    "papersize=a4",
    "fontsize=11pt",
    "geometry=margin=2.5cm",
    "colorlinks=true",
    "linkcolor=citeledgeraccent",
    "urlcolor=citeledgeraccent",
    "citecolor=citeledgeraccent",
)


@dataclass
class Target:
    path: Path
    writer: str  # pandoc writer name, or "pdf"


@dataclass
class ConvertRequest:
    draft: Path
    outputs: Sequence[Path]
    to: str | None = None
    pdf_engine: str = "typst"
    reference_doc: Path | None = None
    metadata: Sequence[str] = ()
    options: Options = field(default_factory=Options)  # flags: win over the draft's metadata
    written: list[Path] = field(default_factory=list)
    say: Say = to_stderr  # findings, warnings and per-output errors, one line each


def writer_for(path: Path, to: str | None) -> str:
    """The writer for one output: ``--to`` for text outputs, while a binary extension
    (.docx, .pptx, .pdf, .odt, .epub) always names its own format."""
    suffix = path.suffix.lower()
    writer = WRITERS.get(suffix)
    if to and writer not in BINARY:
        return to
    if writer is None:
        raise BadInput(
            f"{path}: cannot tell the output format from the extension {suffix or '(none)'}",
            hint="add --to FORMAT (a pandoc writer such as html5, gfm, latex)",
        )
    return writer


def meta_entry(text: str) -> tuple[str, Json]:
    """``KEY=VAL`` (or ``KEY`` alone, meaning true) as a pandoc metadata value, the way
    pandoc's own ``-M`` reads it."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if not key:
        raise BadInput(f"-M {text!r}: no key", hint="write -M KEY=VALUE")
    if not sep:
        return key, {"t": "MetaBool", "c": True}
    if value.lower() in ("true", "false"):
        return key, {"t": "MetaBool", "c": value.lower() == "true"}
    return key, {"t": "MetaString", "c": value}


def _check_tex_packages(engine: str) -> None:
    """An installed engine with a package missing fails deep in TeX; name the package first."""
    import subprocess

    wanted = {p: TEX_SENTINELS[p] for p in TEX_PACKAGES[engine] if p in TEX_SENTINELS}
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None or not wanted:
        return
    proc = subprocess.run(
        [kpsewhich, *wanted.values()], capture_output=True, text=True, check=False
    )
    found = {Path(line).name for line in proc.stdout.splitlines()}
    missing = [package for package, sentinel in wanted.items() if sentinel not in found]
    if missing:
        files = ", ".join(wanted[p] for p in missing)
        raise ToolMissing(
            f"{engine} is installed, but TeX Live lacks {files}",
            hint=f"Debian: apt-get install {' '.join(missing)}; or use the default "
            "--pdf-engine typst",
        )


def check_tools(targets: Sequence[Target], req: ConvertRequest) -> None:
    """Everything a build needs, checked before any work: one line per missing piece."""
    if req.pdf_engine not in PDF_ENGINES:
        raise BadInput(
            f"--pdf-engine {req.pdf_engine}: not one of {', '.join(PDF_ENGINES)}",
            hint="use typst (no TeX needed) or an installed LaTeX engine",
        )
    from ..pandoc import require

    for target in targets:
        writer = target.writer
        if writer == "pdf":
            writer = "typst" if req.pdf_engine == "typst" else "latex"
        require(reads=format_for(req.draft), writes=writer)
    if any(t.writer == "pdf" for t in targets):
        if req.pdf_engine == "typst":
            if not TYPST_TEMPLATE.is_file():
                raise ToolMissing(
                    f"the typst template {TYPST_TEMPLATE.name} is missing from the installation",
                    hint="reinstall citeledger (pip install --force-reinstall citeledger)",
                )
            try:
                import typst  # noqa: F401
            except ImportError:
                raise ToolMissing(
                    "the typst compiler is not installed", hint="pip install typst"
                ) from None
        elif shutil.which(req.pdf_engine) is None:
            raise ToolMissing(
                f"{req.pdf_engine} not found on PATH", hint=TEX_INSTALL_HINT[req.pdf_engine]
            )
        else:
            _check_tex_packages(req.pdf_engine)
    if req.reference_doc is not None and not Path(req.reference_doc).is_file():
        raise BadInput(
            f"--reference-doc {req.reference_doc}: no such file",
            hint="give an existing .docx or .pptx, or leave it out for the bundled one",
        )


def convert(req: ConvertRequest) -> list[Path]:
    """Verify ``req.draft`` once and write every output; returns the files written."""
    from ..document.markers import ledger_links, scan
    from ..document.sources_block import titles_for
    from ..filters.main import apply
    from ..ledger import load_ledger, resolve_ledger_path

    say = req.say
    draft = Path(req.draft)
    if not draft.is_file():
        raise DraftError(f"{draft}: no such file", hint="give the path of the draft to convert")
    if not req.outputs:
        raise BadInput("no output given", hint="add -o report.docx (repeat -o for more)")
    targets = [Target(Path(p), writer_for(Path(p), req.to)) for p in req.outputs]
    check_tools(targets, req)
    guard = Guard([(draft, "the draft")])
    if req.reference_doc is not None:
        guard.protect(Path(req.reference_doc), "the reference document")

    from_format = format_for(draft)
    doc = read_json(draft, from_format=from_format)
    meta = doc.setdefault("meta", {})
    for item in req.metadata:
        key, value = meta_entry(item)
        meta[key] = value
    options = from_meta(meta, say).merged(req.options)
    ledger_path = resolve_ledger_path(options.ledger)
    guard.protect(ledger_path, "the ledger")
    guard.protect(Path(f"{ledger_path}.lock"), "the ledger's lock file")
    for target in targets:  # every output checked before any work
        guard.check(target.path)
    ledger = load_ledger(ledger_path)

    found = scan(doc, titles_for(options.sources_title), ledger_links(ledger))
    _verify_once(doc, ledger, options, found, draft, from_format, say)

    tree = json.dumps(doc, ensure_ascii=False)
    written: list[Path] = []
    failed: list[tuple[Path, CiteledgerError]] = []
    for target in targets:
        copy = json.loads(tree)
        writer = "typst" if target.writer == "pdf" and req.pdf_engine == "typst" else None
        if target.writer == "pdf" and writer is None:
            writer = "latex"
        fmt = writer or target.writer
        try:
            state = apply(copy, fmt, options=options, ledger=ledger, say=say, verify=False)
            # The filter's options: a list under the draft's own title is found by that title.
            used = state.options if state is not None else options
            _write(target, fmt, copy, req, draft, ledger, used)
        except CiteledgerError as exc:
            # One output's failure costs only that output: build the others, then say so.
            if len(targets) == 1:
                raise
            line = exc.line()
            named = line if line.startswith(f"{target.path}:") else f"{target.path}: {line}"
            say(f"citeledger: error: {named}")
            failed.append((target.path, exc))
            continue
        written.append(target.path)
    req.written[:] = written
    if failed:
        raise _partial_failure(failed, written, len(targets))
    return written


def _partial_failure(
    failed: list[tuple[Path, CiteledgerError]], written: list[Path], total: int
) -> CiteledgerError:
    """One line for a build that wrote some outputs and not others; its exit code is the
    failures' own when they agree (1: a check said no), else 2."""
    names = ", ".join(str(path) for path, _exc in failed)
    done = ", ".join(str(path) for path in written) or "nothing"
    error = CiteledgerError(
        f"{len(failed)} of {total} outputs not written ({names}); written: {done}",
        hint="fix what the lines above say, then convert again",
    )
    codes = {exc.exit_code for _path, exc in failed}
    error.exit_code = codes.pop() if len(codes) == 1 else 2
    return error


def _verify_once(
    doc: Json,
    ledger: Ledger,
    options: Options,
    found: Scan,
    draft: Path,
    from_format: str,
    say: Say,
) -> None:
    from ..verify.build_check import verify_for_build

    source_text = None
    if from_format.startswith("markdown"):
        try:
            source_text = draft.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            source_text = None
    report = verify_for_build(
        doc, ledger, options, found, source_name=str(draft), source_text=source_text, say=say
    )
    if report.failed:
        raise VerificationFailed(
            f"{draft}: verification failed; no output written",
            hint="fix the findings above, then convert again",
        )


def _pandoc_args(fmt: str, req: ConvertRequest, draft: Path) -> list[str]:
    resource = os.pathsep.join([str(draft.parent.resolve() or "."), "."])
    args = ["-f", "json", "-t", fmt, "--resource-path", resource]
    family = fmt.split("+")[0].split("-")[0]
    if family in STANDALONE:
        args.append("--standalone")
    if family in ("docx", "pptx"):
        reference = req.reference_doc or REFERENCE_DOCS[family]
        if Path(reference).is_file():
            args += ["--reference-doc", str(reference)]
    if family == "typst":
        args += ["--template", str(TYPST_TEMPLATE)]
    if family == "latex":
        for variable in LATEX_VARIABLES:
            args += ["-V", variable]
    return args


def _add_latex_look(doc: Json) -> None:
    """The report look for LaTeX: first in header-includes, before the filter's macros."""
    from ..filters.base import add_header_include

    if LATEX_REPORT.is_file():
        add_header_include(doc, "latex", LATEX_REPORT.read_text(encoding="utf-8"))


def _write(
    target: Target,
    fmt: str,
    doc: Json,
    req: ConvertRequest,
    draft: Path,
    ledger: Ledger,
    options: Options,
) -> None:
    out = target.path
    family = fmt.split("+")[0].split("-")[0]
    if family == "latex":
        _add_latex_look(doc)
    payload = json.dumps(doc, ensure_ascii=False)
    with staged(out) as tmp:
        args = _pandoc_args(fmt, req, draft)
        if target.writer == "pdf" and family == "typst":
            source = run_pandoc(args, stdin=payload, what=str(draft))
            fill(tmp, _compile_typst(source, draft, out, req.say), out)
        elif target.writer == "pdf":
            args += ["--pdf-engine", req.pdf_engine, "-o", str(tmp)]
            run_pandoc(args, stdin=payload, what=str(draft))
        elif family in BINARY:
            run_pandoc([*args, "-o", str(tmp)], stdin=payload, what=str(draft))
        else:
            fill(tmp, run_pandoc(args, stdin=payload, what=str(draft)), out)
        if family in ("docx", "pptx"):
            _run_renderer(tmp, ledger, options, say=req.say, shown=out)


def _compile_typst(source: bytes, draft: Path, out: Path, say: Say) -> bytes:
    import typst

    try:
        pdf = typst.compile(source, root=str(draft.parent.resolve()))  # type: ignore[type-var]
    except Exception as exc:  # the typst wheel raises its own error types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CiteledgerError(
            f"typst could not compile {out}: {first}",
            hint="check the draft's images and raw typst, or try --pdf-engine xelatex",
        ) from None
    if not isinstance(pdf, bytes):
        raise CiteledgerError(f"typst returned no PDF for {out}")
    from ..renderers.typst_fonts import font_warning, missing_scripts

    missing = missing_scripts(source.decode("utf-8", "replace"), pdf)
    if missing:
        say(font_warning(str(out), missing))
    return pdf


def _run_renderer(path: Path, ledger: Ledger, options: Options, *, say: Say, shown: Path) -> None:
    """The renderer on the staged file; its errors name the output, not the hidden file."""
    try:
        from ..renderers import finish
    except ImportError:
        say(f"warn: {path.suffix} renderer not installed; marks keep pandoc's numbering")
        return
    try:
        finish(path, ledger=ledger, options=options)
    except CiteledgerError as exc:
        message = exc.message.replace(str(path), str(shown))
        raise type(exc)(f"{message} (while finishing what pandoc wrote)", hint=exc.hint) from None
