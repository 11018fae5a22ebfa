"""Reports written in markdown (or delivered as .docx): every citation style agents use becomes
ledger ids, each pointing at the URL the report cited at that place, and the list it cited into
becomes the draft's one Sources block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citeledger.ledger import load_ledger
from citeledger.ledger.urls import url_key
from citeledger.pandoc import run_pandoc

from ..helpers.answers import cited_by_sentence

A = "https://www.example.org/solar-2023"
B = "https://www.energy-news.example.com/germany-pv"
C = "https://data.example.net/rooftops"

PERPLEXITY_EXPORT = f"""# Solar power in Germany

Germany installed 14 GW of solar capacity in 2023.[^1] It was a record year for the sector.[^2][^1]

Rooftop systems made up about half of the additions.[^2]

[^1]: {A}
[^2]: [Germany PV]({B}?utm_source=perplexity)
"""

CHATGPT = f"""Germany installed 14 GW of solar capacity in 2023. ([Example][1])
Rooftop systems made up about half, says a [national survey][3]. ([Energy News][2])

[1]: {A}?utm_source=chatgpt.com "Solar 2023"
[2]: {B}?utm_source=chatgpt.com "Germany PV"
[3]: {C} "Rooftops"
"""

GPT_RESEARCHER = f"""# Solar in Germany

Germany installed 14 GW in 2023 ([Example Solar]({A})). According to [a data portal]({C}), rooftops
made up half of it, a share that keeps rising ([Energy News]({B}), [Example]({A})).

```python
# [1] this is code ([x](https://no.example.org))
```

## References

- [Example Solar]({A})
- [{B}]({B})
- [a data portal]({C})
"""

# An export that numbers every occurrence: 1 and 3 are one page.
DEEP_RESEARCH = f"""Germany installed 14 GW in 2023 [1]. Rooftops made up half [2][3].
Ground-mounted parks grew fastest.[4]

## Sources

1. Solar 2023 – {A}
2. Germany PV – {B}
3. Solar 2023 – {A}
4. Rooftops – {C}
"""

CASES = {
    "perplexity-export": (PERPLEXITY_EXPORT, [[A], [B, A], [B]]),
    "chatgpt": (CHATGPT, [[A], [C, B]]),
    "gpt-researcher": (GPT_RESEARCHER, [[A], [C, B, A]]),
    "deep-research": (DEEP_RESEARCH, [[A], [B, A], [C]]),
}


def _cited(draft: str, ledger: Path) -> list[list[str]]:
    book = load_ledger(ledger)
    body = re.sub(r"```.*?```", "", draft.split("\n## Sources\n")[0], flags=re.DOTALL)
    runs = re.findall(r"(?:\[[0-9]+\])+", body)
    return [[url_key(book.source(int(n)).url) for n in re.findall(r"[0-9]+", r)] for r in runs]


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_style_becomes_ledger_ids_on_the_urls_cited_there(
    cli, tmp_path: Path, case: str
) -> None:
    text, wanted = CASES[case]
    (tmp_path / "report.md").write_text(text, encoding="utf-8")
    done = cli("--ledger", "l.json", "import", "report.md")
    assert done.code == 0, done.out + done.err
    assert done.out.rstrip().endswith("citations OK"), done.out
    draft = (tmp_path / "report.cited.md").read_text(encoding="utf-8")
    assert _cited(draft, tmp_path / "l.json") == [[url_key(u) for u in run] for run in wanted]
    assert draft.count("## Sources") == 1 and "## References" not in draft
    assert "[^" not in draft and "](http" not in draft.split("```")[0]


def test_one_page_numbered_twice_is_one_source(cli, tmp_path: Path) -> None:
    (tmp_path / "r.md").write_text(DEEP_RESEARCH, encoding="utf-8")
    assert cli("--ledger", "l.json", "import", "r.md").code == 0
    assert [s.url for s in load_ledger(tmp_path / "l.json").sources] == [A, B, C]


def test_a_link_whose_words_belong_to_the_sentence_keeps_them(cli, tmp_path: Path) -> None:
    (tmp_path / "r.md").write_text(GPT_RESEARCHER, encoding="utf-8")
    assert cli("--ledger", "l.json", "import", "r.md").code == 0
    draft = (tmp_path / "r.cited.md").read_text(encoding="utf-8")
    assert "According to a data portal, rooftops" in draft
    assert "# [1] this is code ([x](https://no.example.org))" in draft  # code untouched


def test_numbers_the_list_gives_no_url_are_not_left_as_markers(cli, tmp_path: Path) -> None:
    text = f"One claim.[1] Another claim.[2]\n\n## References\n\n1. Solar {A}\n2. A printed book\n"
    (tmp_path / "r.md").write_text(text, encoding="utf-8")
    done = cli("--ledger", "l.json", "import", "r.md")
    assert "[2] name no entry with a URL" in done.err
    draft = (tmp_path / "r.cited.md").read_text(encoding="utf-8")
    assert "Another claim.[unverified]" in draft and "2. A printed book" in draft


def test_a_word_report_with_footnotes_and_links_is_read(cli, tmp_path: Path) -> None:
    source = f"""Germany installed 14 GW in 2023.[^1] Rooftops made up half ([Energy News]({B})).

[^1]: Solar 2023, {A}
"""
    docx = tmp_path / "report.docx"
    run_pandoc(["-f", "markdown", "-o", str(docx)], stdin=source)
    done = cli("--ledger", "l.json", "import", "report.docx")
    assert done.code == 0, done.out + done.err
    draft = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert _cited(draft, tmp_path / "l.json") == [[url_key(A)], [url_key(B)]]


def test_sentence_by_sentence_the_export_and_the_draft_cite_the_same_pages(
    cli, tmp_path: Path
) -> None:
    (tmp_path / "r.md").write_text(DEEP_RESEARCH, encoding="utf-8")
    assert cli("--ledger", "l.json", "import", "r.md").code == 0
    book = load_ledger(tmp_path / "l.json")
    listed = {1: A, 2: B, 3: A, 4: C}
    original = DEEP_RESEARCH.split("\n## Sources")[0]
    draft = (tmp_path / "r.cited.md").read_text(encoding="utf-8").split("\n## Sources")[0]
    assert cited_by_sentence(draft, lambda n: book.source(n).url) == cited_by_sentence(
        original, listed.__getitem__
    )


def test_citations_stay_in_place_where_the_cuts_leave_blank_lines(cli, tmp_path: Path) -> None:
    text = f"Intro line.\n\n[^9]: {A}\n\n\n\n*   [A library]({B})\n\n*   [A script]({C})\n"
    (tmp_path / "r.md").write_text(text, encoding="utf-8")
    assert cli("--ledger", "l.json", "import", "r.md").code == 0
    draft = (tmp_path / "r.cited.md").read_text(encoding="utf-8")
    assert "*   A library[1]\n\n*   A script[2]\n" in draft


def test_an_entry_naming_only_a_doi_is_its_doi_org_address(cli, tmp_path: Path) -> None:
    text = (
        "A claim.[1] Another.[2]\n\n## Sources\n\n"
        f"[1] Solar. {A}\n\n[2] Dette, H. (2024). Testing. DOI: 10.1080/07350015.2024.2308121\n"
    )
    (tmp_path / "r.md").write_text(text, encoding="utf-8")
    done = cli("--ledger", "l.json", "import", "r.md")
    assert done.code == 0, done.out + done.err
    urls = [s.url for s in load_ledger(tmp_path / "l.json").sources]
    assert urls == [A, "https://doi.org/10.1080/07350015.2024.2308121"]


def test_a_kept_entry_without_a_url_carries_no_marker(cli, tmp_path: Path) -> None:
    text = f"A claim.[1] Another.[2]\n\n## Sources\n\n[1] Solar. {A}\n\n[2] A printed book.\n"
    (tmp_path / "r.md").write_text(text, encoding="utf-8")
    done = cli("--ledger", "l.json", "import", "r.md")
    assert done.code == 0, done.out + done.err
    draft = (tmp_path / "r.cited.md").read_text(encoding="utf-8")
    assert "Another.[unverified]" in draft and "\n2. A printed book.\n" in draft


def test_a_real_deep_research_report_keeps_each_citation_on_its_listed_url(
    cli, tmp_path: Path
) -> None:
    report = Path(__file__).parents[1] / "fixtures/corpora/agents/open-deep-research/task_006_v1.md"
    text = report.read_text(encoding="utf-8")
    listed = {
        int(n): url
        for n, url in re.findall(r"^\[([0-9]+)\][^\n]*?\]\((https?://[^)\s]+)\)", text, re.M)
    }
    (tmp_path / "r.md").write_text(text, encoding="utf-8")
    done = cli("--ledger", "l.json", "import", "r.md")
    assert done.code == 0, done.out + done.err
    assert "[9], [23] name no entry with a URL" in done.err
    book = load_ledger(tmp_path / "l.json")
    draft = (tmp_path / "r.cited.md").read_text(encoding="utf-8").split("\n## Works without")[0]
    original = re.split(r"^#+ *Sources", text, flags=re.M)[0]
    # [9] has no URL and [23] no entry: what the report cites with them is no page to check.
    unnamed = re.sub(r"\[(?:9|23)\]", "", original)
    assert cited_by_sentence(draft, lambda n: book.source(n).url) == cited_by_sentence(
        unnamed, listed.__getitem__
    )


@pytest.mark.parametrize(("fmt", "suffix"), [("org", ".org"), ("rst", ".rst"), ("latex", ".tex")])
def test_a_report_in_another_format_fails_verify_and_imports_as_markdown(
    cli, tmp_path: Path, fmt: str, suffix: str
) -> None:
    # An Org note's ``[fn:1] https://...``, a reStructuredText or LaTeX report's URL
    # footnotes: verify said "citations OK" over them, and import read the file as markdown
    # and found no citation.
    report = tmp_path / f"report{suffix}"
    run_pandoc(["-f", "markdown", "-t", fmt, "-o", str(report)], stdin=PERPLEXITY_EXPORT)
    (tmp_path / "l.json").write_text('{"version": 1, "sources": []}', encoding="utf-8")
    checked = cli("--ledger", "l.json", "verify", report.name)
    assert checked.code == 1, checked.out + checked.err
    assert (
        "foreign-citations"
        in cli("--ledger", "l.json", "verify", "--format", "json", report.name).out
    )
    done = cli("--ledger", "l.json", "import", report.name)
    assert done.code == 0, done.out + done.err
    draft = (tmp_path / "report.cited.md").read_text(encoding="utf-8")
    assert _cited(draft, tmp_path / "l.json") == [
        [url_key(A)],
        [url_key(B), url_key(A)],
        [url_key(B)],
    ]
    assert draft.count("## Sources") == 1 and "Footnotes" not in draft


# HTML reports that cite with numbered links to their own list of references: verify said
# "citations OK" with an empty ledger, and import found no citation.
AGENT_PAGE = f"""<!DOCTYPE html><html lang="en"><head><title>Solar</title></head><body>
<h1>Solar in Germany</h1>
<p>Germany installed 14 GW in 2023.<sup><a href="#ref-1">[1]</a></sup> Rooftops made up
half of it.<sup><a href="#ref-2">[2]</a></sup><sup><a href="#ref-1">[1]</a></sup></p>
<h2>References</h2>
<ol><li id="ref-1"><a href="{A}">Solar 2023</a></li>
<li id="ref-2"><a href="{B}">Germany PV</a></li></ol>
</body></html>
"""

GOOGLE = "https://www.google.com/url"
# A Google Docs export: classes on every run, each link wrapped in Google's redirect, the
# notes under a rule, a note that is a bare address, a note naming a printed book.
GOOGLE_DOCS = f"""<html><head><meta content="text/html; charset=UTF-8" http-equiv="content-type">
</head><body class="c7 doc-content">
<p class="c52"><span class="c16">Germany installed 14 GW in 2023</span><sup class="c16"><a
href="#ftnt1" id="ftnt_ref1">[1]</a></sup><span class="c16">. Rooftops made up half of
it</span><sup class="c16"><a href="#ftnt2" id="ftnt_ref2">[2]</a></sup><sup><a href="#cmnt1"
id="cmnt_ref1">[a]</a></sup><span class="c16">. The
method is in a handbook</span><sup><a href="#ftnt3" id="ftnt_ref3">[3]</a></sup><span>.</span></p>
<hr class="c74">
<div><p class="c12"><a href="#ftnt_ref1" id="ftnt1">[1]</a><span
class="c40">&nbsp;{A}</span></p></div>
<div><p class="c12"><a href="#ftnt_ref2" id="ftnt2">[2]</a><span class="c43">&nbsp;</span><span
class="c5"><a class="c25" href="{GOOGLE}?q={B}&amp;sa=D&amp;ust=1509406314156000&amp;usg=AF">{B}</a>
</span></p></div>
<div><p class="c12"><a href="#ftnt_ref3" id="ftnt3">[3]</a><span class="c40">&nbsp;A. Writer, A
Handbook of Photovoltaics, Example Press, pp. 27-55, 2005.</span></p></div>
</body></html>
"""

# A saved encyclopedia page: backlinks before each entry, one entry cited twice.
ENCYCLOPEDIA = f"""<html><head><title>Solar</title></head><body><h1>Solar in Germany</h1>
<p>Germany installed 14 GW in 2023.<sup id="cite_ref-s_1-0" class="reference"><a
href="#cite_note-s-1">[1]</a></sup> Rooftops made up half of it.<sup id="cite_ref-2"
class="reference"><a href="#cite_note-2">[2]</a></sup><sup id="cite_ref-s_1-1"
class="reference"><a href="#cite_note-s-1">[1]</a></sup> The data are open.<sup
id="cite_ref-3" class="reference"><a href="#cite_note-3">[3]</a></sup></p>
<h2><span class="mw-headline" id="References">References</span></h2>
<div class="reflist"><ol class="references">
<li id="cite_note-s-1"><span class="mw-cite-backlink">^ <a
href="#cite_ref-s_1-0"><sup><i><b>a</b></i></sup></a>
<a href="#cite_ref-s_1-1"><sup><i><b>b</b></i></sup></a></span> <span class="reference-text"><a
rel="nofollow" class="external text" href="{A}">"Solar 2023"</a>. <i>Example</i>. Retrieved
3 March 2024.</span></li>
<li id="cite_note-2"><span class="mw-cite-backlink"><b><a href="#cite_ref-2">^</a></b></span>
<span class="reference-text"><a rel="nofollow" class="external text" href="{B}">"Germany
PV"</a>. Energy News.</span></li>
<li id="cite_note-3"><span class="mw-cite-backlink"><b><a href="#cite_ref-3">^</a></b></span>
<span class="reference-text"><style data-mw-deduplicate="TemplateStyles:r1">.mw-parser-output
cite.citation{{font-style:inherit}}</style><cite class="citation web cs1">Writer, Anne; Author,
Bob; Someone, Carl (12 May 2021). <a rel="nofollow" class="external text" href="{C}">"Rooftop
data, a national survey of photovoltaic systems on homes and farms"</a>. <i>Data Portal</i>.
Archived from <a rel="nofollow" class="external text"
href="https://web.archive.org/web/2021/{C}">the original</a> on 1 June 2021. Retrieved
3 March 2024.</cite><span title="ctx_ver=Z39.88-2004" class="Z3988"></span></span></li>
</ol></div></body></html>
"""

HTML_CASES = {
    "agent-page": (AGENT_PAGE, [[A], [B, A]], ["Solar 2023", "Germany PV"]),
    "google-docs": (GOOGLE_DOCS, [[A], [B]], ["", ""]),
    "encyclopedia": (
        ENCYCLOPEDIA,
        [[A], [B, A], [C]],
        [
            "Solar 2023",
            "Germany PV",
            "Rooftop data, a national survey of photovoltaic systems on homes and farms",
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(HTML_CASES))
def test_an_html_report_citing_its_own_references_fails_verify_and_imports(
    cli, tmp_path: Path, case: str
) -> None:
    page, wanted, titles = HTML_CASES[case]
    (tmp_path / "report.html").write_text(page, encoding="utf-8")
    (tmp_path / "l.json").write_text('{"version": 1, "sources": []}', encoding="utf-8")
    checked = cli("--ledger", "l.json", "verify", "report.html")
    assert checked.code == 1 and "numbered link(s) to its own list" in checked.out + checked.err
    done = cli("--ledger", "l.json", "import", "report.html")
    assert done.code == 0, done.out + done.err
    draft = (tmp_path / "report.cited.md").read_text(encoding="utf-8")
    assert _cited(draft, tmp_path / "l.json") == [[url_key(u) for u in run] for run in wanted]
    book = load_ledger(tmp_path / "l.json")
    # Google's redirect is not the source; an encyclopedia's archived copy is registered after
    assert [s.url for s in book.sources][: len(titles)] == [A, B, C][: len(titles)]
    assert [s.title.split(".")[0] for s in book.sources][: len(titles)] == titles
    assert "<span" not in draft and "<a " not in draft and "](#" not in draft
    assert "<style" not in draft and "[a]" not in draft and "^" not in draft.split("## Sources")[1]
    assert draft.count("## Sources") == 1 and "References" not in draft and "---" not in draft
    assert "Germany installed 14 GW in 2023.[1]" in draft


def test_the_printed_book_a_google_docs_note_names_stays_a_note(cli, tmp_path: Path) -> None:
    (tmp_path / "report.html").write_text(GOOGLE_DOCS, encoding="utf-8")
    assert cli("--ledger", "l.json", "import", "report.html").code == 0
    draft = (tmp_path / "report.cited.md").read_text(encoding="utf-8")
    assert "A Handbook of Photovoltaics" in draft


def test_numbered_links_to_headings_or_a_single_one_are_no_citations(cli, tmp_path: Path) -> None:
    contents = f"""<html><body><p>Read <a href="#s1">1</a> and <a href="#s2">2</a> first.</p>
<h2 id="s1">Setting up</h2><p>Install it.</p><h2 id="s2">Running</h2><p>Run it.</p>
<p>A claim.<sup><a href="#n1">[1]</a></sup></p><ol><li id="n1"><a href="{A}">Solar</a></li></ol>
</body></html>"""
    (tmp_path / "page.html").write_text(contents, encoding="utf-8")
    (tmp_path / "l.json").write_text('{"version": 1, "sources": []}', encoding="utf-8")
    done = cli("--ledger", "l.json", "verify", "page.html")
    assert done.code == 0 and "citations OK" in done.out, done.out + done.err


def test_a_footnote_naming_two_pages_cites_both(cli, tmp_path: Path) -> None:
    # A real Google Docs note held two addresses: the second became the first's title.
    text = "Germany installed 14 GW in 2023.[^1] Rooftops made up half.[^2]\n\n"
    text += f"[^1]: {A}, {C}\n[^2]: {B}\n"
    (tmp_path / "r.md").write_text(text, encoding="utf-8")
    done = cli("--ledger", "l.json", "import", "r.md")
    assert done.code == 0, done.out + done.err
    draft = (tmp_path / "r.cited.md").read_text(encoding="utf-8")
    assert _cited(draft, tmp_path / "l.json") == [[url_key(A), url_key(C)], [url_key(B)]]
    assert all("http" not in s.title for s in load_ledger(tmp_path / "l.json").sources)
