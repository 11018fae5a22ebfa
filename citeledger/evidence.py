"""Evidence files as text: what a quote is checked against.

The kind is chosen by content, because retrieval tools save pages under any name (``page.txt``
holding HTML, a PDF fetched to ``download``):

- PDF (``%PDF-`` in the first kilobyte): the text layer, through pypdf, imported only here and
  only for PDFs so the rest of the command line stays light. A PDF without a text layer (a scan)
  is an error that says to OCR it.
- HTML (a doctype, ``<html``, ``<head`` or ``<body`` near the start, or an .html name and a
  ``<`` at the start): the visible text only. script, style, noscript and template content is
  dropped (a quote the reader cannot see is no evidence), entities are decoded, and block
  elements become line breaks so words in adjacent blocks do not run together.
- anything else that decodes as text (UTF-8, a BOM-marked UTF-16, or cp1252): as it is.
  Markdown needs no conversion: the matcher sees through its markup.

The sha256 of the bytes read is returned with the text, so the ledger can record exactly which
evidence a quote was checked against.
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import BinaryIO

from .errors import EvidenceError

# Far above any fetched page (the matcher handles 50 MB in seconds), low enough that a wrong
# file (a disk image, a video) is refused before it fills memory.
MAX_BYTES = 200 * 1024 * 1024

_HTML_START = re.compile(
    rb"^(?:\xef\xbb\xbf)?\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|\?xml)",
    re.IGNORECASE | re.DOTALL,
)
_HTML_ANYWHERE = re.compile(rb"<(?:html|body)[\s>]", re.IGNORECASE)
_HTML_SUFFIXES = {".html", ".htm", ".xhtml", ".shtml"}
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


@dataclass(frozen=True)
class Evidence:
    text: str
    sha256: str
    origin: str
    kind: str  # "pdf", "html" or "text"


def read_evidence(
    source: str, *, stdin: BinaryIO | None = None, max_bytes: int = MAX_BYTES
) -> Evidence:
    """Read the evidence at ``source`` (a file name, or ``-`` for standard input) as text."""
    data = _read_bytes(source, stdin, max_bytes)
    digest = hashlib.sha256(data).hexdigest()
    name = "standard input" if source == "-" else source
    if b"%PDF-" in data[:1024]:
        return Evidence(_pdf_text(data, name), digest, source, "pdf")
    suffix = "" if source == "-" else Path(source).suffix.lower()
    if (
        _HTML_START.match(data[:4096])
        or _HTML_ANYWHERE.search(data[:65536])
        or (suffix in _HTML_SUFFIXES and data.lstrip()[:1] == b"<")
    ):
        return Evidence(html_to_text(_decode(data, name, html=True)), digest, source, "html")
    return Evidence(_decode(data, name, html=False), digest, source, "text")


def _read_bytes(source: str, stdin: BinaryIO | None, max_bytes: int) -> bytes:
    if source == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise EvidenceError(_too_large("standard input", max_bytes))
        return data
    path = Path(source)
    try:
        if path.is_dir():
            raise EvidenceError(f"evidence {source} is a folder", hint="pass the saved page file")
        size = path.stat().st_size
        if size > max_bytes:
            raise EvidenceError(_too_large(source, max_bytes))
        return path.read_bytes()
    except FileNotFoundError:
        raise EvidenceError(
            f"no evidence file {source}", hint="save the fetched page to a file first, or use -"
        ) from None
    except OSError as exc:
        raise EvidenceError(f"cannot read evidence {source}: {exc.strerror or exc}") from None


def _too_large(name: str, max_bytes: int) -> str:
    return (
        f"evidence {name} is larger than {max_bytes / (1024 * 1024):g} MB; "
        "save only the page text that holds the quote"
    )


def _decode(data: bytes, name: str, *, html: bool) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    if b"\x00" in data[:8192]:
        raise EvidenceError(
            f"evidence {name} is a binary file, not text, HTML or PDF",
            hint="save the page as text, HTML or PDF",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    declared = _CHARSET.search(data[:8192]) if html else None
    for encoding in ([declared.group(1).decode("ascii")] if declared else []) + ["cp1252"]:
        try:
            return data.decode(encoding)
        except (LookupError, UnicodeDecodeError):
            continue
    raise EvidenceError(
        f"evidence {name} is neither UTF-8 nor cp1252 text", hint="convert it to UTF-8 (iconv)"
    )


def _pdf_text(data: bytes, name: str) -> str:
    import io
    import logging

    try:
        from pypdf import PdfReader
    except ImportError:  # pragma: no cover - pypdf is a runtime dependency
        raise EvidenceError(
            f"evidence {name} is a PDF and pypdf is not installed", hint="pip install pypdf"
        ) from None
    # pypdf logs recoverable damage of real-world PDFs; the text is still usable.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise EvidenceError(
                f"evidence {name} is an encrypted PDF", hint="save a decrypted copy or its text"
            )
        text = "\n".join(page.extract_text() or "" for page in reader.pages)
    except EvidenceError:
        raise
    except Exception as exc:  # pypdf raises many kinds on damaged files
        raise EvidenceError(
            f"evidence {name} is a PDF that cannot be read ({type(exc).__name__}: {exc})",
            hint="save the page text instead",
        ) from None
    if not text.strip():
        raise EvidenceError(
            f"evidence {name} is a PDF without a text layer (a scan?)",
            hint="OCR it (e.g. ocrmypdf) or save the page text",
        )
    return text


_SKIP = frozenset({"script", "style", "noscript", "template"})
_BLOCK = frozenset(
    {
        *("address", "article", "aside", "blockquote", "br", "caption", "dd", "details"),
        *("dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "legend", "li", "main", "nav"),
        *("ol", "option", "p", "pre", "section", "summary", "table", "tbody", "tfoot"),
        *("thead", "title", "tr", "ul"),
    }
)
_CELL = frozenset({"td", "th"})
_INLINE_SPACE = re.compile(r"[ \t\f\v\r]+")
_BLANK_LINES = re.compile(r"\n\s*\n\s*")


class _VisibleText(HTMLParser):
    """Collects the text a browser would show, as lines."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skipping += 1
        elif tag in _BLOCK:
            self.parts.append("\n")
        elif tag in _CELL:
            self.parts.append("\t")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skipping = max(0, self.skipping - 1)
        elif tag in _BLOCK:
            self.parts.append("\n")
        elif tag in _CELL:
            self.parts.append("\t")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """The visible text of an HTML page, one block per line."""
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    text = _INLINE_SPACE.sub(" ", "".join(parser.parts))
    return _BLANK_LINES.sub("\n\n", text).strip()
