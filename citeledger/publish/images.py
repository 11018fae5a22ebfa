"""Remote images of a draft, fetched once per build so that pandoc and typst only see local files.

pandoc fetches an ``http(s)`` image itself when it writes a Word, PowerPoint or LaTeX PDF file
and stops with its raw HTTP exception when it cannot; typst cannot fetch at all. So a build
fetches each remote image once (http and https only, at most ``MAX_BYTES`` and
``TIMEOUT_SECONDS``, into one temporary folder per build), points the image at the local copy,
and replaces an image it could not fetch by its alt text, with one warning line naming them.

A draft may come from someone else, and a fetched file ends up inside a delivered document:
so a host is fetched only when every address it resolves to is global (never loopback,
private, link-local such as a cloud metadata address, multicast or reserved), the connection
goes to the address that was checked (a second lookup cannot swap it), and every redirect is
checked again. A host the user names (``--allow-fetch-host``, ``citeledger.fetch-allow``) skips
the address check; ``--no-fetch`` (``citeledger.fetch: false``) fetches nothing.

The same step keeps a build from reading local files a draft names outside its folder and the
``--resource-path`` folders (images, an EPUB's cover and stylesheets, raw HTML sources, raw
TeX file commands): see :class:`Confinement`.
"""

from __future__ import annotations

import hashlib
import http.client
import ipaddress
import os
import re
import shutil
import socket
import ssl
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from ..errors import DraftError
from ..tree import Json, elements, replace_elements

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


class FetchRefused(Exception):
    """Why one image was not fetched, in words a warning line can carry."""


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
            address = self._address(host, port)
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

    def _address(self, host: str, port: int) -> str:
        """The address to connect to: checked to be global unless the user allowed the host."""
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
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
        try:
            conn.request(
                "GET",
                target,
                headers={"User-Agent": "citeledger", "Accept": "image/*", "Host": host},
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
                chunk = response.read(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > self.max_bytes:
                    raise FetchRefused(f"larger than {self.max_bytes // (1024 * 1024)} MB")
                chunks.append(chunk)
            return 200, None, b"".join(chunks)
        except (OSError, http.client.HTTPException) as exc:
            text = (str(exc).strip() or exc.__class__.__name__).splitlines()[0]
            if isinstance(exc, OSError):
                self.silent[host] = text
            raise FetchRefused(text) from None
        finally:
            conn.close()


class _PinnedHTTP(http.client.HTTPConnection):
    """An HTTP connection to an address checked beforehand, whatever the name resolves to now."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._address = address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
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


def remote_images(doc: Json) -> list[str]:
    urls = [el["c"][2][0] for el in elements(doc.get("blocks", [])) if el.get("t") == "Image"]
    return [u for u in dict.fromkeys(urls) if isinstance(u, str) and is_remote(u)]


def localize_images(
    doc: Json, fetcher: Fetcher, *, name: Callable[[Path], str] = str
) -> list[tuple[str, str]]:
    """Point every remote image of ``doc`` at its local copy (``name`` of the path), or replace
    it by its alt text; returns the (url, reason) of each image replaced."""
    urls = remote_images(doc)
    if not urls:
        return []
    for url in urls:
        fetcher.local(url)

    def change(el: Json) -> list[Json] | None:
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


# Local files ----------------------------------------------------------------------------------
#
# pandoc reads every local image into a Word, OpenDocument, EPUB or PowerPoint file, a LaTeX
# engine reads what raw TeX names: a draft written by someone else could carry the reader's
# ``~/.ssh/id_ed25519.pub`` out inside the delivered document. So a build reads local files
# only inside the draft's folder and the folders the user names (``--resource-path``), judged
# by the real path (a symlink inside the folder that leads out is refused too), and points
# each image at the file it checked, so pandoc's own search (which tries the working folder)
# reads nothing else.

# Raw TeX commands that read a file, with the path as their argument.
_TEX_READS = (
    "input",
    "include",
    "verbatiminput",
    "lstinputlisting",
    "VerbatimInput",
    "InputIfFileExists",
    "IfFileExists",
    "includegraphics",
    "includepdf",
    "includesvg",
    "subfile",
    "import",
    "openin",
)
# Raw TeX commands refused wherever they point: they read a stream or run code.
_TEX_REFUSED = ("read", "readline", "directlua", "luaexec", "latelua", "write18", "ShellEscape")
_TEX_COMMAND = re.compile(r"\\(" + "|".join(_TEX_READS + _TEX_REFUSED) + r")(?![A-Za-z@])")
# After the command: a star, optional [..] arguments, a stream number and "=" for \openin,
# then a {braced} path or a bare one up to a space or a backslash.
_TEX_ARGUMENT = re.compile(
    r"\*?\s*(?:\[[^\]]*\]\s*)*(?:\\[A-Za-z@]+\s*=?\s*|\d+\s*=?\s*)?(?:\{([^{}]*)\}|([^\s{}\\%]+))"
)
# Where pandoc reads files for an EPUB besides images: its cover and stylesheets.
_EPUB_META_FILES = ("cover-image", "epub-cover-image", "css", "stylesheet", "epub-fonts")
_HTML_SRC = re.compile(
    r"""\b(?:src|href|poster|data)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I
)


class ResourceRefused(DraftError):
    """A file a draft names outside the folders a build may read."""


@dataclass
class Confinement:
    """The folders a build may read files from: the draft's own first, then the user's."""

    draft: Path
    folders: tuple[Path, ...]
    embeds: bool = False  # pandoc is told to embed resources into text outputs too

    @classmethod
    def for_draft(
        cls, draft: Path, named: Iterable[str | Path] = (), *, embeds: bool = False
    ) -> Confinement:
        folders = [Path(os.path.realpath(Path(draft).parent or "."))]
        for item in named:
            for part in str(item).split(os.pathsep):
                if part:
                    folders.append(Path(os.path.realpath(part)))
        return cls(Path(draft), tuple(dict.fromkeys(folders)), embeds)

    def inside(self, real: Path) -> bool:
        return any(real == f or f in real.parents for f in self.folders)

    def resolve(self, target: str, element: str) -> Path:
        """The real path of the local file ``target`` names (the first folder that has it, as
        pandoc searches), refused in one line when any reading of it leads outside."""
        scheme = urlsplit(target).scheme.lower()
        if len(scheme) > 1 and scheme not in REMOTE_SCHEMES:
            self._refuse(element, target, f"a {scheme}: address, which a build never reads")
        found: Path | None = None
        for text in _spellings(target):
            path = Path(text)
            bases = [path] if path.is_absolute() else [f / path for f in self.folders]
            for candidate in bases:
                real = Path(os.path.realpath(candidate))
                if not self.inside(real):
                    self._refuse(element, target, "outside the draft's folder")
                if found is None and real.exists():
                    found = real
        return found or self.folders[0] / target

    def _refuse(self, element: str, target: str, why: str) -> None:
        shown = target if len(target) <= 120 else target[:117] + "..."
        raise ResourceRefused(
            f"{self.draft}: {element} {shown!r} is {why}; a draft reads only files in its "
            "own folder and the --resource-path folders",
            hint="copy the file next to the draft, or name its folder with --resource-path",
        )


def _spellings(target: str) -> list[str]:
    """The paths pandoc may read for ``target``: as written, percent-decoded, and without a
    query or fragment."""
    out = [target, unquote(target)]
    for text in list(out):
        for mark in ("?", "#"):
            if mark in text:
                out.append(text.split(mark, 1)[0])
    return [t for t in dict.fromkeys(out) if t]


def named_resource_folders(req: object) -> list[str]:
    """The folders the user named with ``--resource-path`` on the request, however it holds
    them (a path list, one string, or among pandoc options passed through)."""
    named: list[str] = []
    value = getattr(req, "resource_path", None)
    if isinstance(value, (str, Path)):
        named.append(str(value))
    elif isinstance(value, (list, tuple)):
        named.extend(str(v) for v in value)
    for attribute in ("pandoc_args", "pandoc_options", "extra_args"):
        args = getattr(req, attribute, None)
        if not isinstance(args, (list, tuple)):
            continue
        items = [str(a) for a in args]
        for i, arg in enumerate(items):
            if arg == "--resource-path" and i + 1 < len(items):
                named.append(items[i + 1])
            elif arg.startswith("--resource-path="):
                named.append(arg.split("=", 1)[1])
    return named


def embeds_resources(req: object) -> bool:
    """Whether the request passes pandoc ``--embed-resources`` (or the older
    ``--self-contained``), which reads local files into an HTML output as well."""
    for attribute in ("pandoc_args", "pandoc_options", "extra_args"):
        args = getattr(req, attribute, None)
        if isinstance(args, (list, tuple)) and any(
            str(a).split("=", 1)[0] in ("--embed-resources", "--self-contained") for a in args
        ):
            return True
    return bool(getattr(req, "embed_resources", False))


def confine_local_files(
    doc: Json, confinement: Confinement, *, writer: str, family: str, point: bool = True
) -> None:
    """Refuse (one line naming the element) any local file the output would read outside the
    allowed folders; with ``point``, aim each local image at the real file checked."""
    for el in elements([doc.get("blocks", []), list(doc.get("meta", {}).values())]):
        kind = el.get("t")
        if kind == "Image":
            target = el["c"][2][0]
            if not isinstance(target, str) or not target or is_remote(target):
                continue
            if target.lower().startswith("data:"):
                continue
            real = confinement.resolve(target, "image")
            if point:
                el["c"][2][0] = str(real)
        elif kind in ("RawInline", "RawBlock"):
            fmt, text = el["c"][0].lower(), el["c"][1]
            if fmt in ("tex", "latex") and writer == "pdf" and family == "latex":
                _check_raw_tex(text, confinement)
            elif fmt in ("html", "html5") and family.startswith("epub"):
                _check_raw_html(text, confinement)
    if family.startswith("epub"):
        meta = doc.get("meta", {})
        for key in _EPUB_META_FILES:
            if key in meta:
                for value in _meta_strings(meta[key]):
                    if value and not is_remote(value):
                        confinement.resolve(value, key)


def missing_images(doc: Json, confinement: Confinement) -> list[str]:
    """The local images of ``doc`` the allowed folders do not hold, as the draft names them."""
    found: list[str] = []
    for el in elements(doc.get("blocks", [])):
        if el.get("t") != "Image":
            continue
        target = el["c"][2][0]
        if not isinstance(target, str) or not target or is_remote(target):
            continue
        if target.lower().startswith("data:") or target in found:
            continue
        if not confinement.resolve(target, "image").exists():
            found.append(target)
    return found


def drop_missing_images(doc: Json, confinement: Confinement) -> list[str]:
    """Write each local image the allowed folders do not hold as its alt text; returns their
    targets. pandoc leaves a missing image out of a Word or PowerPoint file with a warning, but
    typst stops the whole PDF on it: every binary output treats it alike, as a remote image
    that could not be fetched."""
    missing: list[str] = []

    def change(el: Json) -> list[Json] | None:
        if el.get("t") != "Image":
            return None
        target = el["c"][2][0]
        if not isinstance(target, str) or not target or is_remote(target):
            return None
        if target.lower().startswith("data:") or confinement.resolve(target, "image").exists():
            return None
        missing.append(target)
        return list(el["c"][1])

    replace_elements(doc.get("blocks", []), change)
    return missing


def missing_warning(draft: Path | str, missing: list[str]) -> str | None:
    """One line for the local images a build did not find."""
    if not missing:
        return None
    shown = ", ".join(missing[:5]) + (f", and {len(missing) - 5} more" if len(missing) > 5 else "")
    count = len(missing)
    return f"warn: {draft}: {count} local image(s) not found, written as their alt text: {shown}"


def _check_raw_tex(text: str, confinement: Confinement) -> None:
    for match in _TEX_COMMAND.finditer(text):
        command = match.group(1)
        element = f"raw TeX \\{command}"
        if command in _TEX_REFUSED:
            raise ResourceRefused(
                f"{confinement.draft}: {element} reads a stream or runs code, which a draft "
                "may not",
                hint="remove it from the draft's raw LaTeX",
            )
        argument = _TEX_ARGUMENT.match(text, match.end())
        if argument is None:
            continue
        path = (argument.group(1) or argument.group(2) or "").strip()
        if not path:
            continue
        for one in path.split(","):
            if one.strip():
                confinement.resolve(one.strip(), element)


def _check_raw_html(text: str, confinement: Confinement) -> None:
    for match in _HTML_SRC.finditer(text):
        value = next(g for g in match.groups() if g is not None).strip()
        if value and not is_remote(value) and not value.lower().startswith(("data:", "#")):
            if "://" in value or value.lower().startswith("mailto:"):
                continue
            confinement.resolve(value, "raw HTML")


def _meta_strings(value: Json) -> list[str]:
    from ..tree import stringify

    if isinstance(value, dict) and value.get("t") == "MetaList":
        return [s for item in value["c"] for s in _meta_strings(item)]
    if isinstance(value, dict) and value.get("t") == "MetaMap":
        return [s for item in value["c"].values() for s in _meta_strings(item)]
    return [stringify(value).strip()]
