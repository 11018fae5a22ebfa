"""The fast lane of ``citeledger add`` and ``citeledger list`` (and, in :mod:`~.lane_quote`,
``quote``): the common call on the common ledger, done with built-in modules alone.

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
  canonical form without a tracking parameter (``lane_file.canonical``: what
  ``urls.is_canonical`` takes, written with ``str`` methods); a larger file (up to
  :data:`LARGE_BYTES`) is checked by the core's one-pass pattern alone, which costs less there
  than checks in Python, and changed in place (:mod:`~.lane_large`);
- for ``add``: URLs that are canonical as given (``add`` normalises any other), at most one
  ``--title`` each, no other flag; the lock folder made, the file writable, no temporary file
  of a killed writer beside it.

What it writes, prints and exits with is what the general path does for the same call
(``tests/ledger/test_lane.py`` runs both on generated ledgers and compares the files and the
output); the constants it repeats from the core are held to theirs by the same tests.
"""

from __future__ import annotations

import os

from .lane_file import (
    DEFAULT_NAME,
    ENV_VARS,
    LANE_BYTES,
    LARGE_BYTES,
    LOCK_FOLDER,
    MAX_ID,
    MAX_TITLE,
    MAX_TITLE_SHOWN,
    canonical,
    dumped,
    parsed,
    read_keyed,
    tracking,
    write_file,
)

# Read by type checkers only: ``typing`` is no cost of a quick verb (``light.py``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .checked_texts import Key

_DEFAULT_WHY = (
    "the working directory's, as none of --ledger, $CITELEDGER_LEDGER, "
    "$HERMES_CITATION_LEDGER, $HERMES_HOME is set"
)


# --- where, and the lock ---------------------------------------------------------------------


def where(explicit: str | None) -> tuple[str, str] | None:
    """The ledger path and why (``store.locate_ledger``'s words), when it is given plainly: by
    ``--ledger``, an environment variable, or the default with no project file on the way up.
    None for the core to find (``$HERMES_HOME``, a project file, ``~``, a long or odd path)."""
    if explicit and explicit.strip():
        text, why = explicit, "given by --ledger"
    else:
        try:
            here = os.getcwd()
        except OSError:  # the working folder was removed: the core says so
            return None
        if _project_file_above(here):
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
    """Whether the ``pyproject.toml`` at ``path`` may hold ``[tool.citeledger]``: the core's own
    first look (``options.project._has_tool_table``), before it parses one."""
    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return True  # the core tells what is wrong with it
    return "tool.citeledger" in text or ("[tool]" in text and "citeledger" in text)


def locked(path: str) -> int | None:
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


def writable_mode(path: str) -> int | None:
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


# --- the verbs -------------------------------------------------------------------------------


def held(explicit: str | None) -> tuple[str, int, int, str, Key | None] | None:
    """What a change of the ledger needs: its path, the descriptor of its lock (held: the
    caller closes it, which releases the lock), the mode the new file keeps, its text (""
    for no file yet) and the file's identity as read (:func:`~.lane_file.read_keyed`); None,
    with nothing held, for the core."""
    found = where(explicit)
    if found is None:
        return None
    path = found[0]
    fd = locked(path)
    if fd is None:
        return None
    mode = writable_mode(path)
    text, key = (None, None) if mode is None else read_keyed(path, LARGE_BYTES)
    if mode is None or text is None:
        os.close(fd)
        return None
    return path, fd, mode, text, key


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
    got = held(explicit)
    if got is None:
        return None
    path, fd, mode, text, key = got
    try:
        if len(text) > LANE_BYTES:  # characters: at least as many bytes
            from .lane_large import add_large

            return add_large(path, text, clean, named, mode, key)
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


def listed(explicit: str | None) -> str | None:
    """``citeledger list``: what it prints (its lines, joined), or None for the core to run it
    (an empty or missing ledger among others: the core's line says which ledger and why)."""
    found = where(explicit)
    if found is None or os.path.isdir(found[0]):
        return None
    text, key = read_keyed(found[0], LARGE_BYTES)
    if not text:
        return None
    if len(text) > LANE_BYTES:  # characters: at least as many bytes
        from .lane_large import rows

        taken = rows(text, found[0], key)
        return None if taken is None else list_block(*taken)
    data = parsed(text)
    if not data or not data["sources"]:
        return None
    return "\n".join(list_text(data["sources"]))


def list_text(sources: list[dict[str, Any]]) -> list[str]:
    """``list``'s lines for the sources of a ledger read as JSON (its entries in the layout
    the core writes), in id order: ``[n] url  title  (k quotes)``, the title as
    ``Source.display_title`` shows it. The core lists a large ledger through here too: no
    source object is built."""
    from operator import itemgetter

    ordered = sorted(sources, key=itemgetter("id"))
    quoted = {k: len(s["quotes"]) for k, s in enumerate(ordered) if s["quotes"]}
    return list_columns(
        [s["id"] for s in ordered],
        [s["url"] for s in ordered],
        [s["title"] for s in ordered],
        quoted,
    )


def list_columns(
    ids: list[int] | list[str], urls: list[str], titles: list[str], quoted: dict[int, int]
) -> list[str]:
    """:func:`list_text`'s lines for the sources' ids, URLs and titles in id order, and the
    number of quotes of those that carry some, by place."""
    marks = [""] * len(ids)
    for k, n in quoted.items():
        marks[k] = _quotes(n)
    if _as_they_are(titles):
        gaps = map(("", "  ").__getitem__, map(bool, titles))  # no gap before no title
        return list(map("[{}] {}{}{}{}".format, ids, urls, gaps, titles, marks))
    lines = []
    for i, url, raw, mark in zip(ids, urls, titles, marks, strict=True):
        title = raw
        if raw:  # shown on one line, and "" when it is the URL itself
            if not (
                title.isprintable()  # no control, bidi, hidden or other white space character
                and "  " not in title
                and title[0] != " " != title[-1]
                and len(title) <= MAX_TITLE_SHOWN
            ):
                title = _one_line(title)
            # Source.display_title: "" for a title that is the URL (a URL holds "://").
            if "://" in raw and raw.strip().rstrip("/") == url.rstrip("/"):
                title = ""
            title = "  " + title
        lines.append(f"[{i}] {url}{title}{mark}")
    return lines


def list_block(ids: list[str], urls: list[str], titles: list[str], quoted: dict[int, int]) -> str:
    """:func:`list_columns`' lines joined, for the ids as the ledger writes them: where every
    title is shown as it is, the pieces of all lines side by side in one list and one join,
    no line made on its own (50,000 of them cost more than reading the file)."""
    if not _as_they_are(titles):
        return "\n".join(list_columns(ids, urls, titles, quoted))
    n = len(ids)
    pieces = [""] * (7 * n)  # a line: "[", id, "] ", URL, gap, title, mark, each after "\n"
    pieces[0::7] = ["\n["] * n
    pieces[1::7] = ids
    pieces[2::7] = ["] "] * n
    pieces[3::7] = urls
    if all(titles):
        pieces[4::7] = ["  "] * n
    else:  # no gap before no title
        pieces[4::7] = list(map(("", "  ").__getitem__, map(bool, titles)))
    pieces[5::7] = titles
    for k, count in quoted.items():
        pieces[7 * k + 6] = _quotes(count)
    if pieces:
        pieces[0] = "["
    return "".join(pieces)


# The characters of ASCII text ``str.isprintable`` takes: the rest are control characters.
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))


def _as_they_are(titles: list[str]) -> bool:
    """Whether every title is one printable line of its own and none a URL: shown as it is."""
    joined = "|".join(titles)
    if joined.isascii():  # isprintable, a table look-up a byte where no character is above
        printable = not joined.encode("ascii").translate(None, _PRINTABLE_ASCII)
    else:
        printable = joined.isprintable()
    return (
        printable
        and "  " not in joined
        and "| " not in joined
        and " |" not in joined
        and joined[:1] != " " != joined[-1:]
        and "://" not in joined
        and max(map(len, titles), default=0) <= MAX_TITLE_SHOWN
    )


def _quotes(n: int) -> str:
    return f"  ({n} quote{'s' if n != 1 else ''})"


def _one_line(title: str) -> str:
    """``display.display_text(title, MAX_TITLE_SHOWN)``: printable text (no control, bidi or
    hidden character) needs no pattern."""
    if title.isprintable():
        one = " ".join(title.split())
        if len(one) <= MAX_TITLE_SHOWN:
            return one
    from .display import display_text

    return display_text(title, MAX_TITLE_SHOWN)


__all__ = ["add", "list_block", "list_columns", "list_text", "listed", "where"]
