"""Issue 35, the draft as data: a draft nobody vouched for runs no raw code, sets only what a
reader sees through its front matter, makes the gate only stricter, fetches nothing through
pandoc, cannot take citeledger's ids and cannot crash a verb by nesting; ``--trust-draft`` (the
filter: ``CITELEDGER_TRUST_DRAFT=1``; a project file inside the repository) gives the author's
own draft back everything."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from citeledger.pandoc import pandoc_path
from tests.helpers import run_citeledger

LEDGER = {
    "version": 1,
    "sources": [
        {
            "id": 1,
            "url": "https://example.org/ice",
            "title": "Ice",
            "accessed": "2026-01-01",
            "quotes": [{"text": "Ice floats on water", "added": "2026-01-01"}],
        },
        {
            "id": 2,
            "url": "https://example.org/sea",
            "title": "Sea",
            "accessed": "2026-01-01",
            "quotes": [],
        },
    ],
}
BODY = "Ice floats on water, as the measurements show.[1]\n"
SECRET = "SECRET-7d1e"


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    env.update(extra)
    return env


def cli(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, env=clean_env(**extra), timeout=300)


def one_line(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    here = tmp_path / "draft"
    here.mkdir()
    (here / "ledger.json").write_text(json.dumps(LEDGER))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (outside / "private.bib").write_text("@book{k, title={" + SECRET + "}, year=2000}\n")
    (outside / "ledger.json").write_text(json.dumps(LEDGER))
    return here


class Loopback:
    """A server on 127.0.0.1 that records every request and answers each with a PNG."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                seen.append(self.path)
                body = SECRET.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"


@pytest.fixture
def server() -> Iterator[Loopback]:
    served = Loopback()
    served.thread.start()
    try:
        yield served
    finally:
        served.httpd.shutdown()
        served.httpd.server_close()


def write(folder: Path, text: str, name: str = "d.md") -> str:
    (folder / name).write_text(text, encoding="utf-8")
    return name


# High 1: the PDF engine named by the front matter, and raw TeX that reads and writes files.


def test_front_matter_pdf_engine_and_raw_lua_are_refused_naming_the_line(folder: Path) -> None:
    draft = write(
        folder,
        "---\ntitle: T\nciteledger: {pdf-engine: lualatex}\n---\n\n"
        + BODY
        + "\n\\csname directlua\\endcsname{io.open('x')}\n",
    )
    done = cli("convert", draft, "-o", "d.pdf", cwd=folder)
    one_line(done, "d.md:8", "raw", "--trust-draft")
    assert not (folder / "d.pdf").exists()


def test_front_matter_cannot_choose_the_pdf_engine(folder: Path) -> None:
    draft = write(folder, "---\ntitle: T\nciteledger: {pdf-engine: lualatex}\n---\n\n" + BODY)
    done = cli("convert", draft, "-o", "d.pdf", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "citeledger.pdf-engine dropped" in done.stderr
    # typst wrote it: no LaTeX engine's producer line in the PDF.
    assert b"LuaTeX" not in (folder / "d.pdf").read_bytes()


@pytest.mark.parametrize(
    "raw",
    [
        '```{=typst}\n#read("../outside/secret.txt")\n```',
        "```{=latex}\n\\input{../outside/secret.txt}\n```",
        "`\\read16 to \\x`{=tex}",
        "`\\index{\\input{../outside/secret.txt}}`{=latex}",
        "`\\index{^^5cinput{../outside/secret.txt}}`{=latex}",
        "```{=context}\n\\input ../outside/secret.txt\n```",
        "```{=openxml}\n<w:fldSimple w:instr='INCLUDETEXT \"../outside/secret.txt\"'/>\n```",
        "```{=openxml}\n<w:fldSimple w:instr='DDEAUTO c:\\\\windows\\\\cmd.exe'/>\n```",
        "```{=opendocument}\n<text:section><text:section-source "
        "xlink:href='../outside/secret.txt'/></text:section>\n```",
        '```{=rtf}\n{\\field{\\*\\fldinst INCLUDETEXT "x"}}\n```',
        "```{=ms}\n.so /etc/passwd\n```",
    ],
)
def test_raw_code_of_every_format_is_refused_in_one_line(raw: str, folder: Path) -> None:
    draft = write(folder, "# Report\n\n" + BODY + "\n" + raw + "\n")
    for out in ("d.docx", "d.html"):
        done = cli("convert", draft, "-o", out, cwd=folder)
        assert re.search(r"d\.md:[56]: raw ", one_line(done, "--trust-draft"))
        assert not (folder / out).exists()
    # verify runs none of it and keeps reading: the gate fails where the build would, with a
    # report (JSON too) naming the line and --trust-draft.
    checked = cli("verify", draft, "--format", "json", cwd=folder)
    assert checked.returncode == 1 and "Traceback" not in checked.stderr
    found = [f for f in json.loads(checked.stdout)["findings"] if f["code"] == "raw-code-untrusted"]
    assert len(found) == 1 and re.fullmatch(r".*d\.md:[56]", found[0]["location"]), found
    assert "--trust-draft" in found[0]["fix"]


def test_trust_draft_builds_the_authors_own_raw_tex(folder: Path) -> None:
    draft = write(folder, "# Report\n\n" + BODY + "\n`\\rule{1cm}{2pt}`{=latex}\n")
    one_line(cli("convert", draft, "-o", "d.tex", cwd=folder), "--trust-draft")
    done = cli("convert", draft, "-o", "d.tex", "--trust-draft", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "\\rule{1cm}{2pt}" in (folder / "d.tex").read_text()


def test_a_bare_layout_command_stays(folder: Path) -> None:
    draft = write(folder, "# Report\n\n" + BODY + "\n\\newpage\n\nMore text here.\n")
    done = cli("convert", draft, "-o", "d.tex", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "\\newpage" in (folder / "d.tex").read_text()


# High 3 and 5: raw HTML under a slide format's name, and a link hiding javascript: behind a
# character reference.

SLIDE_HTML = "".join(
    f"```{{={name}}}\n<script>window.pwned_{name}=1</script><img src=x onerror=alert(1)>\n```\n\n"
    for name in ("revealjs", "s5", "slidy", "slideous", "dzslides", "html4", "epub")
)
LINKS = (
    "[a](<&#1;javascript:alert(1)>) [b](java&#x09;script:alert(2)) "
    "[c](&#x20;JaVaScRiPt:alert(3)) [d](vbscript:x) ![e](javascript:alert(4))\n"
)
LIVE = re.compile(r"<script>window\.pwned|onerror|javascript:|vbscript:", re.IGNORECASE)


def _pages(path: Path) -> str:
    if path.suffix == ".epub":
        with zipfile.ZipFile(path) as archive:
            return "".join(
                archive.read(n).decode("utf-8")
                for n in archive.namelist()
                if n.endswith((".xhtml", ".html"))
            )
    if path.is_dir():
        return "".join(p.read_text("utf-8") for p in path.glob("*.html"))
    return path.read_text("utf-8")


@pytest.mark.parametrize(
    "out", ["d.html", "d.html4.html", "d.revealjs.html", "d.slidy.html", "d.s5.html", "d.epub"]
)
def test_raw_html_under_every_html_name_and_live_links_are_made_inert(
    out: str, folder: Path
) -> None:
    draft = write(folder, "# Report\n\n" + BODY + "\n" + SLIDE_HTML + LINKS)
    to = {"d.html4.html": "html4", "d.revealjs.html": "revealjs"}
    to |= {"d.slidy.html": "slidy", "d.s5.html": "s5"}
    args = ["-t", to[out]] if out in to else []
    done = cli("convert", draft, "-o", out, *args, cwd=folder)
    assert done.returncode == 0, done.stderr
    page = _pages(folder / out)
    assert not LIVE.search(page), LIVE.search(page)


def test_the_wiki_and_the_filter_make_slide_named_html_inert(folder: Path) -> None:
    draft = write(folder, "# Report\n\n" + BODY + "\n" + SLIDE_HTML + LINKS)
    done = cli("wiki", draft, "-t", "html", "-o", "wiki", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert not LIVE.search(_pages(folder / "wiki"))
    for fmt in ("html5", "revealjs"):
        run = subprocess.run(
            [pandoc_path(), draft, "-s", "-t", fmt, "--filter", "pandoc-citeledger"],
            cwd=folder,
            env=clean_env(CITELEDGER_LEDGER=str(folder / "ledger.json")),
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        assert not LIVE.search(run.stdout), LIVE.search(run.stdout)


# High 4: front matter variables naming URLs and files.


def test_front_matter_naming_urls_files_or_code_is_dropped_with_one_warning(
    folder: Path,
) -> None:
    draft = write(
        folder,
        "---\ntitle: Kept title\nlang: de\n"
        "revealjs-url: http://127.0.0.1:9/reveal\nslidy-url: http://127.0.0.1:9/slidy\n"
        "s5-url: http://127.0.0.1:9/s5\ncss: http://127.0.0.1:9/evil.css\n"
        "mainfont: 'x;} .citeledger-card{display:none} @import url(http://127.0.0.1:9/f);'\n"
        "document-css: true\nheader-includes: '<script>evil()</script>'\n"
        "include-before: '<script>evil()</script>'\ntemplate: ../outside/t.html\n"
        "logo: ../outside/secret.txt\n---\n\n# Report\n\n" + BODY,
    )
    for out, to in (("d.html", "html"), ("r.html", "revealjs"), ("s.html", "slidy")):
        done = cli("convert", draft, "-o", out, "-t", to, cwd=folder)
        assert done.returncode == 0, done.stderr
        warnings = [ln for ln in done.stderr.splitlines() if "dropped" in ln]
        assert len(warnings) == 1 and "revealjs-url" in warnings[0] and "css" in warnings[0]
        page = (folder / out).read_text("utf-8")
        assert "127.0.0.1:9" not in page and "evil()" not in page and "display:none" not in page
        assert "Kept title" in page and 'lang="de"' in page


def test_a_notebooks_own_metadata_is_dropped_without_a_warning(folder: Path) -> None:
    """pandoc gives a notebook's kernelspec and widget state as ``jupyter`` metadata: dropped
    (widget state may hold scripts) but not warned about, since no author wrote it; a key the
    author did write beside it is still named."""
    cells = [
        {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["# Ice\n\n", BODY]},
        {
            "cell_type": "markdown",
            "id": "b",
            "metadata": {},
            "source": ["## Sources\n\n[1] https://example.org/ice — Ice\n"],
        },
    ]
    widget = {"application/vnd.jupyter.widget-state+json": {"state": {"x": "<script>evil()"}}}
    book = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3"},
            "widgets": widget,
        },
        "cells": cells,
    }
    write(folder, json.dumps(book), "n.ipynb")
    done = cli("convert", "n.ipynb", "-o", "n.html", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "dropped" not in done.stderr and "jupyter" not in done.stderr
    assert "evil()" not in (folder / "n.html").read_text("utf-8")
    # Jupytext's header in a markdown draft is the same metadata; a key beside it still warns.
    write(folder, "---\njupyter:\n  kernelspec:\n    name: python3\nlogo: x.png\n---\n\n" + BODY)
    done = cli("verify", "d.md", cwd=folder)
    warnings = [ln for ln in done.stderr.splitlines() if "dropped" in ln]
    assert len(warnings) == 1 and "logo" in warnings[0] and "jupyter" not in warnings[0]


# High 6: pandoc fetches nothing the draft names.


def test_title_and_abstract_images_and_epub_raw_img_are_never_fetched_by_pandoc(
    folder: Path, server: Loopback
) -> None:
    draft = write(
        folder,
        f"---\ntitle: 'T ![t]({server.url('/title.png')})'\n"
        f"abstract: 'A ![a]({server.url('/abstract.png')})'\n---\n\n# Report\n\n"
        + BODY
        + f'\n<img src="{server.url("/raw.png")}">\n',
    )
    for out in ("d.docx", "d.epub", "d.odt", "d.pptx"):
        done = cli("convert", draft, "-o", out, cwd=folder)
        assert done.returncode == 0, done.stderr
        with zipfile.ZipFile(folder / out) as archive:
            assert not any(SECRET.encode() in archive.read(n) for n in archive.namelist())
    assert server.requests == []


def test_front_matter_fetch_allow_does_not_open_loopback(folder: Path, server: Loopback) -> None:
    draft = write(
        folder,
        "---\nciteledger: {fetch-allow: 127.0.0.1}\n---\n\n# Report\n\n"
        + BODY
        + f"\n![i]({server.url('/i.png')})\n",
    )
    done = cli("convert", draft, "-o", "d.docx", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "citeledger.fetch-allow dropped" in done.stderr
    assert server.requests == []


@pytest.mark.parametrize("key", ["bibliography", "csl"])
def test_bibliography_and_csl_urls_are_refused_and_never_fetched(
    key: str, folder: Path, server: Loopback
) -> None:
    draft = write(folder, f"---\n{key}: {server.url('/refs')}\n---\n\n# Report\n\n" + BODY)
    one_line(cli("verify", draft, cwd=folder), key, "--trust-draft")
    one_line(cli("convert", draft, "-o", "d.html", "-C", cwd=folder), key, "--trust-draft")
    assert server.requests == []


@pytest.mark.parametrize("path", ["../outside/private.bib", "{outside}/private.bib"])
def test_a_bibliography_outside_the_drafts_folder_is_refused(path: str, folder: Path) -> None:
    path = path.replace("{outside}", str(folder.parent / "outside"))
    draft = write(folder, f"---\nbibliography: {path}\n---\n\n# Report\n\n" + BODY)
    done = cli("convert", draft, "-o", "d.html", "-C", cwd=folder)
    one_line(done, "bibliography", "outside the draft's folder")
    assert SECRET not in done.stderr
    assert not (folder / "d.html").exists()


def test_a_bibliography_beside_the_draft_still_works(folder: Path) -> None:
    (folder / "refs.bib").write_text("@book{knuth, title={Digital Typography}, year=1999}\n")
    text = "---\nbibliography: refs.bib\n---\n\n# Report\n\n" + BODY + "\nSee @knuth.\n"
    draft = write(folder, text)
    done = cli("convert", draft, "-o", "d.html", "-C", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "Digital Typography" in (folder / "d.html").read_text("utf-8")


# Medium: the front matter loosens the project's gate or names the ledger.


def test_front_matter_cannot_loosen_the_projects_gate(folder: Path) -> None:
    (folder / ".git").mkdir()
    (folder / "citeledger.toml").write_text("evidence = true\nmin-coverage = 0.9\nstrict = true\n")
    text = "Ice floats.[2] The sea is wide and deep and it holds a lot of water today.\n"
    loose = "---\nciteledger: {evidence: false, min-coverage: 0, strict: false}\n---\n\n"
    draft = write(folder, loose + text)
    done = cli("verify", draft, "--ledger", "ledger.json", cwd=folder)
    assert done.returncode == 1, done.stderr
    done = cli("convert", draft, "-o", "d.html", "--ledger", "ledger.json", cwd=folder)
    assert done.returncode == 1 and not (folder / "d.html").exists(), done.stderr
    # Stricter is taken: a higher coverage than the project's fails the draft the project passes.
    (folder / "citeledger.toml").write_text("")
    write(folder, "---\nciteledger: {min-coverage: 0.9}\n---\n\n" + text)
    assert cli("verify", draft, "--ledger", "ledger.json", cwd=folder).returncode == 1


def test_front_matter_cannot_name_the_ledger(folder: Path) -> None:
    (folder.parent / "outside" / "ledger.json").write_text("{ not a ledger " + SECRET)
    draft = write(folder, "---\nciteledger: {ledger: ../outside/ledger.json}\n---\n\n" + BODY)
    done = cli("verify", draft, cwd=folder)
    # The outside "ledger" is no ledger: had it been read, the run would end with exit 2.
    assert done.returncode != 2, done.stderr
    assert "citeledger.ledger dropped" in done.stderr and SECRET not in done.stderr


# Medium: citeledger's ids are its own.


def test_a_draft_cannot_take_citeledgers_ids(folder: Path) -> None:
    draft = write(
        folder,
        "# Report\n\n"
        + BODY
        + "\n::: {#card-1}\nA made-up quote shown as evidence.\n:::\n\n"
        + "[jump]{#src-1} [off]{#citeledgerCards} [x]{#cite-1-1}\n",
    )
    done = cli("convert", draft, "-o", "d.html", cwd=folder)
    assert done.returncode == 0, done.stderr
    page = (folder / "d.html").read_text("utf-8")
    for own in ("card-1", "src-1", "cite-1-1"):
        assert page.count(f'id="{own}"') == 1, own  # citeledger's own, once
    assert 'id="citeledgerCards"' not in page
    assert 'id="draft-card-1"' in page and 'id="draft-src-1"' in page


# Medium: nesting depth.

DEEP = "> " * 500 + "deep\n"


def test_deep_nesting_is_one_line_in_every_verb(folder: Path) -> None:
    draft = write(folder, DEEP)
    for args in (
        ("verify", draft),
        ("convert", draft, "-o", "d.html"),
        ("wiki", draft, "-o", "wiki"),
        ("render", "--cited-in", draft),
    ):
        done = cli(*args, cwd=folder)
        one_line(done, "nested")
    run = subprocess.run(
        [pandoc_path(), draft, "-t", "html", "--filter", "pandoc-citeledger"],
        cwd=folder,
        env=clean_env(CITELEDGER_LEDGER=str(folder / "ledger.json")),
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode != 0 and "Traceback" not in run.stderr and "nested" in run.stderr


# Trust is given by the user, never by the draft.


def test_the_filter_refuses_raw_tex_unless_its_environment_trusts_the_draft(folder: Path) -> None:
    draft = write(
        folder,
        "---\nciteledger: {trust-draft: true}\nCITELEDGER_TRUST_DRAFT: 1\n---\n\n"
        + BODY
        + "\n`\\rule{1cm}{2pt}`{=latex}\n",
    )
    args = [pandoc_path(), draft, "-t", "latex", "--filter", "pandoc-citeledger"]
    ledger = str(folder / "ledger.json")
    run = subprocess.run(
        args, cwd=folder, env=clean_env(CITELEDGER_LEDGER=ledger), capture_output=True, text=True
    )
    assert run.returncode != 0 and "--trust-draft" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    trusted = clean_env(CITELEDGER_LEDGER=ledger, CITELEDGER_TRUST_DRAFT="1")
    run = subprocess.run(args, cwd=folder, env=trusted, capture_output=True, text=True)
    assert run.returncode == 0 and "\\rule{1cm}{2pt}" in run.stdout, run.stderr


def test_a_project_file_in_the_repository_trusts_its_drafts_and_one_above_does_not(
    folder: Path,
) -> None:
    draft = write(folder, "# Report\n\n" + BODY + "\n`\\rule{1cm}{2pt}`{=latex}\n")
    # Above the repository: a planted file vouches for nothing.
    (folder.parent / "citeledger.toml").write_text("trust-draft = true\n")
    repo = folder
    (repo / ".git").mkdir()
    inner = repo / "sub"
    inner.mkdir()
    done = cli("convert", "../" + draft, "-o", "d.tex", cwd=inner)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    # The search for project files stops at the repository (options/project.py): the planted
    # file is never read, so it cannot vouch.
    assert "raw latex" in done.stderr
    (repo / "citeledger.toml").write_text("trust-draft = true\n")
    done = cli("convert", draft, "-o", "d.tex", cwd=repo)
    assert done.returncode == 0, done.stderr
    # Front matter never vouches.
    write(folder, "---\nciteledger: {trust-draft: true}\n---\n\n" + BODY + "\n`\\x`{=latex}\n")
    (repo / "citeledger.toml").write_text("")
    one_line(cli("convert", draft, "-o", "d.tex", cwd=repo), "--trust-draft")
