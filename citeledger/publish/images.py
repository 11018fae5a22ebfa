"""Remote images of a draft, fetched once per build so that pandoc and typst only see local files.

pandoc fetches an ``http(s)`` image itself when it writes a Word, PowerPoint or LaTeX PDF file
and stops with its raw HTTP exception when it cannot; typst cannot fetch at all. So a build
fetches each remote image once (http and https only, at most ``MAX_BYTES`` and
``TIMEOUT_SECONDS`` for the whole fetch, redirects included: a deadline, not a bound on each
read; into one temporary folder per build), points the image at the local copy,
and replaces an image it could not fetch by its alt text, with one warning line naming them.

A draft may come from someone else, and a fetched file ends up inside a delivered document:
so a host is fetched only when every address it resolves to is global (never loopback,
private, link-local such as a cloud metadata address, multicast or reserved), the connection
goes to the address that was checked (a second lookup cannot swap it), and every redirect is
checked again. A host the user names (``--allow-fetch-host``, ``citeledger.fetch-allow``) skips
the address check; ``--no-fetch`` (``citeledger.fetch: false``) fetches nothing.

The local files a draft names are confined apart (``confine.py``): a build reads them only in
the draft's folder and the ``--resource-path`` folders.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import ipaddress
import shutil
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..errors import FetchRefused
from ..tree import Inline, Inlines, PandocDoc, elements, replace_elements

MAX_BYTES = 20 * 1024 * 1024
TIMEOUT_SECONDS = 10.0
MAX_REDIRECTS = 5
REMOTE_SCHEMES = ("http", "https")
# What a fetched file must start with to be embedded: an HTML error page is not an image.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
)


def host_list(text: str | None) -> frozenset[str]:
    """``a.org, 127.0.0.1 b.org`` as lower-case host names."""
    if not text:
        return frozenset()
    return frozenset(h.strip().lower().strip("[]") for h in text.replace(",", " ").split())


def is_remote(url: str) -> bool:
    return urlsplit(url).scheme.lower() in REMOTE_SCHEMES


@dataclass
class Fetcher:
    """The build's remote images: one fetch per URL, kept in ``folder`` until :meth:`close`."""

    enabled: bool = True
    allowed: frozenset[str] = frozenset()
    max_bytes: int = MAX_BYTES
    timeout: float = TIMEOUT_SECONDS
    folder: Path | None = None
    fetched: dict[str, Path] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
    reported: set[str] = field(default_factory=set)  # refusals already warned about
    # Hosts that did not answer: their other images are not waited for again in this build.
    silent: dict[str, str] = field(default_factory=dict)

    def local(self, url: str) -> Path | None:
        """The local copy of ``url``, fetching it the first time; None when it cannot be had
        (the reason is kept in ``refused``)."""
        if url in self.fetched:
            return self.fetched[url]
        if url in self.refused:
            return None
        if not self.enabled:
            self.refused[url] = "fetching is off"
            return None
        try:
            data = self._get(url)
            suffix = image_suffix(data, url)
        except FetchRefused as exc:
            self.refused[url] = str(exc)
            return None
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="citeledger-images-"))
        name = hashlib.sha256(url.encode("utf-8")).hexdigest()[:24] + "." + suffix
        path = self.folder / name
        path.write_bytes(data)
        self.fetched[url] = path
        return path

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
        self.fetched.clear()

    # The fetch ----------------------------------------------------------------------------
    def _get(self, url: str) -> bytes:
        deadline = time.monotonic() + self.timeout
        for _hop in range(MAX_REDIRECTS + 1):
            parts = urlsplit(url)
            scheme = parts.scheme.lower()
            if scheme not in REMOTE_SCHEMES:
                raise FetchRefused(f"not http(s): {scheme or 'no scheme'}")
            host = (parts.hostname or "").lower()
            if not host:
                raise FetchRefused("no host")
            try:
                port = parts.port or (443 if scheme == "https" else 80)
            except ValueError:
                raise FetchRefused("bad port") from None
            if host in self.silent:
                raise FetchRefused(f"{host} did not answer earlier in this build")
            address = self._address(host, port, deadline)
            target = parts.path or "/"
            if parts.query:
                target += "?" + parts.query
            status, location, body = self._request(scheme, host, port, address, target, deadline)
            if status in (301, 302, 303, 307, 308) and location:
                url = urljoin(url, location)
                continue
            if status != 200:
                raise FetchRefused(f"HTTP {status}")
            return body
        raise FetchRefused(f"more than {MAX_REDIRECTS} redirects")

    def _address(self, host: str, port: int, deadline: float) -> str:
        """The address to connect to: checked to be global unless the user allowed the host."""
        try:
            infos = self._lookup(host, port, deadline)
        except (OSError, UnicodeError) as exc:
            why = getattr(exc, "strerror", None) or exc.__class__.__name__
            raise FetchRefused(f"cannot resolve {host}: {why}") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if not addresses:
            raise FetchRefused(f"cannot resolve {host}")
        if host not in self.allowed:
            for address in addresses:
                reason = non_global(address)
                if reason:
                    what = host if address == host else f"{host} resolves to {address}, which"
                    raise FetchRefused(
                        f"{what} is a {reason} address, fetched only with --allow-fetch-host {host}"
                    )
        return addresses[0]

    def _lookup(self, host: str, port: int, deadline: float) -> list[Any]:
        try:
            return _lookup_within(host, port, deadline - time.monotonic())
        except TimeoutError:
            raise FetchRefused(f"took longer than {self.timeout:g} s") from None

    def _request(
        self, scheme: str, host: str, port: int, address: str, target: str, deadline: float
    ) -> tuple[int, str | None, bytes]:
        left = deadline - time.monotonic()
        if left <= 0:
            raise FetchRefused(f"took longer than {self.timeout:g} s")
        conn: http.client.HTTPConnection
        if scheme == "https":
            conn = _PinnedHTTPS(host, port, address, left)
        else:
            conn = _PinnedHTTP(host, port, address, left)
        # The whole fetch has one deadline: a socket timeout bounds each read only, and a server
        # sending a byte every 2 s held a build for minutes. At the deadline a timer shuts the
        # socket down, which ends whatever read or handshake is waiting.
        watchdog = threading.Timer(left, conn.cut)
        watchdog.daemon = True
        watchdog.start()
        try:
            return self._exchange(conn, host, target, deadline)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if conn.was_cut or time.monotonic() >= deadline:
                self.silent[host] = f"took longer than {self.timeout:g} s"
                raise FetchRefused(f"took longer than {self.timeout:g} s") from None
            text = (str(exc).strip() or exc.__class__.__name__).splitlines()[0]
            if isinstance(exc, OSError):
                self.silent[host] = text
            raise FetchRefused(text) from None
        finally:
            watchdog.cancel()
            conn.close()

    def _exchange(
        self, conn: http.client.HTTPConnection, host: str, target: str, deadline: float
    ) -> tuple[int, str | None, bytes]:
        conn.request(
            "GET", target, headers={"User-Agent": "citeledger", "Accept": "image/*", "Host": host}
        )
        response = conn.getresponse()
        if response.status in (301, 302, 303, 307, 308):
            return response.status, response.getheader("Location"), b""
        if response.status != 200:
            return response.status, None, b""
        length = response.getheader("Content-Length")
        if length and length.isdigit() and int(length) > self.max_bytes:
            raise FetchRefused(f"larger than {self.max_bytes // (1024 * 1024)} MB")
        chunks: list[bytes] = []
        size = 0
        while True:
            if time.monotonic() > deadline:
                raise FetchRefused(f"took longer than {self.timeout:g} s")
            chunk = response.read1(65536)
            if not chunk:
                break
            size += len(chunk)
            if size > self.max_bytes:
                raise FetchRefused(f"larger than {self.max_bytes // (1024 * 1024)} MB")
            chunks.append(chunk)
        return 200, None, b"".join(chunks)


def _lookup_within(host: str, port: int, seconds: float) -> list[Any]:
    """``getaddrinfo`` bounded by ``seconds`` (it has no timeout of its own): the lookup runs
    in a thread, left behind when it takes too long."""
    answer: list[Any] = []
    failure: list[BaseException] = []

    def look() -> None:
        try:
            answer.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except BaseException as exc:  # told to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=look, name="citeledger-lookup", daemon=True)
    thread.start()
    thread.join(max(seconds, 0.0))
    if thread.is_alive():
        raise TimeoutError("the address lookup took too long")
    if failure:
        raise failure[0]
    return answer


class _Cuttable:
    """A connection whose socket another thread can shut down (the fetch's deadline)."""

    sock: socket.socket | None
    was_cut = False

    def cut(self) -> None:
        self.was_cut = True
        sock = self.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _PinnedHTTP(_Cuttable, http.client.HTTPConnection):
    """An HTTP connection to an address checked beforehand, whatever the name resolves to now."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(_Cuttable, http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._address = address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = raw  # the deadline can cut a handshake that dribbles too
        self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)


def non_global(address: str) -> str | None:
    """What kind of non-global address ``address`` is, or None for a global one."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return "unparsable"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for kind in ("loopback", "link-local", "private", "multicast", "reserved", "unspecified"):
        if getattr(ip, "is_" + kind.replace("-", "_")):  # ipaddress names each is_<kind>
            return kind
    return None if ip.is_global else "non-global"


def image_suffix(data: bytes, url: str) -> str:
    """The file suffix of an image by its first bytes; anything else is refused."""
    for magic, suffix in _MAGIC:
        if data.startswith(magic):
            return suffix
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    head = data[:2048].lstrip().lower()
    if head.startswith(b"<svg") or (head.startswith(b"<?xml") and b"<svg" in head):
        return "svg"
    if not data:
        raise FetchRefused("empty response")
    raise FetchRefused("not an image (PNG, JPEG, GIF, WebP or SVG)")


# The tree -----------------------------------------------------------------------------------


def remote_images(doc: PandocDoc) -> list[str]:
    urls = [el["c"][2][0] for el in elements(doc.get("blocks", [])) if el.get("t") == "Image"]
    return [u for u in dict.fromkeys(urls) if isinstance(u, str) and is_remote(u)]


def localize_images(
    doc: PandocDoc, fetcher: Fetcher, *, name: Callable[[Path], str] = str
) -> list[tuple[str, str]]:
    """Point every remote image of ``doc`` at its local copy (``name`` of the path), or replace
    it by its alt text; returns the (url, reason) of each image replaced."""
    urls = remote_images(doc)
    if not urls:
        return []
    for url in urls:
        fetcher.local(url)

    def change(el: Inline) -> Inlines | None:
        if el.get("t") != "Image":
            return None
        target = el["c"][2]
        url = target[0]
        if not isinstance(url, str) or not is_remote(url):
            return None
        path = fetcher.fetched.get(url)
        if path is not None:
            target[0] = name(path)
            return None
        return list(el["c"][1])

    replace_elements(doc["blocks"], change)
    return [(url, fetcher.refused[url]) for url in urls if url in fetcher.refused]


def refused_warning(
    draft: Path | str, refused: Iterable[tuple[str, str]], fetcher: Fetcher
) -> str | None:
    """One line for the images of a build not fetched, the first time each is met."""
    items = [(url, why) for url, why in refused if url not in fetcher.reported]
    fetcher.reported.update(url for url, _why in items)
    if not items:
        return None
    shown = "; ".join(f"{url} ({reason})" for url, reason in items[:5])
    more = f"; and {len(items) - 5} more" if len(items) > 5 else ""
    return (
        f"warn: {draft}: {len(items)} remote image(s) not fetched, written as their alt "
        f"text: {shown}{more}"
    )
