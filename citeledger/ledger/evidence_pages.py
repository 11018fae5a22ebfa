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

import re
import sys
from pathlib import Path

from ..errors import EvidenceError
from .files import read_file, read_stream
from .light import pattern, record, sha256_hex

# Read by type checkers only: ``typing`` is no cost of a quick verb (``ledger/light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

# Far above any fetched page (the matcher handles 50 MB in seconds), low enough that a wrong
# file (a disk image, a video) is refused before it fills memory.
MAX_BYTES = 200 * 1024 * 1024

_HTML_START = pattern(
    rb"^(?:\xef\xbb\xbf)?\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|\?xml)",
    re.IGNORECASE | re.DOTALL,
)
_HTML_ANYWHERE = pattern(rb"<(?:html|body)[\s>]", re.IGNORECASE)
_HTML_SUFFIXES = {".html", ".htm", ".xhtml", ".shtml"}
_CHARSET = pattern(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


@record(frozen=True)
class Evidence:
    text: str
    sha256: str
    origin: str
    kind: str  # "pdf", "html" or "text"
    # The bytes read, when ``text`` is exactly their UTF-8 reading (``sha256`` is then the
    # digest of the text's UTF-8 too): the evidence trail keeps them without encoding again.
    # (A plain field: ``light.record`` has no repr/compare switches, and two readings of the
    # same bytes compare equal either way.)
    utf8: bytes | None = None

    @property
    def encoded(self) -> tuple[bytes, str] | None:
        """The text's UTF-8 bytes and their sha256, when they are at hand."""
        return None if self.utf8 is None else (self.utf8, self.sha256)


def read_evidence(
    source: str, *, stdin: BinaryIO | None = None, max_bytes: int = MAX_BYTES
) -> Evidence:
    """Read the evidence at ``source`` (a file name, or ``-`` for standard input) as text."""
    data = _read_bytes(source, stdin, max_bytes)
    digest = sha256_hex(data)
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
    text, utf8 = _reading(data, name, html=False)
    # Read as UTF-8 without a BOM: the text's UTF-8 is the bytes read, hashed already.
    return Evidence(text, digest, source, "text", data if utf8 else None)


_TOO_LARGE_HINT = "save only the page text that holds the quote"


def _read_bytes(source: str, stdin: BinaryIO | None, max_bytes: int) -> bytes:
    if source == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        return read_stream(
            stream,
            limit=max_bytes,
            what="evidence on standard input",
            error=EvidenceError,
            hint=_TOO_LARGE_HINT,
        )
    return read_file(
        source,
        limit=max_bytes,
        what="evidence file",
        error=EvidenceError,
        too_large_hint=_TOO_LARGE_HINT,
        missing_hint="save the fetched page to a file first, or use -",
    )


def _decode(data: bytes, name: str, *, html: bool) -> str:
    return _reading(data, name, html=html)[0]


def _reading(data: bytes, name: str, *, html: bool) -> tuple[str, bool]:
    """The text of ``data``, and whether it is ``data`` read as UTF-8 without a BOM."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16"), False
        except UnicodeDecodeError:
            pass
    if b"\x00" in data[:8192]:
        raise EvidenceError(
            f"evidence {name} is a binary file, not text, HTML or PDF",
            hint="save the page as text, HTML or PDF",
        )
    try:
        return data.decode("utf-8-sig"), not data.startswith(b"\xef\xbb\xbf")
    except UnicodeDecodeError:
        pass
    declared = _CHARSET.search(data[:8192]) if html else None
    for encoding in ([declared.group(1).decode("ascii")] if declared else []) + ["cp1252"]:
        try:
            return data.decode(encoding), False
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
_INLINE_SPACE = pattern(r"[ \t\f\v\r]+")
_BLANK_LINES = pattern(r"\n\s*\n\s*")


_TAG_OPEN = pattern(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)")
_TAG_STOP = pattern(r"[>\"']")


def html_to_text(html: str) -> str:
    """The visible text of an HTML page, one block per line.

    A scanner of its own rather than ``html.parser``, which slows down quadratically on hostile
    markup (120 KB of unclosed tags took minutes): every step here moves forward with
    ``str.find`` or an anchored match, so the work is linear in the page. It reads as a browser
    does where it matters for evidence: comments, doctypes and the content of script, style,
    noscript and template are not text; a tag left open at the end of the page swallows the
    rest; entities are decoded."""
    from html import unescape  # loaded for HTML evidence only

    parts: list[str] = []
    pos = 0
    n = len(html)
    while pos < n:
        lt = html.find("<", pos)
        if lt < 0:
            parts.append(unescape(html[pos:]))
            break
        if lt > pos:
            parts.append(unescape(html[pos:lt]))
        if html.startswith("<!--", lt):
            end = html.find("-->", lt + 4)
            pos = n if end < 0 else end + 3
            continue
        if html.startswith(("<!", "<?"), lt):
            end = html.find(">", lt + 2)
            pos = n if end < 0 else end + 1
            continue
        tag = _TAG_OPEN.match(html, lt)
        if tag is None:
            parts.append("<")
            pos = lt + 1
            continue
        pos = _tag_end(html, tag.end())
        name = tag.group(2).lower()
        if not tag.group(1) and name in _SKIP:
            close = re.compile(rf"</{name}[\s/>]", re.IGNORECASE).search(html, pos)
            pos = n if close is None else _tag_end(html, close.end() - 1)
        elif name in _BLOCK:
            parts.append("\n")
        elif name in _CELL:
            parts.append("\t")
    text = _INLINE_SPACE.sub(" ", "".join(parts))
    return _BLANK_LINES.sub("\n\n", text).strip()


def _tag_end(html: str, start: int) -> int:
    """Where the tag whose attributes start at ``start`` ends (after its ``>``): quoted
    attribute values may hold ``>``; the page's end when the tag never closes."""
    pos = start
    while True:
        stop = _TAG_STOP.search(html, pos)
        if stop is None:
            return len(html)
        if stop.group() == ">":
            return stop.end()
        close = html.find(stop.group(), stop.end())
        if close < 0:
            return len(html)
        pos = close + 1
