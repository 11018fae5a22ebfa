"""``citeledger list`` on a large ledger (lane_large.rows, lane.list_block): the text printed is
the one the sources give, byte for byte, for every layout, size and kind of title, whether the
text is proven now or was proven before; a fast path that reads a column wrong, misplaces a
quote count or misses an escape shows here as a different line."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeledger.cli import _TerminalSafe
from citeledger.commands._quick import list_lines
from citeledger.escape import terminal_text
from citeledger.ledger import Quote, lane, lane_file, lane_large, transaction
from tests.ledger.test_lane import shown_by_sources as lines_by_sources


def shown_by_sources(path: Path) -> str:
    """What ``list`` prints, made from the ledger's sources (test_lane's lines, joined)."""
    return "\n".join(lines_by_sources(path))


_ODD = [
    "Plain",
    "",
    'with "quotes" inside',
    "tab\there",
    "new\nline",
    "uni \u00e9 \u2014 \u96ea \U0001f600",
    "bidi \u202e evil",
    "  lead",
    "trail  ",
    "double  space",
    "pipe | here",
    "a|b",
    "|",
    "back\\slash",
    "x" * 310,
    "y" * 300,
    "nbsp\u00a0here",
    '\\"',
    "zero\u200bwidth",
    "ok :// not a URL",
]

# Each kind: the title of source n, how many quotes it carries, whether the titles are shown
# as they are (the one-join path of lane.list_block; else lane.list_columns line by line).
_KINDS: dict[str, tuple[Callable[[int], str], Callable[[int], int], bool]] = {
    "plain": (lambda n: f"Sea ice {n}", lambda n: 0, True),
    "quoted": (lambda n: f"T {n}", lambda n: 1 + n % 3, True),
    "empty titles": (lambda n: "" if n % 2 else f"T{n}", lambda n: n % 7 == 0, True),
    "quotation marks": (lambda n: f'The "{n}" paper' if n % 3 else "plain", lambda n: 0, True),
    "other escapes": (
        lambda n: f'The "{n}" paper \\ a\\b' if n % 7 == 0 else f'The "{n}"',
        lambda n: n % 11 == 0,
        True,
    ),
    "unicode": (lambda n: f"\u0413\u043b\u0430\u0432\u0430 {n} \u2014 \u96ea", lambda n: 0, True),
    "own URL": (lambda n: "OWN" if n % 5 == 0 else f"t{n}", lambda n: n % 9 == 0, False),
    "odd": (lambda n: _ODD[n % len(_ODD)], lambda n: n % 4 == 0, False),
}


def _make(path: Path, n: int, kind: str) -> Path:
    title, quotes, _ = _KINDS[kind]
    with transaction(path) as book:
        for i in range(1, n + 1):
            url = f"https://example.org/s/{i}"
            t = url if title(i) == "OWN" else title(i)
            source = book.add(url, title=t)[0]
            for k in range(int(quotes(i))):
                book.add_quote(source, Quote(text=f"ice {i} floats {k}", added="2026-01-02"))
    return path


def _reordered(path: Path, order: Callable[[list[str]], list[str]]) -> None:
    """The entries of the file in the order ``order`` gives, as a hand may leave them (the
    layout kept)."""
    text = path.read_text("utf-8")
    head, _, rest = text.partition('  "sources": [\n')
    body, _, tail = rest.rpartition("\n  ]")
    entries = [e if e.endswith("}") else e + "\n    }" for e in body.split("\n    },\n")]
    path.write_text(
        head + '  "sources": [\n' + ",\n".join(order(entries)) + "\n  ]" + tail, "utf-8"
    )
    json.loads(path.read_text("utf-8"))  # still JSON


def _shuffled(entries: list[str]) -> list[str]:
    random.Random(len(entries)).shuffle(entries)
    return entries


def _listed_twice(path: Path) -> str:
    """The lane's text for the ledger: proven now, then again off the record of proven texts
    (both must agree)."""
    first = lane.listed(str(path))
    assert first is not None  # the lane takes it: no vacuous comparison
    assert lane.listed(str(path)) == first
    return first


@pytest.mark.parametrize("kind", sorted(_KINDS))
@pytest.mark.parametrize("shuffle", [False, True])
def test_a_large_ledger_lists_as_its_sources_show_it(
    tmp_path: Path, kind: str, shuffle: bool
) -> None:
    """1,200 sources (ids of one to four digits) of each kind of title, in order and not."""
    path = _make(tmp_path / "ledger.json", 1200, kind)
    if shuffle:
        _reordered(path, _shuffled)
    text = path.read_text("utf-8")
    assert len(text) > lane_file.LANE_BYTES
    taken = lane_large.rows(text)
    assert taken is not None
    assert lane._as_they_are(taken[2]) is _KINDS[kind][2]  # the path this kind is for
    shown = _listed_twice(path)
    assert shown == shown_by_sources(path)
    assert shown == "\n".join(list_lines(path, "given by --ledger", as_json=False))


# Titles as a hand or another tool may write them into the file (the JSON string's inside):
# spaces at either end or doubled, escapes of every kind, a URL with a slash more.
_HAND_TITLES = [
    "trailing ",
    " leading",
    "double  space",
    "a |b",
    "a| b",
    "tab\\there",
    "bell\\u0007",
    "line\\nbreak",
    "\\u202eevil",
    'q\\"uote\\\\',
    "\\u00e9t\\u00e9",
    "https://example.org/s/{n}/",
    " ",
    "",
]


@pytest.fixture(scope="module")
def plain_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    return _make(tmp_path_factory.mktemp("plain") / "ledger.json", 900, "plain").read_text("utf-8")


def _with_titles(text: str, titles: dict[int, str]) -> str:
    """``text`` with the titles of the sources named written as given (JSON string insides)."""
    for n, raw in titles.items():
        line = text[text.index(f'"url": "https://example.org/s/{n}",') :]
        start = line.index('"title": ')
        old = line[start : line.index("\n", start)]
        text = text.replace(old, f'"title": "{raw.format(n=n)}",', 1)
    return text


@pytest.mark.parametrize("where", [1, 450, 900])
@pytest.mark.parametrize("raw", _HAND_TITLES)
def test_a_title_written_by_hand_lists_as_the_sources_show_it(
    tmp_path: Path, plain_text: str, raw: str, where: int
) -> None:
    """One odd title (first, amid or last) among plain ones: each rule of the titles shown as
    they are is needed on its own."""
    text = _with_titles(plain_text, {where: raw})
    path = tmp_path / "ledger.json"
    path.write_text(text, "utf-8")
    assert lane_large.checked(text) is not None  # the layout the lane takes
    assert _listed_twice(path) == shown_by_sources(path)


def test_titles_written_by_hand_together_list_as_the_sources_show_them(
    tmp_path: Path, plain_text: str
) -> None:
    text = _with_titles(plain_text, {7 * k + 3: raw for k, raw in enumerate(_HAND_TITLES * 3)})
    path = tmp_path / "ledger.json"
    path.write_text(text, "utf-8")
    assert lane_large.checked(text) is not None
    assert _listed_twice(path) == shown_by_sources(path)


def test_ids_across_digit_lengths_listed_in_number_order(tmp_path: Path) -> None:
    """Ids compared as text must still come out in number order: 9 before 10, 99 before
    100, 999 before 1000, wherever the file holds them."""
    path = _make(tmp_path / "ledger.json", 1100, "quoted")
    # 1000 first, then 100, 10 and 1, the rest in order, 9, 99 and 999 last.
    front, back = [999, 99, 9, 0], [8, 98, 998]
    _reordered(
        path,
        lambda e: (
            [e[k] for k in front]
            + [x for k, x in enumerate(e) if k not in front + back]
            + [e[k] for k in back]
        ),
    )
    shown = _listed_twice(path)
    ids = [int(line[1 : line.index("]")]) for line in shown.splitlines()]
    assert ids == list(range(1, 1101))
    assert shown == shown_by_sources(path)


def test_a_ledger_of_twenty_thousand_sources_lists_as_its_sources_show_it(
    tmp_path: Path,
) -> None:
    """The benchmark's kind of ledger at a size where ids reach five digits, with quotes."""
    path = _make(tmp_path / "ledger.json", 20_000, "quoted")
    assert _listed_twice(path) == shown_by_sources(path)


def test_list_prints_the_lanes_text_once(tmp_path: Path) -> None:
    """The command prints the lane's text and one new line, nothing else, on the odd kind."""
    path = _make(tmp_path / "ledger.json", 700, "odd")
    run = "import sys; from citeledger.cli import main; main(sys.argv[1:])"
    got = subprocess.run(
        [sys.executable, "-c", run, "--ledger", str(path), "list"],
        capture_output=True,
        check=True,
    )
    expected = shown_by_sources(path) + "\n"
    assert got.stdout == terminal_text(expected).encode("utf-8")


def _filtered(text: str) -> str:
    """What cli._TerminalSafe writes for ``text`` (uncoloured, whatever the environment)."""
    out = io.StringIO()
    with mock.patch.dict(os.environ, {"NO_COLOR": "1"}):
        _TerminalSafe(out).write(text)
    return out.getvalue()


_ASCII = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=127), max_size=40)


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(_ASCII, st.text(max_size=20)))
def test_the_terminal_filter_passes_what_it_passed_before(text: str) -> None:
    """cli._TerminalSafe checks ASCII a byte at a time: the same text passes as it is, the
    same is escaped, as with str.isprintable."""
    plain = text.replace("\n", "").replace("\t", "").isprintable()
    assert _filtered(text) == (text if plain else terminal_text(text))


def test_the_terminal_filter_escapes_each_ascii_control_character() -> None:
    """Every ASCII character but tab and new line that isprintable refuses is escaped."""
    for code in range(128):
        text = f"[1] https://example.org/a  x{chr(code)}y\n[2] https://example.org/b\t"
        plain = text.replace("\n", "").replace("\t", "").isprintable()
        assert _filtered(text) == (text if plain else terminal_text(text)), code
        assert plain is (code in (9, 10) or 32 <= code < 127)
