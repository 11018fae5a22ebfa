"""The trust model, declared once: what a draft nobody vouched for may do.

Drafts come from co-authors, pull requests and agents that copy text out of web pages, so a
draft is untrusted unless the person building it says otherwise: by the ``--trust-draft`` flag
of every verb that reads a draft, by ``trust-draft = true`` in the project file of the
repository being built (:func:`project_vouches`), or, for the pandoc filter, which sees only
the tree and its environment, by ``CITELEDGER_TRUST_DRAFT=1`` in pandoc's environment
(:data:`TRUST_ENV`). Never by the draft: front matter and ``-M`` entries reach the filter as one
metadata map, and a draft writes any key it likes into it, so no metadata can vouch; an
environment variable is out of its reach.

An untrusted draft is data (:func:`vet`):

- raw blocks and inlines of every format that can run code or read a file (TeX, typst, OOXML,
  ODF, RTF, roff, and whatever else is not HTML) are refused in one line naming where the
  element is and ``--trust-draft``; a handful of bare layout commands (``\\newpage``) stay.
  Raw HTML of every html-family name (``{=revealjs}`` as much as ``{=html}``) stays and goes
  through the sanitiser (:mod:`citeledger.publish.raw_html`) in every HTML, slide and EPUB
  output;
- its front matter sets only what a reader sees (:data:`READER_KEYS`); every other key (the
  variables that name a URL, a file or code: ``revealjs-url``, ``css``, ``header-includes``,
  ``template``, ``mainfont``...) is dropped with one warning; ``bibliography`` and ``csl`` are
  kept only as relative paths inside the draft's folder, else refused;
- its citeledger options may only make the gate stricter (:data:`GATE_KEYS`: ``strict``,
  ``evidence`` on, ``min-coverage`` up, see :func:`tightened`) or choose how citations look;
  the keys that name a file or lift a check (:data:`TRUSTED_ONLY`: the ledger, ``fetch-allow``,
  the PDF engine, trusted HTML) are dropped with one warning.

For every draft, trusted or not: citeledger's own ids (``src-N``, ``cite-N-K``, ``card-N``,
``citeledgerCards``) are renamed in the draft (``draft-src-1``), so the draft cannot take the
jump of a citation or stand in for an evidence card; and a tree nested deeper than
:data:`MAX_NESTING` elements is refused in one line before any walk recurses into it.

Only the standard library and the tree: the options room sits below everything that reads a
draft.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath

from ..errors import BadInput
from ..ledger.light import pattern  # compiled on first use: start-up time
from ..tree import Json, Meta, PandocDoc, elements_of, stringify
from . import BY_KEY, Options, from_meta
from .survey import MAX_NESTING, OWN_ID, Survey, nesting_error, survey

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..messages import Say

__all__ = ["MAX_NESTING", "OWN_ID", "Survey", "nesting_error", "survey"]

TRUST_ENV = "CITELEDGER_TRUST_DRAFT"
TRUST_FLAG = "--trust-draft"
TRUST_HINT = (
    "remove it; if you wrote the draft yourself, pass --trust-draft "
    "(or set trust-draft = true in your project's citeledger.toml)"
)

# Front matter an untrusted draft may set: what a reader sees of the document, and switches
# that only lay it out. Nothing here names a URL or a file.
READER_KEYS = frozenset(
    {
        "title",
        "subtitle",
        "author",
        "authors",
        "date",
        "abstract",
        "abstract-title",
        "lang",
        "dir",
        "keywords",
        "subject",
        "description",
        "category",
        "institute",
        "thanks",
        "publisher",
        "rights",
        "pagetitle",
        "title-prefix",
        "toc",
        "table-of-contents",
        "toc-title",
        "toc-depth",
        "number-sections",
        "numbersections",
        "secnumdepth",
        "lof",
        "lot",
        "fontsize",
        "papersize",
        "linestretch",
        "indent",
        "documentclass",
        "classoption",
        "link-citations",
        "link-bibliography",
        "reference-section-title",
        "suppress-bibliography",
        "notes-after-punctuation",
        "nocite",
        "references",
        "lang-name",
        "tags",
        "document-css",
    }
)
# Reader keys a template writes into code (LaTeX options, HTML's <style> under document-css):
# kept only as a plain value (``12pt``, ``a4``, ``1.5``), else dropped.
_PLAIN_KEYS = frozenset(
    {"fontsize", "papersize", "linestretch", "indent", "documentclass", "classoption"}
    | {"toc-depth", "secnumdepth", "lang", "dir", "document-css"}
)
_PLAIN_VALUE = pattern(r"[A-Za-z0-9.,=+ -]{0,40}")
# Front matter that names a file: kept only as a relative path inside the draft's folder.
FILE_KEYS = ("bibliography", "csl", "citation-abbreviations")
# citeledger options the front matter may set: how citations look, and the gate, stricter only.
LOOK_KEYS = frozenset(
    {
        "notes",
        "numbering",
        "marker-style",
        "other-notes",
        "sources-title",
        "provenance",
        "slide-notes",
        "wiki-refs",
    }
)
GATE_KEYS = ("strict", "evidence", "figures", "recheck", "min-coverage", "no-fetch")
# Options only a flag, the environment or the project file may set: each names a file, lifts
# a check or chooses what runs.
TRUSTED_ONLY = ("ledger", "fetch-allow", "pdf-engine", "trusted-html", "trust-draft")

# Raw formats whose text goes to a browser: kept, and sanitised in every HTML-family output.
HTML_RAW = frozenset(
    {
        "html",
        "html4",
        "html5",
        "revealjs",
        "s5",
        "slidy",
        "slideous",
        "dzslides",
        "epub",
        "epub2",
        "epub3",
        "chunkedhtml",
    }
)
# Raw markup of text formats: written only into an output of that very format, as its text
# (an org file's ``#+created:`` line); nothing runs it there. rst and the XML formats are not
# here: docutils' directives and XML entities read files.
TEXT_RAW = frozenset(
    {
        "org",
        "markdown",
        "markdown_strict",
        "markdown_phpextra",
        "markdown_mmd",
        "markdown_github",
        "gfm",
        "commonmark",
        "commonmark_x",
        "plain",
        "asciidoc",
        "asciidoctor",
        "mediawiki",
        "dokuwiki",
        "textile",
        "jira",
        "djot",
    }
)
# Raw TeX an untrusted draft keeps: bare layout commands, and commands of text and cross
# references with plain arguments (no backslash, no ``^^`` escape, no group: nothing in them
# can run), one or more separated by blanks (a bookdown chapter's ``\mainmatter``, an
# ``\index{Pandoc}``, a thesis's ``\citep{Aup91}``).
_TEX_NAMES = frozenset({"tex", "latex", "context", "beamer"})
_BARE_TEX = (
    r"newpage|clearpage|cleardoublepage|pagebreak|linebreak|newline|noindent|centering|"
    r"smallskip|medskip|bigskip|hfill|vfill|par|LaTeX|TeX|today|tableofcontents|listoffigures|"
    r"listoftables|appendix|mainmatter|frontmatter|backmatter|raggedright|raggedleft|small|"
    r"footnotesize|normalsize|large|Large|maketitle|printindex|printbibliography"
)
_ARGUMENT_TEX = (
    r"index|label|ref|eqref|pageref|autoref|cref|Cref|cite|citep|citet|citealp|autocite|"
    r"parencite|textcite|footcite|nocite|emph|textbf|textit|texttt|textsc|underline|"
    r"part|chapter|section|subsection|subsubsection|paragraph|caption|vspace|hspace"
)
# An argument's text may hold TeX's escaped specials (``\_``, ``\&``): characters, not commands.
_PLAIN_ARG = r"(?:\[[^\\{}\[\]%^#~&$]*\])?\{(?:[^\\{}%^#~&$]|\\[_&%#$])*\}"
_TEX_TOKEN = rf"\\(?:(?:{_BARE_TEX})(?![A-Za-z])|(?:{_ARGUMENT_TEX})\*?{_PLAIN_ARG})"
_HARMLESS_TEX = pattern(rf"\s*(?:{_TEX_TOKEN}\s*)+")

OWN_ID_PREFIX = "draft-"


def env_trusts(environ: Mapping[str, str]) -> bool:
    """Whether the filter's environment vouches for the draft (:data:`TRUST_ENV`)."""
    return environ.get(TRUST_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def project_vouches(project_file: Path | None, start: Path | None = None) -> bool:
    """Whether a project file may vouch for drafts: it lies inside the repository being built
    (its folder holds ``.git``, or a folder above it up to the working directory's repository
    does) or is the working directory's own, and the user owns it. A file found further up
    (a planted ``../citeledger.toml``) vouches for nothing."""
    if project_file is None:
        return False
    here = (start or Path.cwd()).absolute()
    folder = project_file.absolute().parent
    try:
        if project_file.stat().st_uid != os.getuid():
            return False
    except (OSError, AttributeError):
        return False
    if folder == here:
        return True
    root = next((f for f in (here, *here.parents) if (f / ".git").exists()), None)
    return root is not None and (folder == root or root in folder.parents)


# Links ------------------------------------------------------------------------------------

# The schemes a link or an image of a draft may name: an allowlist, checked on the URL as a
# browser reads it (entities decoded, leading controls and spaces stripped, tabs and newlines
# removed wherever they are), so ``&#1;javascript:`` and ``java&#x09;script:`` are caught.
_SAFE_SCHEMES = frozenset({"http", "https", "mailto", "tel"})
_SCHEME = pattern(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_RUNS = frozenset({"javascript", "vbscript", "livescript"})
_IMAGE_DATA = pattern(r"data:image/(?:png|jpe?g|gif|webp|avif|bmp)[;,]", re.IGNORECASE)


def browser_url(url: str) -> str:
    """``url`` as a browser's URL parser reads it: character references decoded, C0 controls
    and spaces stripped at both ends, tabs and newlines removed."""
    text = url
    if "&" in text:  # a character reference: the only text html.unescape changes
        import html as html_text

        text = html_text.unescape(text)
    text = re.sub(r"[\t\n\r]", "", text)
    return text.strip("".join(chr(c) for c in range(0x21)))


def is_live_url(url: str, *, image: bool = False) -> bool:
    """Whether a draft's link target (``image``: an image source) names a scheme outside the
    allowlist (``javascript:``, ``vbscript:``, ``file:``, a ``data:`` page)."""
    text = browser_url(str(url))
    scheme = _SCHEME.match(text)
    if scheme is None:
        return False  # a path, a fragment: relative to the page
    name = scheme.group(1).lower()
    if name in _SAFE_SCHEMES:
        return False
    if image:  # a local file: scheme is the confinement's to refuse, by name
        return name in _RUNS or (name == "data" and not _IMAGE_DATA.match(text))
    return True


def _unlink_live(node: list[Any]) -> None:
    """Every live link or image under ``node`` replaced by its text (inner ones first), and
    the control characters of every other target percent-encoded (a Word file's relationship
    cannot hold them)."""
    out: list[Any] | None = None
    for k, item in enumerate(node):
        if isinstance(item, list):
            _unlink_live(item)
        elif isinstance(item, dict):
            for value in item.values():
                if isinstance(value, list):
                    _unlink_live(value)
            if item.get("t") in ("Link", "Image") and _target_of(item) is not None:
                target = _target_of(item) or ""
                if is_live_url(target, image=item["t"] == "Image"):
                    if out is None:
                        out = node[:k]
                    out.extend(item["c"][1])
                    continue
                item["c"][2][0] = _CONTROL.sub(lambda m: f"%{ord(m.group()):02X}", target)
        if out is not None:
            out.append(item)
    if out is not None:
        node[:] = out


_CONTROL = pattern(r"[\x00-\x1f\x7f]")


def _target_of(el: dict[str, Any]) -> str | None:
    c = el.get("c")
    if isinstance(c, list) and len(c) == 3 and isinstance(c[2], list) and c[2]:
        return c[2][0] if isinstance(c[2][0], str) else None
    return None


# Nesting ----------------------------------------------------------------------------------


def check_nesting(doc: Json, name: str, *, rename: bool = False) -> Survey:
    """Refuse a tree nested deeper than :data:`MAX_NESTING` elements (a 1 KB draft of 500
    block quotes) before any walk recurses into it; ``rename``: rename the draft's ids that
    are citeledger's own (``src-1`` becomes ``draft-src-1``). Returns the walk's
    :class:`~.survey.Survey`, which :func:`vet` takes instead of walking the tree again."""
    found = survey(doc, name)
    if rename:
        rename_own_ids(found)
    return found


def rename_own_ids(found: Survey) -> None:
    """The attributes ``found`` holding one of citeledger's own ids renamed in place; once."""
    for attr in found.own_ids:
        if OWN_ID.fullmatch(attr[0]):
            attr[0] = OWN_ID_PREFIX + attr[0]
    found.own_ids = []


# Raw elements -----------------------------------------------------------------------------


def refused_raw(fmt: str, text: str) -> bool:
    """Whether an untrusted draft's raw element of format ``fmt`` is refused."""
    name = fmt.lower()
    if name in HTML_RAW or name in TEXT_RAW:
        return False
    if name not in _TEX_NAMES:
        return True
    if _HARMLESS_TEX.fullmatch(text) is not None:
        return False
    from .tex_math import is_math_block  # raw TeX beyond the harmless: rare, and no cost

    return not is_math_block(text)


def check_raw(doc: PandocDoc, name: str, text: str | None) -> None:
    """Refuse the first raw element (body or front matter) an untrusted draft may not hold,
    in one line naming its line (a markdown draft's) or its place and ``--trust-draft``."""
    nodes = [doc.get("blocks", []), list(doc.get("meta", {}).values())]
    for el in elements_of(nodes, ("RawBlock", "RawInline")):
        kind = el.get("t")
        if not _refused(el):
            continue
        c = el.get("c")
        fmt, raw = (str(c[0]), str(c[1])) if isinstance(c, list) and len(c) == 2 else ("?", "")
        what = "block" if kind == "RawBlock" else "inline"
        shown = " ".join(raw.split())[:40]
        raise BadInput(
            f"{_where(name, text, raw)}: raw {fmt} {what} '{shown}' refused: an untrusted "
            "draft runs no code and reads no file",
            hint=TRUST_HINT,
        )


def _refused(el: Json) -> bool:
    c = el.get("c")
    fmt, raw = (str(c[0]), str(c[1])) if isinstance(c, list) and len(c) == 2 else ("?", "")
    return refused_raw(fmt, raw)


def _link_changes(el: Json) -> bool:
    """Whether :func:`_unlink_live` changes this link or image: a live target, or one with a
    control character."""
    target = _target_of(el)
    if target is None:
        return False
    return _CONTROL.search(target) is not None or is_live_url(target, image=el["t"] == "Image")


def _where(name: str, text: str | None, raw: str) -> str:
    """``name:LINE`` of the raw element's first line in the draft's text, else ``name``."""
    first = next((ln.strip() for ln in raw.splitlines() if ln.strip()), "")
    if text is None or not first:
        return name
    at = text.find(first)
    return name if at < 0 else f"{name}:{text.count(chr(10), 0, at) + 1}"


# Front matter -----------------------------------------------------------------------------

# A notebook's own metadata (pandoc's ipynb reader, Jupytext's header): kernelspec, widget
# state (which can carry scripts). Dropped, but without the warning: no author wrote it.
_TOOL_KEYS = frozenset({"jupyter"})


def vet_front_matter(
    meta: Meta, name: str, folder: Path, say: Say, ledger_inside: Path | None = None
) -> None:
    """Keep only what an untrusted draft's front matter may set (see the module docstring):
    other keys and trusted-only options are dropped with one warning; a file key outside the
    draft's folder is refused. ``ledger_inside``: a ledger the metadata names is kept when it
    lies in that folder (the filter's, whose ``-M citeledger.ledger=`` shares the map)."""
    dropped: list[str] = []
    for key in list(meta):
        if key == "citeledger" or key.startswith("citeledger."):
            dropped += _vet_options(meta, key, ledger_inside)
        elif key in FILE_KEYS:
            if ledger_inside is not None and _from_command_line(meta[key]):
                continue  # the filter's ``-M csl=...``: pandoc's command line, the user's
            for path in _paths(meta[key]):
                _check_inside(path, key, name, folder)
        elif key in _TOOL_KEYS:
            del meta[key]
        elif key not in READER_KEYS or (
            key in _PLAIN_KEYS and not _PLAIN_VALUE.fullmatch(_plain(meta[key]))
        ):
            dropped.append(key)
            del meta[key]
    if dropped:
        say(
            f"warn: {name}: front matter {', '.join(dropped)} dropped: an untrusted draft sets "
            f"only what a reader sees (pass {TRUST_FLAG} if you wrote the draft yourself)"
        )


def _vet_options(meta: Meta, key: str, ledger_inside: Path | None) -> list[str]:
    """Drop the trusted-only options (and the gate's loosening) of one citeledger entry;
    returns the dropped keys as written."""
    value = meta[key]
    if key != "citeledger":
        option = key[len("citeledger.") :].replace("_", "-")
        if not _front_may_set(option, value, ledger_inside):
            del meta[key]
            return [key]
        return []
    if not isinstance(value, dict) or value.get("t") != "MetaMap":
        # ``citeledger: ledger.json``: a bare value names the ledger.
        if _front_may_set("ledger", value, ledger_inside):
            return []
        del meta[key]
        return [key]
    entries: dict[str, Any] = value["c"]
    out = []
    for sub in list(entries):
        if not _front_may_set(sub.replace("_", "-"), entries[sub], ledger_inside):
            del entries[sub]
            out.append(f"citeledger.{sub}")
    return out


def _front_may_set(option: str, value: Any, ledger_inside: Path | None = None) -> bool:
    """Whether the front matter may set ``option`` to ``value``: a look, a check switched on,
    a ``min-coverage`` (raised only: :func:`tightened`); an unknown key stays for
    :func:`~citeledger.options.from_meta` to warn about."""
    if option == "ledger" and ledger_inside is not None:
        # The filter's ledger: ``-M citeledger.ledger=`` makes a MetaString, which no text
        # reader's front matter makes; else one inside the working folder.
        if _from_command_line(value):
            return True
        return all(_inside(p, ledger_inside) for p in _paths(value))
    if option in TRUSTED_ONLY:
        return False
    if option in GATE_KEYS and BY_KEY[option].kind == "bool":
        return _meta_true(value)
    return True


def _from_command_line(value: Any) -> bool:
    """A MetaString (or a list of them): what pandoc's ``-M`` makes, and no text reader's front
    matter (a YAML string is read as markdown: MetaInlines)."""
    if isinstance(value, dict) and value.get("t") == "MetaList":
        return all(_from_command_line(v) for v in value.get("c", []))
    return isinstance(value, dict) and value.get("t") == "MetaString"


def _meta_true(value: Any) -> bool:
    if isinstance(value, dict):
        c = value.get("c")
        if value.get("t") == "MetaBool":
            return bool(c)
        return stringify(c).strip().lower() in {"true", "yes", "on", "1"}
    return False


def _plain(value: Json) -> str:
    if isinstance(value, dict) and value.get("t") == "MetaBool":
        return "true"
    if isinstance(value, dict) and value.get("t") in ("MetaString", "MetaInlines", "MetaBlocks"):
        c = value.get("c")
        return c if isinstance(c, str) else stringify(c)
    return "\n"  # a list or a map: no plain value


def _paths(value: Json) -> list[str]:
    if isinstance(value, dict) and value.get("t") == "MetaList":
        return [p for v in value.get("c", []) for p in _paths(v)]
    if isinstance(value, dict):
        c = value.get("c")
        return [c if isinstance(c, str) else stringify(c)]
    return [str(value)]


def _inside(path: str, folder: Path) -> bool:
    """Whether ``path`` (relative to ``folder``, or absolute) names a file inside ``folder``,
    its links followed: no URL, no ``~``, no way out."""
    shown = path.strip()
    if not shown or "://" in shown or shown.startswith("~") or "\0" in shown:
        return False
    base = folder.resolve()
    try:
        target = (base / shown).resolve()
    except (OSError, ValueError, RuntimeError):
        return False
    return target == base or base in target.parents


def _check_inside(path: str, key: str, name: str, folder: Path) -> None:
    """A file the front matter names must be a relative path inside the draft's folder, and
    stay there when its links are followed."""
    shown = path.strip()
    bad = (
        shown.startswith(("/", "\\"))
        or re.match(r"^[A-Za-z]:", shown) is not None
        or ".." in PurePosixPath(shown.replace("\\", "/")).parts
        or not _inside(shown, folder)
    )
    if bad:
        raise BadInput(
            f"{name}: front matter {key}: {shown!r} is outside the draft's folder: an "
            "untrusted draft reads only files beside it",
            hint=f"copy the file next to the draft and name it there, or pass {TRUST_FLAG}",
        )


# The gate -----------------------------------------------------------------------------------


def tightened(front: Options, under: Options | None) -> Options:
    """The front matter's options with whatever would loosen the gate beneath them (the
    project file's, or the default) taken out: a switch turned off, a lower ``min-coverage``.
    Front matter may make the gate stricter, never weaker, trusted or not."""
    base = under or Options()
    drop = []
    for key in GATE_KEYS:
        if not front.is_set(key):
            continue
        mine, theirs = getattr(front, BY_KEY[key].field), getattr(base, BY_KEY[key].field)
        if key == "min-coverage":
            if theirs is not None and (mine is None or mine < theirs):
                drop.append(key)
        elif theirs and not mine:
            drop.append(key)
    if not drop:
        return front
    kept = {k: getattr(front, BY_KEY[k].field) for k in front.given if k not in drop}
    return Options(beneath=front.beneath).updated(kept)


def front_options(meta: Meta, flags: Options, say: Say) -> Options:
    """The options of a run: the front matter's (:func:`~citeledger.options.from_meta`), made
    no looser than the project file's, under the flags (see :meth:`Options.merged`)."""
    return tightened(from_meta(meta, say), flags.beneath).merged(flags)


# The one entry ------------------------------------------------------------------------------


def vet(
    doc: PandocDoc,
    *,
    trusted: bool,
    name: str,
    folder: Path,
    text: str | None = None,
    say: Callable[[str], None],
    ledger_inside: Path | None = None,
    refuse_raw: bool = True,
    surveyed: Survey | None = None,
) -> Survey:
    """Make ``doc`` (a draft as read, before ``-M`` entries and the user's citeproc) what the
    trust model lets it be; every verb that reads a draft and the filter call this once.
    ``refuse_raw`` false: a reading that builds nothing (verify) keeps the raw code.
    ``surveyed``: :func:`check_nesting`'s walk of this same tree, unchanged since (the
    reading of a draft makes it); else the tree is walked here, once for every question.
    Returns the walk: what the tree held before it was vetted (vetting only takes away)."""
    found = surveyed if surveyed is not None else survey(doc, name)
    rename_own_ids(found)
    if trusted:
        return found
    if refuse_raw and any(_refused(el) for el in found.raws):
        check_raw(doc, name, text)  # names the first refused one, in document order
    if any(_link_changes(el) for el in found.links):
        _unlink_live([doc.get("blocks", []), list(doc.get("meta", {}).values())])
    vet_front_matter(doc.setdefault("meta", {}), name, folder, say, ledger_inside)
    return found
