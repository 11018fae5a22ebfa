"""The verifier's findings, one row each: the only place a finding's code is spelled.

The checks emit a finding through its row (a constant here), so a mistyped code is a
``NameError`` or a mypy error, never a silent new code. Each row says how to fix what it finds
(``fix``: a command or an edit an agent can act on); ``{ids}`` in it stands for the finding's
ids (``{id}`` for the first, as a command takes it), and a check that knows more (the
ledger's id for a typed URL) gives its own. SARIF names its rules from the rows, the verifier's
manual points here, and the manual's table of findings (docs/reference/rules.md, written by
docs/gen.py) is :func:`readme_table` (a test holds the two equal). Rows are in the order the
verifier reports them.
"""

from __future__ import annotations

from ..ledger.light import record
from .report import Finding, Level


@record(frozen=True)
class Rule:
    """One kind of finding: its code, how bad it is, what it checks in one line, how to fix
    it, and ``when`` the check runs if not on every run (the flag or the input that asks for
    it)."""

    code: str
    level: Level
    summary: str
    fix: str
    when: str = ""

    @property
    def name(self) -> str:
        return rule_name(self.code)

    @property
    def anchor(self) -> str:
        """The anchor of the rule's row in the manual's table, for a link to its help."""
        return f"finding-{self.code}"

    def finding(
        self, message: str, location: str, ids: tuple[int, ...] = (), fix: str = ""
    ) -> Finding:
        """A finding of this rule; its fix is ``fix`` when the check knows a better one, else
        the row's; the finding's ids stand in place of ``{ids}`` (``[3], [7]``), its first id in
        place of ``{id}`` (``3``, as a command takes it)."""
        fix = fix or self.fix
        if "{ids}" in fix:  # a finding may name 50,000 ids: spelled out only where shown
            fix = fix.replace("{ids}", "[" + "], [".join(map(str, ids)) + "]" if ids else "the id")
        fix = fix.replace("{id}", str(ids[0]) if ids else "N")
        return Finding(self.level, self.code, message, location, ids, fix)


def rule_name(code: str) -> str:
    """A code in CamelCase, as SARIF names a rule (``unknown-id`` is ``UnknownId``)."""
    return "".join(word.capitalize() for word in code.split("-"))


RULES: dict[str, Rule] = {}


def _rule(code: str, level: Level, summary: str, fix: str, when: str = "") -> Rule:
    if code in RULES:
        raise ValueError(f"finding code {code} declared twice")
    RULES[code] = Rule(code, level, summary, fix, when)
    return RULES[code]


# The ids cited, the Sources block, links, coverage, evidence.
LEDGER_NOT_FOUND = _rule(
    "ledger-not-found",
    "FAIL",
    "The draft cites ids, and the ledger it is verified against does not exist.",
    "run verify where the ledger is, or name it: --ledger PATH (or $CITELEDGER_LEDGER)",
)
UNKNOWN_ID = _rule(
    "unknown-id",
    "FAIL",
    "A cited id is not in the ledger (hallucinated or renumbered).",
    "cite an id `citeledger list` shows, or `citeledger add URL` and cite the id it prints",
)
NOT_A_URL = _rule(
    "not-a-url",
    "FAIL",
    "A cited ledger entry is no URL a reader can open (a sources.py entry).",
    "`citeledger add https://…` the page and cite the id it prints in place of {ids}",
)
MISSING_SOURCES_BLOCK = _rule(
    "missing-sources-block",
    "FAIL",
    "The draft cites sources but has no Sources block.",
    "`citeledger render --replace-in DRAFT`",
    "unless a build writes the list",
)
SECOND_SOURCES_BLOCK = _rule(
    "second-sources-block",
    "FAIL",
    "The draft holds more than one Sources block (their entries read as citations).",
    "delete the earlier list (a stale one: its numbers need not be the ledger's ids; "
    "`citeledger add` a page it names that the ledger lacks), then "
    "`citeledger render --replace-in DRAFT` rewrites the last from the ledger",
)
MISSING_FROM_SOURCES_BLOCK = _rule(
    "missing-from-sources-block",
    "FAIL",
    "A cited id is absent from the draft's Sources block.",
    "`citeledger render --replace-in DRAFT`",
)
SOURCES_ENTRY_NOT_IN_LEDGER = _rule(
    "sources-entry-not-in-ledger",
    "FAIL",
    "The Sources block lists an id that is not in the ledger.",
    "`citeledger render --replace-in DRAFT` (it lists only ledger ids)",
)
SOURCES_URL_MISMATCH = _rule(
    "sources-url-mismatch",
    "FAIL",
    "A Sources block entry's URL differs from the ledger's.",
    "if the ledger's URL is the source meant, `citeledger render --replace-in DRAFT`; if the "
    "block's, `citeledger add URL` and cite the id it prints in place of {ids}",
)
SEARCH_RESULT_NUMBER = _rule(
    "search-result-number",
    "FAIL",
    "A cited id is a search tool's number: the URL the draft gives it is another ledger id's.",
    "cite the ledger's id for that URL in place of {ids}, then "
    "`citeledger render --replace-in DRAFT`",
)
RAW_CODE_UNTRUSTED = _rule(
    "raw-code-untrusted",
    "FAIL",
    "An untrusted draft holds raw code (TeX, typst, openxml, ...), which every build refuses.",
    "remove it; if you wrote the draft yourself, pass `--trust-draft` (or set "
    "`trust-draft = true` in your project's citeledger.toml)",
    "unless the draft is trusted",
)
LINK_URL_MISMATCH = _rule(
    "link-url-mismatch",
    "FAIL",
    "A marker written as a link points at another URL than the ledger's.",
    "link the ledger's URL for {ids} (`citeledger list`), or drop the link and keep the marker",
)
LOW_COVERAGE = _rule(
    "low-coverage",
    "FAIL",
    "Fewer sentences declare their provenance than the required share.",
    "put an id after each sentence a source supports, or mark it `[unverified]`",
    "--min-coverage",
)
MISSING_EVIDENCE = _rule(
    "missing-evidence",
    "FAIL",
    "A cited source carries no verbatim evidence quote.",
    '`citeledger quote {id} --text "…" --from PAGE` with the words of the fetched page',
    "--evidence",
)
QUOTE_FROM_OTHER_SOURCE = _rule(
    "quote-from-other-source",
    "warn",
    "A cited source's quote is in another source's kept page, not in one of its own.",
    "cite the source whose page holds the quote, attach the quote to it "
    '(`citeledger quote N --text "…" --from PAGE`), then take it back from {ids} '
    "(`citeledger quote {id} --drop K`)",
    "--evidence",
)
# The evidence trail (``recheck``).
EVIDENCE_FILE_MISSING = _rule(
    "evidence-file-missing",
    "FAIL",
    "The evidence text a quote was checked against is missing.",
    "copy the ledger's `.evidence/` folder along with it, or `quote` {ids} again from the page",
    "--recheck",
)
EVIDENCE_FILE_ALTERED = _rule(
    "evidence-file-altered",
    "FAIL",
    "The evidence text a quote was checked against has changed.",
    "restore the file from version control, or `quote` {ids} again from the page",
    "--recheck",
)
QUOTE_NOT_IN_EVIDENCE = _rule(
    "quote-not-in-evidence",
    "FAIL",
    "A quote is not in the evidence text kept for it.",
    '`citeledger quote {id} --text "…" --from PAGE` again, with the page\'s own words',
    "--recheck",
)
EVIDENCE_NOT_STORED = _rule(
    "evidence-not-stored",
    "warn",
    "A quote has no evidence text kept beside the ledger.",
    '`citeledger quote {id} --text "…" --from PAGE` again, to keep the page\'s text',
    "--recheck",
)
# The seed's warnings, then the convention's style.
LISTED_NOT_CITED = _rule(
    "listed-not-cited",
    "warn",
    "The Sources block lists a source the text never cites.",
    "cite {ids} after the sentence it supports, or `citeledger render --replace-in DRAFT`",
)
QUOTED_SOURCE_NOT_CITED = _rule(
    "quoted-source-not-cited",
    "warn",
    "A source that carries evidence quotes is not cited: a claim lost its source?",
    "cite {ids} after the sentence its quote supports, or drop that claim",
)
UNCITED_LEDGER_SOURCE = _rule(
    "uncited-ledger-source",
    "info",
    "A ledger source without evidence is not cited in this draft (a search result not used).",
    "nothing to do; cite it where a sentence rests on it",
)
ALL_CLAIMS_UNVERIFIED = _rule(
    "all-claims-unverified",
    "warn",
    "No sentence cites a source, though the ledger holds sources and sentences are marked "
    "[unverified].",
    "cite the ledger's ids after the sentences they support; keep `[unverified]` for claims "
    "no source carries",
)
IDS_AT_PARAGRAPH_END = _rule(
    "ids-at-paragraph-end",
    "warn",
    "A paragraph's ids are piled after its last sentence, the sentences before it uncited.",
    "move each of {ids} after the sentence it supports",
)
RAW_URL_IN_PROSE = _rule(
    "raw-url-in-prose",
    "warn",
    "A URL is typed into the prose, where a ledger id belongs.",
    "`citeledger add URL`, then replace the URL with the id it prints, after the sentence",
    "markdown drafts",
)
EXPIRING_SOURCE_CITED = _rule(
    "expiring-source-cited",
    "warn",
    "A cited source is a redirect that expires within days (a Gemini grounding link): the "
    "delivered link will lead nowhere.",
    "open {ids}'s URL, `citeledger add` the address it lands on, and cite the id it prints in "
    "place of {ids}",
)
TOO_MANY_IDS = _rule(
    "too-many-ids",
    "warn",
    "A sentence carries more citations than the convention allows.",
    "keep the three ids that carry the claim, or split the sentence",
)
REPEATED_ID = _rule(
    "repeated-id",
    "warn",
    "A sentence cites the same id twice.",
    "cite {ids} once in the sentence",
)
SPACE_BEFORE_MARKER = _rule(
    "space-before-marker",
    "warn",
    "A space stands between the text and its marker.",
    "delete the space: write `water[1]`",
)
GROUP_MARKER = _rule(
    "group-marker",
    "warn",
    "Several ids share one bracket; give each its own.",
    "give each id its own brackets: `[1][2]`",
)
MARKER_BEFORE_PUNCTUATION = _rule(
    "marker-before-punctuation",
    "warn",
    "A marker stands before the sentence's closing punctuation (a space before it as well is "
    "the same finding: `water [1].`).",
    "write `water.[1]`: the marker after the punctuation, against the text",
)
UNSUPPORTED_DETAIL = _rule(
    "unsupported-detail",
    "warn",
    "A figure, date, name or negation of a cited sentence is in none of its sources' evidence "
    "(figures and dates compared as values, whatever their spelling).",
    "correct the detail to what the evidence says, or "
    '`citeledger quote {id} --text "…" --from PAGE` the passage that states it',
    "--support",
)
UNSUPPORTED_CLAIM = _rule(
    "unsupported-claim",
    "warn",
    "A cited sentence has no evidence to check it against, or the judge model scores its "
    "support under the threshold.",
    "reread the page of {ids}: cite the source that says it, quote the passage that does, or "
    "reword the sentence to what the page says",
    "--support",
)
FOOTNOTE_URL_NOT_IN_LEDGER = _rule(
    "footnote-url-not-in-ledger",
    "warn",
    "A footnote links to a URL that is not in the ledger.",
    "`citeledger add URL` and cite its id, or drop the link from the footnote",
    "when the document cites",
)
FOREIGN_CITATIONS = _rule(
    "foreign-citations",
    "FAIL",
    "The draft cites only with footnotes or reference links holding URLs, or numbered links to "
    "its own list of references, by no ledger id: nothing verify can check.",
    "`citeledger import DRAFT` registers their pages and writes a draft citing their ids",
    "when the draft cites no ledger id",
)
UNREADABLE_SLIDE = _rule(
    "unreadable-slide",
    "FAIL",
    "A slide holds text pandoc cannot read back (an equation's box): its citations go unchecked.",
    "verify the draft the deck was built from (`citeledger verify DRAFT`)",
    "pptx files",
)


def readme_table() -> str:
    """The manual's table of findings, row for row; each row carries the rule's anchor."""
    rows = [
        "| finding | level | what it means | how to fix | checked |",
        "|---|---|---|---|---|",
    ]
    for rule in RULES.values():
        when = f"`{rule.when}`" if rule.when.startswith("--") else rule.when or "always"
        anchored = f'<a id="{rule.anchor}"></a>`{rule.code}`'
        fix = rule.fix.replace("{ids}", "[n]").replace("{id}", "N")
        rows.append(f"| {anchored} | {rule.level} | {rule.summary} | {fix} | {when} |")
    return "\n".join(rows)
