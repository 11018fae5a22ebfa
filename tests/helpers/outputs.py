"""Every build of one draft, read back as text: what a reader of each delivered file sees. A
fix to how a draft is read holds only when verify and every output agree, so a test asks them
all at once (HTML links, Word notes, the pptx Sources slide, the wiki, the bare filter)."""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from .run import run_citeledger, run_filter

_XML_TEXT = re.compile(r"<a:t>([^<]*)</a:t>|<w:t(?: [^>]*)?>([^<]*)</w:t>")


@dataclass(frozen=True)
class Built:
    """The text of each output of one draft (see :func:`build_all`)."""

    html: str
    word_body: str
    word_notes: str
    deck: list[str]
    wiki: str
    filtered: str


def _xml_text(data: bytes) -> str:
    # A shown URL's zero-width spaces are where Word may break it, not part of its text.
    text = " ".join(a or b for a, b in _XML_TEXT.findall(data.decode("utf-8")))
    return text.replace("\u200b", "")


def build_all(draft: Path, ledger: Path, *, from_format: str | None = None) -> Built:
    """Convert ``draft`` to html, docx and pptx in one run, publish it as a gfm wiki, and run
    the bare filter to html: each must exit 0."""
    cwd = draft.parent
    reader = ["-f", from_format] if from_format else []
    outs = [cwd / "out.html", cwd / "out.docx", cwd / "out.pptx"]
    args: list[str] = ["convert", "-q", *reader, str(draft)]
    for out in outs:
        args += ["-o", str(out)]
    done = run_citeledger(*args, cwd=cwd, ledger=ledger)
    assert done.returncode == 0, done.stderr
    wiki = cwd / "wiki"
    done = run_citeledger(
        "wiki", "-q", *reader, str(draft), "-o", str(wiki), cwd=cwd, ledger=ledger
    )
    assert done.returncode == 0, done.stderr
    pages = "\n".join(p.read_text(encoding="utf-8") for p in sorted(wiki.rglob("*.md")))
    filtered = run_filter(*reader, str(draft), "-t", "html", cwd=cwd, ledger=ledger)
    assert filtered.returncode == 0, filtered.stderr
    with zipfile.ZipFile(outs[1]) as z:
        body = _xml_text(z.read("word/document.xml"))
        notes = (
            _xml_text(z.read("word/footnotes.xml")) if "word/footnotes.xml" in z.namelist() else ""
        )
    with zipfile.ZipFile(outs[2]) as z:
        names = sorted(
            (n for n in z.namelist() if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)),
            key=lambda n: int(re.findall(r"\d+", n)[0]),
        )
        deck = [_xml_text(z.read(n)) for n in names]
    return Built(
        html=outs[0].read_text(encoding="utf-8"),
        word_body=body,
        word_notes=notes,
        deck=deck,
        wiki=pages,
        filtered=filtered.stdout,
    )


def verify(draft: Path, ledger: Path, *extra: str) -> tuple[int, str]:
    """``citeledger verify`` of ``draft``: its exit code and everything it printed."""
    done = run_citeledger("verify", *extra, str(draft), cwd=draft.parent, ledger=ledger)
    return done.returncode, done.stdout + done.stderr
