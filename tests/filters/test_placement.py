"""Placement in-process: the filter core on pandoc JSON with a ledger built in the test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeledger.errors import BadInput, VerificationFailed
from citeledger.escape import latex_text as latex_escape
from citeledger.escape import latex_url, typst_string
from citeledger.escape import typst_markup as typst_escape
from citeledger.filters.base import CITE_CLASS, Caller
from citeledger.filters.html import gfm_cite_link
from citeledger.filters.run import apply, caller_from
from citeledger.ledger import Ledger
from citeledger.options import Options, from_meta
from citeledger.pandoc import pandoc_version, run_pandoc
from tests.helpers import ledger_of, require_writer

SOURCES = [
    (1, "https://example.org/one", "One & only <b>", "2024-01-01"),
    (2, "https://example.org/two", "Two", "2024-01-02"),
    (7, "https://example.org/seven", "Seven", "2024-01-07"),
]


def ledger_in(tmp_path: Path) -> Ledger:
    return ledger_of(tmp_path / "ledger.json", SOURCES)


def tree(markdown: str) -> dict:
    return json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=markdown))


def write(doc: dict, fmt: str, *extra: str) -> str:
    args = ["-f", "json", "-t", fmt, "--wrap=none", *extra]
    return run_pandoc(args, stdin=json.dumps(doc)).decode()


def placed(markdown: str, fmt: str, tmp_path: Path, verify: bool = True, **opts) -> dict:
    doc = tree(markdown)
    apply(doc, fmt, options=Options(**opts), ledger=ledger_in(tmp_path), verify=verify)
    return doc


DRAFT = (
    "Ice floats on water.[7][1] It is cold in winter.[7]\n\n# Sources\n\n"
    "[1] https://example.org/one — One\n[7] https://example.org/seven — Seven\n"
)


def test_html_citation_links_to_entry_and_entry_links_back_to_each_citation(tmp_path):
    html = write(placed(DRAFT, "html5", tmp_path, verify=False), "html5")
    assert (
        '<span class="citeledger-nowrap">water.<a href="#src-7" id="cite-7-1" '
        'class="citeledger-cite" aria-describedby="card-7" '
        'aria-label="[7] source: Seven — example.org" title="Seven — example.org">[7]</a>'
    ) in html
    assert 'id="cite-7-2"' in html
    assert '<div id="src-7" class="citeledger-source">' in html
    assert 'href="#cite-7-1"' in html and 'href="#cite-7-2"' in html
    assert 'href="#cite-1-1"' in html


def test_sources_list_holds_only_cited_sources_in_ledger_order(tmp_path):
    html = write(placed(DRAFT, "html5", tmp_path, verify=False), "html5")
    assert "example.org/two" not in html
    assert html.index('id="src-1"') < html.index('id="src-7"')


def test_draft_sources_block_is_replaced_not_copied(tmp_path):
    md = DRAFT.replace("https://example.org/seven", "https://evil.example/wrong")
    with pytest.raises(VerificationFailed):
        placed(md, "html5", tmp_path)
    html = write(placed(md, "html5", tmp_path, verify=False), "html5")
    assert "evil.example" not in html
    assert html.count(">Sources<") == 1


def test_list_takes_the_place_and_level_of_the_drafts_sources_block(tmp_path):
    md = "Ice floats.[1]\n\n## Sources\n\n[1] x\n\n## Appendix\n\nText.\n"
    html = write(placed(md, "html5", tmp_path, verify=False), "html5")
    assert html.index('id="src-1"') < html.index("Appendix")
    assert '<h2 class="unnumbered" id="sources">Sources</h2>' in html


def test_gfm_entries_carry_raw_html_anchors(tmp_path):
    gfm = write(placed(DRAFT, "gfm", tmp_path, verify=False), "gfm")
    assert '<a id="src-7"></a>\\[7\\]' in gfm
    assert '<a href="#src-7" id="cite-7-1"' in gfm


def test_plain_text_keeps_bracketed_ids_without_links(tmp_path):
    text = write(placed(DRAFT, "plain", tmp_path, verify=False), "plain")
    assert "Ice floats on water.[7][1]" in text
    assert "#src" not in text


def test_sequential_numbering_orders_marks_and_list_by_first_citation(tmp_path):
    html = write(placed(DRAFT, "html5", tmp_path, numbering="sequential"), "html5")
    assert 'href="#src-7" id="cite-7-1" class="citeledger-cite"' in html
    assert 'title="Seven — example.org">[1]</a>' in html
    assert 'href="#src-1" id="cite-1-1" class="citeledger-cite"' in html
    assert '— example.org">[2]</a>' in html
    assert html.index('id="src-7"') < html.index('id="src-1"')


def test_provenance_markers_are_kept_or_dropped(tmp_path):
    md = "Ice floats on water here.[unverified] A tool said so too.[tool:calc]\n"
    kept = write(placed(md, "html5", tmp_path), "html5")
    dropped = write(placed(md, "html5", tmp_path, provenance="drop"), "html5")
    # Labels that say what they mean, never brackets that read as a broken id.
    assert '<span class="citeledger-label" data-kind="unverified">unverified</span>' in kept
    assert '<span class="citeledger-label" data-kind="tool">tool: calc</span>' in kept
    assert "[unverified]" not in kept and "[tool:calc]" not in kept
    assert "unverified" not in dropped and "calc" not in dropped
    for fmt, label in (("typst", "#box("), ("latex", "\\citeledgerlabel{unverified}")):
        if fmt == "typst" and pandoc_version() < (3, 1, 2):
            continue  # an older pandoc writes no typst (tests/filters/test_pandoc_versions.py)
        assert label in write(placed(md, fmt, tmp_path), fmt)
    assert "*(unverified)*" in write(placed(md, "gfm", tmp_path), "gfm")


def test_unknown_id_stops_the_filter_before_placing(tmp_path):
    lines: list[str] = []
    with pytest.raises(VerificationFailed):
        apply(
            tree("Ice floats on water.[99]\n"),
            "html5",
            options=Options(),
            ledger=ledger_in(tmp_path),
            say=lines.append,
        )
    assert any(line.startswith("FAIL") and "99" in line for line in lines)


def test_latex_marks_are_endnotes_keyed_by_ledger_id_and_macros_are_loaded(tmp_path):
    doc = tree("---\nheader-includes: \\usepackage{mine}\n---\n\n" + DRAFT)
    apply(doc, "latex", options=Options(), ledger=ledger_in(tmp_path), verify=False)
    tex = write(doc, "latex", "-s")
    body = tex.split("\\begin{document}", 1)[1]
    assert "\\citeledgernote{7}{7}{1}\\citeledgersep{}\\citeledgernote{1}{1}{1}" in body
    assert "\\citeledgernote{7}{7}{2}" in body
    assert "\\citeledgerentry{7}{7.}{Seven. \\citeledgerurl{https://example.org/seven}" in body
    head = tex.split("\\begin{document}", 1)[0]
    assert head.index("\\usepackage{mine}") < head.index("\\newcommand{\\citeledgerentry}")


def test_typst_marks_link_to_labelled_entries(tmp_path):
    require_writer("typst")
    typ = write(placed(DRAFT, "typst", tmp_path, verify=False), "typst")
    assert "#link(<src-7>)[\\[7\\]]<cite-7-1>" in typ
    assert "[#link(<cite-7-1>)[\\[7\\]]<src-7>]" in typ
    assert '#link("https://example.org/seven")' in typ


def test_citation_inside_footnote_and_heading_is_placed(tmp_path):
    md = "# Heading cites too.[2]\n\nBody text is here.^[A note cites as well.[1]]\n"
    html = write(placed(md, "html5", tmp_path), "html5")
    assert 'id="cite-2-1"' in html and 'id="cite-1-1"' in html


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a & b % c $ d # e _ f", r"a \& b \% c \$ d \# e \_ f"),
        ("{x} ~ ^ \\", r"\{x\} \textasciitilde{} \textasciicircum{} \textbackslash{}"),
        ("\\input{x}", r"\textbackslash{}input\{x\}"),
        ("a--b", r"a-\kern0pt{}-b"),
        ("中文 标题 x", r"\citeledgercjk{中文 标题} x"),
        ("שלום x", r"\citeledgerrtl{שלום} x"),
        ("zero\u200bwidth", "zerowidth"),
    ],
)
def test_latex_escape_writes_text_not_commands(text, expected):
    assert latex_escape(text) == expected


def test_latex_url_percent_encodes_what_url_cannot_take():
    assert latex_url("https://e.org/a b\\{c}^d%e#f~g") == (
        r"https://e.org/a\%20b\%5C\%7Bc\%7D\%5Ed\%e\#f~g"
    )


def test_typst_escape_and_string():
    assert typst_escape("#set [x] <l> @r *b* $m$ //c") == (
        r"\#set \[x\] \<l\> \@r \*b\* \$m\$ \/\/c"
    )
    assert typst_string('a"b\\c') == '"a\\"b\\\\c"'


def test_options_come_from_nested_map_and_dotted_keys():
    doc = tree("---\ncitebook: 1\nciteledger:\n  notes: list\n  strict: true\n---\n\nx\n")
    doc["meta"]["citeledger.numbering"] = {"t": "MetaString", "c": "sequential"}
    opts = from_meta(doc["meta"], warn=lambda line: None)
    assert (opts.notes, opts.strict, opts.numbering) == ("list", True, "sequential")


def test_bad_option_value_is_one_clear_error():
    doc = tree("---\nciteledger:\n  notes: sidenotes\n---\n\nx\n")
    with pytest.raises(BadInput, match="citeledger.notes"):
        from_meta(doc["meta"], warn=lambda line: None)


def test_the_caller_names_the_draft_in_findings_not_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("CITELEDGER_SOURCE_NAME", "from-the-environment.md")
    said: list[str] = []
    with pytest.raises(VerificationFailed):
        apply(
            tree("Ice.[99]\n"),
            "html",
            options=Options(),
            ledger=ledger_in(tmp_path),
            say=said.append,
            caller=Caller(source_name="report.md"),
        )
    assert any("report.md" in line for line in said)
    assert not any("from-the-environment" in line for line in said)


def test_the_console_entry_reads_who_started_it_from_the_environment():
    env = {"PANDOC_VERSION": "3.9", "CITELEDGER_SOURCE_NAME": "d.md", "CITELEDGER_FINISH": "1"}
    assert caller_from(env) == Caller(source_name="d.md", under_pandoc=True, finished=True)
    assert caller_from({}) == Caller()


def test_a_gfm_citation_link_becomes_raw_html_around_its_text(tmp_path):
    doc = placed("Ice floats.[7]\n", "gfm", tmp_path, verify=False)
    cite = doc["blocks"][0]["c"][-1]
    assert CITE_CLASS in cite["c"][0][1]
    out = gfm_cite_link(cite)
    assert out[0] == {"t": "RawInline", "c": ["html", '<a href="#src-7" id="cite-7-1">']}
    assert out[1:-1] == cite["c"][1]
    assert out[-1] == {"t": "RawInline", "c": ["html", "</a>"]}
