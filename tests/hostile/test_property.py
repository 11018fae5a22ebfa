"""A property of every output: whatever titles, URLs, access dates and quotes a ledger holds, the
written files hold them as text.

Sources are drawn by a seeded generator (deterministic, so a failure reproduces; set
``CITELEDGER_PROPERTY_SEED`` to draw another batch) from the characters and sequences that are
code somewhere: every C0 and C1 control character, bidirectional and zero-width controls, TeX
``^^`` sequences and commands, typst code, wiki signatures and magic words, markdown and HTML,
XML that would close an element. Each batch is one ledger and one draft citing all of it, so each
format costs one pandoc run however many sources it carries. Through every output format of the
placement table (``filters/registry.py``), every ``citeledger wiki`` format and every
``render --style``, the test asserts:

- docx, pptx, odt, epub: every XML part parses; every external link is a ledger URL;
- html (and markdown, gfm, commonmark, rst, org, asciidoc and the render styles, rendered to
  HTML by pandoc): no element or attribute a title brought (no ``<script>``, ``<img>``, ``on...=``,
  ``javascript:`` link);
- LaTeX and BibTeX: no ``^^``, and no command the same document with plain titles lacks;
- typst: as many code sites (``#`` outside strings and escapes) as with plain titles;
- mediawiki and dokuwiki: outside ``<nowiki>``, no ``[[``, ``{{``, signature or magic word but
  the placement's own;
- nothing is written outside the output files and folders.

The number of cases (a hostile string through an output) is printed at the end of the test.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from citeledger.ledger.urls import stored_url_problem
from citeledger.pandoc import run_pandoc
from tests.helpers import OWN_VARS, run_citeledger

# One batch builds every output format (15 s and more): it runs with --slow and in CI.
pytestmark = pytest.mark.slow

SEED = int(os.environ.get("CITELEDGER_PROPERTY_SEED", "20260110"))
SOURCES = 48

# Every C0 and C1 control character and DEL, and the invisible characters that reorder or hide
# text; surrogates are left out (a ledger holding one is refused on load: test_hostile_sources).
CONTROLS = [chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)]]
INVISIBLE = list("\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e")
INVISIBLE += list("\u2060\u2066\u2067\u2068\u2069\ufeff\ufffe\uffff")
# Issue 25: the invisible operators, the Mongolian vowel separator and the tag characters
# that smuggle hidden ASCII.
INVISIBLE += list("\u180e\u2061\u2062\u2063\u2064\U000e0001\U000e0041\U000e007f")
PIECES = [
    # TeX
    "^^5c",
    "^^7binput^^7d",
    "^^^^005c",
    "^^M",
    "\\input{/etc/passwd}",
    "\\write18{id}",
    "\\immediate\\write",
    "\\catcode`\\^=7",
    "\\def\\x{y}",
    "\\makeatletter",
    "\\end{document}",
    "\\href{javascript:x}{y}",
    "$x^2$",
    "% comment",
    "#",
    "&",
    "~",
    "{",
    "}",
    "--",
    "''",
    "``",
    ",,",
    # typst
    "#set text(red)",
    '#read("/etc/passwd")',
    '#import "x.typ"',
    '#link("https://evil.example")[x]',
    "#{1 + 1}",
    '#eval("1")',
    "<label>",
    "@ref",
    "= Heading",
    "\\u{41}",
    "```raw```",
    # wiki
    "~~~",
    "~~~~",
    "~~~~~",
    "__NOTOC__",
    "__TOC__",
    "__FORCETOC__",
    "__NOEDITSECTION__",
    "__HIDDENCAT__",
    "__noindex__",
    "~~NOTOC~~",
    "~~NOCACHE~~",
    "{{subst:PAGENAME}}",
    "{{evil}}",
    "[[Category:Owned]]",
    "[[File:x.png]]",
    "<ref>r</ref>",
    "<nowiki>",
    "</nowiki>",
    "%%",
    "'''bold'''",
    "-{zh:x}-",
    "{|",
    "|}",
    # markdown
    "[click](javascript:alert(1))",
    "![](https://tracker.example/p.png)",
    "<https://evil.example>",
    "[^1]",
    "*em*",
    "**strong**",
    "`code`",
    "\n# Injected heading\n",
    "\n> quote",
    "| a | b |",
    "<!-- c -->",
    "\\",
    "&amp;",
    "&#x3C;script&#x3E;",
    "[1]",
    "[99]",
    # HTML
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg/onload=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "<iframe src=//evil.example>",
    '"><script>alert(1)</script>',
    "' onmouseover='alert(1)",
    "<style>*{}</style>",
    "<base href=//evil.example>",
    # XML
    "]]>",
    "</w:t>",
    "<w:p>",
    "</a:t>",
    '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
    "&e;",
    "<?xml version='1.0'?>",
    # scripts
    "中文标题",
    "العربية",
    "עברית",
    "🧊",
    "e\u0301",
    "Ħħ ſ",
    # paths
    "../../../tmp/owned",
    "/etc/passwd",
    "~/.ssh/id_rsa",
    # issue 25: what a hostile draft tries, carried in a title or quote instead
    "![key](/home/me/.ssh/id_ed25519.pub)",
    "![x](../outside/secret.png)",
    "![x](file:///etc/passwd)",
    "![x](%2E%2E/outside/secret.png)",
    "\\verbatiminput{/etc/passwd}",
    "\\lstinputlisting{/etc/passwd}",
    "\\openin5=/etc/passwd",
    "\\read16 to \\x",
    "\\directlua{os.execute('id')}",
    "\\includegraphics{/etc/hostname}",
    "<span dir=rtl onclick=steal()>",
    "[x]{onclick=a()}",
    "<details open ontoggle=alert(1)>",
    "--ledger=x.md",
    "-o /dev/null",
    "https://[2001:db8::1]/paper",
    "9" * 400,
]
# What a stored URL may hold (what a hand-edited ledger can carry past the load check).
URL_PIECES = [
    "~~~~",
    "__NOTOC__",
    "^^5cinput",
    "^^7b",
    "javascript:alert(1)",
    "<img/src=x/onerror=alert(1)>",
    '"onmouseover="alert(1)',
    "{{evil}}",
    "[[x]]",
    "|",
    "`",
    "'",
    "%25",
    "%0A",
    "#frag",
    "&amp;",
    ";",
    "$(id)",
    "*",
    "!",
    "(x)",
    "%%",
    "--",
    "..",
    "@",
    "中文",
]


@dataclass
class Batch:
    sources: list[dict]
    strings: int = 0  # hostile strings in the batch (titles, URLs, dates, quotes)
    outputs: list[str] = field(default_factory=list)


def _text(rng: random.Random, extra: list[str]) -> str:
    parts = [rng.choice(PIECES) for _ in range(rng.randint(2, 6))]
    parts += extra
    parts += [rng.choice(CONTROLS + INVISIBLE) for _ in range(rng.randint(0, 3))]
    rng.shuffle(parts)
    return " ".join(parts) if rng.random() < 0.5 else "".join(parts)


def _url(rng: random.Random, k: int) -> str:
    url = f"https://example.org/s{k}/"
    for piece in rng.sample(URL_PIECES, rng.randint(1, 5)):
        candidate = url + piece
        if stored_url_problem(candidate) is None:
            url = candidate
    return url


def draw(seed: int, count: int) -> Batch:
    """``count`` sources; every control and invisible character lands in some title and some
    quote."""
    rng = random.Random(seed)
    hidden = CONTROLS + INVISIBLE
    sources = []
    for k in range(1, count + 1):
        own = hidden[k - 1 :: count]  # a share of the controls for each source
        accessed = "2024-05-01" if rng.random() < 0.7 else _text(rng, [])
        quotes = [
            {"text": _text(rng, own), "added": "2024-05-02"} for _ in range(rng.randint(1, 2))
        ]
        sources.append(
            {
                "id": k,
                "url": _url(rng, k),
                "title": _text(rng, own),
                "accessed": accessed,
                "quotes": quotes,
            }
        )
    strings = sum(3 + len(s["quotes"]) for s in sources)
    return Batch(sources, strings)


def draft(batch: Batch) -> str:
    """A draft citing every source, in sections (wiki pages, chunks, slides)."""
    out = ["---\ntitle: Hostile property\n---\n"]
    per = 6
    for start in range(0, len(batch.sources), per):
        ids = [s["id"] for s in batch.sources[start : start + per]]
        out.append(f"# Part {start // per + 1}\n")
        for i in ids:
            out.append(f"- Ice floats on water in winter, as measured.[{i}]\n")
        out.append("")
    return "\n".join(out)


def plain_twin(batch: Batch) -> list[dict]:
    """The batch with every title, URL, date and quote made plain: what the same document looks
    like when nothing hostile is in it (the LaTeX and typst checks compare against it)."""
    return [
        {
            "id": s["id"],
            "url": f"https://example.org/s{s['id']}/plain",
            "title": f"Plain title {s['id']}",
            "accessed": "2024-05-01",
            "quotes": [{"text": "Ice floats on water.", "added": "2024-05-02"}],
        }
        for s in batch.sources
    ]


# The runs --------------------------------------------------------------------------------------

# (output name, extra convert arguments): every placement of filters/registry.py and the writers
# that share the default one. A run with several -o verifies once and writes them all.
CONVERT_RUNS: list[tuple[list[str], list[str]]] = [
    (
        [
            "out.docx",
            "out.pptx",
            "out.html",
            "out.tex",
            "out.typ",
            "out.md",
            "out.rst",
            "out.org",
            "out.wiki",
            "out.epub",
            "out.odt",
            "out.adoc",
            "out.pdf",
        ],
        ["--slide-notes"],
    ),
    (["gfm.md"], ["--to", "gfm"]),
    (["commonmark.md"], ["--to", "commonmark_x"]),
    (["dokuwiki.txt"], ["--to", "dokuwiki"]),
    (["native.wiki"], ["--wiki-refs", "native"]),
    (["beamer.tex"], ["--to", "beamer"]),
    (["context.tex"], ["--to", "context"]),
    (["chunked.zip"], ["--to", "chunkedhtml"]),
]
WIKI_FORMATS = ["mediawiki", "dokuwiki", "gfm", "obsidian", "html"]
RENDER_STYLES = ["markdown", "plain", "footnotes", "evidence", "bibtex"]


@dataclass
class Built:
    batch: Batch
    work: Path
    plain: Path
    rendered: dict[str, str]
    cases: dict[str, int] = field(default_factory=dict)

    def count(self, output: str) -> None:
        self.cases[output] = self.batch.strings


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return run_citeledger(*args, cwd=cwd, unset=OWN_VARS, text=False, timeout=600)


def _project(folder: Path, sources: list[dict], text: str) -> Path:
    folder.mkdir()
    ledger = {"version": 1, "sources": sources}
    (folder / "ledger.json").write_text(json.dumps(ledger), encoding="utf-8")
    (folder / "draft.md").write_text(text, encoding="utf-8")
    return folder


def _tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("property")
    batch = draw(SEED, SOURCES)
    text = draft(batch)
    work = _project(root / "work", batch.sources, text)
    plain = _project(root / "plain", plain_twin(batch), text)
    before, siblings = _tree(root), set(root.parent.iterdir())
    for outputs, extra in CONVERT_RUNS:
        args = [a for name in outputs for a in ("-o", name)]
        for folder in (work, plain):
            done = _cli("convert", "draft.md", *args, *extra, cwd=folder)
            assert done.returncode == 0, (outputs, done.stderr.decode("utf-8", "replace"))
    for fmt in WIKI_FORMATS:
        for folder in (work, plain) if fmt == "html" else (work,):  # html: the frame's own tags
            done = _cli("wiki", "draft.md", "-o", f"site-{fmt}", "--format", fmt, cwd=folder)
            assert done.returncode == 0, (fmt, done.stderr.decode("utf-8", "replace"))
    rendered = {}
    for style in RENDER_STYLES:
        done = _cli("render", "--style", style, cwd=work)
        assert done.returncode == 0, (style, done.stderr.decode("utf-8", "replace"))
        rendered[style] = done.stdout.decode("utf-8")
    made = {
        *(
            f"{folder}/{name}"
            for folder in ("work", "plain")
            for o, _ in CONVERT_RUNS
            for name in o
        ),
        *(f"work/site-{fmt}" for fmt in WIKI_FORMATS),
        "plain/site-html",
    }
    for path in _tree(root) - before:
        assert any(path == m or path.startswith(m + "/") for m in made), f"wrote {path}"
    assert set(root.parent.iterdir()) == siblings
    return Built(batch, work, plain, rendered)


# The checks ------------------------------------------------------------------------------------

# What no text output may show: C0 and C1 controls (tab, new line and carriage return aside) and
# the bidirectional controls that make a reader see other text than is there.
SHOWN_NEVER = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
LEDGER_URL = "https://example.org/s"


def no_hidden(text: str, where: str) -> None:
    found = SHOWN_NEVER.search(text)
    assert found is None, (
        f"{where}: {found.group(0)!r} near {text[max(0, found.start() - 60) : found.end() + 20]!r}"
    )


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each link."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.links: list[tuple[str, str]] = []  # (href, text)
        self.open: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        if tag == "a":
            self.open.append([self.tags[-1][1].get("href", "")])

    def handle_data(self, data: str) -> None:
        for link in self.open:
            link.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self.open:
            href, *text = self.open.pop()
            self.links.append((href, "".join(text)))


LIVE_TAGS = {"script", "img", "svg", "iframe", "style", "base", "object", "embed", "form", "math"}


def html_is_inert(page: str, plain: str | None, where: str) -> None:
    """No element or attribute from a title: dangerous tags as often as in the plain twin (pandoc's
    template has a ``<style>``), no event handler, no script URL, and no link off the ledger's
    URLs that hides where it goes (GFM makes a bare ``https://...`` in a title a link that shows
    its own address, as it does in any text)."""
    found, base = Tags(), Tags()
    found.feed(page)
    base.feed(plain if plain is not None else "")
    for tag in LIVE_TAGS:
        ours = sum(1 for t, _ in found.tags if t == tag)
        theirs = sum(1 for t, _ in base.tags if t == tag)
        assert ours <= theirs, f"{where}: <{tag}> from a title ({ours} against {theirs})"
    for tag, attrs in found.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), f"{where}: <{tag} {name}={value!r}>"
            if name in ("href", "src", "action", "formaction", "xlink:href"):
                target = value.strip().lower()
                assert not target.startswith(("javascript:", "data:", "vbscript:")), (where, value)
                if name != "href" and ("://" in target or target.startswith("//")):
                    assert value.startswith(LEDGER_URL), f"{where}: {tag} {name}={value!r}"
    for href, text in found.links:
        if "://" in href and not href.startswith(LEDGER_URL):
            assert text.strip() == href, f"{where}: <a href={href!r}>{text}</a>"


def markdown_is_inert(text: str, reader: str, where: str) -> None:
    html = run_pandoc(["-f", reader, "-t", "html"], stdin=text).decode("utf-8")
    html_is_inert(html, None, where)


_LATEX_COMMAND = re.compile(r"\\([A-Za-z]+)")
# The commands latex_text and bibtex_text write for a special character or a script.
ESCAPES = {
    "textbackslash",
    "textasciitilde",
    "textasciicircum",
    "textless",
    "textgreater",
    "textbar",
    "textquotedbl",
    "textasciigrave",
    "textquotesingle",
    "textbraceleft",
    "textbraceright",
    "string",
    "kern",
    "citeledgercjk",
    "citeledgerrtl",
    "citeledgerscript",
}


# What pandoc's ConTeXt writer writes for a special character.
CONTEXT_ESCAPES = {"ldots", "letterbackslash", "letterbar", "letterpercent", "lettertilde"}
CONTEXT_ESCAPES |= {"letterhash", "letterdollar", "letterunderscore", "letterampersand"}
CONTEXT_ESCAPES |= {"letterleftbrace", "letterrightbrace", "letterhat", "letterless", "lettermore"}


def latex_is_inert(
    tex: str, plain: str, where: str, *, carets: bool = True, escapes: frozenset[str] = frozenset()
) -> None:
    assert not carets or "^^" not in tex, f"{where}: ^^ reaches TeX"
    ours = set(_LATEX_COMMAND.findall(tex))
    allowed = set(_LATEX_COMMAND.findall(plain)) | ESCAPES | escapes
    assert ours <= allowed, f"{where}: commands from a title: {sorted(ours - allowed)}"
    for command in ("input", "write", "immediate", "catcode", "def", "include", "openin", "read"):
        mine = len(re.findall(rf"\\{command}(?![A-Za-z@])", tex))
        assert mine == len(re.findall(rf"\\{command}(?![A-Za-z@])", plain)), (where, command)


def _typst_code(text: str, urls: list[str]) -> int:
    """Code sites of a typst file: ``#`` not escaped by a backslash, once the URLs' string
    literals (which may hold a ``#``) are taken out, and each shown URL (a link of one box per
    piece it breaks between, ``filters.typst.url_link``: as many boxes as the URL has pieces)
    is counted as one plain link."""
    from citeledger.escape import typst_string
    from citeledger.filters.typst import url_link

    for url in sorted(urls, key=len, reverse=True):
        text = text.replace(url_link(url), '#link("")')
    for url in sorted(urls, key=len, reverse=True):
        text = text.replace(typst_string(url), '""')
    return len(re.findall(r"(?<!\\)(?:\\\\)*#", text))


def typst_is_inert(typ: str, plain: str, built: Built, where: str) -> None:
    ours = _typst_code(typ, [s["url"] for s in built.batch.sources])
    theirs = _typst_code(plain, [s["url"] for s in plain_twin(built.batch)])
    assert ours == theirs, f"{where}: {ours} code sites against {theirs} with plain titles"


_NOWIKI = re.compile(r"<nowiki>.*?</nowiki>", re.DOTALL)
MEDIAWIKI_OWN = [
    r"\[\[#src-\d+\|\[\d+\]\]\]",
    r'<span id="src-\d+">',
    r'<ref name="src-\d+"\s*/?>',
    r"</ref>|<references />",
    r"\[(https://example\.org/s\S*) \1\]",
]
DOKUWIKI_OWN = [r"\[\[#sources\|\[\d+\]\]\]", r"\[\[https://example\.org/s\S*?\]\]", r"%%.*?%%"]


def wiki_is_inert(text: str, own: list[str], live: list[str], where: str) -> None:
    bare = _NOWIKI.sub(" ", text)
    for pattern in own:
        bare = re.sub(pattern, " ", bare, flags=re.DOTALL)
    for token in live:
        at = bare.find(token)
        assert at < 0, f"{where}: {token!r} outside <nowiki>: {bare[at - 80 : at + 40]!r}"


# A link between the pages of a wiki build: its slug and the heading's text (the draft's).
PAGE_LINK = r"\[\[[a-z0-9-]+(?:#[\w-]+)?\|[^\[\]]*\]\]"
MEDIAWIKI_LIVE = ["[[", "{{", "~~~", "__", "<script", "<ref>", "'''", "http", "-{", "{|"]
DOKUWIKI_LIVE = ["[[", "{{", "~~", "<script", "<html", "<php", "http", "<nowiki"]


def _read(folder: Path, name: str) -> str:
    return (folder / name).read_text(encoding="utf-8")


def _xml_parts(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {
            n: archive.read(n)
            for n in archive.namelist()
            if n.endswith((".xml", ".rels", ".xhtml", ".opf", ".ncx"))
        }


# The tests -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["out.docx", "out.pptx", "out.odt", "out.epub"])
def test_office_and_epub_parts_are_valid_xml_linking_only_ledger_urls(
    built: Built, name: str
) -> None:
    parts = _xml_parts(built.work / name)
    assert parts
    for part, data in parts.items():
        tree = ET.fromstring(data)  # raises on invalid XML
        text = data.decode("utf-8")
        no_hidden(text, f"{name}:{part}")
        for el in tree.iter():
            tag = el.tag.rsplit("}", 1)[-1]
            assert tag not in ("script", "iframe", "object", "embed"), f"{name}:{part}: <{tag}>"
            if tag == "instrText":  # a field code: NOTEREF and its kin only
                assert re.fullmatch(r"\s*[A-Z]+[\w\s\\.\"-]*", el.text or ""), el.text
            if el.get("TargetMode") == "External":
                assert el.get("Target", "").startswith(LEDGER_URL), (name, part, el.get("Target"))
        if part.endswith(".xhtml"):
            plain = _xml_parts(built.plain / name).get(part, b"").decode("utf-8")
            html_is_inert(text, plain, f"{name}:{part}")
    built.count(name)


def test_html_holds_no_live_markup(built: Built) -> None:
    html_is_inert(_read(built.work, "out.html"), _read(built.plain, "out.html"), "out.html")
    no_hidden(_read(built.work, "out.html"), "out.html")
    built.count("html")
    with (
        zipfile.ZipFile(built.work / "chunked.zip") as site,
        zipfile.ZipFile(built.plain / "chunked.zip") as twin,
    ):
        for page in [n for n in site.namelist() if n.endswith(".html")]:
            text = site.read(page).decode("utf-8")
            no_hidden(text, page)
            plain = twin.read(page).decode("utf-8") if page in twin.namelist() else None
            html_is_inert(text, plain, f"chunked.zip:{page}")
    built.count("chunkedhtml")


@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("out.md", "markdown"),
        ("gfm.md", "gfm"),
        ("commonmark.md", "commonmark_x"),
        ("out.rst", "rst"),
    ],
)
def test_markup_outputs_render_without_live_markup(built: Built, name: str, reader: str) -> None:
    text = _read(built.work, name)
    no_hidden(text, name)
    markdown_is_inert(text, reader, name)
    built.count(name)


ORG_OWN = [
    r"\[\[#(?:src|cite)-[\d-]+\]\[[^\[\]]*\]\]",
    r"\[\[#(?:src|cite)-[\d-]+\]\[\[\d+\]\]\]",
    r"\[\[(https://example\.org/s[^\[\]\s]*)\](?:\[[^\[\]]*\])?\]",
    r"<<(?:src|cite)-[\d-]+>>",
]


def test_org_holds_no_link_snippet_fragment_or_babel_call(built: Built) -> None:
    """Checked as Org reads it (pandoc's org reader cannot read a lone backslash back)."""
    text = _read(built.work, "out.org")
    no_hidden(text, "out.org")
    bare = text
    for pattern in ORG_OWN:
        bare = re.sub(pattern, " ", bare)
    for live in ("[[", "@@", "{{{", "<<", "src_", "call_"):
        assert live not in bare, (live, bare[bare.find(live) - 80 : bare.find(live) + 40])
    assert not re.search(r"\\[A-Za-z]", bare), "a LaTeX fragment or entity"
    plain = _read(built.plain, "out.org")
    for start in ("#+", "*", "|", ":", "#", "-", "+"):
        ours = sum(1 for line in text.splitlines() if line.lstrip().startswith(start))
        theirs = sum(1 for line in plain.splitlines() if line.lstrip().startswith(start))
        assert ours == theirs, f"out.org: {ours} lines open with {start!r}, {theirs} in plain"
    built.count("out.org")


def test_asciidoc_holds_no_passthrough(built: Built) -> None:
    text = _read(built.work, "out.adoc")
    no_hidden(text, "out.adoc")
    for live in ("++++", "pass:[", "+++", "include::", "ifdef::"):
        assert text.count(live) == _read(built.plain, "out.adoc").count(live), live
    built.count("asciidoc")


@pytest.mark.parametrize("name", ["out.tex", "beamer.tex"])
def test_latex_holds_no_tex_code(built: Built, name: str) -> None:
    tex = _read(built.work, name)
    no_hidden(tex, name)
    latex_is_inert(tex, _read(built.plain, name), name)
    built.count(name)


def test_context_holds_no_tex_code(built: Built) -> None:
    """pandoc's ConTeXt writer leaves ``^`` as it is: ConTeXt (MkIV) typesets it in text, where
    ``^^`` is no escape."""
    tex = _read(built.work, "context.tex")
    no_hidden(tex, "context.tex")
    plain = _read(built.plain, "context.tex")
    latex_is_inert(tex, plain, "context.tex", carets=False, escapes=frozenset(CONTEXT_ESCAPES))
    built.count("context")


def test_typst_holds_no_code_and_reads_no_file(built: Built) -> None:
    from pypdf import PdfReader

    typ = _read(built.work, "out.typ")
    no_hidden(typ, "out.typ")
    typst_is_inert(typ, _read(built.plain, "out.typ"), built, "out.typ")
    pdf = " ".join(page.extract_text() for page in PdfReader(built.work / "out.pdf").pages)
    assert "root:" not in pdf and "Plain title" not in pdf
    built.count("typst")
    built.count("pdf")


@pytest.mark.parametrize(
    ("name", "own", "live"),
    [
        ("out.wiki", MEDIAWIKI_OWN, MEDIAWIKI_LIVE),
        ("native.wiki", MEDIAWIKI_OWN, MEDIAWIKI_LIVE),
        ("dokuwiki.txt", DOKUWIKI_OWN, DOKUWIKI_LIVE),
    ],
)
def test_wiki_outputs_keep_titles_and_urls_inert(
    built: Built, name: str, own: list[str], live: list[str]
) -> None:
    text = _read(built.work, name)
    no_hidden(text, name)
    wiki_is_inert(text, own, live, name)
    built.count(name)


@pytest.mark.parametrize("fmt", WIKI_FORMATS)
def test_every_wiki_page_keeps_titles_and_urls_inert(built: Built, fmt: str) -> None:
    pages = sorted(p for p in (built.work / f"site-{fmt}").rglob("*") if p.is_file())
    assert len(pages) > 3
    for page in pages:
        text = page.read_text(encoding="utf-8")
        where = f"site-{fmt}/{page.name}"
        no_hidden(text, where)
        if fmt == "mediawiki":
            wiki_is_inert(text, [*MEDIAWIKI_OWN, PAGE_LINK], MEDIAWIKI_LIVE, where)
        elif fmt == "dokuwiki":
            wiki_is_inert(text, [*DOKUWIKI_OWN, PAGE_LINK], DOKUWIKI_LIVE, where)
        elif fmt == "html":
            twin = built.plain / f"site-{fmt}" / page.relative_to(built.work / f"site-{fmt}")
            html_is_inert(text, twin.read_text(encoding="utf-8"), where)
        else:
            if fmt == "obsidian":
                bare = re.sub(r"\[\[#\^src-\d+\|\d+\]\]|\[\[[\w-]+(\|[^\]]*)?\]\]", " ", text)
                for token in ("[[", "%%", "==", "~~"):
                    assert not re.search(r"(?<!\\)" + re.escape(token), bare), (where, token)
            markdown_is_inert(text, "gfm", where)
    built.count(f"wiki {fmt}")


@pytest.mark.parametrize("style", RENDER_STYLES)
def test_every_render_style_keeps_titles_and_urls_inert(built: Built, style: str) -> None:
    text = built.rendered[style]
    no_hidden(text, f"render --style {style}")
    if style == "bibtex":
        assert "^^" not in text
        entries = re.split(r"\n(?=@misc\{)", text)
        assert len(entries) == len(built.batch.sources)
        for entry in entries:
            depth = 0
            for ch in re.sub(r"\\[{}%#&_$]", "", entry):
                depth += {"{": 1, "}": -1}.get(ch, 0)
                assert depth >= 0, entry
            assert depth == 0, entry
        commands = set(_LATEX_COMMAND.findall(text)) - ESCAPES - {"url"}
        assert not commands, commands
    else:
        block = "Ice floats.[^1]\n\n" + text if style == "footnotes" else text
        markdown_is_inert(block, "markdown", f"render --style {style}")
    built.count(f"render {style}")


def test_zz_report_the_case_count(built: Built, capsys: pytest.CaptureFixture[str]) -> None:
    total = sum(built.cases.values())
    with capsys.disabled():
        print(
            f"\nhostile property (seed {SEED}): {total} cases, {built.batch.strings} hostile "
            f"strings ({len(built.batch.sources)} sources) through {len(built.cases)} outputs"
        )
    assert total > 0
