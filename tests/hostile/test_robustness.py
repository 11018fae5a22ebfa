"""Does citeledger hold up: many writers at once, writers killed mid-write, bad input of every
kind at the command-line edge, and properties of the text machinery on arbitrary input.

The ledger's own tests (tests/ledger/) cover the store in-process: parallel ``add`` only, a
kill loop on ``add``, corrupt files through ``load_ledger``. Here the whole command runs the
way agents run it: the verbs interleaved, killed at random moments, and every user error seen
from outside as exit code plus stderr.

Unreadable files: tests run as root here, where ``chmod 000`` does not stop a read. As root the
"unreadable ledger" cases are a symlink loop (ELOOP on open) and a path through a regular file
(ENOTDIR); as any other user ``chmod 000`` is tested as well.
"""

from __future__ import annotations

import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from citeledger.document.grammar import MARKER_RE, Marker, link_marker_id, split_markers
from citeledger.document.markers import scan
from citeledger.document.sentences import split_text
from citeledger.filters.cards import assets_html
from citeledger.ledger import (
    load_ledger,
    lock_file,
    normalize_for_match,
    normalize_url,
    quote_in_text,
)
from citeledger.ledger.urls import url_key
from citeledger.pandoc import run_pandoc
from tests.helpers import FIXTURES, LEDGER_VARS, citeledger_env, run_citeledger


def cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the command line as a user would. On a timeout the whole process group goes, so a
    pandoc the command started cannot outlive the test."""
    return run_citeledger(*args, cwd=cwd, unset=LEDGER_VARS, timeout=timeout, own_group=True)


def assert_one_line_error(proc: subprocess.CompletedProcess[str], what: str) -> None:
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2, f"{what}: exit {proc.returncode}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr + proc.stdout, f"{what}: traceback\n{proc.stderr}"
    assert len(lines) == 1, f"{what}: expected one stderr line, got:\n{proc.stderr}"
    assert lines[0].startswith("citeledger: error: "), f"{what}: {lines[0]}"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _temps(folder: Path, name: str = "ledger.json") -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.name.startswith(f".{name}.") and ".tmp" in p.name
    )


# --- concurrency: the verbs interleaved by 8 processes --------------------------------------------

WORKER = textwrap.dedent(
    """
    import contextlib, io, json, re, sys
    from citeledger.cli import main

    ledger, worker, rounds, folder = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

    def run(*args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                main(["--ledger", ledger, *args])
            except SystemExit as exc:
                if exc.code not in (0, None):
                    raise RuntimeError(f"{args} exited {exc.code}")
        return out.getvalue()

    def ids(text):
        line = r"^\\[(\\d+)\\] (\\S+)(?: .*)?$"
        return {url: int(n) for n, url in re.findall(line, text, re.M)}

    page = f"{folder}/page-{worker}.txt"
    for k in range(rounds):
        url = f"https://w{worker}.example.org/p{k}"
        source = ids(run("add", url, "--title", f"Worker {worker} page {k}"))[url]
        run("quote", str(source), "--text", f"worker {worker} item {k} holds evidence",
            "--from", page)
        if k % 3 == 0:
            batch = f"{folder}/batch-{worker}-{k}.json"
            with open(batch, "w", encoding="utf-8") as fh:
                json.dump({"results": [
                    {"url": f"https://shared.example.org/s{k}", "title": f"Shared {k}"},
                    {"link": f"https://w{worker}.example.org/ingested/{k}", "name": "Ingested"},
                ]}, fh)
            shared = ids(run("ingest", batch))[f"https://shared.example.org/s{k}"]
            run("quote", str(shared), "--text", f"worker {worker} shared {k} evidence line",
                "--from", page)
    """
)


@pytest.mark.slow
def test_eight_processes_interleaving_add_ingest_quote_lose_nothing(tmp_path: Path) -> None:
    workers, rounds = 8, 12
    ledger_path = tmp_path / "ledger.json"
    for w in range(workers):
        lines = [f"worker {w} item {k} holds evidence." for k in range(rounds)]
        lines += [f"worker {w} shared {k} evidence line." for k in range(rounds)]
        (tmp_path / f"page-{w}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")

    reads, bad_reads = [0], []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            try:
                raw = ledger_path.read_bytes()
            except FileNotFoundError:
                continue
            try:
                json.loads(raw)
            except ValueError as exc:
                bad_reads.append(f"{exc}: {raw[:80]!r}")
            reads[0] += 1
            time.sleep(0.001)

    watcher = threading.Thread(target=reader)
    watcher.start()
    try:
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    WORKER,
                    str(ledger_path),
                    str(w),
                    str(rounds),
                    str(tmp_path),
                ],
                stderr=subprocess.PIPE,
                env=citeledger_env(unset=LEDGER_VARS),
            )
            for w in range(workers)
        ]
        errors = [p.communicate(timeout=300)[1].decode() for p in procs]
    finally:
        stop.set()
        watcher.join()
    assert [p.returncode for p in procs] == [0] * workers, "\n".join(errors)
    assert not bad_reads, bad_reads[:3]
    assert reads[0] > 10

    ledger = load_ledger(ledger_path)
    by_url = {s.url: s for s in ledger.sources}
    shared_rounds = range(0, rounds, 3)
    expected = {f"https://w{w}.example.org/p{k}" for w in range(workers) for k in range(rounds)}
    expected |= {
        f"https://w{w}.example.org/ingested/{k}" for w in range(workers) for k in shared_rounds
    }
    expected |= {f"https://shared.example.org/s{k}" for k in shared_rounds}
    assert set(by_url) == expected, "a source was lost or an unexpected one appeared"
    assert len(ledger.sources) == len(expected), "a URL is in the ledger twice"
    assert ledger.ids() == list(range(1, len(expected) + 1)), "ids are not 1..n, each once"
    for w in range(workers):
        for k in range(rounds):
            quotes = [q.text for q in by_url[f"https://w{w}.example.org/p{k}"].quotes]
            assert quotes == [f"worker {w} item {k} holds evidence"]
    for k in shared_rounds:
        quotes = sorted(q.text for q in by_url[f"https://shared.example.org/s{k}"].quotes)
        assert quotes == sorted(f"worker {w} shared {k} evidence line" for w in range(workers))


# --- crash: a writer killed with SIGKILL at random moments ----------------------------------------

CRASHER = textwrap.dedent(
    """
    import contextlib, io, json, random, sys
    from citeledger.cli import main

    ledger, seed, page = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)

    def run(*args):
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                main(["--ledger", ledger, *args])
            except SystemExit as exc:
                if exc.code not in (0, None):
                    raise RuntimeError(f"{args} exited {exc.code}")

    print("ready", flush=True)
    n = 0
    while True:
        n += 1
        op = rng.choice(("add", "ingest", "quote"))
        if op == "add":
            run("add", f"https://crash.example.org/{seed}/{n}", "--title", "t" * 120)
        elif op == "ingest":
            batch = f"{ledger}.batch-{seed}.json"
            with open(batch, "w", encoding="utf-8") as fh:
                urls = [{"url": f"https://crash.example.org/{seed}/{n}/{i}"} for i in range(5)]
                json.dump(urls, fh)
            run("ingest", batch)
        else:
            text = f"crash quote number {rng.randint(1, 40)}"
            run("quote", str(rng.randint(1, 200)), "--text", text, "--from", page)
    """
)


@pytest.mark.slow
def test_writer_killed_at_random_moments_never_breaks_the_ledger(tmp_path: Path) -> None:
    ledger_path = tmp_path / "ledger.json"
    page = tmp_path / "page.txt"
    page.write_text(
        "\n".join(f"crash quote number {i}, written down here." for i in range(1, 41)),
        encoding="utf-8",
    )
    # A ledger of some size, so that a write takes long enough to be interrupted in the middle.
    seed_sources = [
        {
            "id": i,
            "url": f"https://seed.example.org/{i}",
            "title": "Seed source " * 8,
            "accessed": "2025-01-01",
            "quotes": [{"text": f"crash quote number {i % 40 + 1}", "added": "2025-01-01"}],
        }
        for i in range(1, 1501)
    ]
    ledger_path.write_text(json.dumps({"version": 1, "sources": seed_sources}), encoding="utf-8")
    rng = random.Random(6)
    temps_seen = 0
    for attempt in range(50):
        writer = subprocess.Popen(
            [sys.executable, "-c", CRASHER, str(ledger_path), str(attempt), str(page)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=citeledger_env(unset=LEDGER_VARS),
        )
        assert writer.stdout is not None
        assert writer.stdout.readline() == b"ready\n", writer.communicate()[1].decode()
        time.sleep(rng.uniform(0.0, 0.25))
        os.kill(writer.pid, signal.SIGKILL)
        _, err = writer.communicate()
        assert writer.returncode == -signal.SIGKILL, err.decode()
        ledger = load_ledger(ledger_path)  # parses, or this raises
        assert ledger.ids() == list(range(1, len(ledger.sources) + 1)), f"after kill {attempt}"
        assert len({s.url for s in ledger.sources}) == len(ledger.sources)
        temps = _temps(tmp_path)
        temps_seen += bool(temps)
        # A killed writer may leave its own temp file; the next writer removes it.
        assert len(temps) <= 1, f"temp files pile up after kill {attempt}: {temps}"
    print(f"kills that left a temp file behind: {temps_seen}/50")
    proc = cli("--ledger", str(ledger_path), "add", "https://after.example.org/", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _temps(tmp_path) == []
    assert len(load_ledger(ledger_path).sources) > 1500


# --- bad input: one line, exit 2, nothing changed -------------------------------------------------

DRAFT = (
    "# Note\n\nSea ice floats on the water around it.[1]\n\n"
    "## Sources\n\n[1] https://a.example.org/ice — Ice\n"
)
GOOD_LEDGER = {
    "version": 1,
    "sources": [
        {
            "id": 1,
            "url": "https://a.example.org/ice",
            "title": "Ice",
            "accessed": "2025-01-01",
            "quotes": [],
        }
    ],
}


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for folders and links). The lock file
    a writer takes beside the ledger is not the ledger and may appear."""
    out: dict[str, bytes | None] = {}
    for path in sorted(folder.rglob("*")):
        if lock_file.FOLDER in path.relative_to(folder).parts:
            continue
        rel = str(path.relative_to(folder))
        if path.is_symlink() or path.is_dir():
            out[rel] = None if not path.is_symlink() else os.readlink(path).encode()
        else:
            try:
                out[rel] = path.read_bytes()
            except OSError:
                out[rel] = b"<unreadable>"
    return out


def _bad_ledgers() -> dict[str, Callable[[Path], str]]:
    def content(data: bytes) -> Callable[[Path], str]:
        def make(folder: Path) -> str:
            (folder / "ledger.json").write_bytes(data)
            return "ledger.json"

        return make

    def directory(folder: Path) -> str:
        (folder / "ledger.json").mkdir()
        return "ledger.json"

    def symlink_loop(folder: Path) -> str:
        (folder / "ledger.json").symlink_to("ledger.json")
        return "ledger.json"

    def through_a_file(folder: Path) -> str:
        (folder / "notes.txt").write_text("not a folder\n", encoding="utf-8")
        return "notes.txt/ledger.json"

    def mode_000(folder: Path) -> str:
        path = folder / "ledger.json"
        path.write_text(json.dumps(GOOD_LEDGER), encoding="utf-8")
        path.chmod(0)
        return "ledger.json"

    cases: dict[str, Callable[[Path], str]] = {
        "corrupt_json": content(b'{"version": 1, "sources": [{"id": 1, "url": '),
        "wrong_shape": content(b'{"version": 1, "sources": {"1": "https://a.example.org"}}'),
        "non_utf8": content(b'{"version": 1, "sources": [], "note": "caf\xe9 \xff"}'),
        "zero_bytes": content(b""),
        "directory": directory,
        "unreadable_symlink_loop": symlink_loop,
        "unreadable_path_through_a_file": through_a_file,
    }
    if os.geteuid() != 0:  # root reads a mode-000 file anyway
        cases["unreadable_mode_000"] = mode_000
    return cases


BAD_LEDGERS = _bad_ledgers()
VERBS: dict[str, list[str]] = {
    "add": ["add", "https://b.example.org/new"],
    "ingest": ["ingest", "results.json"],
    "quote": ["quote", "1", "--text", "sea ice floats on", "--from", "page.txt"],
    "list": ["list"],
    "render": ["render", "--cited-in", "draft.md"],
    "verify": ["verify", "draft.md"],
}


@pytest.mark.parametrize("case", sorted(BAD_LEDGERS))
def test_bad_ledger_gives_one_line_and_stays_byte_identical(tmp_path: Path, case: str) -> None:
    (tmp_path / "draft.md").write_text(DRAFT, encoding="utf-8")
    (tmp_path / "page.txt").write_text("Sea ice floats on the water.\n", encoding="utf-8")
    (tmp_path / "results.json").write_text(
        json.dumps([{"url": "https://c.example.org/x", "title": "C"}]), encoding="utf-8"
    )
    ledger = BAD_LEDGERS[case](tmp_path)
    before = _snapshot(tmp_path)
    for verb, args in VERBS.items():
        proc = cli("--ledger", ledger, *args, cwd=tmp_path)
        assert_one_line_error(proc, f"{case} / {verb}")
        assert "ledger" in proc.stderr, proc.stderr
        assert _snapshot(tmp_path) == before, f"{case} / {verb} changed files"


def _ledger_dir(tmp_path: Path) -> Path:
    (tmp_path / "ledger.json").write_text(json.dumps(GOOD_LEDGER, indent=2), encoding="utf-8")
    return tmp_path


def test_missing_draft_is_one_line_for_every_verb_that_reads_one(tmp_path: Path) -> None:
    folder = _ledger_dir(tmp_path)
    before = _snapshot(folder)
    runs = {
        "verify": ["verify", "nowhere.md"],
        "render --cited-in": ["render", "--cited-in", "nowhere.md"],
        "render --replace-in": ["render", "--replace-in", "nowhere.md"],
    }
    for what, args in runs.items():
        proc = cli(*args, cwd=folder)
        assert_one_line_error(proc, what)
        assert "nowhere.md" in proc.stderr
    assert _snapshot(folder) == before


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(bytes(range(256)) * 40, id="all_bytes"),
        pytest.param(b"\x89PNG\r\n\x1a\n" + bytes(4000), id="png_header_and_nul"),
        pytest.param(b"PK\x03\x04" + os.urandom(2000), id="zip_named_md"),
    ],
)
def test_binary_file_as_draft_is_one_line(tmp_path: Path, content: bytes) -> None:
    folder = _ledger_dir(tmp_path)
    (folder / "draft.md").write_bytes(content)
    before = _snapshot(folder)
    for args in (["verify", "draft.md"], ["render", "--replace-in", "draft.md"]):
        # pandoc given such bytes as markdown can run for minutes and grow by gigabytes: the
        # command must refuse them before pandoc sees them.
        proc = cli(*args, cwd=folder, timeout=10)
        assert_one_line_error(proc, " ".join(args))
    assert _snapshot(folder) == before


def test_unreadable_draft_is_one_line(tmp_path: Path) -> None:
    folder = _ledger_dir(tmp_path)
    (folder / "draft.md").mkdir()
    (folder / "notes.txt").write_text("x\n", encoding="utf-8")
    for draft in ("draft.md", "notes.txt/draft.md"):
        assert_one_line_error(cli("verify", draft, cwd=folder), f"verify {draft}")


@pytest.mark.slow
def test_fifty_megabyte_evidence_is_quoted_in_sane_time(tmp_path: Path) -> None:
    folder = _ledger_dir(tmp_path)
    paragraph = (
        "Ice shelves <b>calve</b> icebergs when cracks [reach](https://x.org) the sea; "
        "the \u2014 process is \u201cslow\u201d until it is not.\n"
    ).encode()
    with (folder / "big.html").open("wb") as fh:
        fh.write(b"<!DOCTYPE html><html><body><p>")
        for _ in range(50_000_000 // len(paragraph)):
            fh.write(paragraph)
        fh.write(b"The needle: sea ice floats on the water.</p></body></html>")
    assert (folder / "big.html").stat().st_size > 50_000_000
    started = time.perf_counter()
    proc = cli(
        "quote", "1", "--text", "sea ice floats on the water", "--from", "big.html", cwd=folder
    )
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr
    assert elapsed < 60, f"quote on a 50 MB page took {elapsed:.1f} s"
    quotes = load_ledger(folder / "ledger.json").sources[0].quotes
    assert [q.text for q in quotes] == ["sea ice floats on the water"]


def test_too_large_evidence_is_one_line_and_ledger_untouched(tmp_path: Path) -> None:
    folder = _ledger_dir(tmp_path)
    with (folder / "huge.txt").open("wb") as fh:  # sparse: no disk used, size is what counts
        fh.truncate(300 * 1024 * 1024)
    before = (folder / "ledger.json").read_bytes()
    cpu = _children_cpu()
    proc = cli("quote", "1", "--text", "sea ice floats on", "--from", "huge.txt", cwd=folder)
    assert _children_cpu() - cpu < 5, "the size must be refused before reading"
    assert_one_line_error(proc, "quote --from huge.txt")
    assert "huge.txt" in proc.stderr
    assert (folder / "ledger.json").read_bytes() == before


# --- properties: the text machinery on arbitrary input --------------------------------------------

_markerish = st.lists(
    st.one_of(
        st.sampled_from(list("[]0123456789,-–: ()")),
        st.sampled_from(["[1]", "[12]", "[tool:", "tool:x", "[policy]", "[unverified]", "[1, 2]"]),
        st.characters(),
    ),
    max_size=40,
).map("".join)


@settings(deadline=None)  # a loaded machine must not fail a property
@given(_markerish)
def test_split_markers_loses_no_text_and_every_marker_is_well_formed(text: str) -> None:
    pieces = split_markers(text)
    assert "".join(p.text if isinstance(p, Marker) else p for p in pieces) == text
    for piece in pieces:
        if isinstance(piece, Marker):
            assert MARKER_RE.fullmatch(piece.text)
            assert piece.is_citation == (piece.kind in ("id", "group"))
            assert all(0 <= i <= 9999 for i in piece.ids)


def _para(*inlines: object) -> dict[str, object]:
    return {
        "pandoc-api-version": [1, 23, 1],
        "meta": {},
        "blocks": [{"t": "Para", "c": list(inlines)}],
    }


_NO_ATTR = ["", [], []]
_SHIELDS: dict[str, Callable[[str], object]] = {
    "code": lambda t: {"t": "Code", "c": [_NO_ATTR, t]},
    "math": lambda t: {"t": "Math", "c": [{"t": "InlineMath"}, t]},
    "raw": lambda t: {"t": "RawInline", "c": ["html", t]},
    "link_text": lambda t: {
        "t": "Link",
        "c": [_NO_ATTR, [{"t": "Str", "c": t}], ["https://x.org", ""]],
    },
    "image_alt": lambda t: {"t": "Image", "c": [_NO_ATTR, [{"t": "Str", "c": t}], ["x.png", ""]]},
}


@pytest.mark.parametrize("shield", sorted(_SHIELDS))
@settings(deadline=None)  # a loaded machine must not fail a property
@given(text=_markerish)
def test_marker_inside_code_math_raw_or_link_is_never_a_citation(shield: str, text: str) -> None:
    shielded = _SHIELDS[shield](text)
    doc = _para({"t": "Str", "c": "Before"}, {"t": "Space"}, shielded)
    hits = scan(doc).hits
    if shield == "link_text" and link_marker_id(shielded) is not None:
        # A link whose whole text is a marker ([7] with a definition, [7](url)) is a citation;
        # set apart from the text, only when it keeps its brackets or the ledger knows it.
        known = scan(doc, known=lambda _n, _url: True).hits
        assert [(h.url, [m.ids for m in h.markers]) for h in known] == [
            ("https://x.org", [(link_marker_id(shielded),)])
        ]
        assert len(hits) == (1 if text.startswith("[") else 0)
        assert re.fullmatch(r"\[?\d{1,6}\]?", text)  # ids run to six digits (MAX_ID)
        return
    assert hits == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(
        alphabet=st.sampled_from(list("[]0123456789,- :toolpcyunverifd")), min_size=1, max_size=30
    )
)
def test_marker_in_a_markdown_code_span_read_by_pandoc_is_never_a_citation(text: str) -> None:
    assume(text.strip() and "`" not in text)
    doc = json.loads(run_pandoc(["-f", "markdown", "-t", "json"], stdin=f"Look: `{text}` here.\n"))
    assert scan(doc).hits == []


@settings(deadline=None)  # a loaded machine must not fail a property
@given(
    st.lists(
        st.one_of(st.text(max_size=12), st.sampled_from(["[1]", "[2][3]", "[1, 2]"])), max_size=20
    )
)
def test_scan_survives_any_run_of_str_and_space(words: list[str]) -> None:
    inlines: list[object] = []
    for word in words:
        inlines += [{"t": "Str", "c": word}, {"t": "Space"}]
    for hit in scan(_para(*inlines)).hits:
        assert all(el["t"] in ("Str", "Space") for el in hit.container[hit.start : hit.end + 1])


def _no_space(text: str) -> str:
    return "".join(ch for ch in text if not ch.isspace())


@settings(deadline=None)  # a loaded machine must not fail a property
@given(st.text(max_size=200))
def test_sentence_splitter_loses_and_repeats_nothing(text: str) -> None:
    parts = split_text(text)
    assert all(p and p == p.strip() for p in parts)
    assert _no_space("".join(parts)) == _no_space(text)


_cjk = st.text(
    alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=2, max_size=12
)


@settings(deadline=None)  # a loaded machine must not fail a property
@given(
    st.lists(_cjk, min_size=1, max_size=8),
    st.lists(st.sampled_from("。！？；"), min_size=8, max_size=8),
)
def test_cjk_text_splits_at_every_full_stop(clauses: list[str], ends: list[str]) -> None:
    wanted = [c + e for c, e in zip(clauses, ends[: len(clauses)], strict=True)]
    assert split_text("".join(wanted)) == wanted


@pytest.mark.slow  # drawing from a regex: about 5 s
@settings(deadline=None)  # a loaded machine must not fail a property
@given(
    st.lists(
        st.from_regex(r"[A-Z][a-z]{2,8}( [a-z]{2,8}){2,6}", fullmatch=True), min_size=1, max_size=8
    )
)
def test_plain_sentences_split_at_each_full_stop(sentences: list[str]) -> None:
    text = " ".join(f"{s} water." for s in sentences)
    assert split_text(text) == [f"{s} water." for s in sentences]


@settings(deadline=None)  # a loaded machine must not fail a property
@given(st.text(max_size=80), st.text(max_size=300))
def test_quote_matcher_never_crashes_and_a_page_contains_itself(quote: str, page: str) -> None:
    assert isinstance(quote_in_text(quote, page), bool)
    assert quote_in_text(page, page) == bool(normalize_for_match(page))


_FULLWIDTH = {
    ord(c): ord(c) + 0xFEE0
    for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
}
_kana_kanji = st.characters(min_codepoint=0x3041, max_codepoint=0x9FFF).filter(
    lambda c: len(normalize_for_match(c)) == 1 and not c.isspace()
)
_cjk_word = st.text(
    alphabet=st.one_of(_kana_kanji, st.sampled_from(list("0123456789AbcXyz"))),
    min_size=1,
    max_size=6,
)


@settings(deadline=None)  # a loaded machine must not fail a property
@given(st.lists(_cjk_word, min_size=3, max_size=15), st.data())
def test_cjk_substring_is_found_whatever_its_spacing_and_width(
    words: list[str], data: st.DataObject
) -> None:
    """A CJK page with spaces between clauses: any run of its clauses, joined by other
    whitespace and with ASCII letters and digits written full-width, is found."""
    spaces = st.sampled_from([" ", "\u3000", "\n", "\t ", "\u00a0"])
    page = "".join(w + data.draw(spaces) for w in words)
    start = data.draw(st.integers(0, len(words) - 1))
    end = data.draw(st.integers(start + 1, len(words)))
    quote = data.draw(spaces).join(w.translate(_FULLWIDTH) for w in words[start:end])
    assert quote_in_text(quote, page)


@settings(deadline=None)  # a loaded machine must not fail a property
@given(
    st.from_regex(r"[a-z][a-z0-9-]{0,10}\.(org|com|example)", fullmatch=True),
    st.from_regex(r"(/[A-Za-z0-9._~-]{1,8}){0,3}", fullmatch=True),
    st.from_regex(r"([a-z]{1,4}=[A-Za-z0-9]{0,4}(&[a-z]{1,3}=[0-9]{1,3}){0,2})?", fullmatch=True),
    st.from_regex(r"[A-Za-z0-9-]{0,8}", fullmatch=True),
)
def test_every_spelling_of_one_page_gets_one_identity(
    host: str, path: str, query: str, frag: str
) -> None:
    q = f"?{query}" if query else ""
    plain = f"https://{host}{path}{q}"
    spellings = [
        f"HTTPS://{host.upper()}{path}{q}",
        f"https://{host}:443{path}{q}",
        f"https://{host}{path}/{q}",
        f"https://{host}{path}{q}#{frag}",
        f"  https://{host.title()}{path}{q}  ",
    ]
    # Identity is the lookup key: the stored URL keeps a trailing slash as registered.
    canonical = url_key(plain)
    assert all(url_key(s) == canonical for s in spellings), spellings
    assert all(normalize_url(normalize_url(s)) == normalize_url(s) for s in spellings)
    assert url_key(canonical) == canonical
    assert (f"?{query}" in canonical) == bool(query)
    if path.rstrip("/"):
        assert canonical.split("?")[0].endswith(path.rstrip("/"))


# --- injection: hostile titles and URLs through every output format -------------------------------
#
# tests/hostile/test_injection.py compiles the corpus to PDF (typst, three LaTeX engines), HTML
# and gfm through `convert`. Here: Word, PowerPoint, the LaTeX and typst sources themselves, and
# every wiki format through `citeledger wiki`, with one more title that tries to close the
# escaping put around it.

INJECTION = FIXTURES / "injection.json"
BREAKOUT = {
    "id": 10,
    "url": "https://example.org/breakout",
    "title": "</nowiki>{{evil}} %%raw%% <html><script>x</script></html> ]]></w:t> }] #emph[x]",
    "accessed": "2024-05-01",
    "quotes": [],
}
HOSTILE_DRAFT = (
    "# Markup\n\n"
    "Titles from the web can hold markup of every format.[1][2][3] Quotes and dashes must\n"
    "survive as text.[4] A title may try to close the escaping put around it.[10]\n\n"
    "# Scripts\n\n"
    "Right-to-left and CJK titles must print.[5][6] Odd URLs must stay links.[7][8][9]\n"
    "An IPv6 host must stay a link.[14]\n\n"
    "# Magic\n\n"
    "Wiki signatures, TeX carets and live HTML must stay text.[11][12][13]\n"
)


def _flat(text: str) -> str:
    return " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", text).split())


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not INJECTION.exists():
        pytest.fail("tests/fixtures/injection.json is missing")
    folder = tmp_path_factory.mktemp("hostile")
    sources = json.loads(INJECTION.read_text(encoding="utf-8"))["sources"] + [BREAKOUT]
    ledger = {"version": 1, "sources": sources}
    (folder / "ledger.json").write_text(json.dumps(ledger, ensure_ascii=False), "utf-8")
    (folder / "draft.md").write_text(HOSTILE_DRAFT, encoding="utf-8")
    return folder


def _titles(folder: Path) -> dict[int, str]:
    """Each title as every output shows it: the ledger's one display form (no hidden
    characters, one line), compared after the same flattening as the output's text."""
    from citeledger.ledger.display import display_text
    from citeledger.ledger.model import MAX_TITLE_SHOWN

    data = json.loads((folder / "ledger.json").read_text(encoding="utf-8"))
    return {s["id"]: _flat(display_text(s["title"], MAX_TITLE_SHOWN)) for s in data["sources"]}


def _built(folder: Path, *args: str) -> None:
    proc = cli(*args, cwd=folder)
    assert proc.returncode == 0, f"citeledger {' '.join(args)}:\n{proc.stderr}"


def test_hostile_titles_give_valid_word_xml_that_verifies_back(hostile: Path) -> None:
    import xml.etree.ElementTree as ET
    import zipfile

    _built(hostile, "convert", "draft.md", "-o", "hostile.docx")
    w = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
    with zipfile.ZipFile(hostile / "hostile.docx") as docx:
        parts = {n: docx.read(n) for n in docx.namelist() if n.endswith((".xml", ".rels"))}
    trees = {name: ET.fromstring(data) for name, data in parts.items()}  # raises if invalid
    for tree in trees.values():
        assert not [el for el in tree.iter() if el.tag.rsplit("}", 1)[-1] in ("script", "html")]
    notes = _flat(" ".join(t.text or "" for t in trees["word/footnotes.xml"].iter(f"{w}t")))
    for source_id, title in _titles(hostile).items():
        assert title in notes, f"title of [{source_id}] not shown as text in the footnotes"
    targets = [
        rel.get("Target", "")
        for rel in trees["word/_rels/footnotes.xml.rels"]
        if rel.get("TargetMode") == "External"
    ]
    # Every cited source's URL is a live link (one of them an IPv6 host).
    assert len({t for t in targets if t.startswith(("https://example.org/", "https://["))}) == len(
        _titles(hostile)
    )
    proc = cli("verify", "hostile.docx", cwd=hostile)
    assert proc.returncode == 0, proc.stderr


def test_hostile_titles_reach_the_sources_slide_as_text_with_live_links(hostile: Path) -> None:
    from pptx import Presentation

    _built(hostile, "convert", "draft.md", "-o", "hostile.pptx")
    deck = Presentation(str(hostile / "hostile.pptx"))
    texts, links = [], []
    for slide in deck.slides:
        title = slide.shapes.title.text_frame.text if slide.shapes.title is not None else ""
        for shape in slide.shapes:
            if not shape.has_text_frame:
                continue
            for para in shape.text_frame.paragraphs:
                for run in para.runs:
                    if title.startswith("Sources"):
                        texts.append(run.text)
                        if run.hyperlink.address:
                            links.append(run.hyperlink.address)
                    else:
                        assert "https://" not in run.text, f"URL on body slide {title!r}"
    shown = _flat(" ".join(texts))
    for source_id, title in _titles(hostile).items():
        assert title in shown, f"title of [{source_id}] not on the Sources slide"
    live = {a for a in links if a.startswith(("https://example.org/", "https://["))}
    assert len(live) == len(_titles(hostile))


def test_hostile_titles_reach_latex_and_typst_sources_as_text(hostile: Path) -> None:
    _built(hostile, "convert", "draft.md", "-o", "hostile.tex", "-o", "hostile.typ")
    tex = (hostile / "hostile.tex").read_text(encoding="utf-8")
    for live in ("\\input{x}", "\\def\\x{y}", "<script>", "{{evil}}", "^^", "\\write18"):
        assert live not in tex, f"{live!r} reached the LaTeX source unescaped"
    assert "\\#frag" in tex or "%23frag" in tex
    typ = (hostile / "hostile.typ").read_text(encoding="utf-8")
    for live in (r"#set text\(red\)", r"#link\(\"x\"\)", r"@ref", r"<label>", r"\$x\$", r"#emph"):
        found = re.search(r"(?<!\\)" + live, typ)
        assert found is None, (
            f"{live!r} is live typst markup: {typ[found.start() - 40 : found.end() + 20]!r}"
        )


def _outside(text: str, *escapes: str) -> str:
    """``text`` with every escaped stretch (``<nowiki>..</nowiki>``, ``%%..%%``) removed."""
    for escape in escapes:
        text = re.sub(escape, " ", text, flags=re.DOTALL)
    return text


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.hrefs += [v or "" for k, v in attrs if k == "href"]


WIKI_LIVE = {
    "mediawiki": (
        [r"<nowiki>.*?</nowiki>"],
        ["{{", "[[Category", "<script", "<ref>", "'''", "<html", "~~~", "__NOTOC__", "__TOC__"],
    ),
    "dokuwiki": (
        [r"<nowiki>.*?</nowiki>", r"%%.*?%%"],
        ["{{", "[[Category", "<script", "<html", "<ref>", "~~NOTOC~~", "~~NOCACHE~~"],
    ),
}


@pytest.mark.parametrize("fmt", ["mediawiki", "dokuwiki", "gfm", "html", "obsidian"])
def test_hostile_titles_stay_text_on_every_wiki_page(hostile: Path, fmt: str) -> None:
    _built(hostile, "wiki", "draft.md", "-o", f"wiki-{fmt}", "--format", fmt)
    pages = sorted(p for p in (hostile / f"wiki-{fmt}").rglob("*") if p.is_file())
    assert len(pages) >= 3, pages
    everything = ""
    for page in pages:
        text = page.read_text(encoding="utf-8")
        everything += text
        if fmt in WIKI_LIVE:
            escapes, live = WIKI_LIVE[fmt]
            bare = _outside(text, *escapes)
            for token in live:
                assert token not in bare, f"{page.name}: {token!r} outside the escaping"
        else:
            html = text if fmt == "html" else run_pandoc(["-f", "gfm", "-t", "html"], stdin=text)
            html = html if isinstance(html, str) else html.decode()
            # citeledger's own stylesheet and card script are the page's, not a title's.
            html = html.replace(assets_html(), "")
            page_tags = _Tags()
            page_tags.feed(html)
            live = {"script", "b", "ref", "nowiki"} | (set() if fmt == "html" else {"html"})
            assert not live & set(page_tags.tags), f"{page.name}: live tags from a title"
            assert not [h for h in page_tags.hrefs if h.lower().startswith("javascript:")]
    for source_id in _titles(hostile):
        assert f"src-{source_id}" in everything or f"[{source_id}]" in everything
