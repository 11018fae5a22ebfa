"""The math of an untrusted draft, before a writer that copies it into TeX.

pandoc's LaTeX, Beamer, ConTeXt and Texinfo writers copy a Math element's text into the
output as it is written (``\\(...\\)``, ``@math{...}``), so math is TeX code there:
``$\\input{/etc/passwd}$`` in a draft puts any file its reader's TeX may open into the PDF that
``latexmk report.tex`` makes, and ``\\href{run:...}`` a launch link. The trust model refuses an
untrusted draft's raw TeX (:func:`~citeledger.options.trust.refused_raw`); this is the same
rule for its math, where TeX arrives under another name. The other writers turn math into
MathML, OMML, typst or text, or keep it as the source markup it was (markdown, rst, org) for
the reader's own tools, so only these outputs ask.

Real math uses hundreds of commands, defines its own (``\\newcommand{\\R}{\\mathbb{R}}``) and
writes plain TeX (``\\cr``, ``\\bf``, ``\\over``): pandoc's own TeX-math reader, taken as an
allowlist of commands, refused 3% of the formulas in a book of economics lectures. So the rule
names what math never needs, which is short because TeX reaches a file, a program or a link only
through a few commands:

- a command that reads or writes a file, runs a program or makes a link or a PDF action
  (:data:`DENIED`);
- a way to make such a command without writing its name: ``\\csname`` and its kin,
  ``\\catcode``, ``\\scantokens``, ``\\ExplSyntaxOn``, ``\\makeatletter`` (all in
  :data:`DENIED`), ``^^`` (TeX reads ``^^5c`` as a backslash), and an environment: LaTeX's
  ``\\begin{NAME}`` runs the command named NAME (``\\begin{input}`` is ``\\input``), so only the
  environments of mathematics are let through (:data:`_ENVIRONMENT`).

With those gone, every command an element runs is written in it by name, so a definition
(``\\def``, ``\\newcommand``) can only rename commands that are themselves checked.
"""

from __future__ import annotations

import re

from ..errors import BadInput
from ..ledger.light import pattern
from ..tree import PandocDoc, elements_of

# The writers that copy a Math element's text into their output as TeX (Texinfo's ``@math``
# is handed to TeX by texi2pdf).
TEX_WRITERS = frozenset({"latex", "beamer", "context", "texinfo"})

DENIED = frozenset(
    {
        # files: read, write, list, measure
        "input", "include", "includeonly", "endinput", "InputIfFileExists", "IfFileExists",
        "IfFileExistsTF", "openin", "read", "readline", "closein", "openout", "write",
        "immediate", "closeout", "newread", "newwrite", "includegraphics", "includepdf",
        "includesvg", "lstinputlisting", "verbatiminput", "VerbatimInput", "inputminted",
        "import", "subimport", "inputfrom", "includefrom", "subfile", "subfileinclude",
        "documentclass", "LoadClass", "usepackage", "RequirePackage", "usetikzlibrary",
        "bibliography", "addbibresource", "externaldocument", "pdfximage", "XeTeXpicfile",
        "XeTeXpdffile", "pdffiledump", "filedump", "pdfmdfivesum", "mdfivesum", "pdffilesize",
        "filesize", "pdffilemoddate", "filemoddate", "fontencoding", "usefont",
        # programs
        "write18", "ShellEscape", "directlua", "latelua", "luaexec", "luadirect",
        "pdfshellescape",
        # links, PDF actions and forms
        "href", "url", "hyperref", "Acrobatmenu", "TextField", "PushButton", "CheckBox",
        "ChoiceMenu", "Form", "pdfstartlink", "pdfannot", "pdfobj", "pdfliteral", "special",
        "pdfaction",
        # a command made without its name
        "csname", "endcsname", "ifcsname", "UseName", "ExpandArgs", "csuse", "csdef", "csgdef",
        "csedef", "csxdef", "cslet", "letcs", "csletcs", "catcode", "scantokens",
        "scantextokens", "ExplSyntaxOn", "makeatletter", "primitive", "pdfprimitive",
        "everyeof",
    }
)  # fmt: skip

_COMMAND = pattern(r"\\([A-Za-z@]+|.)")
# ``\begin`` takes any token as its name: ``\begin\x`` runs the command ``\x`` expands to.
_ENVIRONMENT = pattern(r"\\(?:begin|end)(?![A-Za-z@])\s*(?:\{([^{}]*)\})?")
# The environments of mathematics: amsmath's and mathtools', their starred forms, arrays.
_MATH_ENVIRONMENT = pattern(
    r"(?:equation|align|alignat|aligned|alignedat|gather|gathered|multline|multlined|split|"
    r"flalign|eqnarray|subequations|array|darray|subarray|CD|cases|dcases|rcases|drcases|"
    r"numcases|[pbBvV]?(?:small)?matrix|tabular)\*?"
)


# A display-math environment written as raw TeX (R Markdown's and bookdown's
# ``\\begin{equation} ... \\end{equation}``): math, when its body passes :func:`code_in`.
_MATH_BLOCK = pattern(
    r"\s*\\begin\{((?:equation|align|alignat|gather|multline|flalign|eqnarray)\*?)\}"
    r".*\\end\{\1\}\s*",
    re.DOTALL,
)


def is_math_block(raw: str) -> bool:
    """Whether raw TeX ``raw`` is a display-math environment holding mathematics only."""
    return _MATH_BLOCK.fullmatch(raw) is not None and code_in(raw) is None


def check_math(doc: PandocDoc, name: str, text: str | None = None) -> None:
    """Refuse, in one line, the first Math element of ``doc`` (body or front matter, in
    document order) that would be code in a TeX output (see the module docstring).
    ``text``: the draft's text, to name the line."""
    nodes = [doc.get("blocks", []), list(doc.get("meta", {}).values())]
    for el in elements_of(nodes, ("Math",)):
        c = el.get("c")
        tex = str(c[1]) if isinstance(c, list) and len(c) == 2 else ""
        why = code_in(tex)
        if why:
            raise _refusal(name, text, tex, why)


def code_in(tex: str) -> str | None:
    """What in ``tex`` would be code in a TeX output, or None for mathematics."""
    if "\\" not in tex and "^^" not in tex:
        return None
    if "^^" in tex:
        return "^^ makes TeX read a character as a command"
    for m in _COMMAND.finditer(tex):
        if m.group(1) in DENIED:
            return f"\\{m.group(1)} reads or writes files, runs programs, makes links or commands"
    for m in _ENVIRONMENT.finditer(tex):
        env = m.group(1)
        if env is None:
            return "an environment named by anything but its name in braces may be any command"
        if not _MATH_ENVIRONMENT.fullmatch(env.strip()):
            return f"the environment {env.strip() or '(none)'} is not one of mathematics"
    return None


def _refusal(name: str, text: str | None, tex: str, why: str) -> BadInput:
    shown = " ".join(tex.split())[:40]
    where = name
    first = next((ln.strip() for ln in tex.splitlines() if ln.strip()), "")
    if text is not None and first:
        at = text.find(first)
        if at >= 0:
            where = f"{name}:{text.count(chr(10), 0, at) + 1}"
    return BadInput(
        f"{where}: math '{shown}' refused in a TeX output: {why}; an untrusted draft runs no code",
        hint=(
            "write the formula with the commands of mathematics only; if you wrote the draft "
            "yourself, pass --trust-draft (or set trust-draft = true in your project's "
            "citeledger.toml)"
        ),
    )
