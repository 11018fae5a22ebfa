"""Undo what some pandoc readers do to a marker before the finder looks for it.

The LaTeX reader turns ``{[}1{]}`` (how pandoc's own LaTeX writer escapes a bracket) into
``Span [Str "["]``, ``Str "1"``, ``Span [Str "]"]``: the marker is there for a reader of the PDF
but no longer one Str. Attribute-less Spans that hold only text are melted into the text around
them, so a LaTeX file written by pandoc verifies like the markdown it came from (the readers
that need it are marked ``splits_brackets`` in :mod:`citeledger.formats`). The command line
reads a draft through :func:`~.draft.open_draft`, which applies this by the reader's format; the
filter, handed a tree without its reader's name, asks the tree (:func:`join_split_brackets`).

The LaTeX and typst files the filter writes carry their citations in citeledger's own markup,
which pandoc's readers drop or keep only half of (the typst reader loses a link's text, the
LaTeX reader prints ``\\citeledgernote{1}{1}{1}`` as a bare superscript with no id):
:func:`read_output` gives pandoc that markup as the brackets a reader of the page sees
(``[n]``, the mark the file prints; an entry's ``[id]``), so such a file verifies back as the
markdown it came from does.
"""

from __future__ import annotations

import re
from pathlib import Path

from .. import formats
from ..errors import BadInput, DraftError
from ..ledger.light import pattern  # compiled on first use: start-up time
from ..tree import Json, replace_elements, stringify

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .pipeline import Pipeline

# Defined before the file's own definitions, which pandoc then ignores (the first one wins):
# a citation reads as its printed mark, an entry as its ledger id in brackets.
_LATEX_READING = r"""\newcommand{\citeledgernote}[3]{{[}#2{]}}
\newcommand{\citeledgerbracket}[3]{{[}#2{]}}
\newcommand{\citeledgersep}{}
\newcommand{\citeledgerentry}[3]{\par {[}#1{]} #3\par}
\newenvironment{citeledgersources}[1]{}{}
"""
# ``#link(<src-12>)[\[12\]]<cite-12-1>`` (a citation) and ``#link(<cite-12-1>)[\[12\]]<src-12>``
# (an entry's mark): the bracketed text alone.
# The Sources grid (filters/typst.py), whose cells pandoc reads as a table: one paragraph per
# entry instead, its mark first.
_TYPST_GRID = pattern(
    r"#block\(above: 1em, width: 100%\)\[#set par\(justify: false\)\n"
    r"#grid\(columns: \(auto, 1fr\)[^\n]*\n((?:  \[.*\],\n)*)\)\]"
)
_TYPST_ROW = pattern(r"^  \[#link\(<cite-[0-9-]+>\)\[(.*?)\]<src-[0-9]+>\], \[(.*)\],$", re.M)
# ``#link("https://...")`` with no text of its own: through the template's ``show link`` rule
# pandoc's typst reader keeps nothing of it. As a string it is the URL's text.
_TYPST_BARE_LINK = pattern(r'#link\(("[^"\n]*")\)(?!\[)')
_TYPST_LINK = pattern(r"#link\(<(?:src|cite)-[0-9-]+>\)\[(\\\[[^\]]*?\\\])\](?:<[a-z0-9-]+>)?")


def _typst_body(text: str) -> str:
    """The body of a standalone typst file: the template before it (``#show: doc =>
    conf(...)``, pandoc's and citeledger's alike) is code pandoc's reader cannot always run."""
    start = text.find("#show: doc => conf(")
    end = text.find("\n)\n", start) if start >= 0 else -1
    return text[end + 3 :] if end >= 0 else text


def read_output(
    path: Path, fmt: str, pipeline: Pipeline | None = None, *, sandbox: bool = False
) -> Json:
    """``path`` as pandoc's tree, citeledger's own LaTeX and typst markup read as the marks it
    prints (see the module docstring), after the ``pipeline``'s filters and defaults.
    ``sandbox``: an untrusted draft's reading, under pandoc's ``--sandbox``: its iframes fetch
    nothing, and its include directives read again unsandboxed only when every file they name
    is inside its folder, else refused in one line (``citeledger/includes.py``)."""
    from ..pandoc import pandoc_said
    from ..pandoc_start import SANDBOX_ARG

    extra = pipeline.reading_args(path) if pipeline is not None else []
    if not sandbox:
        return _read(path, fmt, extra)
    try:
        return _read(path, fmt, [*extra, SANDBOX_ARG])
    except DraftError as refused:  # UnreadInclude's base: includes.py loads only when one is
        from ..includes import UnreadInclude, vet_includes

        if not isinstance(refused, UnreadInclude) or not refused.sandboxed:
            raise

        def read(file: Path) -> str | None:  # a file an include names: what it includes
            return pandoc_said([SANDBOX_ARG, "-f", fmt, "-t", "json", "--", str(file)], str(file))

        vet_includes(refused, path, fmt, read)
        return _read(path, fmt, extra)


def _read(path: Path, fmt: str, extra: list[str]) -> Json:
    import json

    from ..pandoc import read_json, run_pandoc

    family = formats.family(fmt)
    if family in ("latex", "typst"):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        if family == "latex" and "\\citeledger" in text:
            text = _LATEX_READING + text
        elif family == "typst" and "<src-" in text:
            text = _typst_body(text)
            rows = lambda m: _TYPST_ROW.sub(r"\n\1 \2\n", m.group(1))  # noqa: E731
            text = _TYPST_LINK.sub(lambda m: m.group(1), _TYPST_GRID.sub(rows, text))
            text = _TYPST_BARE_LINK.sub(r"#\1", text)
        else:
            text = ""
        if text:
            out = run_pandoc([*extra, "-f", fmt, "-t", "json"], stdin=text, what=str(path))
            doc: Json = json.loads(out)
            return doc
    if family == "pptx":
        from .deck_reading import read_deck  # a deck's reading: no cost of a markdown draft

        return read_deck(path, fmt, extra)
    return read_json(path, from_format=fmt, extra_args=extra)


# The environments of pandoc's own highlighted code (``\begin{Shaded}\begin{Highlighting}``),
# which the LaTeX reader gives as Divs of paragraphs: prose to the marker finder.
_CODE_DIVS = frozenset({"Shaded", "Highlighting"})


def highlighting_as_code(doc: Json) -> None:
    """In place: each highlighted code Div of a LaTeX file read back as the code block it was,
    so ``\\NormalTok{a[}\\DecValTok{9}\\NormalTok{]}`` is code, never a citation of 9. The
    readings of a draft apply it with :func:`join_bracket_spans` (the LaTeX reader's repairs),
    the filter to any tree it is handed (no other reader makes such a Div)."""

    def change(el: Json) -> list[Json] | None:
        if el.get("t") != "Div" or not _CODE_DIVS.intersection(el["c"][0][1]):
            return None
        inner = el["c"][1]
        if len(inner) == 1 and inner[0].get("t") == "CodeBlock":
            return list(inner)
        lines = [stringify(block) for block in inner]
        return [{"t": "CodeBlock", "c": [["", [], []], "\n".join(lines)]}]

    replace_elements(doc.get("blocks", []), change)


def input_format(path: Path) -> str:
    """The pandoc reader for ``path``: a zip's own description of what it holds, else the
    suffix (:func:`citeledger.formats.reader_named`). Office and ODF files are zip archives;
    the part that names the kind of document says which. Reading a deck as markdown would
    decode a zip as text; reading AsciiDoc or a PDF as markdown would say nothing of what was
    lost. A file pandoc cannot read (a PDF, a legacy Office file, a zip of no kind the table
    knows) and a suffix no reader takes are one line each (:class:`~citeledger.errors.BadInput`)
    naming what to give instead."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
    except OSError:
        head = b""
    if head.startswith(b"PK\x03\x04"):
        import zipfile  # only a zip pays for its import

        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
                for part, needle, fmt in formats.zip_kinds():
                    if part in names:
                        with archive.open(part) as member:  # a zip bomb's part: 4 KB of it
                            if needle in member.read(4096):
                                return fmt
        except (OSError, zipfile.BadZipFile):
            head = b""
    named = formats.reader_named(path)
    unreadable = _unreadable(head, path.suffix, named)
    if unreadable is not None:
        what, instead = unreadable
        raise BadInput(f"{path} is {what}, which pandoc cannot read", hint=instead)
    if named is None:
        raise BadInput(
            f"{path}: no reader takes the suffix {path.suffix!r}",
            hint="name its reader with -f/--from, e.g. --from markdown; "
            "pandoc --list-input-formats lists the readers",
        )
    return named


# A file's first bytes, what it is, and what to give instead.
_NOT_READ = (
    (
        b"%PDF-",
        "a PDF",
        "verify the draft it was built from, or the .tex or .typ file it was built from",
    ),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "a legacy Office file (.doc, .ppt, .xls)",
        "save it as .docx, .pptx or .odt and give that",
    ),
    (
        b"PK\x03\x04",
        "a zip archive of no kind citeledger reads (not .docx, .pptx, .odt or .epub)",
        "give the draft it was built from, or name the reader with -f/--from",
    ),
)


def _unreadable(head: bytes, suffix: str, named: str | None) -> tuple[str, str] | None:
    """What a file whose first bytes are ``head`` is and what to give instead, when pandoc
    cannot read it: by content, whatever its suffix says (a zip of no known kind only when its
    suffix names no zip reader either), or by a suffix only a PDF takes."""
    for magic, what, instead in _NOT_READ:
        if magic == b"PK\x03\x04" and named is not None and formats.is_zip(named):
            continue
        if head.startswith(magic) or (magic == b"%PDF-" and suffix.lower() == ".pdf"):
            return what, instead
    return None


_EMPTY_ATTR = ["", [], []]


def join_bracket_spans(node: Json) -> None:
    """In place: melt bare text-only Spans into neighbouring Str elements, everywhere."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            c = cur.get("c")
            if isinstance(c, list):
                stack.append(c)
            elif cur.get("blocks") is not None:
                stack.append(cur["blocks"])
        elif isinstance(cur, list):
            if cur and isinstance(cur[0], dict) and "t" in cur[0] and _is_inlines(cur):
                _melt(cur)
            stack.extend(cur)


def join_split_brackets(doc: Json) -> bool:
    """In place, for a tree whose reader is unknown (the filter is handed a tree, never the
    format it was read from): :func:`join_bracket_spans` when the tree holds a bracket the LaTeX
    reader wrapped (a bare Span of ``[`` or ``]`` alone, which no other reader makes of a draft
    unless written so, ``[\\[]{}``). Whether it did."""
    stack: list[Json] = [doc.get("blocks", [])]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            if cur.get("t") == "Span" and _bare_text(cur) in ("[", "]"):
                join_bracket_spans(doc)
                return True
            c = cur.get("c")
            if isinstance(c, list):
                stack.append(c)
        elif isinstance(cur, list):
            stack.extend(cur)
    return False


def _is_inlines(items: list[Json]) -> bool:
    return any(isinstance(x, dict) and x.get("t") == "Span" for x in items)


def _bare_text(el: Json) -> str | None:
    if el.get("t") != "Span" or el["c"][0] != _EMPTY_ATTR:
        return None
    inner = el["c"][1]
    if inner and all(x.get("t") == "Str" for x in inner):
        return "".join(x["c"] for x in inner)
    return None


def _melt(inlines: list[Json]) -> None:
    out: list[Json] = []
    changed = False
    for el in inlines:
        text = el.get("c") if el.get("t") == "Str" else _bare_text(el)
        if text is None:
            out.append(el)
            continue
        if el.get("t") != "Str":
            changed = True
        if out and out[-1].get("t") == "Str":
            out[-1] = {"t": "Str", "c": out[-1]["c"] + text}
            changed = True
        else:
            out.append({"t": "Str", "c": text})
    if changed:
        inlines[:] = out


# The Divs pandoc's HTML reader makes of a slide show's wrappers (reveal.js's ``.reveal >
# .slides``, s5's ``.presentation``, each slide's ``<section>`` or ``<div class="slide">``):
# unwrapped, the slides' headings and the Sources pages are top-level blocks, as in the draft.
_SLIDE_WRAPPERS = frozenset({"reveal", "slides", "presentation", "slide", "section"})


def unwrap_slides(doc: Json) -> None:
    """In place: the top-level blocks of ``doc`` with slide-show wrapper Divs replaced by their
    contents, at any depth of such wrappers."""
    out: list[Json] = []
    stack = list(reversed(doc.get("blocks", [])))
    while stack:
        block = stack.pop()
        if block.get("t") == "Div" and _SLIDE_WRAPPERS.intersection(block["c"][0][1]):
            stack.extend(reversed(block["c"][1]))
        else:
            out.append(block)
    doc["blocks"] = out
