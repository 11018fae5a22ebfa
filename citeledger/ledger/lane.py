"""The fast lane of ``citeledger add`` and ``citeledger list``: the common call on the common
ledger, done with built-in modules alone.

An agent calls ``add`` once per search result, and a call's cost is mostly start-up: Python's
``re`` alone (with ``enum``, ``functools`` and ``collections``) costs two thirds of a bare
``python -c pass``, and ``json``, ``pathlib`` and ``urllib.parse`` each import it. This module
imports none of them: it reads the file with ``_json``'s C scanner, checks it with ``str``
methods and writes it with the same two-space layout ``json.dumps`` writes.

It takes only what it can prove is the ordinary case, and hands everything else back (its
functions return None) to the ledger core (``store``, ``layout``, ``model``), which does the
same work the general way and names every fault. The ordinary case is:

- a ledger path given plainly (``--ledger``, ``$CITELEDGER_LEDGER``, ``$HERMES_CITATION_LEDGER``
  or ``./ledger.json``), a ``.json`` file that is no link, in a folder that exists, with no
  project file (``citeledger.toml``, or a ``pyproject.toml`` naming citeledger) on the way up;
- a file of at most :data:`LANE_BYTES` in exactly the layout :func:`~.store.dump_ledger` writes
  (the text is re-written from what it parsed to and must come out the same, byte for byte),
  with the fields :mod:`~.layout` takes in one pass (no ``author``, ``key``,
  ``provider_quotes`` or unknown key), no ``\\u`` escape, distinct ids, and every URL in
  canonical form without a tracking parameter (:func:`canonical`: what ``urls.is_canonical``
  takes, written with ``str`` methods);
- for ``add``: URLs that are canonical as given (``add`` normalises any other), at most one
  ``--title`` each, no other flag; the lock folder made, the file writable, no temporary file
  of a killed writer beside it.

What it writes, prints and exits with is what the general path does for the same call
(``tests/ledger/test_lane.py`` runs both on generated ledgers and compares the files and the
output); the constants it repeats from the core are held to theirs by the same tests.
"""

from __future__ import annotations

import os

# Read by type checkers only: ``typing`` is no cost of a quick verb (``light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Larger ledgers are checked with the core's one-pass pattern (lane_large.py), faster per
# byte than the checks here; larger than the second, they go to the core.
LANE_BYTES = 256 * 1024
LARGE_BYTES = 64 * 1024 * 1024
# As in the core (tests/ledger/test_lane.py holds them equal).
MAX_ID = 999_999
MAX_TITLE = 2_000
MAX_TITLE_SHOWN = 300
MAX_URL_LENGTH = 4096
ENV_VARS = ("CITELEDGER_LEDGER", "HERMES_CITATION_LEDGER")
DEFAULT_NAME = "ledger.json"
LOCK_FOLDER = ".citeledger-lock"
DOI_HOSTS = frozenset({"doi.org", "dx.doi.org", "www.doi.org"})
# urls._TRACKING_HINT's names, each matched (in any case) at the start of a query parameter.
TRACKING_HINTS = (
    *("utm_", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "fbclid", "msclkid", "yclid"),
    *("mc_eid", "mc_cid", "_ga", "_gl", "igshid", "twclid", "ttclid", "li_fat_id", "mkt_tok"),
    *("_hs", "srsltid", "oly_", "vero_id", "ref_src", "_openstat"),
)
_DEFAULT_WHY = (
    "the working directory's, as none of --ledger, $CITELEDGER_LEDGER, "
    "$HERMES_CITATION_LEDGER, $HERMES_HOME is set"
)

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_HOST_CHARS = frozenset(_LETTERS + "0123456789-")
_URL_CHARS = frozenset(_LETTERS + _LETTERS.upper() + "0123456789-._~!$&'()*+,;=:@%")
_PATH_CHARS = _URL_CHARS | {"/"}
_QUERY_CHARS = _PATH_CHARS | {"?"}
_UPPER_HEX = frozenset("0123456789ABCDEF")
_LOWER_HEX = frozenset("0123456789abcdef")


def canonical(url: str) -> bool:
    """Whether ``url`` is in the canonical form ``urls.is_canonical`` takes: ``http(s)://``, a
    lower-case ASCII host of dot-separated labels (no DOI host, no port), a path that does not
    end in ``/``, a query, only characters that need no encoding, every ``%`` an upper-case
    escape, at most :data:`MAX_URL_LENGTH` characters."""
    if len(url) > MAX_URL_LENGTH:
        return False
    if url.startswith("https://"):
        rest = url[8:]
    elif url.startswith("http://"):
        rest = url[7:]
    else:
        return False
    base, mark, query = rest.partition("?")
    if mark and not (query and _QUERY_CHARS.issuperset(query)):
        return False
    cut = base.find("/")
    host, path = (base, "") if cut < 0 else (base[:cut], base[cut:])
    if host in DOI_HOSTS:
        return False
    for label in host.split("."):
        if not label or not _HOST_CHARS.issuperset(label):
            return False
    if path and (path.endswith("/") or not _PATH_CHARS.issuperset(path)):
        return False
    at = url.find("%")
    while at >= 0:
        if at + 3 > len(url) or not _UPPER_HEX.issuperset(url[at + 1 : at + 3]):
            return False
        at = url.find("%", at + 1)
    return True


def tracking(url: str) -> bool:
    """Whether ``url`` may carry a tracking parameter (a name of :data:`TRACKING_HINTS` after a
    ``?`` or ``&``), as ``urls.any_tracking`` tells it."""
    if "?" not in url:
        return False
    for part in url.replace("?", "&").split("&")[1:]:
        if part[:9].lower().startswith(TRACKING_HINTS):
            return True
    return False


# --- the file --------------------------------------------------------------------------------


class _Context:
    """What ``_json.make_scanner`` reads from a decoder: ``json.loads``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        raise ValueError(name)  # NaN and Infinity: no ledger holds them; the core says so

    memo: dict[str, str] = {}


def _parse(text: str) -> Any:
    """The JSON value of ``text``, or None where ``json.loads`` would say more (an error)."""
    import _json

    scan = _json.make_scanner(_Context())  # type: ignore[arg-type]  # duck-typed: the attributes
    try:
        value, end = scan(text, 0)
    # SystemError: the scanner raises its JSONDecodeError from json.decoder only when that
    # module is loaded, and here it is not; any fault sends the call to the core, which names it.
    except (StopIteration, ValueError, RecursionError, SystemError):
        return None
    return value if end == len(text) - 1 and text[end] == "\n" else None


def dumped(value: Any, depth: int = 0) -> str:
    """``value`` (dicts with string keys, lists, strings and ints) as ``json.dumps(value,
    indent=2, ensure_ascii=False)`` writes it."""
    from _json import encode_basestring

    kind = type(value)
    if kind is str:
        return str(encode_basestring(value))
    if kind is int:
        return int.__repr__(value)
    inner = "\n" + "  " * (depth + 1)
    if kind is dict:
        if not value:
            return "{}"
        items = [f"{inner}{encode_basestring(k)}: {dumped(v, depth + 1)}" for k, v in value.items()]
        return "{" + ",".join(items) + "\n" + "  " * depth + "}"
    if not value:
        return "[]"
    return "[" + ",".join(inner + dumped(v, depth + 1) for v in value) + "\n" + "  " * depth + "]"


_TOP = (("version", "sources"), ("version", "sources", "last_id"))
_COMMON = ("id", "url", "title", "accessed", "quotes")
_SOURCE_ORDER = (
    *("id", "url", "title", "accessed", "issued", "site", "archived", "page_sha256"),
    *("page_origin", "quotes"),
)
_QUOTE_ORDER = ("text", "added", "sha256", "origin", "text_sha256")


def _in_order(keys: tuple[str, ...], order: tuple[str, ...], required: int) -> bool:
    """Whether ``keys`` are some of ``order``, in its order, holding its first ``required``."""
    if keys[:required] != order[:required]:
        return False
    at = required
    for key in keys[required:]:
        try:
            at = order.index(key, at) + 1
        except ValueError:
            return False
    return True


def _sound_source(d: Any) -> bool:
    """Whether ``d`` is a source entry the one-pass layout takes, its URLs canonical and
    without tracking parameters."""
    if type(d) is not dict:
        return False
    keys = tuple(d)
    if keys != _COMMON:
        if keys[-1:] != ("quotes",) or not _in_order(keys[:-1], _SOURCE_ORDER, 4):
            return False
        for key in keys[4:-1]:
            if type(d[key]) is not str:
                return False
        archived = d.get("archived")
        if archived is not None and (not canonical(archived) or tracking(archived)):
            return False
        digest = d.get("page_sha256")
        if digest is not None and (len(digest) != 64 or not _LOWER_HEX.issuperset(digest)):
            return False
    sid, url = d["id"], d["url"]
    if type(sid) is not int or not 1 <= sid <= MAX_ID:
        return False
    if type(url) is not str or not canonical(url) or tracking(url):
        return False
    if type(d["title"]) is not str or type(d["accessed"]) is not str:
        return False
    quotes = d["quotes"]
    if type(quotes) is not list:
        return False
    for q in quotes:
        if type(q) is not dict or not _in_order(tuple(q), _QUOTE_ORDER, 2):
            return False
        for value in q.values():
            if type(value) is not str:
                return False
    return True


def read_text(path: str, limit: int) -> str | None:
    """The text of the ledger file at ``path``: "" for no file; None for a file that is not a
    regular one, holds more than ``limit`` bytes or a byte-order mark, or is not UTF-8."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return ""
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (st.st_mode & 0o170000) != 0o100000 or st.st_size > limit:  # a regular file
            return None
        parts = []
        while chunk := os.read(fd, limit + 1):
            parts.append(chunk)
            if sum(map(len, parts)) > limit:
                return None
    except OSError:
        return None
    finally:
        os.close(fd)
    raw = b"".join(parts)
    if raw.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read(path: str) -> dict[str, Any] | None:
    """The ledger at ``path`` as parsed JSON when it is the ordinary case (see the module
    docstring); ``{}`` for no file; None for anything else."""
    text = read_text(path, LANE_BYTES)
    return None if text is None else parsed(text)


def parsed(text: str) -> dict[str, Any] | None:
    """The ledger in ``text`` (see :func:`read`); ``{}`` for ""."""
    if not text:
        return {}
    if "\\u" in text:
        return None
    data = _parse(text)
    if type(data) is not dict or tuple(data) not in _TOP or data["version"] != 1:
        return None
    if type(data["version"]) is not int:
        return None
    last = data.get("last_id", 0)
    if type(last) is not int or not 0 <= last < 10**18:
        return None
    sources = data["sources"]
    if type(sources) is not list or not all(map(_sound_source, sources)):
        return None
    ids = [s["id"] for s in sources]
    if len(set(ids)) != len(ids) or dumped(data) + "\n" != text:
        return None
    return data


# --- where, and the lock ---------------------------------------------------------------------


def where(explicit: str | None) -> tuple[str, str] | None:
    """The ledger path and why (``store.locate_ledger``'s words), when it is given plainly: by
    ``--ledger``, an environment variable, or the default with no project file on the way up.
    None for the core to find (``$HERMES_HOME``, a project file, ``~``, a long or odd path)."""
    if explicit and explicit.strip():
        text, why = explicit, "given by --ledger"
    else:
        if _project_file_above(os.getcwd()):
            return None
        for var in ENV_VARS:
            value = os.environ.get(var, "").strip()
            if value:
                text, why = value, f"given by ${var}"
                break
        else:
            if os.environ.get("HERMES_HOME", "").strip():
                return None
            text, why = DEFAULT_NAME, _DEFAULT_WHY
    name = text.rpartition("/")[2]
    if (
        len(text) > 1024
        or text.startswith("~")
        or "\x00" in text
        or not name.endswith(".json")
        or name.startswith(".")
        or len(name.encode("utf-8", "surrogateescape")) > 255
    ):
        return None
    return text, why


def _project_file_above(here: str) -> bool:
    """Whether a file that may be a project file (``options.project.find_project`` decides)
    lies in ``here`` or a folder above it, up to the repository's root."""
    while True:
        if os.path.lexists(os.path.join(here, "citeledger.toml")):
            return True
        pyproject = os.path.join(here, "pyproject.toml")
        if os.path.lexists(pyproject) and _names_citeledger(pyproject):
            return True
        if os.path.lexists(os.path.join(here, ".git")):
            return False
        up = os.path.dirname(here)
        if up == here:
            return False
        here = up


def _names_citeledger(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return b"citeledger" in handle.read()
    except OSError:
        return True  # the core tells what is wrong with it


def _locked(path: str) -> int | None:
    """The descriptor of the ledger's lock file, locked, when its folder is ready (``store``
    makes it); None for the core to make it or to lock another way."""
    folder = os.path.join(os.path.dirname(path) or ".", LOCK_FOLDER)
    if os.path.islink(folder) or not os.path.isdir(folder):
        return None
    if not os.path.lexists(os.path.join(folder, ".gitignore")):
        return None
    lock = os.path.join(folder, os.path.basename(path) + ".lock")
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return None
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX)
    except (ImportError, OSError):
        os.close(fd)
        return None
    return fd


def _writable(path: str) -> int | None:
    """The mode the new file keeps (that of the file replaced, else the umask's), when the
    ledger may be replaced here: not read-only, no link, no temporary file of a killed writer
    beside it (the core removes those). None otherwise."""
    folder = os.path.dirname(path) or "."
    name = os.path.basename(path)
    if os.path.islink(path) or not os.path.isdir(folder):
        return None
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    except OSError:
        return None
    else:
        if (st.st_mode & 0o170000) != 0o100000 or not st.st_mode & 0o222:
            return None
        mode = st.st_mode & 0o7777
    prefix = f".{name}."
    try:
        with os.scandir(folder) as entries:
            if any(
                e.name.startswith(prefix) and e.name.endswith((".tmp", ".tmp.json"))
                for e in entries
            ):
                return None
    except OSError:
        return None
    return mode


def write_file(path: str, text: str, mode: int) -> bool:
    """``text`` into ``path`` as ``files.write_bytes`` puts it: a new file beside it, synced,
    then renamed over it, and the folder synced. False, with nothing changed, when a step fails
    (the core then does the same and names the fault)."""
    folder = os.path.dirname(path) or "."
    name = os.path.basename(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp.json")
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
    except OSError:
        return False
    try:
        data = text.encode("utf-8")
        done = 0
        while done < len(data):
            done += os.write(fd, data[done:])
        os.fchmod(fd, mode)
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except OSError:
        if fd >= 0:
            os.close(fd)
        try:  # noqa: SIM105 - contextlib is an import the lane does without
            os.unlink(tmp)
        except OSError:
            pass
        return False
    try:
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
    return True


# --- the verbs -------------------------------------------------------------------------------


def add(explicit: str | None, urls: list[str], titles: list[str]) -> list[str] | None:
    """``citeledger add URL... [--title T]...``: the lines it prints, the ledger written; None
    (nothing done) for the core to run the call."""
    if not urls or "-" in urls or (titles and len(titles) != len(urls)):
        return None
    clean = [u.strip() for u in urls]
    if not all(canonical(u) and not tracking(u) for u in clean):
        return None
    named = [" ".join(t.split()) for t in titles] or [""] * len(urls)
    if any(len(t) > MAX_TITLE for t in named):
        return None
    found = where(explicit)
    if found is None:
        return None
    path = found[0]
    fd = _locked(path)
    if fd is None:
        return None
    try:
        mode = _writable(path)
        text = None if mode is None else read_text(path, LARGE_BYTES)
        if mode is None or text is None:
            return None
        if len(text) > LANE_BYTES:  # characters: at least as many bytes
            from .lane_large import add_large

            return add_large(path, text, clean, named, mode)
        data = parsed(text)
        if data is None:
            return None
        if not data:
            data = {"version": 1, "sources": [], "last_id": 0}
        return _register(path, data, clean, named, mode)
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _register(
    path: str, data: dict[str, Any], urls: list[str], titles: list[str], mode: int
) -> list[str] | None:
    sources: list[dict[str, Any]] = data["sources"]
    by_url: dict[str, dict[str, Any]] = {}
    for s in reversed(sources):  # the first source of a URL wins, as in the core
        by_url[s["url"]] = s
    high = max(data.get("last_id", 0), max((s["id"] for s in sources), default=0))
    changed = False
    lines = []
    for url, title in zip(urls, titles, strict=True):
        entry = by_url.get(url)
        if entry is None:
            high += 1
            if high > MAX_ID:
                return None
            import time

            entry = {"id": high, "url": url, "title": title}
            entry["accessed"] = time.strftime("%Y-%m-%d")
            entry["quotes"] = []
            sources.append(entry)
            by_url[url] = entry
            changed = True
        elif title and not entry["title"]:
            entry["title"] = title
            changed = True
        lines.append(f"[{entry['id']}] {entry['url']}")
    if changed:
        data["last_id"] = high
        if not write_file(path, dumped(data) + "\n", mode):
            return None
    return lines


def listed(explicit: str | None) -> list[str] | None:
    """``citeledger list``: its lines, or None for the core to run it (an empty or missing
    ledger among others: the core's line says which ledger and why)."""
    found = where(explicit)
    if found is None or os.path.isdir(found[0]):
        return None
    data = read(found[0])
    if not data or not data["sources"]:
        return None
    lines = []
    for s in sorted(data["sources"], key=_id):
        title = s["title"]
        if title:  # as Source.display_title shows it: "" when it is the URL itself
            one = ""
            if title.strip().rstrip("/") != s["url"].rstrip("/"):
                printable = title.isprintable()  # no control, bidi or hidden character
                one = " ".join(title.split()) if printable else ""
                if not printable or len(one) > MAX_TITLE_SHOWN:
                    from .display import display_text

                    one = display_text(title, MAX_TITLE_SHOWN)
            title = f"  {one}"
        n = len(s["quotes"])
        mark = f"  ({n} quote{'s' if n != 1 else ''})" if n else ""
        lines.append(f"[{s['id']}] {s['url']}{title}{mark}")
    return lines


def _id(source: dict[str, Any]) -> int:
    return int(source["id"])


__all__ = ["add", "canonical", "dumped", "listed", "read", "tracking", "where"]
