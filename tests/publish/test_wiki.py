"""``citeledger wiki``: one page per section or per file, each with exactly its own ids in its
Sources list, the same ids everywhere, an index and a reverse index, links that still land."""

from __future__ import annotations

import gc
import os
import re
from pathlib import Path

import pytest

from citeledger.errors import VerificationFailed
from citeledger.ledger import load_ledger
from citeledger.options import Options
from citeledger.publish.wiki import (
    FORMATS,
    build_wiki,
    github_anchor,
    page_href,
    unique_slugs,
)
from tests.helpers import GOLDEN_ROOT, make_ledger, run_citeledger

DRAFT = """\
---
title: Sea ice handbook
---

Ice is frozen water.[1]

# Floating

Ice floats on water.[1][2] See [the melting section](#melting) for more.

## Density

Its density is lower.[2]

# Melting

Ice melts above zero.[3] Back to [floating](#floating).

# 海氷

海氷は海に浮かぶ。[4]

# Glossary

No citations on this page.
"""

EXPECTED_IDS = {
    "introduction": [1],
    "floating": [1, 2],
    "melting": [3],
    "海氷": [4],
    "glossary": [],
}


def write_ledger(path: Path) -> Path:
    sources = [
        {
            "id": i,
            "url": f"https://example.org/ice/{i}",
            "title": f"Ice paper {i}",
            "accessed": "2025-03-01",
            "quotes": [],
        }
        for i in range(1, 6)
    ]
    return make_ledger(path, sources)


@pytest.fixture
def site(tmp_path: Path):
    draft = tmp_path / "handbook.md"
    draft.write_text(DRAFT, encoding="utf-8")
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))

    def build(fmt: str, **kw: object):
        out = tmp_path / f"out-{fmt}"
        split = int(kw.pop("split_level", 1))  # type: ignore[call-overload]
        opts = Options().updated({k.replace("_", "-"): v for k, v in kw.items()})
        result = build_wiki(
            [draft], out, ledger, opts, fmt=fmt, split_level=split, say=lambda _l: None
        )
        return result, out

    return build


def listed_ids(fmt: str, text: str) -> list[int]:
    """Ids in the page's Sources list, read from the written text."""
    head = {
        # A page's list one level below its title (its h1), beside its sections.
        "mediawiki": r"^==? Sources ==?$",
        "dokuwiki": r"^={5,6} Sources ={5,6}$",
        "gfm": r"^##? Sources$",
        "obsidian": r"^##? Sources$",
        "html": r'<h[12][^>]*id="sources"',
    }[fmt]
    match = re.search(head, text, re.M)
    if match is None:
        return []
    tail = text[match.end() :]
    if fmt == "html":
        return [int(n) for n in re.findall(r'<div id="src-(\d+)"', tail)]
    return [int(n) for n in re.findall(r"^\W*(?:<[^>]+>)*\\?\[(\d+)\\?\]", tail, re.M)]


def slug_of(fmt: str, slug: str) -> str:
    return slug if fmt != "dokuwiki" else {"海氷": "page-4"}.get(slug, slug)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_each_page_lists_exactly_the_ids_it_cites(site, fmt: str) -> None:
    result, out = site(fmt)
    ext = FORMATS[fmt].ext
    for slug, ids in EXPECTED_IDS.items():
        text = (out / f"{slug_of(fmt, slug)}{ext}").read_text(encoding="utf-8")
        assert listed_ids(fmt, text) == ids, slug
    assert {p.slug: p.ids for p in result.pages} == {
        slug_of(fmt, s): ids for s, ids in EXPECTED_IDS.items()
    }


@pytest.mark.parametrize("fmt", ["gfm", "mediawiki", "dokuwiki"])
def test_a_source_keeps_its_ledger_id_and_url_on_every_page(site, fmt: str) -> None:
    _result, out = site(fmt)
    ext = FORMATS[fmt].ext
    for slug in ("introduction", "floating"):
        text = (out / f"{slug}{ext}").read_text(encoding="utf-8")
        line = next(ln for ln in text.splitlines() if "https://example.org/ice/1" in ln)
        assert re.search(r"\\?\[1\\?\]", line)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_sources_page_is_a_reverse_index_of_citing_pages(site, fmt: str) -> None:
    result, out = site(fmt)
    assert result.cited_by == {
        1: ["introduction", "floating"],
        2: ["floating"],
        3: ["melting"],
        4: [slug_of(fmt, "海氷")],
    }
    text = (out / f"sources{FORMATS[fmt].ext}").read_text(encoding="utf-8")
    for i in range(1, 5):
        assert f"https://example.org/ice/{i}" in text
    assert "https://example.org/ice/5" not in text  # in the ledger, cited nowhere
    melting_entry = text[text.index("ice/3") :]
    assert "melting" in melting_entry.split("ice/4")[0]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_index_links_every_page(site, fmt: str) -> None:
    result, out = site(fmt)
    index = (out / f"index{FORMATS[fmt].ext}").read_text(encoding="utf-8")
    for page in result.pages:
        assert page_href(FORMATS[fmt], page.slug) in index


def test_every_gfm_page_verifies_against_the_ledger(site, tmp_path: Path) -> None:
    _result, out = site("gfm")
    for slug, ids in EXPECTED_IDS.items():
        proc = run_citeledger(
            "verify",
            str(out / f"{slug}.md"),
            cwd=Path.cwd(),
            env={"PATH": _path()},
            ledger=tmp_path / "ledger.json",
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip().endswith("citations OK")
        stats = next(ln for ln in proc.stdout.splitlines() if "distinct source(s) cited" in ln)
        assert f"{len(ids)} distinct source(s) cited" in stats


def _path() -> str:
    return os.environ.get("PATH", "")


def test_links_to_a_heading_on_another_page_point_to_that_page(site) -> None:
    _r, out = site("gfm")
    assert "[the melting section](melting.md#melting)" in (out / "floating.md").read_text()
    assert "[floating](floating.md#floating)" in (out / "melting.md").read_text()
    _r, wiki = site("mediawiki")
    assert "[[melting#melting|the melting section]]" in (wiki / "floating.wiki").read_text()
    _r, doku = site("dokuwiki")
    assert "[[melting#melting|the melting section]]" in (doku / "floating.txt").read_text()


def test_mediawiki_native_refs_define_each_source_once_and_reuse_it(site) -> None:
    _r, out = site("mediawiki", wiki_refs="native")
    text = (out / "floating.wiki").read_text(encoding="utf-8")
    assert text.count('<ref name="src-1">') == 1
    assert text.count('<ref name="src-2">') == 1
    assert text.count('<ref name="src-2" />') == 1
    assert text.rstrip().endswith("<references />")


def test_mediawiki_anchor_links_point_at_span_ids(site) -> None:
    _r, out = site("mediawiki")
    text = (out / "floating.wiki").read_text(encoding="utf-8")
    assert "[[#src-2|[2]]]" in text
    assert '<span id="src-2">[2]</span>' in text


def test_obsidian_citations_are_block_links_to_entries_with_block_ids(site) -> None:
    _r, out = site("obsidian")
    text = (out / "melting.md").read_text(encoding="utf-8")
    assert r"\[[[#^src-3|3]]\]" in text
    assert re.search(r"\^src-3$", text, re.M)


def test_slugs_are_unique_ascii_safe_and_keep_cjk() -> None:
    assert unique_slugs(["Intro", "intro", "INTRO!", "海氷 の 話", "", "index", "CON"]) == [
        "intro",
        "intro-2",
        "intro-3",
        "海氷-の-話",
        "page-5",
        "index-2",
        "con-page",
    ]
    assert unique_slugs(["海氷", "Été/été"], ascii_only=True) == ["page-1", "ete-ete"]
    assert github_anchor("Ice, water & more") == "ice-water--more"


def test_several_drafts_make_one_page_each_and_cross_links_resolve(tmp_path: Path) -> None:
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    (tmp_path / "a.md").write_text("# Alpha\n\nIce floats.[1] See [b](b.md#beta-part).\n")
    (tmp_path / "b.md").write_text("# Beta\n\n## Beta part\n\nWater.[2][1]\n")
    result = build_wiki(
        [tmp_path / "a.md", tmp_path / "b.md"],
        tmp_path / "out",
        ledger,
        Options(),
        say=lambda _l: None,
    )
    assert [(p.slug, p.ids) for p in result.pages] == [("alpha", [1]), ("beta", [1, 2])]
    assert "[b](beta.md#beta-part)" in (tmp_path / "out" / "alpha.md").read_text()


def test_a_failed_verification_writes_no_pages(tmp_path: Path) -> None:
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    (tmp_path / "bad.md").write_text("# A\n\nIce floats.[99]\n")
    with pytest.raises(VerificationFailed):
        build_wiki([tmp_path / "bad.md"], tmp_path / "out", ledger, Options())
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("bad", ["a.md", "b.md"])
def test_a_failed_verification_of_any_draft_writes_no_pages(tmp_path: Path, bad: str) -> None:
    # The index and the sources page are handed to pandoc while the last draft is verified.
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    said: list[str] = []
    for name in ("a.md", "b.md"):
        cited = 99 if name == bad else 1
        (tmp_path / name).write_text(f"# {name[0].upper()}\n\nIce floats.[{cited}]\n")
    with pytest.raises(VerificationFailed):
        build_wiki(
            [tmp_path / "a.md", tmp_path / "b.md"], tmp_path / "out", ledger, say=said.append
        )
    assert not (tmp_path / "out").exists()
    assert any(bad in line and "[99]" in line for line in said), said


@pytest.mark.parametrize("fmt", ["gfm", "mediawiki"])
def test_an_escaped_marker_cites_nothing_on_the_sources_page(tmp_path: Path, fmt: str) -> None:
    # ``\\[2\\]`` reads as the text [2]: the scan takes it for a citation, the verification
    # (which reads the draft's text) drops it, so the index and the sources page, started
    # before the verification ended, are made again from what it left.
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    draft = tmp_path / "d.md"
    draft.write_text(
        "# Alpha\n\nIce floats.[1] The text \\[2\\] is no citation.\n\n# Beta\n\nWater.[2]\n"
    )
    result = build_wiki([draft], tmp_path / "out", ledger, fmt=fmt, say=lambda _l: None)
    assert [(p.slug, p.ids) for p in result.pages] == [("alpha", [1]), ("beta", [2])]
    assert result.cited_by == {1: ["alpha"], 2: ["beta"]}
    ext = FORMATS[fmt].ext
    sources = (tmp_path / "out" / f"sources{ext}").read_text()
    entry_2 = sources[sources.index("Ice paper 2") :]
    assert "Beta" in entry_2 and "Alpha" not in entry_2


@pytest.mark.parametrize("enabled", [True, False])
def test_the_build_leaves_garbage_collection_as_it_found_it(tmp_path: Path, enabled: bool) -> None:
    # The build turns the collector off while it runs (its trees hold no cycles).
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    (tmp_path / "ok.md").write_text("# A\n\nIce floats.[1]\n")
    (tmp_path / "bad.md").write_text("# A\n\nIce floats.[99]\n")
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        build_wiki([tmp_path / "ok.md"], tmp_path / "out", ledger, say=lambda _l: None)
        assert gc.isenabled() is enabled
        with pytest.raises(VerificationFailed):
            build_wiki([tmp_path / "bad.md"], tmp_path / "o2", ledger, say=lambda _l: None)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


@pytest.mark.parametrize("fmt", ["gfm", "html", "mediawiki"])
def test_each_pages_footnotes_stay_on_that_page(tmp_path: Path, fmt: str) -> None:
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    draft = tmp_path / "notes.md"
    draft.write_text(
        "# One\n\nIce.^[First note.] Floats.[1]\n\n# Two\n\nPlain.\n\n"
        "# Three\n\nWater.^[Third note.] Too.[2]\n"
    )
    build_wiki([draft], tmp_path / "o", ledger, fmt=fmt, say=lambda _l: None)
    ext = FORMATS[fmt].ext
    one = (tmp_path / "o" / f"one{ext}").read_text()
    three = (tmp_path / "o" / f"three{ext}").read_text()
    assert "First note." in one and "Third note." not in one
    assert "Third note." in three and "First note." not in three
    assert "note." not in (tmp_path / "o" / f"two{ext}").read_text()


def test_a_quotation_in_a_cited_paragraph_is_written_in_gfm(tmp_path: Path) -> None:
    # pandoc's smart quotes make "..." a Quoted element; the gfm link rewriting once read its
    # quote type as an inline list and stopped the build with a traceback.
    ledger = load_ledger(write_ledger(tmp_path / "ledger.json"))
    draft = tmp_path / "quoted.md"
    draft.write_text('# One\n\nHe said "ice *floats* [here](#one)" today.[1]\n')
    build_wiki([draft], tmp_path / "o", ledger, fmt="gfm", say=lambda _l: None)
    text = (tmp_path / "o" / "one.md").read_text(encoding="utf-8")
    assert 'He said “ice *floats* [here](#one)” today.<a href="#src-1" id="cite-1-1">' in text


def test_split_level_two_makes_subsections_pages(site) -> None:
    result, _out = site("gfm", split_level=2)
    assert "density" in [p.slug for p in result.pages]
    assert next(p for p in result.pages if p.slug == "density").ids == [2]


def test_cli_writes_pages_and_stays_quiet_off_a_terminal(tmp_path: Path) -> None:
    draft = tmp_path / "handbook.md"
    draft.write_text(DRAFT, encoding="utf-8")
    write_ledger(tmp_path / "ledger.json")
    proc = run_citeledger(
        "wiki",
        "handbook.md",
        "-o",
        "site",
        cwd=tmp_path,
        env={"PATH": _path()},
        ledger="ledger.json",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "7 pages written to site (4 sources cited)\n"
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == sorted(
        [f"{s}.md" for s in EXPECTED_IDS] + ["index.md", "sources.md"]
    )


def test_cli_bad_format_is_one_line_and_exit_2(tmp_path: Path) -> None:
    proc = run_citeledger("wiki", "x.md", "-o", "o", "--format", "rtf", cwd=tmp_path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


GOLDEN_CASES = GOLDEN_ROOT / "wiki"


def read_options(case: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (case / "options.yaml").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition(":")
            out[key.strip()] = value.strip()
    return out


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("case", sorted(p.name for p in GOLDEN_CASES.iterdir() if p.is_dir()))
def test_wiki_pages_match_golden(case: str, fmt: str, tmp_path: Path, golden) -> None:
    folder = GOLDEN_CASES / case
    opts = read_options(folder)
    ledger = load_ledger(folder / "ledger.json")
    build_wiki(
        [folder / "input.md"],
        tmp_path,
        ledger,
        Options(wiki_refs=opts.get("wiki-refs", "anchors")),
        fmt=fmt,
        split_level=int(opts.get("split-level", "1")),
        say=lambda _l: None,
    )
    pages = sorted(tmp_path.iterdir())
    joined = "".join(f"===== {p.name}\n{p.read_text(encoding='utf-8')}" for p in pages)
    golden(folder / f"expected.{fmt}", joined)


# Source 2 of the handbook case, whose title holds markup of every wiki: its entry from the
# marker to the access date, anchors included (``<a id>`` in gfm, ``<span id>`` in mediawiki).
HOSTILE_ENTRY = re.compile(
    r'(?:<a id="src-2"></a>|<span id="src-2">)?\\?\[2\\?\](?:</span>)? \S*Ice.*?'
    r"2025\\?-03\\?-01\\?\)"
)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_sources_page_writes_an_entry_as_the_page_lists_do(fmt: str, tmp_path: Path) -> None:
    folder = GOLDEN_CASES / "handbook"
    ledger = load_ledger(folder / "ledger.json")
    build_wiki([folder / "input.md"], tmp_path, ledger, fmt=fmt, say=lambda _l: None)

    def entry(slug: str) -> str:
        text = " ".join((tmp_path / f"{slug}{FORMATS[fmt].ext}").read_text("utf-8").split())
        match = HOSTILE_ENTRY.search(text)
        assert match is not None, slug
        return match.group(0)

    assert entry("sources") == entry("floating")
