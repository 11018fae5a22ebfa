"""``--resolve``: a grounding redirect is asked once where it leads, and the ledger stores the
page's own URL; one that cannot be followed is kept with a warning. A real HTTP server on this
machine stands in for the redirect service."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from citeledger.importers.detect import read_answer
from citeledger.importers.draft import register
from citeledger.importers.resolve import make_resolver
from citeledger.ledger import load_ledger

from .test_providers import ANSWERS

LANDED = "https://www.example.org/page?utm_source=gemini"


class _Redirects(BaseHTTPRequestHandler):
    asked: list[str] = []

    def _answer(self) -> None:
        _Redirects.asked.append(f"{self.command} {self.path}")
        if self.path.startswith("/grounding-api-redirect/"):
            self.send_response(302)
            self.send_header("Location", LANDED)
        elif self.command == "HEAD":
            self.send_response(405)
        else:
            self.send_response(404)
        self.end_headers()

    do_HEAD = do_GET = _answer

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Redirects)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Redirects.asked = []
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_redirect_is_asked_once_and_not_followed(server: str) -> None:
    said: list[str] = []
    resolve = make_resolver(said.append)
    url = server + "/grounding-api-redirect/AWQVqAJ6"
    assert resolve(url) == LANDED
    assert resolve(url) == LANDED
    assert _Redirects.asked == ["HEAD /grounding-api-redirect/AWQVqAJ6"]
    assert said == []


def test_an_address_that_does_not_redirect_is_kept_and_said(server: str) -> None:
    said: list[str] = []
    url = server + "/gone"
    assert make_resolver(said.append)(url) == url
    assert said and "could not resolve" in said[0] and "404" in said[0]


def test_resolved_redirects_are_stored_as_the_pages_own_urls(tmp_path: Path, server: str) -> None:
    path = ANSWERS / "gemini.json"
    answer = read_answer(path, "auto", lambda p: p.read_text(encoding="utf-8"))
    said: list[str] = []
    resolver = make_resolver(said.append)
    # Each redirect of the answer asks the local server, by the redirect's own path.
    base = "https://vertexaisearch.cloud.google.com"

    def via_server(url: str) -> str:
        return resolver(server + url[len(base) :])

    done = register(answer, tmp_path / "l.json", where="gemini.json", resolve=via_server)
    book = load_ledger(tmp_path / "l.json")
    assert [s.url for s in book.sources] == ["https://www.example.org/page"]
    assert not any("expires" in w for w in done.warnings)
    assert json.loads((tmp_path / "l.json").read_text())["sources"][0]["title"] == "inmet.gov.br"
