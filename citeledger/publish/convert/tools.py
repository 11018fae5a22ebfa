"""The tools an output needs, found before any work and run for it: pandoc's options, the PDF
engines (typst, or a LaTeX engine and the TeX Live packages it loads), the bundled templates and
reference documents, and the renderer that finishes a Word or PowerPoint file.

A missing tool is named before the draft is even read, in one line with the package that holds
it; a tool that fails while it writes an output names that output, never its hidden temporary
file.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ... import formats
from ...document.readers import input_format
from ...errors import (
    BadInput,
    CiteledgerError,
    PandocError,
    ResourceRefused,
    ToolMissing,
)
from ...messages import Say
from ...options import Options
from ...pandoc import run_pandoc
from ...tree import PandocDoc
from .request import ConvertRequest, Output

if TYPE_CHECKING:
    from ...ledger import Ledger

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
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


def check_tools(outputs: Sequence[Output], req: ConvertRequest) -> None:
    """Everything a build needs, checked before any work: one line per missing piece."""
    if req.pdf_engine not in PDF_ENGINES:
        raise BadInput(
            f"--pdf-engine {req.pdf_engine}: not one of {', '.join(PDF_ENGINES)}",
            hint="use typst (no TeX needed) or an installed LaTeX engine",
        )
    from ...pandoc import require

    for output in outputs:
        writer = output.writer
        if writer == "pdf":
            writer = "typst" if req.pdf_engine == "typst" else "latex"
        require(reads=req.from_format or input_format(Path(req.draft)), writes=writer)
    if any(o.writer == "pdf" for o in outputs):
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


def pandoc_args(fmt: str, req: ConvertRequest, draft: Path) -> list[str]:
    """pandoc's options for writing ``fmt`` from JSON: the bundled template, reference
    document and report look, then the user's own."""
    args = ["-f", "json", "-t", fmt, "--resource-path", req.pipeline.resources(draft)]
    family = formats.family(fmt)
    if formats.is_standalone(fmt):
        args.append("--standalone")
    if family in REFERENCE_DOCS:
        reference = req.reference_doc or REFERENCE_DOCS[family]
        if Path(reference).is_file():
            args += ["--reference-doc", str(reference)]
    if family == "typst":
        args += ["--template", str(TYPST_TEMPLATE)]
    if family == "latex":
        for variable in LATEX_VARIABLES:
            args += ["-V", variable]
    if sandboxed(req):
        # pandoc reads only what citeledger hands it: no image, bibliography or CSL a draft
        # names is fetched or read by pandoc itself (write.py embeds the vetted images).
        args.append("--sandbox")
    # The user's writer options last: pandoc lets a later option win.
    return [*args, *req.pandoc_args]


def sandboxed(req: ConvertRequest) -> bool:
    """Whether pandoc runs with ``--sandbox``: for every draft nobody vouched for."""
    return not req.options.effective().trust_draft


def add_latex_look(doc: PandocDoc) -> None:
    """The report look for LaTeX: first in header-includes, before the filter's macros."""
    from ...filters.run import add_header_include

    if LATEX_REPORT.is_file():
        add_header_include(doc, "latex", LATEX_REPORT.read_text(encoding="utf-8"))


# pandoc options that run code on the tree at the writing step (a filter, citeproc, or a
# defaults file that may name them): that code must see the tree as citeledger placed it.
_WRITE_FILTERS = ("-F", "-L", "-C", "-d", "--filter", "--lua-filter", "--citeproc", "--defaults")


def filters_at_write(args: Sequence[str]) -> bool:
    """Whether the user's writer options run code on the tree (it then sees words unjoined)."""
    return any(a.startswith(_WRITE_FILTERS) for a in args)


_MISSING_TEX_FILE = re.compile(r"File `([^'`\s]+)' not found")


def latex_pdf(
    args: list[str], payload: str, tmp: Path, req: ConvertRequest, draft: Path, out: Path
) -> None:
    """A PDF through LaTeX (fonts for the draft's scripts already in ``args``); refused when
    the engine's log says it left letters out."""
    import tempfile

    from ...renderers import latex as scripts

    with (
        tempfile.TemporaryDirectory(prefix="citeledger-latex-") as logs,
        scripts.boxed_engine(req.pdf_engine, draft) as (engine, outside),
    ):
        log = Path(logs) / "pandoc-log.json"
        try:
            run_pandoc(
                [*args, "--pdf-engine", engine, f"--log={log}", "-o", str(tmp)],
                stdin=payload,
                what=str(draft),
                env=scripts.engine_env(),
            )
        except PandocError as exc:
            # pandoc's template loads a package for what the draft holds (soul for
            # strikeout...): one line naming it, not TeX's interactive prompt.
            lacking = _MISSING_TEX_FILE.search(exc.message)
            if lacking is None:
                raise
            if lacking.group(1) in outside:
                raise ResourceRefused(
                    f"{draft}: {lacking.group(1)} is a symlink leading outside the draft's "
                    f"folder, which {req.pdf_engine} never reads; {out.name} not written",
                    hint="copy the file into the draft's folder instead of linking it",
                ) from None
            raise ToolMissing(
                f"{draft}: {req.pdf_engine} cannot build {out.name}: the LaTeX file "
                f"{lacking.group(1)} is not installed (pandoc's template loads it for this draft)",
                hint="install the TeX Live package that holds it (Debian: apt-file search "
                f"{lacking.group(1)}), or use the default --pdf-engine typst",
            ) from None
        warning = scripts.judge_missing(scripts.missing_characters(log), req.pdf_engine, draft, out)
    if warning:
        req.say(warning)


def run_renderer(path: Path, ledger: Ledger, options: Options, *, say: Say, shown: Path) -> None:
    """The renderer on the staged file; its errors name the output, not the hidden file."""
    try:
        from ...renderers import postprocess
    except ImportError:
        say(f"warn: {path.suffix} renderer not installed; marks keep pandoc's numbering")
        return
    try:
        postprocess(path, ledger=ledger, options=options)
    except CiteledgerError as exc:
        message = exc.message.replace(str(path), str(shown))
        raise type(exc)(f"{message} (while finishing what pandoc wrote)", hint=exc.hint) from None
