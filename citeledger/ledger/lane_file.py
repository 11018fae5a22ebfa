"""The ledger file for the fast lane (:mod:`~.lane`): read, checked and written with built-in
modules alone (no ``re``, ``json`` or ``pathlib``); see :mod:`~.lane` for what it takes.
"""

from __future__ import annotations

import os

# Read by type checkers only: ``typing`` is no cost of a quick verb (``light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Larger ledgers are checked with the core's one-pass pattern (lane_large.py), faster per
# byte than the checks here; larger than the second, they go to the core.
LANE_BYTES = 64 * 1024
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


def parse_text(text: str) -> Any:
    """The JSON value of ``text`` (a whole file: the value, then one line break), or None
    where ``json.loads`` would say more (an error)."""
    found = _scan(text, 0)
    if found is None or found[1] != len(text) - 1 or text[-1] != "\n":
        return None
    return found[0]


def parse_at(text: str, at: int) -> Any:
    """The JSON value that starts at ``at`` in ``text``, or None where there is none."""
    found = _scan(text, at)
    return None if found is None else found[0]


def _scan(text: str, at: int) -> tuple[Any, int] | None:
    import _json

    scan = _json.make_scanner(_Context())  # type: ignore[arg-type]  # duck-typed: the attributes
    try:
        value, end = scan(text, at)
    # SystemError: the scanner raises its JSONDecodeError from json.decoder only when that
    # module is loaded, and here it is not; any fault sends the call to the core, which names it.
    except (StopIteration, ValueError, RecursionError, SystemError):
        return None
    return value, end


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
    regular one, is empty (an interrupted write: the core refuses it, never writes over it),
    holds more than ``limit`` bytes or a byte-order mark, or is not UTF-8."""
    return read_keyed(path, limit)[0]


def read_keyed(path: str, limit: int) -> tuple[str | None, tuple[int, ...] | None]:
    """:func:`read_text`, and the file's identity as the descriptor read tells it (device,
    inode, size, modification and change times in nanoseconds) followed by the moment before
    it was first asked (:data:`~.checked_texts.Key`): a change after that moment shows in the
    change time. No identity where it changed while the text was read."""
    import time

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return "", None
    except OSError:
        return None, None
    try:
        asked = time.time_ns()
        st = os.fstat(fd)
        if (st.st_mode & 0o170000) != 0o100000 or st.st_size > limit:  # a regular file
            return None, None
        parts = []
        while chunk := os.read(fd, limit + 1):
            parts.append(chunk)
            if sum(map(len, parts)) > limit:
                return None, None
        after = os.fstat(fd)
    except OSError:
        return None, None
    finally:
        os.close(fd)
    raw = b"".join(parts)
    if not raw or raw.startswith(b"\xef\xbb\xbf"):
        return None, None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, None
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    same = key == (after.st_dev, after.st_ino, after.st_size, after.st_mtime_ns, after.st_ctime_ns)
    if not same or len(raw) != st.st_size:
        return text, None
    return text, (*key, asked)


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
    data = parse_text(text)
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


def write_file(path: str, content: str | bytes, mode: int) -> bool:
    """``content`` (text as UTF-8) into ``path`` through the one safe write
    (:mod:`citeledger.atomic`, as ``files.write_bytes`` does): a new file beside it, forced to
    disk, renamed over it. False, with nothing changed, when a step fails (the core then does
    the same and names the fault)."""
    from ..atomic import commit, create, staged_name

    tmp = staged_name(path)
    try:
        fd = create(tmp)
    except OSError:
        return False
    try:
        data = content.encode("utf-8") if isinstance(content, str) else content
        with open(fd, "wb", closefd=True) as handle:
            handle.write(data)
        commit(tmp, path, mode, durable=True)
    except OSError:
        try:  # noqa: SIM105 - contextlib is an import the lane does without
            os.unlink(tmp)
        except OSError:
            pass
        return False
    return True
