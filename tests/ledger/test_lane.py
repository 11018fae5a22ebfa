"""The fast lane of ``add`` and ``list`` (citeledger/ledger/lane.py) against the ledger core:
whatever the lane takes, it does exactly what the core does (the same file, byte for byte, and
the same lines printed); whatever it cannot prove ordinary, it hands back untouched; and it runs
without ``re``, ``json``, ``pathlib`` or ``enum``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeledger.commands._add_sources import add_sources
from citeledger.commands._quick import list_lines
from citeledger.ledger import (
    Quote,
    lane,
    lane_file,
    layout_pattern,
    model,
    store,
    transaction,
    urls,
)
from citeledger.ledger.bibliography import Details
from citeledger.ledger.lock_file import FOLDER, prepare_lock_path
from tests.helpers.run import loaded_by

# --- the constants it repeats ---------------------------------------------------------------


def test_the_lane_repeats_the_cores_constants() -> None:
    assert lane_file.MAX_ID == model.MAX_ID
    assert lane_file.MAX_TITLE == model.MAX_TITLE
    assert lane_file.MAX_TITLE_SHOWN == model.MAX_TITLE_SHOWN
    assert lane_file.MAX_URL_LENGTH == urls.MAX_URL_LENGTH
    assert lane_file.ENV_VARS == store.ENV_VARS
    assert lane_file.DEFAULT_NAME == store.DEFAULT_NAME
    assert lane_file.LOCK_FOLDER == FOLDER
    assert lane_file.DOI_HOSTS == urls._DOI_HOSTS
    # The tracking names, as the core's pattern spells them.
    source = urls._TRACKING_HINT.pattern
    names = source[source.index("(?:utm_") + 3 : source.rindex(")")]
    assert tuple(names.split("|")) == lane_file.TRACKING_HINTS
    assert tuple(layout_pattern._TRACKING.split("|")) == lane_file.TRACKING_HINTS
    assert f'"(?=[^"]{{0,{urls.MAX_URL_LENGTH}}}")' in layout_pattern._SOUND_URL


# --- URLs ----------------------------------------------------------------------------------

_TOKENS = [
    *("https://", "http://", "HTTPS://", "ftp://", "doi.org", "dx.", "www.", "example", "com"),
    *(".", ".", "/", "/", "/", "?", "&", "=", "#", ":", ":80", "@", "%", "%41", "%4a", "%zz"),
    *("a", "Z", "0", "-", "_", "~", "!", "$", "'", "(", ")", "*", "+", ",", ";", " ", "\t"),
    *('"', "<", ">", "[", "]", "{", "}", "|", "\\", "^", "`", "\u00e9", "\uff45", "\u202e"),
    *("utm_source", "UTM_x", "gclid", "_ga", "ref_src", "x", "q", "page", "\n"),
]
_URLISH = st.lists(st.sampled_from(_TOKENS), max_size=14).map("".join)
_FROM_HTTP = st.tuples(st.sampled_from(["https://", "http://"]), _URLISH).map("".join)
_KNOWN = [
    "https://example.com",
    "https://example.com/",
    "https://example.com/a/",
    "https://example.com//a",
    "https://example.com/?q",
    "https://example.com?q",
    "https://example.com?",
    "https://example.com/a?b?c/d",
    "https://doi.org/10.1/x",
    "https://doi.org",
    "https://doi.org.example.com/x",
    "https://dx.doi.org?x",
    "https://a..b/x",
    "https://.a/x",
    "https://a./x",
    "https:///x",
    "https://a-b.c0/%41%42",
    "https://a/%4",
    "https://a/%",
    "https://a/b%4g",
    "https://a/b?x=%41",
    "https://EXAMPLE.com/x",
    "https://example.com:443/x",
    "https://a/" + "x" * 4086,
    "https://a/" + "x" * 4087,
    "https://a_b.com/x",
]


@pytest.mark.parametrize("url", _KNOWN)
def test_canonical_is_the_cores_canonical_on_known_cases(url: str) -> None:
    assert lane_file.canonical(url) is urls.is_canonical(url)


@settings(max_examples=3000, deadline=None)
@given(st.one_of(_URLISH, _FROM_HTTP))
def test_canonical_is_the_cores_canonical(url: str) -> None:
    assert lane_file.canonical(url) is urls.is_canonical(url)


@settings(max_examples=2000, deadline=None)
@given(_FROM_HTTP)
def test_tracking_is_the_cores_tracking_on_canonical_urls(url: str) -> None:
    if urls.is_canonical(url):
        assert lane_file.tracking(url) is urls.any_tracking([url])


def _one_entry(url: str, archived: bool) -> str:
    """A ledger as the core writes it holding ``url`` as a source's or an archived copy's."""
    entry: dict[str, object] = {"id": 1, "url": url, "title": "", "accessed": "2026-01-01"}
    if archived:
        entry["url"] = "https://example.org/page"
        entry["archived"] = url
    entry["quotes"] = []
    data = {"version": 1, "sources": [entry], "last_id": 1}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


_QUERIES = [
    *("https://example.com/a?utm_source=x", "https://example.com/a?q=1&GCLID=2&r"),
    *("https://example.com/a?x?_ga=1", "https://example.com/a&utm_x", "https://example.com/a&b"),
    *("https://example.com/a?q=%4a", "https://example.com/a?q=%4A&b", "https://example.com?ref"),
    *("https://example.com/a?refsrc=1", "https://example.com/a?q&ref_src=1", "https://e.com/?x"),
]


@settings(max_examples=3000, deadline=None)
@given(st.one_of(_URLISH, _FROM_HTTP, st.sampled_from(_KNOWN + _QUERIES)), st.booleans())
def test_the_sound_url_pattern_takes_what_the_full_checks_take(url: str, archived: bool) -> None:
    """The large lane's one pass (layout_pattern._SOUND_URL) takes a ledger only where the core
    takes its URL as canonical with no tracking parameter, and every such URL but one with a
    ``&`` in its path (the lane hands those to the core)."""
    text = _one_entry(url, archived)
    sound = urls.is_canonical(url) and not urls.any_tracking([url])
    taken = layout_pattern.layout_match(text, canonical=None)
    if taken:
        assert sound
        assert layout_pattern.layout_match(text)
    elif sound:
        assert "&" in url.partition("?")[0]


def test_printable_text_holds_nothing_the_terminal_escapes() -> None:
    """cli._TerminalSafe skips citeledger.escape for printable text: every character
    terminal_text escapes must be one str.isprintable refuses."""
    from citeledger.escape import _terminal_hidden

    hidden = _terminal_hidden()
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        if ch not in "\n\t" and hidden.match(ch):
            assert not ch.isprintable(), hex(code)


# --- the file ------------------------------------------------------------------------------

_JSON = st.recursive(
    st.one_of(st.text(max_size=8), st.integers(min_value=-(10**20), max_value=10**20)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(_JSON)
def test_dumped_is_json_dumps(value: object) -> None:
    assert lane_file.dumped(value) == json.dumps(value, indent=2, ensure_ascii=False)


# Titles as pages give them, now and then with a character that needs an escape or care.
_TITLE = st.one_of(
    st.text(alphabet=st.sampled_from(list('ab Z1"\\/\u00e9\u2014')), max_size=12),
    st.text(alphabet=st.sampled_from(list("a \t\u202e\u0007\u00a0")), max_size=4),
)
# Mostly URLs the lane takes, sometimes one it hands back (the core normalises it).
_LANE_URL = st.builds(
    "https://{}.example/{}{}".format,
    st.sampled_from(["a", "b", "c"]),
    st.sampled_from(["p", "q", "p/r", "x%41"]),
    st.sampled_from(["", "", "?id=1"]),
)
_ODD_URL = st.builds(
    "{}://{}.example/p{}".format,
    st.sampled_from(["https", "HTTP"]),
    st.sampled_from(["a", "B"]),
    st.sampled_from(["?utm_source=x", "/", "#top", ""]),
)
_PLAIN_URL = st.integers(0, 9).flatmap(lambda k: _ODD_URL if k == 0 else _LANE_URL)


@st.composite
def _ledgers(draw: st.DrawFn) -> list[tuple[str, object]]:
    """Steps that build a ledger through the core: adds with titles, quotes, details."""
    steps: list[tuple[str, object]] = []
    for _ in range(draw(st.integers(0, 6))):
        kinds = ["add"] * 6 + ["quote"] * 2 + ["site", "archived", "author"]
        kind = draw(st.sampled_from(kinds))
        steps.append((kind, (draw(_PLAIN_URL), draw(_TITLE))))
    return steps


def _build(path: Path, steps: list[tuple[str, object]]) -> None:
    if not steps:
        return
    with transaction(path) as book:
        for kind, (url, title) in steps:  # type: ignore[misc]
            source = book.add(url, title=title)[0]
            if kind == "quote":
                book.add_quote(source, Quote(text=f"words {title}", added="2026-01-02"))
            elif kind == "site":
                book.fill_details(source, Details(site=title or "A site"))
            elif kind == "archived":
                book.set_archived(source, "https://web.archive.org/web/2024/x")
            elif kind == "author":
                book.fill_details(source, Details(author=[{"literal": "A. Writer"}]))


def _pair(root: Path, name: str, steps: list[tuple[str, object]]) -> tuple[Path, Path]:
    """The same ledger in two folders: one for the lane, one for the core."""
    made = []
    for side in ("lane", "core"):
        folder = root / name / side
        folder.mkdir(parents=True)
        path = folder / "ledger.json"
        _build(path, steps)
        prepare_lock_path(path)
        made.append(path)
    return made[0], made[1]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=_ledgers(),
    adds=st.lists(st.tuples(_PLAIN_URL, _TITLE), min_size=1, max_size=3),
    titled=st.booleans(),
)
def test_add_in_the_lane_writes_and_prints_what_the_core_does(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    steps: list[tuple[str, object]],
    adds: list[tuple[str, str]],
    titled: bool,
) -> None:
    root = tmp_path_factory.mktemp("add")
    lane_path, core_path = _pair(root, "x", steps)
    given_urls = [u for u, _ in adds]
    titles = [t for _, t in adds] if titled else []
    before = lane_path.read_bytes() if lane_path.exists() else None
    lines = lane.add(str(lane_path), given_urls, titles)
    if lines is None:  # handed back: nothing touched
        assert (lane_path.read_bytes() if lane_path.exists() else None) == before
        return
    capsys.readouterr()
    add_sources(lambda: core_path, given_urls, titles)
    assert capsys.readouterr().out.splitlines() == lines
    assert lane_path.read_bytes() == core_path.read_bytes()
    assert store.load_ledger(lane_path).to_dict() == store.load_ledger(core_path).to_dict()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=_ledgers())
def test_list_in_the_lane_prints_what_the_core_does(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, object]]
) -> None:
    path, _ = _pair(tmp_path_factory.mktemp("list"), "x", steps)
    shown = lane.listed(str(path))
    if shown is not None:
        assert shown == "\n".join(list_lines(path, "given by --ledger", as_json=False))


def _ordinary(folder: Path) -> Path:
    path = folder / "ledger.json"
    with transaction(path) as book:
        book.add("https://example.org/a", title="Sea ice — a primer")
        book.add_quote(book.source(1), Quote(text="ice floats on water", added="2026-01-02"))
        book.add("https://example.org/b?page=2", title="https://example.org/b?page=2")
        book.add("https://example.org/d", title="")
    return path


def test_the_lane_takes_the_ordinary_call(tmp_path: Path) -> None:
    """Not a vacuous lane: an agent's ledger as the core writes it is taken."""
    path = _ordinary(tmp_path)
    assert lane.listed(str(path)) == (
        "[1] https://example.org/a  Sea ice — a primer  (1 quote)\n"
        "[2] https://example.org/b?page=2  \n"
        "[3] https://example.org/d"
    )
    assert lane.add(str(path), ["https://example.org/c"], ["C"]) == ["[4] https://example.org/c"]
    assert lane.add(str(path), [" https://example.org/a "], []) == ["[1] https://example.org/a"]
    assert lane.add(str(path), ["https://example.org/d"], ["D"]) == ["[3] https://example.org/d"]
    book = store.load_ledger(path)
    assert [(s.id, s.title) for s in book.sources] == [
        (1, "Sea ice — a primer"),
        (2, "https://example.org/b?page=2"),
        (3, "D"),
        (4, "C"),
    ]
    assert book.last_id == 4


def _odd_cases(tmp_path: Path) -> dict[str, tuple[Path, dict[str, str]]]:
    """Ledgers and settings the lane must hand back, by what is odd about them."""
    cases: dict[str, tuple[Path, dict[str, str]]] = {}

    def case(name: str) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        path = _ordinary(folder)
        cases[name] = (path, {})
        return path

    path = case("link")
    (path.parent / "real.json").write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to("real.json")
    case("read-only").chmod(0o444)
    path = case("orphan")
    (path.parent / ".ledger.json.123.abc.tmp.json").write_text("{", encoding="utf-8")
    path = case("no-lock-folder")
    for child in (path.parent / FOLDER).iterdir():
        child.unlink()
    (path.parent / FOLDER).rmdir()
    path = case("bom")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    path = case("tracking")
    path.write_text(path.read_text("utf-8").replace("?page=2", "?utm_source=x"), encoding="utf-8")
    path = case("escape")
    path.write_text(path.read_text("utf-8").replace("a primer", "a\\u0007primer"), "utf-8")
    path = case("layout")
    path.write_text(json.dumps(json.loads(path.read_text("utf-8"))), encoding="utf-8")
    path = case("author")
    with transaction(path) as book:
        book.fill_details(book.source(1), Details(author=[{"literal": "A. Writer"}]))
    path = case("duplicate-id")
    path.write_text(path.read_text("utf-8").replace('"id": 3', '"id": 1'), encoding="utf-8")
    path = case("large")
    with transaction(path) as book:
        for n in range(lane_file.LANE_BYTES // 100):
            book.add(f"https://example.org/many/{n}", title="A title of some length " * 2)
    path = case("empty")  # an interrupted write: the core refuses it, nothing writes over it
    path.write_bytes(b"")
    path = case("not-json")
    path.write_text(path.read_text("utf-8")[:-3], encoding="utf-8")
    path = case("unknown-key")
    path.write_text(path.read_text("utf-8").replace('"title"', '"tilte"', 1), encoding="utf-8")
    return cases


def test_the_lane_hands_back_what_it_cannot_prove_ordinary(tmp_path: Path) -> None:
    for name, (path, _env) in _odd_cases(tmp_path).items():
        before = path.read_bytes()
        if name != "large":  # add takes a large ledger in lane_large.py (tests below)
            assert lane.add(str(path), ["https://example.org/new"], []) is None, name
        assert path.read_bytes() == before, name
        if name not in ("read-only", "orphan", "no-lock-folder", "link", "large"):
            assert lane.listed(str(path)) is None, name


def test_the_lane_hands_back_urls_the_core_normalises(tmp_path: Path) -> None:
    path = _ordinary(tmp_path)
    for url in (
        "https://EXAMPLE.org/x",
        "example.org/x",
        "doi:10.1000/x",
        "https://example.org/x#part",
        "https://example.org/x?utm_source=openai",
        "https://example.org/docs/",
        "-",
    ):
        assert lane.add(str(path), [url], []) is None, url
    assert lane.add(str(path), ["https://example.org/x"], ["a", "b"]) is None


def test_where_hands_back_what_the_core_must_find(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in (*lane_file.ENV_VARS, "HERMES_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    assert lane.where(None) == ("ledger.json", lane._DEFAULT_WHY)
    assert lane.where("my.json") == ("my.json", "given by --ledger")
    monkeypatch.setenv("CITELEDGER_LEDGER", " env.json ")
    assert lane.where(None) == ("env.json", "given by $CITELEDGER_LEDGER")
    for odd in ("~/ledger.json", "ledger", "dir/", ".json", "x" * 300 + ".json"):
        assert lane.where(odd) is None, odd
    monkeypatch.delenv("CITELEDGER_LEDGER")
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    assert lane.where(None) is None
    monkeypatch.delenv("HERMES_HOME")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'citeledger'\n", "utf-8")
    assert lane.where(None) is not None  # a pyproject.toml without a citeledger table
    (tmp_path / "pyproject.toml").write_text("[tool.citeledger]\n", encoding="utf-8")
    assert lane.where(None) is None
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "citeledger.toml").write_text("", encoding="utf-8")
    assert lane.where(None) is None
    (tmp_path / "sub" / ".git").mkdir()  # the walk stops at the repository's root
    assert lane.where(None) is not None
    assert lane.where("given.json") == ("given.json", "given by --ledger")


# --- what it loads -------------------------------------------------------------------------

# The standard-library modules the lane exists to avoid: re (with enum, functools and
# collections), and each module that imports it.
NEVER_IN_LANE = (
    "re",
    "enum",
    "json",
    "pathlib",
    "urllib",
    "ipaddress",
    "contextlib",
    "signal",
    "typing",
    "dataclasses",
    "citeledger.ledger.store",
    "citeledger.ledger.model",
    "citeledger.escape",
)


@pytest.mark.parametrize(
    "args",
    [
        ["--ledger", "ledger.json", "add", "https://example.org/new"],
        ["add", "https://example.org/a", "https://example.org/n2", "--title", "A", "--title", "N"],
        ["--ledger", "ledger.json", "list"],
    ],
    ids=["add", "add-titles", "list"],
)
def test_the_lane_loads_no_regular_expression(tmp_path: Path, args: list[str]) -> None:
    _ordinary(tmp_path)
    out, loaded = loaded_by(tmp_path, args)
    assert out.startswith("[")  # it did the work
    assert lane_hits(loaded) == []


def lane_hits(loaded: set[str]) -> list[str]:
    """The modules of ``loaded`` the lane exists to avoid (:data:`NEVER_IN_LANE`)."""
    return [m for m in loaded for n in NEVER_IN_LANE if m == n or m.startswith(n + ".")]


# --- large ledgers (lane_large.py) ---------------------------------------------------------


@pytest.fixture(scope="module")
def large_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A ledger above lane_file.LANE_BYTES as the core writes it: titled and untitled entries,
    quotes, a site, an archived copy, a query."""
    path = tmp_path_factory.mktemp("large") / "ledger.json"
    with transaction(path) as book:
        for n in range(2600):
            url = f"https://example.org/ice/{n}?page={n % 3}"
            title = "" if n % 7 == 0 else f'Sea ice, part {n} \u2014 \u00e9t\u00e9 "notes"'
            odd = {17: url + "/", 19: " spaced  out ", 23: "long " * 80, 29: "bell\u0007 \u202eX"}
            title = next((t for k, t in odd.items() if n % k == 0), title)
            source = book.add(url, title=title)[0]
            if n % 5 == 0:
                book.add_quote(source, Quote(text=f"ice floats {n} times", added="2026-01-02"))
            if n % 11 == 0:
                book.fill_details(source, Details(site="Ice Site"))
            if n % 13 == 0:
                book.set_archived(source, f"https://web.archive.org/web/2024/ice/{n}")
    text = path.read_text("utf-8")
    assert len(text.encode("utf-8")) > lane_file.LANE_BYTES
    return text


@pytest.mark.parametrize(
    ("urls", "titles", "taken"),
    [
        (["https://example.org/new"], ["New"], True),
        (["https://example.org/ice/5?page=2"], ["Another"], True),  # held, titled: as it is
        (["https://example.org/ice/7?page=1"], [], True),  # held, untitled, no title given
        (["https://example.org/ice/7?page=1"], ["Now titled"], False),  # the core fills it
        (["https://example.org/n1", "https://example.org/n1", "https://example.org/n2"], [], True),
        (["https://example.org/n1", "https://example.org/n1"], ["", "Second"], True),
    ],
)
def test_add_on_a_large_ledger_writes_what_the_core_does(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    large_text: str,
    urls: list[str],
    titles: list[str],
    taken: bool,
) -> None:
    paths = []
    for side in ("lane", "core"):
        (tmp_path / side).mkdir()
        path = tmp_path / side / "ledger.json"
        path.write_text(large_text, encoding="utf-8")
        prepare_lock_path(path)
        paths.append(path)
    lines = lane.add(str(paths[0]), urls, titles)
    if not taken:
        assert lines is None
        assert paths[0].read_text("utf-8") == large_text
        return
    assert lines is not None
    capsys.readouterr()
    add_sources(lambda: paths[1], urls, titles)
    assert capsys.readouterr().out.splitlines() == lines
    assert paths[0].read_bytes() == paths[1].read_bytes()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("https://example.org/ice/4?page=1", "https://example.org/ice/4?utm_source=x"),
        ("https://example.org/ice/4?page=1", "https://example.org/ice/4%4a"),
        ('"id": 9,', '"id": 8,'),
        ("https://example.org/ice/4?page=1", "https://Example.org/ice/4"),
        ('"title": "Sea ice, part 4', '"author": [], "title": "Sea ice, part 4'),
    ],
    ids=["tracking", "escape", "duplicate-id", "not-canonical", "layout"],
)
def test_a_large_ledger_it_cannot_prove_goes_to_the_core(
    tmp_path: Path, large_text: str, old: str, new: str
) -> None:
    path = tmp_path / "ledger.json"
    assert old in large_text
    odd = large_text.replace(old, new, 1)
    path.write_text(odd, encoding="utf-8")
    prepare_lock_path(path)
    assert lane.add(str(path), ["https://example.org/new"], []) is None
    assert path.read_text("utf-8") == odd


def test_a_ledger_beyond_the_large_lane_goes_to_the_core(
    tmp_path: Path, large_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ledger.json"
    path.write_text(large_text, encoding="utf-8")
    prepare_lock_path(path)
    monkeypatch.setattr(lane, "LARGE_BYTES", len(large_text) - 1)
    assert lane.add(str(path), ["https://example.org/new"], []) is None
    assert path.read_text("utf-8") == large_text


def test_list_on_a_large_ledger_prints_what_the_core_does(tmp_path: Path, large_text: str) -> None:
    path = tmp_path / "ledger.json"
    path.write_text(large_text, encoding="utf-8")
    shown = lane.listed(str(path))
    assert shown is not None
    assert shown == "\n".join(list_lines(path, "given by --ledger", as_json=False))
    path.write_text(large_text.replace('"id": 9,', '"id": 8,', 1), encoding="utf-8")
    assert lane.listed(str(path)) is None  # not a ledger the lane can prove: the core's


def shown_by_sources(path: Path) -> list[str]:
    """``list``'s lines made from the ledger's sources, each title as ``display_title``
    shows it: what every listing must print."""
    lines = []
    for s in sorted(store.load_ledger(path).sources, key=lambda s: s.id):
        title = f"  {s.display_title}" if s.title else ""
        n = len(s.quotes)
        mark = f"  ({n} quote{'s' if n != 1 else ''})" if n else ""
        lines.append(f"[{s.id}] {s.url}{title}{mark}")
    return lines


def test_the_core_lists_a_large_ledger_from_its_json_as_from_its_sources(
    tmp_path: Path, large_text: str
) -> None:
    path = tmp_path / "ledger.json"
    path.write_text(large_text, encoding="utf-8")
    assert not store.load_ledger(path).whole  # type: ignore[attr-defined]  # a TextLedger
    lines = list_lines(path, "given by --ledger", as_json=False)
    assert lines == shown_by_sources(path)
    assert sum(line.endswith("  ") for line in lines) > 10  # titles that are their URL


_LIST_TITLES = st.lists(
    st.sampled_from(["a", " ", "|", "\\", '"', "\t", "\u202e", "\u00e9", "://", "x" * 90]),
    max_size=5,
).map("".join)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    titles=st.lists(_LIST_TITLES, min_size=1, max_size=4),
    shuffled=st.booleans(),
    own_url=st.booleans(),
)
def test_list_reads_a_large_ledger_off_its_text_as_its_sources_show_it(
    tmp_path_factory: pytest.TempPathFactory, titles: list[str], shuffled: bool, own_url: bool
) -> None:
    """The large lane's ``list`` reads each id, URL, title and quote count off the proven
    text (lane_large.rows): the lines the sources give, for titles of every kind, in id order
    even when the file is not."""
    path = tmp_path_factory.mktemp("rows") / "ledger.json"
    with transaction(path) as book:
        for n in range(700):
            title = titles[n % len(titles)] if n % 3 else f"Plain title {n}"
            if own_url and n % 97 == 0:
                title = f"https://example.org/r/{n}/"  # shown as no title
            source = book.add(f"https://example.org/r/{n}", title=title)[0]
            if n % 50 == 0:
                for k in range(n % 3 + 1):
                    book.add_quote(source, Quote(text=f"ice {n} floats {k}", added="2026-01-02"))
    text = path.read_text("utf-8")
    if shuffled:  # two entries swapped, as a hand might leave them
        first = text.index('\n    {\n      "id": 1,')
        second = text.index('\n    {\n      "id": 2,')
        third = text.index('\n    {\n      "id": 3,')
        text = (
            text[:first]
            + text[second : third - 1]
            + ","
            + text[first : second - 1]
            + text[third - 1 :]
        )
        path.write_text(text, encoding="utf-8")
    shown = lane.listed(str(path))
    assert shown is not None
    assert shown == "\n".join(shown_by_sources(path))


def test_the_same_ledger_text_is_checked_once(
    tmp_path: Path, large_text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """quote reads its ledger twice (the source, then under the lock): the same text is not
    checked again, another text always is."""
    from citeledger.ledger import layout

    calls: list[str] = []
    real = layout.layout_match

    def counted(text: str, canonical: bool = True) -> bool:
        calls.append(text)
        return real(text, canonical)

    monkeypatch.setattr(layout, "layout_match", counted)
    layout._LAST.clear()
    first = layout.fast_ledger(tmp_path / "ledger.json", large_text)
    assert first is not None and calls
    seen = len(calls)
    again = layout.fast_ledger(tmp_path / "ledger.json", large_text)
    assert again is not None and len(calls) == seen
    assert again.get(9) == first.get(9)
    odd = large_text.replace('"id": 9,', '"id": 8,', 1)
    assert layout.fast_ledger(tmp_path / "ledger.json", odd) is None
    assert len(calls) > seen


def test_a_high_water_mark_above_every_id_numbers_the_next_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ids are never reused: a ledger whose sources were removed keeps its mark."""
    paths = []
    for side in ("lane", "core"):
        (tmp_path / side).mkdir()
        path = _ordinary(tmp_path / side)
        path.write_text(path.read_text("utf-8").replace('"last_id": 3', '"last_id": 20'), "utf-8")
        paths.append(path)
    assert lane.add(str(paths[0]), ["https://example.org/new"], []) == [
        "[21] https://example.org/new"
    ]
    add_sources(lambda: paths[1], ["https://example.org/new"], [])
    assert capsys.readouterr().out == "[21] https://example.org/new\n"
    assert paths[0].read_bytes() == paths[1].read_bytes()
