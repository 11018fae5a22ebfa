"""Hostile sources: titles, URLs, quotes and files an attacker can choose never become code, live
markup, terminal control, or a lost ledger. Each test is named for the attack it stops."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
from pathlib import Path

import pytest

from citeledger.errors import BadURL, LedgerError
from citeledger.ledger import load_ledger, normalize_url
from citeledger.ledger.display import display_text
from citeledger.ledger.model import Ledger
from citeledger.pandoc import run_pandoc
from tests.helpers import (
    FIXTURES,
    GOLDEN_ROOT,
    OWN_VARS,
    ROOT,
    citeledger_env,
    marked_processes,
    run_citeledger,
    start_citeledger,
)


def cli(
    *args: str, cwd: Path, stdin: bytes | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    return run_citeledger(*args, cwd=cwd, unset=OWN_VARS, stdin=stdin, text=False, timeout=timeout)


def one_line_refusal(
    done: subprocess.CompletedProcess[bytes], *words: str, after_report: bool = False
) -> str:
    """The refusal is one line (after verify's report, for a build that verified first)."""
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, (done.returncode, err)
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    if after_report:  # a build's warnings (an HTML page's missing lang) come after the report
        lines = [ln for ln in lines if not ln.startswith("warn: ")]
        assert lines[-2:-1] == ["citations OK"], err
        lines = lines[-1:]
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def write_ledger(folder: Path, *sources: dict, **extra: object) -> Path:
    full = [
        {"accessed": "2026-01-01", "title": "", "quotes": [], **s, "id": s.get("id", k)}
        for k, s in enumerate(sources, 1)
    ]
    path = folder / "ledger.json"
    path.write_text(json.dumps({"version": 1, "sources": full, **extra}, ensure_ascii=False))
    return path


# Critical ---------------------------------------------------------------------------------

TEX_DUMP_URL = "https://example.com/^^5cpdffiledump^^20length^^2064^^7b/etc/hostname^^7d"


def test_bibtex_url_with_tex_caret_escapes_is_inert(tmp_path: Path) -> None:
    assert cli("add", TEX_DUMP_URL, "--title", "Dump", cwd=tmp_path).returncode == 0
    done = cli("render", "--style", "bibtex", cwd=tmp_path)
    assert done.returncode == 0
    bib = done.stdout.decode()
    assert "^" not in bib and "\\pdffiledump" not in bib
    assert "%5E%5E5cpdffiledump".replace("%", "\\%") in bib


@pytest.mark.latex
def test_bibtex_url_with_tex_caret_escapes_cannot_read_a_local_file(tmp_path: Path) -> None:
    from tests.helpers import require_tool

    for tool in ("pdflatex", "bibtex"):
        require_tool(tool)
    from pypdf import PdfReader

    assert cli("add", TEX_DUMP_URL, "--title", "Dump", cwd=tmp_path).returncode == 0
    bib = cli("render", "--style", "bibtex", cwd=tmp_path).stdout.decode()
    (tmp_path / "refs.bib").write_text(bib)
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\usepackage{url}\\usepackage{hyperref}\n"
        "\\begin{document}\\nocite{*}\\bibliographystyle{plain}\\bibliography{refs}\n"
        "\\end{document}\n"
    )
    for step in (["pdflatex", "-interaction=nonstopmode", "main"], ["bibtex", "main"]) * 2:
        subprocess.run(step, cwd=tmp_path, capture_output=True, timeout=120)
    uris = [
        annot.get_object()["/A"]["/URI"]
        for page in PdfReader(tmp_path / "main.pdf").pages
        for annot in page.get("/Annots", [])
        if "/A" in annot.get_object()
    ]
    hostname = Path("/etc/hostname").read_text().strip() if Path("/etc/hostname").exists() else ""
    assert uris, "the bibliography holds no link"
    for uri in uris:
        assert "%5E%5E5cpdffiledump" in uri
        assert not hostname or hostname.encode().hex() not in uri


def test_two_resets_of_corrupt_ledgers_in_one_second_keep_both_copies(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    saved = []
    for text in ("{corrupt one", "{corrupt two"):
        ledger.write_text(text)
        done = cli("reset", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        saved.append(text)
    copies = sorted(p.read_text() for p in tmp_path.glob("ledger.json.corrupt-*"))
    assert copies == sorted(saved)


# High -------------------------------------------------------------------------------------

LIVE_TITLE = (
    "<img src=x onerror=alert(1)> [click](javascript:alert(2)) ![](https://tracker.example/p) "
    "&lt;b&gt; `code` $x$"
)


@pytest.mark.parametrize("style", ["markdown", "plain", "footnotes", "evidence"])
def test_rendered_titles_hold_no_live_markup_once_the_block_is_html(
    style: str, tmp_path: Path
) -> None:
    write_ledger(tmp_path, {"url": "https://a.org/x", "title": LIVE_TITLE})
    block = cli("render", "--style", style, cwd=tmp_path).stdout.decode()
    if style == "footnotes":
        block = "Ice floats.[^1]\n\n" + block
    html = run_pandoc(["-f", "markdown", "-t", "html"], stdin=block).decode()
    tags = _tags(html)
    assert {t for t, _ in tags} <= {
        "h2",
        "p",
        "div",
        "blockquote",
        "sup",
        "section",
        "ol",
        "li",
        "a",
        "hr",
    }
    assert all(not href or href.startswith("#") for t, href in tags if t == "a"), tags
    assert "<img" in html.replace("&lt;img", "<img")  # the title is still there, as text


def _tags(html: str) -> list[tuple[str, str]]:
    """Every start tag of ``html`` with its href."""
    from html.parser import HTMLParser

    found: list[tuple[str, str]] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, dict(attrs).get("href") or ""))

    Collect().feed(html)
    return found


def test_replace_in_refuses_an_html_page(tmp_path: Path) -> None:
    write_ledger(tmp_path, {"url": "https://a.org/x", "title": "A"})
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>Ice.[1]</p></body></html>\n")
    before = page.read_bytes()
    one_line_refusal(cli("render", "--replace-in", "page.html", cwd=tmp_path), "page.html")
    assert page.read_bytes() == before


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "data:text/html,<script>alert(1)</script>",
        "https://a.org/x\n# Injected heading",
        "https://a.org/\x07bell",
        "https://good.example@evil.example/",
        "https://evil.example\\@good.example/",
    ],
)
def test_a_hand_edited_ledger_with_an_unsafe_url_is_refused_when_read(
    url: str, tmp_path: Path
) -> None:
    path = write_ledger(tmp_path, {"url": url, "title": "T"})
    before = path.read_bytes()
    (tmp_path / "d.md").write_text("Ice floats on water.[1]\n\n## Sources\n\n[1] x\n")
    one_line_refusal(cli("verify", "d.md", cwd=tmp_path), "ledger.json", "sources[0].url")
    one_line_refusal(cli("convert", "d.md", "-o", "d.html", cwd=tmp_path), "sources[0].url")
    assert not (tmp_path / "d.html").exists()
    one_line_refusal(cli("add", "https://b.org/y", cwd=tmp_path), "sources[0].url")
    assert path.read_bytes() == before


def test_a_sources_py_entry_without_scheme_still_loads_but_is_not_publishable(
    tmp_path: Path,
) -> None:
    write_ledger(tmp_path, {"url": "example.com/page", "title": "Old"})
    assert cli("list", cwd=tmp_path).returncode == 0
    (tmp_path / "d.md").write_text(
        "Ice floats on water.[1]\n\n## Sources\n\n[1] example.com/page\n"
    )
    done = cli("convert", "d.md", "-o", "d.html", cwd=tmp_path)
    assert done.returncode == 1
    assert b"not-a-url" in done.stderr or b"not a URL" in done.stderr
    assert not (tmp_path / "d.html").exists()


def test_control_characters_in_a_quote_keep_pptx_notes_valid_xml(tmp_path: Path) -> None:
    from pptx import Presentation

    quote = {"text": "Ice \x07floats\x1b[31m on \x0bwater in \x9b winter.", "added": "2026-01-02"}
    write_ledger(tmp_path, {"url": "https://a.org/x", "title": "A", "quotes": [quote]})
    (tmp_path / "deck.md").write_text("## One\n\n- Ice floats on water in winter.[1]\n")
    done = cli("convert", "deck.md", "-o", "deck.pptx", "--slide-notes", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    notes = Presentation(str(tmp_path / "deck.pptx")).slides[0].notes_slide.notes_text_frame.text
    assert "Ice floats" in notes and "\x07" not in notes and "\x1b" not in notes


def test_ids_past_9999_are_citations(tmp_path: Path) -> None:
    sources = [{"id": 10_000, "url": "https://a.org/ten-thousand", "title": "Big"}]
    write_ledger(tmp_path, *sources, last_id=10_000)
    (tmp_path / "d.md").write_text("Ice floats on water.[10000] Lakes freeze too.[10001]\n")
    done = cli("convert", "d.md", "-o", "d.html", cwd=tmp_path)
    assert done.returncode == 1
    assert b"[10001]" in done.stderr
    (tmp_path / "d.md").write_text("Ice floats on water.[10000]\n")
    assert cli("convert", "d.md", "-o", "d.html", cwd=tmp_path).returncode == 0
    assert "https://a.org/ten-thousand" in (tmp_path / "d.html").read_text()


def test_ledger_full_at_the_last_id_markers_can_cite(tmp_path: Path) -> None:
    book = Ledger(tmp_path / "l.json", last_id=999_999)
    with pytest.raises(LedgerError, match="full"):
        book.add("https://a.org/x")


TERMINAL_TRAP = "Title \x1b[2J\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \x9b31m \u202eevil"


def test_list_add_and_render_never_print_terminal_control(tmp_path: Path) -> None:
    quote = {"text": "a quote \x1b[31m with \x9b1m codes in it", "added": "2026-01-02"}
    write_ledger(tmp_path, {"url": "https://a.org/x", "title": TERMINAL_TRAP, "quotes": [quote]})
    outputs = [
        cli("list", cwd=tmp_path),
        cli("list", "--json", cwd=tmp_path),
        cli("add", "https://a.org/x", cwd=tmp_path),
        cli("render", "--style", "evidence", cwd=tmp_path),
        cli("render", "--style", "bibtex", cwd=tmp_path),
    ]
    for done in outputs:
        assert done.returncode == 0, done.stderr
        text = (done.stdout + done.stderr).decode("utf-8")
        assert not any(ch in text for ch in "\x1b\x07\x9b\u202e"), text
    json.loads(outputs[1].stdout)  # still valid JSON


def test_a_read_only_ledger_is_neither_replaced_nor_emptied(tmp_path: Path) -> None:
    path = write_ledger(tmp_path, {"url": "https://a.org/x", "title": "A"})
    before = path.read_bytes()
    path.chmod(0o444)
    try:
        one_line_refusal(cli("add", "https://b.org/y", cwd=tmp_path), "read-only")
        one_line_refusal(cli("reset", cwd=tmp_path), "read-only")
        assert path.read_bytes() == before
    finally:
        path.chmod(0o644)


# Medium: URL identity ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://good.example@evil.example/", "user name"),
        ("https://evil.example\\@good.example/", "backslash"),
        ("https://a.org/\u202egnp.exe", "bidirectional"),
        ("https://a.org/x\u200by", "zero-width"),
        ("https://a.org/\x9bx", "control"),
        ("https://a.org:0/x", "port 0"),
        ("https://a.org/" + "x" * 8000, "characters long"),
    ],
    ids=["userinfo", "backslash", "bidi", "zero-width", "c1", "port-0", "8000-chars"],
)
def test_urls_a_browser_reads_differently_are_refused(url: str, why: str) -> None:
    with pytest.raises(BadURL, match=why):
        normalize_url(url)


def test_full_width_host_gets_the_same_id_and_homoglyphs_show_as_punycode() -> None:
    assert normalize_url("https://ｅｖｉｌ.com/a") == normalize_url("https://evil.com/a")
    assert normalize_url("https://\u0435vil.com/a").startswith("https://xn--")


def test_characters_that_end_links_in_markup_are_percent_encoded() -> None:
    url = normalize_url('https://a.org/p"q<r>s{t}u|v^w`x[y]z?k=a"b')
    assert not any(ch in url for ch in '"<>{}|^`[]')
    assert url == normalize_url(url)


# Medium: one line instead of a traceback --------------------------------------------------


@pytest.mark.parametrize("ident", ["²", "٣", "9" * 5000, "-1", "0"])
def test_odd_ids_are_one_line(ident: str, tmp_path: Path) -> None:
    write_ledger(tmp_path, {"url": "https://a.org/x", "title": "A"})
    (tmp_path / "page.txt").write_text("Ice floats on water in winter.")
    done = cli("quote", ident, "--text", "Ice floats on water", "--from", "page.txt", cwd=tmp_path)
    one_line_refusal(done, "-1" if ident == "-1" else "ledger id")
    one_line_refusal(cli("render", "--only", ident, cwd=tmp_path), ident[:5])


def test_argv_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    done = run_citeledger("add", b"https://a.org/\xff\xfe", cwd=tmp_path, text=False, timeout=60)
    one_line_refusal(done, "UTF-8")


@pytest.mark.parametrize(
    "payload",
    [
        b'[{"url": "https://a.org/\\ud800", "title": "x"}, '
        b'{"url": "https://b.org", "title": "\\udfff"}]',
        b'[{"url": "https://a.org/x", "n": ' + b"9" * 5000 + b"}]",
    ],
    ids=["lone-surrogate", "huge-number"],
)
def test_ingest_of_hostile_json_is_one_line_or_clean(payload: bytes, tmp_path: Path) -> None:
    done = cli("ingest", "-", cwd=tmp_path, stdin=payload)
    assert b"Traceback" not in done.stderr
    assert done.returncode in (0, 2)
    if done.returncode == 0:
        book = load_ledger(tmp_path / "ledger.json")
        for source in book.sources:
            source.title.encode("utf-8")
            source.url.encode("utf-8")


@pytest.mark.parametrize(
    "text",
    [
        '{"version": 1, "sources": [{"id": 1, "url": "https://a.org", "title": "\\ud800"}]}',
        '{"version": 1, "sources": [], "last_id": ' + "9" * 5000 + "}",
        '{"version": 1, "sources": [{"id": ' + "9" * 20 + ', "url": "https://a.org"}]}',
    ],
    ids=["lone-surrogate", "huge-number", "huge-id"],
)
def test_a_ledger_holding_hostile_json_is_one_line_for_every_command(
    text: str, tmp_path: Path
) -> None:
    (tmp_path / "ledger.json").write_text(text)
    (tmp_path / "d.md").write_text("Ice floats.[1]\n")
    for args in (["list"], ["add", "https://b.org"], ["verify", "d.md"], ["render"]):
        one_line_refusal(cli(*args, cwd=tmp_path), "ledger")
    assert (tmp_path / "ledger.json").read_text() == text


# Medium: bounded work ---------------------------------------------------------------------


def test_a_fifo_as_ledger_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "ledger.json")
    one_line_refusal(cli("list", cwd=tmp_path, timeout=60), "named pipe")
    one_line_refusal(cli("reset", cwd=tmp_path, timeout=60), "named pipe")


def test_dev_zero_as_ledger_or_evidence_is_refused(tmp_path: Path) -> None:
    one_line_refusal(cli("--ledger", "/dev/zero", "list", cwd=tmp_path, timeout=60), "device")
    write_ledger(tmp_path, {"url": "https://a.org/x"})
    done = cli("quote", "1", "--text", "a b c d", "--from", "/dev/zero", cwd=tmp_path, timeout=60)
    one_line_refusal(done, "device")


def _cpu_limited(seconds: int):
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))

    return limit


@pytest.mark.parametrize(
    "markup",
    ["<a" * 60_000, "</" * 60_000, "<a b='" * 20_000, "<!" * 60_000, "<title>" + "<" * 120_000],
    ids=["open-tags", "close-tags", "quotes", "declarations", "brackets"],
)
def test_hostile_html_evidence_is_read_in_linear_time(markup: str, tmp_path: Path) -> None:
    """A CPU-time ceiling, not a timing assertion: the old parser needed minutes here."""
    write_ledger(tmp_path, {"url": "https://a.org/x"})
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>Ice floats on water.</p>" + markup + "</body></html>")
    done = run_citeledger(
        *["quote", "1", "--text", "Ice floats on water", "--from", "page.html"],
        cwd=tmp_path,
        unset=OWN_VARS,
        text=False,
        preexec_fn=_cpu_limited(20),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.returncode != -signal.SIGXCPU


# Medium: hostile lengths and scripts ------------------------------------------------------


def test_a_huge_title_is_clipped_everywhere_it_shows(tmp_path: Path) -> None:
    title = "word " * 40_000  # 200,000 characters: more than one argument may hold, so ingest
    payload = json.dumps([{"url": "https://a.org/x", "title": title}]).encode()
    assert cli("ingest", "-", cwd=tmp_path, stdin=payload).returncode == 0
    stored = load_ledger(tmp_path / "ledger.json").sources[0].title
    assert len(stored) <= 2_000
    assert len(display_text(title, 300)) <= 300
    (tmp_path / "d.md").write_text("Ice floats on water.[1]\n")
    assert cli("convert", "d.md", "-o", "d.html", cwd=tmp_path).returncode == 0
    assert (tmp_path / "d.html").stat().st_size < 50_000


def test_an_8000_character_url_is_one_clear_line(tmp_path: Path) -> None:
    one_line_refusal(cli("add", "https://a.org/" + "x" * 8000, cwd=tmp_path), "characters long")


@pytest.mark.latex
def test_latin_extended_a_titles_compile_with_pdflatex(tmp_path: Path) -> None:
    from tests.helpers import require_tool

    require_tool("pdflatex")
    title = "Ħarbour ħ ĸ Ŀŀ ŉ Ŧŧ ſ and Āā Ćć Łł Ŋŋ Őő Žž"
    write_ledger(tmp_path, {"url": "https://a.org/x", "title": title})
    (tmp_path / "d.md").write_text("Ice floats on water.[1]\n")
    done = cli("convert", "d.md", "-o", "d.pdf", "--pdf-engine", "pdflatex", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "d.pdf").read_bytes().startswith(b"%PDF")


# Critical: outputs never overwrite inputs -------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_ledger(tmp_path, {"url": "https://a.org/x", "title": "A"})
    (tmp_path / "d.md").write_text("Ice floats on water in winter.[1]\n")
    return tmp_path


@pytest.mark.parametrize(
    ("output", "role"),
    [
        ("ledger.json", "the ledger"),
        (".citeledger-lock/ledger.json.lock", "lock"),
        ("d.md", "the draft"),
        ("link-to-ledger.json", "the ledger"),
        ("hard-link.md", "the draft"),
    ],
)
def test_convert_never_writes_over_its_inputs(output: str, role: str, project: Path) -> None:
    (project / ".citeledger-lock").mkdir()
    (project / ".citeledger-lock/ledger.json.lock").write_text("")
    (project / "link-to-ledger.json").symlink_to(project / "ledger.json")
    os.link(project / "d.md", project / "hard-link.md")
    before = {str(p): p.read_bytes() for p in project.rglob("*") if p.is_file()}
    done = cli("convert", "d.md", "-o", "d.html", "-o", output, cwd=project)
    one_line_refusal(done, output, role)
    after = {str(p): p.read_bytes() for p in project.rglob("*") if p.is_file()}
    assert after == before  # not even d.html: every output is checked before any work


def test_convert_refuses_a_folder_or_the_same_output_twice(project: Path) -> None:
    (project / "out.html").mkdir()
    one_line_refusal(cli("convert", "d.md", "-o", "out.html", cwd=project), "folder")
    done = cli("convert", "d.md", "-o", "a.html", "-o", "./a.html", cwd=project)
    one_line_refusal(done, "twice")


def _small_files(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_full_disk_during_convert_is_one_line_and_keeps_the_old_output(project: Path) -> None:
    (project / "d.html").write_text("the old output")
    done = run_citeledger(
        *["convert", "d.md", "-o", "d.html"],
        cwd=project,
        unset=OWN_VARS,
        text=False,
        preexec_fn=_small_files(1000),
        timeout=120,
    )
    line = one_line_refusal(done, "d.html", after_report=True)
    assert ".tmp" not in line and "/." not in line
    assert (project / "d.html").read_text() == "the old output"
    assert not [p for p in project.iterdir() if p.name.startswith(".")]


def test_a_full_disk_during_reset_is_one_line_and_keeps_the_old_ledger(project: Path) -> None:
    old = (project / "ledger.json").read_bytes()
    done = run_citeledger(
        "reset",
        cwd=project,
        unset=OWN_VARS,
        text=False,
        preexec_fn=_small_files(10),  # smaller than an empty ledger
        timeout=120,
    )
    one_line_refusal(done, "ledger.json", "intact")
    assert (project / "ledger.json").read_bytes() == old
    assert not [p for p in project.iterdir() if p.name.endswith(".tmp")]


def test_a_folder_nobody_can_write_is_one_line_for_reset_and_convert(project: Path) -> None:
    # Nothing can be created in /proc/1, not even by root (CI runs as root, which a chmod'ed
    # folder would not stop).
    one_line_refusal(cli("reset", "--ledger", "/proc/1/ledger.json", cwd=project), "/proc/1")
    done = cli("convert", "d.md", "-o", "/proc/1/d.html", cwd=project)
    # A system folder is refused before any work (issue 25), so before verify's report.
    one_line_refusal(done, "/proc/1/d.html")


@pytest.mark.parametrize("fmt", ["mediawiki", "dokuwiki", "gfm", "obsidian", "html"])
def test_a_bell_character_in_a_title_reaches_no_wiki_page(fmt: str, project: Path) -> None:
    write_ledger(project, {"url": "https://a.org/x", "title": "Ring \x07the bell \x1b[31m"})
    done = cli("wiki", "d.md", "-o", "site", "--format", fmt, cwd=project)
    assert done.returncode == 0, done.stderr
    pages = [p.read_text(encoding="utf-8") for p in (project / "site").iterdir()]
    assert any("Ring the bell" in page for page in pages)
    assert not any("\x07" in page or "\x1b" in page for page in pages)


def test_wiki_never_writes_through_a_symlink_in_the_output_folder(project: Path) -> None:
    outside = project / "outside.txt"
    outside.write_text("keep me")
    site = project / "site"
    site.mkdir()
    (site / "index.md").symlink_to(outside)
    done = cli("wiki", "d.md", "-o", "site", "--format", "gfm", cwd=project)
    assert done.returncode == 0, done.stderr
    assert outside.read_text() == "keep me"
    assert not (site / "index.md").is_symlink()
    assert "Introduction" in (site / "index.md").read_text()


def test_wiki_into_the_drafts_folder_refuses_to_overwrite_a_draft(tmp_path: Path) -> None:
    write_ledger(tmp_path, {"url": "https://a.org/x", "title": "A"})
    (tmp_path / "a.md").write_text("# A\n\nIce floats on water in winter.[1]\n")
    (tmp_path / "b.md").write_text("# B\n\nLakes freeze from the top down.[1]\n")
    before = {p: (tmp_path / p).read_bytes() for p in ("a.md", "b.md", "ledger.json")}
    done = cli("wiki", "a.md", "b.md", "-o", ".", "--format", "gfm", cwd=tmp_path)
    line = one_line_refusal(done, "draft", after_report=True)
    assert "refusing to overwrite" in line
    assert {p: (tmp_path / p).read_bytes() for p in before} == before


def test_a_full_disk_during_a_wiki_rebuild_keeps_every_old_page(project: Path) -> None:
    assert cli("wiki", "d.md", "-o", "site", "--format", "gfm", cwd=project).returncode == 0
    old = {p.name: p.read_bytes() for p in (project / "site").iterdir()}
    (project / "d.md").write_text("Ice floats on water in winter, as seen from far away.[1]\n")
    done = run_citeledger(
        *["wiki", "d.md", "-o", "site", "--format", "gfm"],
        cwd=project,
        unset=OWN_VARS,
        text=False,
        preexec_fn=_small_files(40),
        timeout=120,
    )
    assert done.returncode == 2 and b"Traceback" not in done.stderr, done.stderr
    assert {p.name: p.read_bytes() for p in (project / "site").iterdir()} == old


# Medium: wiki magic words and the draft's own cite-class links ----------------------------

MAGIC_URL = "https://a.org/~~~~/__NOTOC__/~~~/x?sig=~~~~~&sw=__NOEDITSECTION__&t=__toc__"
MAGIC_DATE = "{{subst:evil}} ~~~~ __NOTOC__ [[Category:Owned]]"


def _outside_nowiki(text: str) -> str:
    import re

    return re.sub(r"<nowiki>.*?</nowiki>", " ", text, flags=re.DOTALL)


@pytest.mark.parametrize("fmt", ["mediawiki", "dokuwiki"])
def test_signatures_and_magic_words_in_a_url_never_sign_or_switch_a_wiki_page(
    fmt: str, project: Path
) -> None:
    from urllib.parse import unquote

    title = "Sig ~~~~ and __NOTOC__ __TOC__ ~~~"
    write_ledger(project, {"url": MAGIC_URL, "title": title, "accessed": MAGIC_DATE})
    (project / "d.md").write_text(
        "# A\n\nIce floats on water in winter.[1] See [the page](https://b.org/~~~~/__TOC__)"
        " and <https://b.org/~~~/__NOTOC__>.\n"
    )
    done = cli("wiki", "d.md", "-o", "site", "--format", fmt, cwd=project)
    assert done.returncode == 0, done.stderr
    pages = [p.read_text(encoding="utf-8") for p in (project / "site").iterdir()]
    assert any("Sig ~~~~ and __NOTOC__" in page for page in pages)  # the title, as text
    for page in pages:
        bare = _outside_nowiki(page)
        assert "~~~" not in bare and "__" not in bare, bare
        assert "{{" not in bare and "[[Category" not in bare, bare
    joined = "\n".join(pages)
    encoded = MAGIC_URL.replace("~", "%7E").replace("__", "%5F%5F").replace("&", "&amp;")
    assert (encoded if fmt == "mediawiki" else encoded.replace("&amp;", "&")) in joined
    assert unquote(encoded.replace("&amp;", "&")) == MAGIC_URL  # the same address
    convert = cli("convert", "d.md", "-o", "d.wiki", cwd=project)
    assert convert.returncode == 0, convert.stderr
    bare = _outside_nowiki((project / "d.wiki").read_text(encoding="utf-8"))
    assert "~~~" not in bare and "__" not in bare, bare


def test_a_draft_link_carrying_the_cite_class_is_left_alone_in_chunkedhtml(
    project: Path,
) -> None:
    import re
    import zipfile

    from tests.helpers import require_writer

    require_writer("chunkedhtml")
    links = _corpus("draft_links")
    (project / "d.md").write_text(
        "# A\n\nIce floats on water in winter.[1] See " + ", ".join(links) + ".\n\n"
        "# B\n\nNothing cited here.\n"
    )
    done = cli("convert", "d.md", "-o", "site.zip", "--to", "chunkedhtml", cwd=project)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    with zipfile.ZipFile(project / "site.zip") as site:
        page = next(site.read(n).decode() for n in site.namelist() if n.endswith("-a.html"))
    hrefs = re.findall(r'href="([^"]*)"', page)
    for link in links:  # each of the draft's links keeps its own target
        found = re.search(r"\]\(([^)]*)\)", link)
        assert found is not None, link
        target = found.group(1)
        assert any(h == target or h.endswith(target) for h in hrefs), (target, hrefs)
    assert 'href="1-a.html#c0-src-1"' in page and 'id="c0-src-1"' in page


# Medium: pandoc dies with citeledger ------------------------------------------------------


def _slow_pandoc(folder: Path, writer: str) -> Path:
    """The real pandoc behind a script that first sleeps when asked to write ``writer``: the
    run a signal must cut short (and a grandchild, ``sleep``, that only a kill of the whole
    process group reaches)."""
    from citeledger.pandoc import pandoc_path

    script = folder / "slow-pandoc"
    script.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" -t {writer} "*) sleep 300 ;; esac\n'
        f'exec "{pandoc_path()}" "$@"\n'
    )
    script.chmod(0o755)
    return script


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
@pytest.mark.parametrize(
    ("command", "writer", "signum", "code"),
    [
        (["wiki", "big.md", "-o", "site", "--format", "mediawiki"], "mediawiki", "SIGTERM", 143),
        (["wiki", "big.md", "-o", "site", "--format", "mediawiki"], "mediawiki", "SIGINT", 130),
        (["convert", "big.md", "-o", "big.html"], "html", "SIGTERM", 143),
        # verify's read of the draft: started with posix_spawn, not subprocess (issue 33).
        (["verify", "big.md"], "json", "SIGTERM", 143),
        (["verify", "big.md"], "json", "SIGINT", 130),
    ],
    ids=["wiki-sigterm", "wiki-ctrl-c", "convert-sigterm", "verify-sigterm", "verify-ctrl-c"],
)
def test_stopping_citeledger_leaves_no_pandoc_running(
    command: list[str], writer: str, signum: str, code: int, project: Path
) -> None:
    import time
    import uuid

    sections = [
        f"# Part {k}\n\nIce floats on water in winter.[1] Lakes freeze from the top.[1]\n"
        for k in range(300)
    ]
    (project / "big.md").write_text("\n".join(sections))
    marker = uuid.uuid4().hex
    env = citeledger_env(
        unset=OWN_VARS,
        extra_env={
            "CITELEDGER_PANDOC": str(_slow_pandoc(project, writer)),
            "CITELEDGER_TEST_MARK": marker,
        },
    )
    proc = start_citeledger(*command, cwd=project, env=env)
    try:
        deadline = time.monotonic() + 120
        while not any(
            f"-t {writer}" in cmd and "sleep" not in cmd for _, cmd in marked_processes(marker)
        ):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the writer's pandoc never started"
            time.sleep(0.05)
        proc.send_signal(getattr(signal, signum))
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()  # waits, and closes the pipes a failed run would leave open
        for pid, _cmd in marked_processes(marker):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    text = err.decode("utf-8", "replace")
    assert proc.returncode == code, text
    assert "Traceback" not in text
    assert text.strip().splitlines()[-1] in ("citeledger: terminated", "citeledger: interrupted")
    time.sleep(0.2)
    assert marked_processes(marker) == []


# Medium: zip bombs ------------------------------------------------------------------------

CORPUS = FIXTURES / "injection.json"


def _zip_bomb(path: Path, member: str, inflated: int, declare: int | None) -> Path:
    """A real .docx whose ``member`` inflates to ``inflated`` bytes, declaring ``declare``
    bytes in both the local header and the central directory when given (a lying size)."""
    import struct
    import zipfile

    base = GOLDEN_ROOT / "verify" / "docx-footnotes" / "input.docx"
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == member:
                head, body, tail = data.partition(b"<w:body>")
                filler = b"<w:p><w:r><w:t>" + b"a" * inflated + b"</w:t></w:r></w:p>"
                data = head + body + filler + tail
            out.writestr(info.filename, data)
    if declare is not None:
        raw = bytearray(path.read_bytes())
        # (signature, offset of the name length, of the name, of the uncompressed size)
        for signature, length_at, name_at, size_at in (
            (b"PK\x03\x04", 26, 30, 22),
            (b"PK\x01\x02", 28, 46, 24),
        ):
            at = raw.find(signature)
            while at >= 0:
                (length,) = struct.unpack_from("<H", raw, at + length_at)
                if raw[at + name_at : at + name_at + length] == member.encode():
                    struct.pack_into("<I", raw, at + size_at, declare)
                at = raw.find(signature, at + 4)
        path.write_bytes(bytes(raw))
    return path


def _corpus(key: str) -> list[dict]:
    return json.loads(CORPUS.read_text(encoding="utf-8"))[key]


@pytest.mark.parametrize("bomb", _corpus("zip_bombs"), ids=lambda b: b["name"])
def test_a_zip_bomb_docx_is_refused_before_anything_inflates_it(bomb: dict, project: Path) -> None:
    path = _zip_bomb(project / "x.docx", bomb["member"], bomb["inflated"], bomb["declare"])
    assert path.stat().st_size < 400_000
    for args in (["verify", "x.docx"], ["convert", "x.docx", "-o", "x.md"], ["finish", "x.docx"]):
        line = one_line_refusal(cli(*args, cwd=project, timeout=60), "x.docx", bomb["member"])
        assert bomb["refusal"] in line and "get the document again" in line, line
    assert not (project / "x.md").exists()


def test_real_office_files_pass_the_zip_bomb_check() -> None:
    from citeledger.files import check_archive

    root = ROOT
    files = [
        p
        for pattern in ("tests/**/*.docx", "tests/**/*.odt", "citeledger/templates/*.*x")
        for p in root.glob(pattern)
    ]
    assert len(files) >= 6
    for path in files:
        check_archive(path)


# Found by the property test (tests/hostile/test_property.py) ------------------------------


def test_titles_in_org_and_rst_open_no_link_and_run_no_code(project: Path) -> None:
    title = (
        "src_sh{id} [[https://evil.example][x]] @@latex:\\input{/etc/passwd}@@ javascript:alert(1)"
    )
    write_ledger(project, {"url": 'https://a.org/x?q="<b>"', "title": title})
    done = cli("convert", "d.md", "-o", "d.org", "-o", "d.rst", cwd=project)
    assert done.returncode == 0, done.stderr
    org = (project / "d.org").read_text(encoding="utf-8")
    for live in ("src_sh{", "[[https://evil", "@@latex", "\\input"):
        assert live not in org, live
    assert title in " ".join(org.replace("\u200b", "").split())  # the same text to a reader
    rst = (project / "d.rst").read_text(encoding="utf-8")
    html = run_pandoc(["-f", "rst", "-t", "html"], stdin=rst).decode()
    assert "javascript:" not in "".join(href for _tag, href in _tags(html))
    assert 'href="https://a.org/x?q=%22%3Cb%3E%22"' in html


def test_a_hand_edited_access_date_is_shown_as_text(project: Path) -> None:
    accessed = "2024-05-01\x1b[2J\u202e<script>alert(1)</script>\x07"
    write_ledger(project, {"url": "https://a.org/x", "title": "A", "accessed": accessed})
    done = cli("convert", "d.md", "-o", "d.html", "-o", "d.docx", "-o", "d.epub", cwd=project)
    assert done.returncode == 0, done.stderr
    page = (project / "d.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;" in page and not any(ch in page for ch in "\x1b\x07\u202e")
    import xml.etree.ElementTree as ET
    import zipfile

    for name in ("d.docx", "d.epub"):
        with zipfile.ZipFile(project / name) as archive:
            for part in archive.namelist():
                if part.endswith((".xml", ".xhtml")):
                    ET.fromstring(archive.read(part))  # raises on a control character
