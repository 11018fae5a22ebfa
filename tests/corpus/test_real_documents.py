"""Text nobody wrote for citeledger: one test per way it used to go wrong (issue 11).

Every test runs the real command line (or pandoc with the real filter) on a small draft built the
way people write them: README reference definitions, Wikipedia URLs, escaped brackets, Quarto
cells, a marker in a heading, a README whose "Sources" section is about data, nested fences,
paginated decks, math in a slide table, several outputs at once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.helpers import make_ledger, run_citeledger, run_filter

WIKIPEDIA = "https://en.wikipedia.org/wiki/Python_(programming_language)"


def citeledger(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, ledger=cwd / "ledger.json")


def ledger(folder: Path, urls: list[str], *, quotes: bool = True) -> Path:
    sources = [
        {
            "id": i,
            "url": url,
            "title": f"Source {i}",
            "accessed": "2026-01-01",
            "quotes": [{"text": "ice floats on water here", "added": "2026-01-01"}]
            if quotes
            else [],
        }
        for i, url in enumerate(urls, 1)
    ]
    return make_ledger(folder / "ledger.json", sources)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# Reference definitions and links whose text is a marker ---------------------------------------


def test_an_invented_id_with_a_reference_definition_fails(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    text = "Ice floats on water.[1] Water is wet.[7]\n\n"
    write(tmp_path, "d.md", text + "[1]: https://a.org/1\n[7]: https://x.example/7\n")
    done = citeledger("verify", "d.md", cwd=tmp_path)
    assert done.returncode == 1
    assert "d.md:1:38: citations not in the ledger (hallucinated or renumbered): [7]" in done.stderr


def test_a_definition_whose_url_is_not_the_ledgers_fails(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    write(tmp_path, "d.md", "Ice floats on water.[1]\n\n[1]: https://wrong.example/1\n")
    done = citeledger("verify", "d.md", cwd=tmp_path)
    assert done.returncode == 1
    assert "d.md:3:1: Sources block URL for [1] does not match the ledger" in done.stderr


def test_a_written_link_on_a_marker_must_point_at_the_ledgers_url(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    text = "Ice floats on water [1](https://wrong.example/1) as seen.\n\n## Sources\n\n"
    write(tmp_path, "d.md", text + "[1] https://a.org/1 — A\n")
    done = citeledger("verify", "d.md", cwd=tmp_path)
    assert done.returncode == 1
    assert "link-url-mismatch" not in done.stderr  # the code is in --format json
    assert "d.md:1:21: [1] links to https://wrong.example/1, not to the ledger's URL" in (
        done.stderr
    )
    as_json = citeledger("verify", "d.md", "--format", "json", cwd=tmp_path)
    codes = [f["code"] for f in json.loads(as_json.stdout)["findings"]]
    assert "link-url-mismatch" in codes


def test_evidence_is_required_of_citations_written_as_reference_links(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"], quotes=False)
    write(tmp_path, "d.md", "Ice floats on water.[1]\n\n[1]: https://a.org/1\n")
    done = citeledger("verify", "d.md", "--evidence", cwd=tmp_path)
    assert done.returncode == 1
    assert "carry no verbatim evidence quote" in done.stderr


def test_closing_reference_definitions_are_the_sources_block(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1", WIKIPEDIA])
    text = "Ice floats on water.[1] Python is a language.[2]\n\n"
    write(tmp_path, "d.md", text + f"[1]: https://a.org/1\n[2]: {WIKIPEDIA}\n")
    done = citeledger("verify", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 distinct source(s) cited" in done.stdout


def test_the_filter_places_a_reference_link_citation_like_any_other(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    write(tmp_path, "d.md", "Ice floats on water.[1]\n\n[1]: https://a.org/1\n")
    done = citeledger("convert", "d.md", "-o", "d.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert 'href="#src-1"' in html and 'id="cite-1-1"' in html
    assert 'id="src-1"' in html


# URLs ending in ")" -----------------------------------------------------------------------------


def test_a_wikipedia_url_verifies_after_render_replace_in(tmp_path: Path) -> None:
    ledger(tmp_path, [WIKIPEDIA, "https://doi.org/10.1002/(SICI)1097-4636[x]"])
    write(tmp_path, "d.md", "Python is a language.[1] Ice floats on water.[2]\n")
    assert citeledger("render", "--replace-in", "d.md", cwd=tmp_path).returncode == 0
    assert citeledger("render", "--replace-in", "d.md", cwd=tmp_path).returncode == 0
    text = (tmp_path / "d.md").read_text(encoding="utf-8")
    assert text.count("## Sources") == 1
    assert f"[1] <{WIKIPEDIA}> — Source 1" in text
    for fmt in ("markdown", "gfm", "commonmark"):
        done = citeledger("verify", "d.md", "--from", fmt, cwd=tmp_path)
        assert done.returncode == 0, (fmt, done.stdout + done.stderr)
    done = citeledger("convert", "d.md", "-o", "d.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_plain_wikipedia_url_in_a_sources_line_keeps_its_parenthesis(tmp_path: Path) -> None:
    ledger(tmp_path, [WIKIPEDIA])
    write(tmp_path, "d.md", f"Python is a language.[1]\n\n## Sources\n\n[1] {WIKIPEDIA} — Py\n")
    done = citeledger("verify", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


# Escaped brackets -----------------------------------------------------------------------------


ESCAPED = "The array \\[1\\] and \\[2, 3\\] are text. Ice floats on water.[1]\n"


def test_escaped_brackets_are_not_citations_for_verify_and_render(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    write(tmp_path, "d.md", ESCAPED.replace(".[1]", "."))
    done = citeledger("verify", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 distinct source(s) cited" in done.stdout
    write(tmp_path, "e.md", ESCAPED)
    rendered = citeledger("render", "--cited-in", "e.md", cwd=tmp_path)
    assert rendered.stdout.strip().splitlines()[-1] == "[1] https://a.org/1 — Source 1"


def test_escaped_brackets_stay_text_in_convert_and_wiki(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1", "https://b.org/2", "https://c.org/3"])
    write(tmp_path, "d.md", "# Page\n\n" + ESCAPED)
    done = citeledger("convert", "d.md", "-o", "d.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert "The array [1] and [2, 3] are text." in html
    assert 'id="src-2"' not in html
    done = citeledger("wiki", "d.md", "-o", "site", "--format", "html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "site" / "page.html").read_text(encoding="utf-8")
    assert "The array [1] and [2, 3] are text." in page
    assert "(1 sources cited)" in done.stdout


def test_the_filter_manual_says_how_to_write_a_literal_bracket(tmp_path: Path) -> None:
    manual = subprocess.run(
        ["pandoc-citeledger", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "[1<!-- -->]" in manual
    assert manual.index("[1<!-- -->]") < manual.index("``citeledger.ledger``")
    ledger(tmp_path, [])
    write(tmp_path, "d.md", "The array [1<!-- -->] is text.\n")
    done = run_filter("d.md", "-t", "html", cwd=tmp_path, ledger=tmp_path / "ledger.json")
    assert done.returncode == 0, done.stderr
    assert "The array [1<!-- -->] is text." in done.stdout


# Quarto ---------------------------------------------------------------------------------------


QMD = """\
---
title: Figures
---

Plots come from executable cells.

```{{python}}
#| fig-cap: "A line plot"

import matplotlib.pyplot as plt
plt.plot([1,23,2,4])
plt.show()
```

Executable cells look like this:

```{r}
#| layout: [[45,-10, 45], [100]]

plot(cars)
```

```{{r}}
plot([8,65,23,90])
```
"""


def test_quarto_cells_are_code_not_citations(tmp_path: Path) -> None:
    ledger(tmp_path, [])
    write(tmp_path, "figures.qmd", QMD)
    done = citeledger("verify", "figures.qmd", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 distinct source(s) cited" in done.stdout
    assert citeledger("convert", "figures.qmd", "-o", "f.html", cwd=tmp_path).returncode == 0


# Headings -------------------------------------------------------------------------------------


def test_a_marker_in_a_heading_keeps_the_headings_identifier(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    text = "# Introduction[1]\n\nSee [the introduction](#introduction) and [Introduction[1]].\n"
    write(tmp_path, "d.md", text + "\n## Sources\n\n[1] https://a.org/1 — A\n")
    done = citeledger("convert", "d.md", "-o", "d.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "d.html").read_text(encoding="utf-8")
    assert '<h1 id="introduction">' in html
    assert "introduction1" not in html
    assert html.count('href="#introduction"') == 2


def test_a_gfm_heading_identifier_keeps_gfm_rules(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    write(tmp_path, "d.md", "# 2. Ice floats[1]\n\nText.\n")
    done = run_filter(
        "d.md", "-f", "gfm", "-t", "html", cwd=tmp_path, ledger=tmp_path / "ledger.json"
    )
    assert done.returncode == 0, done.stderr
    assert 'id="2-ice-floats"' in done.stdout


# Too many ids ---------------------------------------------------------------------------------


def test_too_many_ids_counts_markers_and_a_repeated_id_warns(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1", "https://b.org/2", "https://c.org/3"])
    text = "Ice floats on water for days.[1][2][3][1]\n\n## Sources\n\n"
    write(
        tmp_path, "d.md", text + "[1] https://a.org/1\n[2] https://b.org/2\n[3] https://c.org/3\n"
    )
    done = citeledger("verify", "d.md", "--strict", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "more than 3 citations ([1], [2], [3], [1])" in done.stdout
    assert "sentence cites [1] more than once" in done.stdout


# Lost text ------------------------------------------------------------------------------------


API = """\
# Lua filters

Filters are Lua scripts.

### Sources

The `pandoc.mediabag` module holds the sources of every image.

### Writers

Writers write documents.
"""


def test_a_sources_section_that_is_no_citation_list_survives_filter_convert_and_wiki(
    tmp_path: Path,
) -> None:
    ledger(tmp_path, [])
    write(tmp_path, "api.md", API)
    assert citeledger("convert", "api.md", "-o", "api.html", cwd=tmp_path).returncode == 0
    assert "pandoc.mediabag" in (tmp_path / "api.html").read_text(encoding="utf-8")
    done = citeledger("wiki", "api.md", "-o", "site", "--format", "html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "pandoc.mediabag" in (tmp_path / "site" / "lua-filters.html").read_text("utf-8")
    filtered = run_filter("api.md", "-t", "html", cwd=tmp_path, ledger=tmp_path / "ledger.json")
    assert filtered.returncode == 0, filtered.stderr
    assert "pandoc.mediabag" in filtered.stdout


README = """\
# Tool

The tool reads data.[1]

## Sources

Data comes from two public surveys.

## Installation

`````markdown
````
```
## Sources
```
````
`````

## License

MIT.
"""


def test_render_replace_in_keeps_a_readmes_sections_and_is_idempotent(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    draft = write(tmp_path, "README.md", README)
    assert citeledger("render", "--replace-in", "README.md", cwd=tmp_path).returncode == 0
    once = draft.read_text(encoding="utf-8")
    assert once.startswith(README)
    assert once.endswith("\n## Sources\n\n[1] https://a.org/1 — Source 1\n")
    assert citeledger("render", "--replace-in", "README.md", cwd=tmp_path).returncode == 0
    assert draft.read_text(encoding="utf-8") == once
    assert citeledger("verify", "README.md", cwd=tmp_path).returncode == 0


def test_render_replace_in_replaces_only_the_block_before_later_sections(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    body = "Ice floats on water.[1][^n]\n\n## Sources\n\n[1] https://old.example/1\n\n"
    note = "[^n]: A note defined inside the old block.\n\n"
    after = "## Appendix\n\nKept.\n"
    draft = write(tmp_path, "d.md", body + note + after)
    done = citeledger("render", "--replace-in", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = draft.read_text(encoding="utf-8")
    assert "old.example" not in text
    assert text.endswith("[1] https://a.org/1 — Source 1\n\n" + note + after)
    assert citeledger("verify", "d.md", cwd=tmp_path).returncode == 0


def test_render_replace_in_rewrites_a_block_inside_a_div_in_its_div(tmp_path: Path) -> None:
    # The block a Div holds is the block verify and the builds read (issue 32): rewritten where
    # it stands, the fence kept.
    ledger(tmp_path, ["https://a.org/1"])
    text = "Ice floats on water.[1]\n\n::: aside\n\n## Sources\n\n[1] https://a.org/1\n\n:::\n"
    draft = write(tmp_path, "d.md", text)
    done = citeledger("render", "--replace-in", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    new = text.replace("[1] https://a.org/1\n", "[1] https://a.org/1 \u2014 Source 1\n")
    assert draft.read_text(encoding="utf-8") == new
    assert citeledger("verify", "d.md", cwd=tmp_path).returncode == 0


# Decks ------------------------------------------------------------------------------------------


def test_a_paginated_deck_verifies_back_without_naming_its_format(tmp_path: Path) -> None:
    ledger(tmp_path, [f"https://example.org/study/{i}" for i in range(1, 31)])
    lines = ["# Deck", ""]
    for slide in range(6):
        lines += [f"## Slide {slide}", ""]
        lines += [f"- Households waste food every day.[{slide * 5 + k}]" for k in range(1, 6)]
        lines.append("")
    write(tmp_path, "report.md", "\n".join(lines))
    done = citeledger("convert", "report.md", "-o", "r.pptx", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shutil.copy(tmp_path / "r.pptx", tmp_path / "deck-copy")
    for name in ("r.pptx", "deck-copy"):
        back = citeledger("verify", name, cwd=tmp_path)
        assert back.returncode == 0, back.stdout + back.stderr
        assert "30 distinct source(s) cited" in back.stdout


MATH_TABLE = """\
## Results

| quantity | value |
|---|---|
| $x^2$ | 4 |

Ice floats on water for days.[1]
"""


def test_math_in_a_slide_table_is_reported_as_pandocs_broken_xml(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    write(tmp_path, "m.md", MATH_TABLE)
    done = citeledger("convert", "m.md", "-o", "m.pptx", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    (line,) = [ln for ln in done.stderr.splitlines() if ln.startswith("citeledger: error:")]
    assert "m.pptx: pandoc wrote broken XML" in line
    assert "<a14:m>" in line and "math inside a table cell" in line
    assert "move the math out of the table" in line
    assert ".m." not in line  # the output, not its temporary file
    assert not (tmp_path / "m.pptx").exists()


def test_convert_builds_every_output_it_can_and_names_each_failure(tmp_path: Path) -> None:
    ledger(tmp_path, ["https://a.org/1"])
    write(tmp_path, "m.md", MATH_TABLE)
    done = citeledger(
        "convert", "m.md", "-o", "m.pptx", "-o", "m.html", "-o", "m.docx", cwd=tmp_path
    )
    assert done.returncode == 2
    errors = [ln for ln in done.stderr.splitlines() if ln.startswith("citeledger: error:")]
    assert len(errors) == 2, done.stderr
    assert errors[0].startswith("citeledger: error: m.pptx: pandoc wrote broken XML")
    assert "1 of 3 outputs not written (m.pptx); written: m.html, m.docx" in errors[1]
    assert (tmp_path / "m.html").is_file() and (tmp_path / "m.docx").is_file()
