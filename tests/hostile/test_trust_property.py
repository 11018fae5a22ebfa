"""Issue 35's property: a draft nobody vouched for is data, whatever it holds.

Drafts are drawn by a seeded generator (``CITELEDGER_PROPERTY_SEED`` draws another batch) from
raw blocks and inlines of every format pandoc writes raw (TeX, typst, OOXML, ODF, RTF, roff, and
HTML under every html-family name), links and images whose targets hide a live scheme, and front
matter keys that name URLs, files, code or citeledger's trusted options. Each draft is built by
one ``citeledger convert`` to every output (html, html4, revealjs, slidy, s5, dzslides, epub,
docx, pptx, odt, the default PDF, LaTeX, markdown) and by ``citeledger wiki`` to HTML pages,
under ``strace -f -e trace=openat``. For every draft:

- a draft holding raw code (anything but HTML) is refused in one line naming ``--trust-draft``,
  and nothing is written;
- no process of the build opens a file of the test's folder outside the draft's folder (a
  secret beside it, a planted ``../citeledger.toml``, a private .bib);
- the loopback server every URL of the draft names sees no request;
- every HTML page, opened in chromium with the network closed, runs none of the draft's
  scripts, asks the loopback server for nothing but an image by address (no script, style
  sheet, frame or font) and holds no ``javascript:`` link or event handler.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import CITELEDGER, citeledger_env, need

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SEED = int(os.environ.get("CITELEDGER_PROPERTY_SEED", "20261206"))
DRAFTS = 6
CHROMIUM = "/usr/bin/chromium"
SECRET = "SECRET-0b5e"
OUTPUTS = [
    ("d.html", "html"),
    ("d4.html", "html4"),
    ("reveal.html", "revealjs"),
    ("slidy.html", "slidy"),
    ("s5.html", "s5"),
    ("dz.html", "dzslides"),
    ("d.epub", None),
    ("d.docx", None),
    ("d.pptx", None),
    ("d.odt", None),
    ("d.pdf", None),
    ("d.tex", None),
    ("out.md", None),
]
HTML_NAMES = ["html", "html4", "html5", "revealjs", "s5", "slidy", "slideous", "dzslides", "epub"]
CODE_NAMES = ["latex", "tex", "context", "typst", "openxml", "opendocument", "rtf", "ms", "man"]


def html_payloads(url: str) -> list[str]:
    return [
        "<script>window.pwned=1</script>",
        f'<img src="{url}/img.png" onerror="window.pwned=2">',
        f'<iframe src="{url}/frame"></iframe>',
        '<a href="&#1;javascript:window.pwned=3">a</a>',
        f'<link rel="stylesheet" href="{url}/s.css">',
        "<svg><script>window.pwned=4</script></svg>",
        f'<object data="{url}/o"></object>',
        '<div style="background:url(javascript:x)">s</div>',
        f'<form action="{url}/f"><button formaction="javascript:window.pwned=5">b</button></form>',
    ]


def code_payloads(outside: Path, url: str) -> list[str]:
    return [
        f"\\input{{{outside}/secret.txt}}",
        "\\csname directlua\\endcsname{io.open('x')}",
        f'#read("{outside}/secret.txt")',
        f'#image("{url}/t.png")',
        f"<w:fldSimple w:instr='INCLUDETEXT \"{outside}/secret.txt\"'/>",
        f"<text:section><text:section-source xlink:href='{outside}/secret.txt'/></text:section>",
        f'{{\\field{{\\*\\fldinst INCLUDEPICTURE "{url}/p"}}}}',
        f".so {outside}/secret.txt",
    ]


def link_payloads(url: str) -> list[str]:
    return [
        "[a](<&#1;javascript:window.pwned=6>)",
        "[b](java&#x09;script:window.pwned=7)",
        "[c](&#x20;JaVaScRiPt:window.pwned=8)",
        "[d](vbscript:x)",
        "[e](data:text/html,<script>window.pwned=9</script>)",
        f"![f]({url}/remote.png)",
        "[g]{#card-1} [h]{#src-1} [i]{#citeledgerCards}",
        "[j]{onclick=window.pwned=10}",
    ]


def front_matter(outside: Path, url: str) -> list[str]:
    return [
        f"revealjs-url: {url}/reveal",
        f"slidy-url: {url}/slidy",
        f"s5-url: {url}/s5",
        f"css: {url}/evil.css",
        "mainfont: 'x;} body{display:none} @import url(" + url + "/f);'",
        "document-css: true",
        "header-includes: '<script>window.pwned=11</script>'",
        "include-before: '<script>window.pwned=12</script>'",
        f"logo: {outside}/secret.png",
        f"cover-image: {outside}/secret.png",
        f"title: 'T ![t]({url}/title.png)'",
        f"abstract: 'A ![a]({url}/abstract.png)'",
        f"citeledger: {{ledger: {outside}/ledger.json, fetch-allow: 127.0.0.1, "
        "pdf-engine: lualatex, trusted-html: true, trust-draft: true}",
        "citeledger.evidence: false",
        f"epub-cover-image: {outside}/secret.png",
        f"template: {outside}/t.html",
    ]


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108020000009077"
    "53de0000000c49444154789c63f8cfc0000003010100c9fe92ef0000000049454e44ae426082"
)
LEDGER = {
    "version": 1,
    "sources": [
        {
            "id": 1,
            "url": "https://example.org/ice",
            "title": "Ice",
            "accessed": "2026-01-01",
            "quotes": [{"text": "Ice floats on water", "added": "2026-01-01"}],
        }
    ],
}


class Loopback:
    def __init__(self) -> None:
        self.requests: list[str] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                seen.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(PNG)))
                self.end_headers()
                self.wfile.write(PNG)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def server() -> Iterator[Loopback]:
    served = Loopback()
    try:
        yield served
    finally:
        served.httpd.shutdown()
        served.httpd.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    exe = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    need(sync_playwright is not None and exe is not None, "chromium and playwright")
    assert sync_playwright is not None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        yield b
        b.close()


def draw(rng: random.Random, outside: Path, url: str, code: bool) -> str:
    keys = rng.sample(front_matter(outside, url), 6)
    body = ["# Report", "", "Ice floats on water, as the measurements show.[1]", ""]
    pieces = [*rng.sample(link_payloads(url), 4)]
    for payload in rng.sample(html_payloads(url), 4):
        name = rng.choice(HTML_NAMES)
        pieces.append(f"```{{={name}}}\n{payload}\n```")
    pieces.append(rng.choice(html_payloads(url)))  # bare raw HTML in the text
    if code:
        name = rng.choice(CODE_NAMES)
        payload = rng.choice(code_payloads(outside, url))
        block = rng.random() < 0.5
        pieces.append(f"```{{={name}}}\n{payload}\n```" if block else f"`{payload}`{{={name}}}")
    rng.shuffle(pieces)
    body += [p + "\n" for p in pieces]
    body += ["## Sources", "", "[1] https://example.org/ice — Ice", ""]
    return "---\n" + "\n".join(keys) + "\n---\n\n" + "\n".join(body)


def traced(args: list[str], cwd: Path, log: Path) -> subprocess.CompletedProcess[str]:
    env = citeledger_env(unset=("CITELEDGER", "HERMES"), ledger=cwd / "ledger.json")
    env["HOME"] = str(cwd.parent / "home")
    return subprocess.run(
        ["strace", "-f", "-qq", "-e", "trace=openat,open,execve", "-o", str(log), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def opened_outside(log: Path, root: Path, draft_dir: Path) -> list[str]:
    """Files under the test's folder, outside the draft's, that a process of the build opened
    (an attempt that failed counts too: the path was asked for)."""
    out = []
    for line in log.read_text(errors="replace").splitlines():
        for path in re.findall(r'"([^"]+)"', line):
            if not path.startswith(str(root)):
                continue
            p = Path(path)
            home = root / "home"  # the user's own settings and caches (pandoc's, fontconfig's)
            if p in (draft_dir, root, home) or draft_dir in p.parents or home in p.parents:
                continue
            out.append(line)
    return out


def html_pages(folder: Path) -> list[Path]:
    pages = [folder / name for name, _ in OUTPUTS if name.endswith(".html")]
    pages += sorted((folder / "wiki").glob("*.html"))
    epub = folder / "d.epub"
    if epub.exists():
        unpacked = folder / "epub"
        with zipfile.ZipFile(epub) as archive:
            for name in archive.namelist():
                if name.endswith((".xhtml", ".html")):
                    target = unpacked / Path(name).name
                    target.parent.mkdir(exist_ok=True)
                    target.write_bytes(archive.read(name))
                    pages.append(target)
    return [p for p in pages if p.exists()]


def nothing_runs(browser: Any, page_path: Path) -> None:
    asked: list[str] = []
    context = browser.new_context()

    def refuse(route: Any) -> None:
        # An image by address is what an HTML page is (the reader's browser loads it, as
        # any page's); a script, a style sheet, a frame or a font from the draft is not.
        if route.request.resource_type != "image":
            asked.append(route.request.url)
        route.abort()

    context.route("http://*/**", refuse)
    context.route("https://*/**", refuse)
    dialogs: list[str] = []
    page = context.new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(page_path.as_uri())
        page.wait_for_load_state("load")
        page.wait_for_timeout(200)
        assert page.evaluate("window.pwned") is None, page_path
        live = page.evaluate(
            "[...document.querySelectorAll('[href],[src],[action],[formaction]')]"
            ".map(e => e.href || e.src || e.action || e.formAction || '')"
            ".filter(u => /^\\s*(javascript|vbscript|data:text)/i.test(u))"
        )
        assert live == [], (page_path, live)
        handlers = page.evaluate(
            "[...document.querySelectorAll('*')].flatMap(e => [...e.attributes])"
            ".filter(a => /^on/i.test(a.name)).map(a => a.name)"
        )
        assert handlers == [], (page_path, handlers)
        assert dialogs == [], (page_path, dialogs)
        assert not [u for u in asked if "127.0.0.1" in u], (page_path, asked)
    finally:
        context.close()


def test_an_untrusted_draft_is_data_in_every_output(
    tmp_path: Path, server: Loopback, browser: Any
) -> None:
    need(shutil.which("strace") is not None, "strace")
    rng = random.Random(SEED)
    built = refused = 0
    for k in range(DRAFTS):
        root = tmp_path / f"case{k}"
        outside = root / "outside"
        folder = root / "draft"
        for d in (outside, folder, root / "home"):
            d.mkdir(parents=True)
        (outside / "secret.txt").write_text(SECRET)
        (outside / "secret.png").write_bytes(PNG)
        (outside / "ledger.json").write_text(json.dumps(LEDGER))
        (folder / "ledger.json").write_text(json.dumps(LEDGER))
        code = k % 3 == 2
        (folder / "d.md").write_text(draw(rng, outside, server.url, code), encoding="utf-8")
        args = [*CITELEDGER, "convert", "d.md"]
        for name, to in OUTPUTS:
            args += ["-o", name] + (["-t", to] if to else [])
        done = traced(args, folder, root / "convert.strace")
        assert "Traceback" not in done.stderr, done.stderr
        leaks = opened_outside(root / "convert.strace", root, folder)
        assert leaks == [], leaks[:5]
        if code:
            lines = [ln for ln in done.stderr.splitlines() if ln.startswith("citeledger: error")]
            assert done.returncode == 2 and len(lines) == 1, done.stderr
            assert "--trust-draft" in lines[0]
            assert not any((folder / name).exists() for name, _ in OUTPUTS)
            refused += 1
            continue
        assert done.returncode == 0, done.stderr
        wiki = [*CITELEDGER, "wiki", "d.md", "-t", "html", "-o", "wiki"]
        done = traced(wiki, folder, root / "wiki.strace")
        assert done.returncode == 0, done.stderr
        assert opened_outside(root / "wiki.strace", root, folder) == []
        for written, _ in OUTPUTS:
            data = (folder / written).read_bytes()
            assert SECRET.encode() not in data, written
            if written.endswith((".docx", ".pptx", ".odt", ".epub")):
                with zipfile.ZipFile(folder / written) as archive:
                    for member in archive.namelist():
                        assert SECRET.encode() not in archive.read(member), (written, member)
        for page in html_pages(folder):
            nothing_runs(browser, page)
        built += 1
    assert server.requests == []
    print(f"\n{built} drafts built to {len(OUTPUTS)} outputs and a wiki, {refused} refused")
    assert built and refused
