"""Every option of citeledger, declared once.

The pandoc filter reads options from document metadata (a ``citeledger:`` map, or
``-M citeledger.<key>=<value>``); ``convert``, ``wiki``, ``verify`` and ``finish`` take the same
options as flags (``--min-coverage 0.6``) and as ``-M`` entries. All of them come from the one
table below: the metadata reader, the typed :class:`Options` object, the typer flags of each
command (:func:`citeledger.commands._flags.with_flags`), the filter's manual and the manual's
table (:mod:`.manual`, written into docs/reference/options.md by docs/gen.py). A value is
checked by the same rule wherever it enters (``--min-coverage nan`` is refused by every command
and by the filter, in one line that names where it came from).

A project writes its options once in ``citeledger.toml``, or ``[tool.citeledger]`` of its
``pyproject.toml`` (:mod:`.project`). The layers, most specific first: flag, the draft's front
matter, the project file, the default. The flags' :class:`Options` carry the project's as
``beneath`` and :meth:`Options.merged` puts them under every layer;
:func:`.manual.settings` says, per key, which layer gave the value (``citeledger config``).
The filter reads metadata alone.

:class:`Options` remembers which keys were given, so a placement can tell "left at the default"
from "set to the default" (a Word file gets a Sources section when ``sources-title`` is set).

The package imports none of its modules (`-M` parsing is :mod:`.meta_args`): they read the
table from here. Only the standard
library: ``citeledger add`` imports it at start-up (through ``commands._common``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from ..errors import BadInput
from ..ledger.light import record
from ..tree import MetaValue, stringify
from .replaceable import replaceable

# Read by type checkers only: ``typing`` is no cost of a verify (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..messages import Say

COMMANDS = ("filter", "convert", "wiki", "verify", "finish", "render", "audit")
_BOOL_TRUE = frozenset({"true", "yes", "on", "1"})
_BOOL_FALSE = frozenset({"false", "no", "off", "0", ""})


@record(frozen=True)
class Option:
    """One option. ``kind`` is ``path``, ``text``, ``bool``, ``choice`` or ``fraction`` (a
    number from 0 to 1). ``commands`` are the commands that take it as a flag (the filter takes
    every option from metadata). ``recorded`` options are written into a .docx or .pptx the
    filter built, so ``citeledger finish`` repeats what the build was told."""

    key: str
    kind: str
    default: Any
    summary: str
    manual: str
    choices: tuple[str, ...] = ()
    commands: frozenset[str] = frozenset()
    recorded: bool = False
    default_text: str = ""
    flag_help: str = ""  # the flag's help where the summary is too short for it

    @property
    def field(self) -> str:
        return self.key.replace("-", "_")

    @property
    def flag(self) -> str:
        return f"--{self.key}"

    @property
    def meta_key(self) -> str:
        return f"citeledger.{self.key}"

    @property
    def metavar(self) -> str:
        if self.kind == "choice":
            return "|".join(self.choices)
        return {"path": "FILE", "text": "TEXT", "fraction": "X"}.get(self.kind, "")

    def parse(self, value: Any, where: str) -> Any:
        """``value`` (from metadata or a flag named by ``where``) as this option's type, or a
        ``BadInput`` naming the place and the values that would do."""
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in _BOOL_TRUE:
                return True
            if text in _BOOL_FALSE:
                return False
            raise BadInput(f"{where}: {value!r} is not true or false", hint="write true or false")
        if self.kind == "choice":
            text = str(value).strip().lower()
            if text not in self.choices:
                raise BadInput(
                    f"{where}: {value!r} is not one of {', '.join(self.choices)}",
                    hint=f"write e.g. {self.meta_key}={self.choices[0]}",
                )
            return text
        if self.kind == "fraction":
            if isinstance(value, bool):
                value = "true" if value else "false"
            try:
                number = float(str(value).strip())
            except ValueError:
                number = float("nan")
            if not 0.0 <= number <= 1.0:  # nan and the infinities fail it too
                raise BadInput(
                    f"{where}: {value!r} is not a number from 0 to 1",
                    hint="give a fraction such as 0.6",
                )
            return number
        text = " ".join(str(value).split()) if self.kind == "text" else str(value).strip()
        return text or None if self.kind == "path" else text

    def values_text(self) -> str:
        """The options table's "values" cell: choices with the default first, or the kind."""
        if self.kind == "choice":
            return ", ".join(f"`{c}`" for c in self.choices)
        if self.kind == "bool":
            return "`false`, `true`"
        if self.kind == "fraction":
            if self.default is not None:
                return f"a fraction from 0 to 1 (`{self.default}`)"
            return "none, a fraction such as `0.6`"
        return f"{self.kind} ({self.default_text or f'`{self.default}`'})"


def _all(*names: str) -> frozenset[str]:
    return frozenset(names)


def _switch(key: str, commands: frozenset[str], summary: str, manual: str) -> Option:
    """An option that is off unless given (``--evidence``, ``evidence: true``)."""
    return Option(key, "bool", False, summary, manual, commands=commands)


def _judge(key: str, kind: str, default: Any, summary: str) -> Option:
    """An option of the support check's judge: ``verify``'s, from a flag or the project file
    (a draft's front matter does not choose what runs on the reviewer's machine)."""
    return Option(
        key,
        kind,
        default,
        summary,
        f"{summary[0].upper()}{summary[1:]}.",
        commands=_all("verify", "audit"),
        default_text="none",
    )


def _choice(
    key: str,
    choices: tuple[str, ...],
    commands: frozenset[str],
    summary: str,
    manual: str,
    *,
    recorded: bool = False,
) -> Option:
    """An option that takes one of ``choices``, the first by default. ``recorded``: a choice of
    how a Word file or deck is built, which the filter records in the file so that ``finish``
    repeats what the build was told."""
    return Option(
        key,
        "choice",
        choices[0],
        summary,
        manual,
        choices=choices,
        commands=commands,
        recorded=recorded,
    )


OPTIONS: tuple[Option, ...] = (
    Option(
        "ledger",
        "path",
        None,
        "the ledger",
        "The ledger that holds the ids.",
        commands=_all("convert", "wiki", "verify", "finish", "audit"),
        default_text=(
            "`$CITELEDGER_LEDGER`, `$HERMES_CITATION_LEDGER`, "
            "`$HERMES_HOME/cache/citations/ledger.json`, `ledger.json`"
        ),
        flag_help="Ledger file (default: the project file's ledger, else $CITELEDGER_LEDGER, "
        "$HERMES_CITATION_LEDGER, $HERMES_HOME/cache/citations/ledger.json, ./ledger.json).",
    ),
    _choice(
        "notes",
        ("footnotes", "endnotes", "list"),
        _all("convert", "finish"),
        "where the format allows the choice",
        "Where the format allows the choice: Word footnotes or endnotes; LaTeX raised endnote "
        "marks (``footnotes`` and ``endnotes`` alike) or, with ``list``, bracketed ``[n]`` marks; "
        "in every format ``list`` means only a Sources list with linked ``[n]`` marks.",
        recorded=True,
    ),
    _choice(
        "numbering",
        ("ledger", "sequential"),
        _all("convert", "finish"),
        "the visible mark: ledger id or order of first citation",
        "The visible mark: the ledger id, or the order of first citation. Word marks equal to "
        "the ledger id need the docx renderer (``citeledger finish report.docx``); bare pandoc "
        "gives Word's own sequential numbering.",
        recorded=True,
    ),
    _choice(
        "repeat-notes",
        ("short", "cross-reference"),
        _all("convert", "finish"),
        "Word: a source cited again gets a short note (its title) or a cross-reference",
        "Word footnotes: every citation has its own note, so each mark has its note on its "
        "page. ``short`` (default): a source's first note is its full entry and each later "
        "note its title alone, linked to the source, as Chicago shortens a repeated note; "
        "``cross-reference``: a later citation is a mark linked to the source's first note "
        "and adds no note of its own.",
        recorded=True,
    ),
    _choice(
        "marker-style",
        ("brackets", "superscript"),
        _all("convert", "wiki"),
        "html: citation marks in line ([3]) or raised (superscript)",
        "HTML outputs (and any format whose citations are links): ``brackets`` writes the marks "
        "in line, ``[3]``; ``superscript`` raises them, as Wikipedia does, so a cluster such as "
        "``[50][3][9]`` stays small beside the text.",
    ),
    _choice(
        "other-notes",
        ("letters", "roman", "symbols"),
        _all("convert", "finish"),
        "Word: the marks of notes that cite no ledger source (the draft's own, citeproc's)",
        "Word, when the citation notes show ledger ids (or are endnotes): the notes that cite no "
        "ledger source (the draft's own footnotes, a note-style CSL's) are numbered in a series "
        "of their own, so no two notes show the same mark: ``letters`` a, b, c; ``roman`` i, ii, "
        "iii; ``symbols`` ``*``, ``†``, ``‡``, ``§`` (Word's Chicago series). Applied by the "
        "docx renderer (``citeledger finish``, ``citeledger convert``). For one series of Word "
        "numbers for "
        "every note, set ``numbering`` to ``sequential`` and keep ``footnotes``.",
        recorded=True,
    ),
    Option(
        "sources-title",
        "text",
        "Sources",
        "title of the Sources list, slide or section",
        "The title of the Sources list, slide or section; a draft's own block may carry it "
        '(or "Sources").',
        commands=_all("convert", "wiki", "verify", "finish", "render"),
        recorded=True,
    ),
    _switch(
        "strict",
        _all("convert", "wiki", "verify"),
        "warnings fail the build",
        "Warnings fail the build.",
    ),
    Option(
        "min-coverage",
        "fraction",
        None,
        "fail below this share of cited sentences",
        "Fail when fewer sentences of 4+ words carry a marker.",
        commands=_all("convert", "wiki", "verify"),
    ),
    _switch(
        "evidence",
        _all("convert", "wiki", "verify"),
        "fail when a cited source has no quote",
        "Fail when a cited source has no verbatim quote in the ledger.",
    ),
    _choice(
        "provider-quotes",
        ("refuse", "accept"),
        _all("convert", "wiki", "verify"),
        "`evidence`: whether a provider's quote (not page-checked) passes the gate",
        "With ``evidence``: whether a source whose only quotes are a provider's (Anthropic's "
        "``cited_text``, STORM's snippets, kept by ``citeledger import``, never matched "
        "against a page the agent saved) passes the gate. ``refuse`` asks for a page-checked "
        "quote (``citeledger quote``); ``accept`` takes the provider's word. Taken from a flag "
        "or the project file: a draft's front matter may say ``refuse``, never ``accept``.",
    ),
    _switch(
        "support",
        _all("convert", "wiki", "verify"),
        "warn when a cited sentence's figures, dates, names or negations are not in its evidence",
        "Check each cited sentence against its sources' evidence (docs/support.md): "
        "``unsupported-detail``, ``unsupported-claim``.",
    ),
    _switch(
        "figures",
        _all("convert", "wiki", "verify"),
        "the old name of `support`",
        "The old name of ``support``, which now holds its number check: it turns it on.",
    ),
    _switch(
        "support-pages",
        _all("convert", "wiki", "verify", "audit"),
        "`support` reads the kept page too: the chunk nearest the sentence",
        "With ``support``: the chunk of the kept page nearest the sentence is evidence too.",
    ),
    _judge("support-model", "path", None, "a folder: an ONNX classifier, its tokenizer.json"),
    _judge("support-judge", "text", "", "a command that reads JSON lines, writes a score a line"),
    _judge("support-threshold", "fraction", 0.5, "a judge's score under it: `unsupported-claim`"),
    _switch(
        "recheck",
        _all("verify"),
        "fail when a cited quote is not in the evidence text kept beside the ledger",
        "Re-check every quote of a cited source against the text it was checked against when "
        "it was added, kept in the ledger's evidence folder (``<ledger stem>.evidence/``): a "
        "missing or altered evidence file fails, named by its digest; a quote without a kept "
        "text is a warning. A flag of ``citeledger verify`` only; a build reads it from "
        "metadata.",
    ),
    _choice(
        "provenance",
        ("keep", "drop"),
        _all("convert", "wiki"),
        "keep or drop `[unverified]`, `[tool:x]`, `[policy]` in the output",
        "Keep or drop the ``[unverified]``, ``[tool:x]`` and ``[policy]`` markers in the output.",
    ),
    _switch(
        "slide-notes",
        _all("convert"),
        "pptx: speaker notes list each slide's sources and quotes",
        "pptx: each slide's speaker notes list the sources it cites, with their quotes.",
    ),
    _choice(
        "pdf-engine",
        ("typst", "pdflatex", "xelatex", "lualatex"),
        _all("convert"),
        "what makes a PDF: typst (no TeX) or a LaTeX engine",
        "What ``citeledger convert`` makes a PDF with: typst (bundled, no TeX) or an installed "
        "LaTeX engine. A bare pandoc build takes pandoc's own ``--pdf-engine``.",
    ),
    _choice(
        "wiki-refs",
        ("anchors", "native"),
        _all("convert", "wiki"),
        "mediawiki: anchored per-page list, or `<ref>`/`<references/>`",
        'mediawiki: ``[n]`` linked to a per-page list of ``<span id="src-N">`` anchors, or '
        'MediaWiki\'s own ``<ref name="src-N">`` with ``<references/>``.',
    ),
    _switch(
        "no-fetch",
        _all("convert"),
        "write remote images as their alt text instead of fetching them",
        "Fetch no remote image. By default a build fetches each remote (http/https) image once "
        "for the outputs that embed images (docx, pptx, odt, epub, PDF), at most 20 MB and "
        "10 s each, from global addresses only, and writes an image it cannot fetch as its alt "
        "text with one warning; pandoc itself never fetches.",
    ),
    Option(
        "fetch-allow",
        "text",
        "",
        "hosts fetched even at a loopback or private address (`--allow-fetch-host`)",
        "Host names, separated by commas or spaces, whose images are fetched although they "
        "resolve to a loopback, private or link-local address (``convert --allow-fetch-host "
        "HOST``, repeatable).",
        default_text="none",
    ),
    Option(
        "trusted-html",
        "bool",
        False,
        "keep the draft's raw HTML in HTML outputs as written (a trusted draft only)",
        "Write the draft's raw HTML into HTML outputs (convert's HTML and EPUB, the wiki's "
        "HTML pages) as written. By default it is sanitised: harmless markup such as "
        '``<div dir="rtl">``, ``<br>`` and ``<sub>`` stays, scripts, styles, event handlers '
        "(``onerror=``), frames and ``javascript:`` links go. Taken from a flag or the "
        "project file only, never from the draft's own front matter: a draft cannot vouch "
        "for itself.",
        commands=_all("convert", "wiki"),
    ),
    Option(
        "trust-draft",
        "bool",
        False,
        "build the draft as your own: its raw code, front matter files and options (never "
        "set by the draft)",
        "Build the draft as its author's own work: its raw blocks of every format, every "
        "front matter key (a template, header-includes, a bibliography anywhere) and every "
        "citeledger option it sets (the ledger, the PDF engine, fetch-allow) are taken as "
        "written, and pandoc runs without ``--sandbox``. By default a draft is data (see "
        "the trust page of the manual). From a flag, ``CITELEDGER_TRUST_DRAFT=1`` (the "
        "filter), or the project file of the repository being built; never from the draft.",
        commands=_all("convert", "wiki", "verify", "render"),
    ),
)

BY_KEY: dict[str, Option] = {o.key: o for o in OPTIONS}


def _default(key: str) -> Any:
    return BY_KEY[key].default


@record(frozen=True)
class Options:
    """The options of one run, typed; ``given`` holds the keys that were set explicitly."""

    ledger: str | None = _default("ledger")
    notes: str = _default("notes")
    numbering: str = _default("numbering")
    repeat_notes: str = _default("repeat-notes")
    marker_style: str = _default("marker-style")
    other_notes: str = _default("other-notes")
    sources_title: str = _default("sources-title")
    strict: bool = _default("strict")
    min_coverage: float | None = _default("min-coverage")
    evidence: bool = _default("evidence")
    support: bool = _default("support")
    provider_quotes: str = _default("provider-quotes")
    figures: bool = _default("figures")
    support_pages: bool = _default("support-pages")
    support_model: str | None = _default("support-model")
    support_judge: str = _default("support-judge")
    support_threshold: float = _default("support-threshold")
    recheck: bool = _default("recheck")
    provenance: str = _default("provenance")
    slide_notes: bool = _default("slide-notes")
    pdf_engine: str = _default("pdf-engine")
    wiki_refs: str = _default("wiki-refs")
    no_fetch: bool = _default("no-fetch")
    fetch_allow: str = _default("fetch-allow")
    trusted_html: bool = _default("trusted-html")
    trust_draft: bool = _default("trust-draft")
    given: frozenset[str] = frozenset()
    # The project file's options: the layer under every other, applied by ``merged``.
    beneath: Options | None = None

    def is_set(self, key: str) -> bool:
        return key in self.given

    def updated(self, values: Mapping[str, Any]) -> Options:
        """A copy with ``values`` (option key -> parsed value) set and marked given."""
        if not values:
            return self
        changes = {BY_KEY[k].field: v for k, v in values.items()}
        return self.replaced(**changes, given=self.given | frozenset(values))

    def merged(self, later: Options) -> Options:
        """These options with every key ``later`` was given taking ``later``'s value, and the
        project file's (``beneath`` either carries) for a key neither was given: the layers,
        most specific first, are flag, the draft's front matter, the project file, the
        default."""
        out = self.updated({k: getattr(later, BY_KEY[k].field) for k in later.given})
        under = later.beneath or self.beneath
        if under is None:
            return out
        missing = {k: getattr(under, BY_KEY[k].field) for k in under.given if k not in out.given}
        return out.updated(missing).replaced(beneath=under)

    def replaced(self, **changes: Any) -> Options:
        """A copy with ``changes`` (field names to values), as ``dataclasses.replace`` makes
        one (the class is a light record: ``dataclasses`` is no cost of a verify)."""
        return Options(**{**vars(self), **changes})

    def effective(self) -> Options:
        """These options over the project file's (for a command that reads no front matter)."""
        return Options().merged(self)

    def record(self) -> str:
        """The recorded options as JSON, for a written file's custom properties."""
        values = {o.key: getattr(self, o.field) for o in OPTIONS if o.recorded}
        return json.dumps(values, ensure_ascii=False, sort_keys=True)


# The filter still copies one with dataclasses.replace (filters/run.py).
replaceable(Options)

_NOT_OPTIONS = {"given", "beneath"}
if set(vars(Options())) != {o.field for o in OPTIONS} | _NOT_OPTIONS:
    raise AssertionError("Options and OPTIONS disagree")  # pragma: no cover - a developer's slip


def parse_values(raw: Mapping[str, Any], where: Callable[[Option], str]) -> dict[str, Any]:
    """Parse ``raw`` (option key -> value as written) through the table."""
    return {key: BY_KEY[key].parse(value, where(BY_KEY[key])) for key, value in raw.items()}


# Metadata ---------------------------------------------------------------------------------

RECORD_PROPERTY = "citeledger-options"


def meta_value(value: MetaValue) -> Any:
    """A pandoc MetaValue as plain Python (strings, bools, lists, dicts); anything else (a
    malformed value) as it is."""
    if not isinstance(value, dict):
        return value
    t = value.get("t")
    c: Any = value.get("c")
    if t == "MetaBool":
        return bool(c)
    if t == "MetaString":
        return c
    if t in ("MetaInlines", "MetaBlocks"):
        return stringify(c)
    if t == "MetaList":
        return [meta_value(v) for v in c]
    if t == "MetaMap":
        return {k: meta_value(v) for k, v in c.items()}
    return c


def from_meta(meta: Mapping[str, MetaValue], warn: Say) -> Options:
    """Options from a ``citeledger`` map and from flat ``citeledger.<key>`` entries (what
    ``-M citeledger.key=value`` makes); a flat key wins, an unknown key is a warning."""
    raw: dict[str, Any] = {}
    if "citeledger" in meta:
        nested = meta_value(meta["citeledger"])
        if isinstance(nested, dict):
            raw.update(nested)
        elif isinstance(nested, str) and nested:
            raw["ledger"] = nested
    for key, value in meta.items():
        if key.startswith("citeledger."):
            raw[key[len("citeledger.") :]] = meta_value(value)
    known: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.replace("_", "-")
        if name not in BY_KEY:
            warn(f"warn: unknown option citeledger.{key} ignored (see the filter's manual)")
            continue
        if name == "provider-quotes" and str(value).strip().lower() == "accept":
            # A draft cannot vouch for its own evidence: accept comes from a flag or the project.
            warn("warn: citeledger.provider-quotes: accept ignored in a document's metadata")
            continue
        known[name] = value
    return Options().updated(parse_values(known, lambda o: o.meta_key))


def is_option_meta(key: str) -> bool:
    """Whether a metadata key carries citeledger options (dropped from written documents)."""
    return key == "citeledger" or key.startswith("citeledger.")


def from_record(text: str | None) -> Options:
    """The options recorded in a written file (``Options.record``); unreadable or unknown
    entries are ignored (the file may come from another version)."""
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return Options()
    if not isinstance(data, dict):
        return Options()
    values: dict[str, Any] = {}
    for key, value in data.items():
        option = BY_KEY.get(key)
        if option is None or not option.recorded:
            continue
        try:
            values[key] = option.parse(value, RECORD_PROPERTY)
        except BadInput:
            continue
    return Options().updated(values)


# Help texts: a flag's ----------------------------------------------------


def flag_help(key: str) -> str:
    """The help text of ``--key``: the same on every command that takes it."""
    return _help(BY_KEY[key])


def _help(option: Option) -> str:
    if option.flag_help:
        return option.flag_help
    text = option.summary[0].upper() + option.summary[1:]
    return text.replace("`", "") + "."
