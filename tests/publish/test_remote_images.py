"""Remote images: fetched once per build by citeledger (never by pandoc), only from hosts whose
addresses are global or that the user allows by name, and written as their alt text, with one
warning line, when they cannot be had. The fetches go to a loopback server of the test's own
(allowed by name where a test wants it fetched) and to a refused port; nothing leaves the
machine."""

from __future__ import annotations

import json
import struct
import threading
import zipfile
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.helpers import require_writer, run_citeledger

LEDGER = {
    "version": 1,
    "sources": [{"id": 1, "url": "https://example.com/a", "title": "A", "accessed": "2026-01-01"}],
}


def png(width: int = 40, height: int = 20) -> bytes:
    raw = b"".join(b"\x00" + b"\x20\x80\xc0" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


class Server:
    def __init__(self) -> None:
        self.requests: list[str] = []
        served = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                served.requests.append(self.path)
                if self.path == "/blue.png":
                    body = png()
                    self.send_response(200)
                    self.send_header("Content-Type", "image/png")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                elif self.path == "/to-localhost.png":
                    self.send_response(302)
                    port = served.port
                    self.send_header("Location", f"http://localhost:{port}/blue.png")
                    self.end_headers()
                elif self.path == "/page.png":
                    body = b"<html><body>not an image</body></html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "image/png")
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    self.send_error(404)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        # A test that hangs must not leave the server running: it stops on its own.
        self.stopper = threading.Timer(300, self.httpd.shutdown)
        self.stopper.daemon = True

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@pytest.fixture
def server() -> Iterator[Server]:
    served = Server()
    served.thread.start()
    served.stopper.start()
    try:
        yield served
    finally:
        served.stopper.cancel()
        served.httpd.shutdown()
        served.httpd.server_close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "ledger.json").write_text(json.dumps(LEDGER), encoding="utf-8")
    return tmp_path


def draft(folder: Path, *urls: str) -> str:
    images = "\n\n".join(f"![a blue box number {i}]({url})" for i, url in enumerate(urls))
    text = f"# R\n\n{images}\n\nText.[1]\n\n## Sources\n\n[1] https://example.com/a — A\n"
    (folder / "r.md").write_text(text, encoding="utf-8")
    return "r.md"


def convert(folder: Path, *args: str):
    return run_citeledger("convert", *args, cwd=folder, timeout=300)


def media(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return [name for name in archive.namelist() if "/media/" in name]


def pdf_images(path: Path) -> int:
    return sum(len(page.images) for page in PdfReader(path).pages)


def pdf_text(path: Path) -> str:
    return " ".join("".join(p.extract_text() or "" for p in PdfReader(path).pages).split())


def test_an_allowed_host_is_fetched_once_for_every_output(folder: Path, server: Server) -> None:
    require_writer("typst")
    name = draft(folder, server.url("/blue.png"))
    outputs = ["-o", "r.pdf", "-o", "r.docx", "-o", "r.pptx"]
    done = convert(folder, name, *outputs, "--allow-fetch-host", "127.0.0.1")
    assert done.returncode == 0, done.stderr
    assert server.requests == ["/blue.png"]
    assert pdf_images(folder / "r.pdf") == 1
    assert len(media(folder / "r.docx")) == 1
    assert len(media(folder / "r.pptx")) == 1
    assert "warn" not in done.stderr


def test_loopback_is_never_fetched_unless_allowed(folder: Path, server: Server) -> None:
    require_writer("typst")
    name = draft(folder, server.url("/blue.png"), "http://169.254.169.254/latest/meta-data/")
    done = convert(folder, name, "-o", "r.pdf", "-o", "r.docx", "-o", "r.pptx")
    assert done.returncode == 0, done.stderr
    assert server.requests == []  # neither citeledger nor pandoc asked
    assert media(folder / "r.docx") == [] and media(folder / "r.pptx") == []
    assert pdf_images(folder / "r.pdf") == 0
    assert "a blue box number 0" in pdf_text(folder / "r.pdf")
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warn:")]
    assert len(warnings) == 1, done.stderr
    assert "loopback" in warnings[0] and "169.254.169.254 is a link-local address" in warnings[0]


def test_a_redirect_is_checked_again(folder: Path, server: Server) -> None:
    require_writer("typst")
    name = draft(folder, server.url("/to-localhost.png"))
    done = convert(folder, name, "-o", "r.pdf", "--allow-fetch-host", "127.0.0.1")
    assert done.returncode == 0, done.stderr
    assert server.requests == ["/to-localhost.png"]
    assert "localhost resolves to" in done.stderr and "loopback" in done.stderr
    assert pdf_images(folder / "r.pdf") == 0


def test_offline_images_become_their_alt_text_in_pptx_docx_and_pdf(folder: Path) -> None:
    require_writer("typst")
    name = draft(folder, "http://127.0.0.1:1/gone.png")  # a port nothing listens on
    outputs = ["-o", "r.pptx", "-o", "r.docx", "-o", "r.pdf"]
    done = convert(folder, name, *outputs, "--allow-fetch-host", "127.0.0.1")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warn:")]
    assert len(warnings) == 1 and "http://127.0.0.1:1/gone.png" in warnings[0], done.stderr
    assert "requestHeaders" not in done.stderr
    assert "a blue box number 0" in pdf_text(folder / "r.pdf")
    with zipfile.ZipFile(folder / "r.pptx") as archive:
        slides = "".join(
            archive.read(n).decode("utf-8") for n in archive.namelist() if "slides/slide" in n
        )
    assert "a blue box number 0" in slides


def test_no_fetch_asks_no_one_and_a_page_is_not_an_image(folder: Path, server: Server) -> None:
    require_writer("typst")
    name = draft(folder, server.url("/blue.png"))
    done = convert(folder, name, "-o", "r.pdf", "--allow-fetch-host", "127.0.0.1", "--no-fetch")
    assert done.returncode == 0, done.stderr
    assert server.requests == []
    assert "fetching is off" in done.stderr
    name = draft(folder, server.url("/page.png"))
    done = convert(folder, name, "-o", "r.docx", "--allow-fetch-host", "127.0.0.1")
    assert done.returncode == 0, done.stderr
    assert "not an image" in done.stderr
    assert media(folder / "r.docx") == []
