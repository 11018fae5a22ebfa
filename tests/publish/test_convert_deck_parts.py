"""``citeledger convert`` has pandoc write a long deck in parts, side by side, and joins them
(publish/convert/deck_parts.py, renderers/pptx_join.py): the joined deck is the deck one run
writes, slide for slide and byte for byte, and a deck that cannot be cut safely is written
whole."""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import re
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

import citeledger.publish.convert.deck_parts as deck_parts
from citeledger.pandoc import run_pandoc
from citeledger.publish.convert import ConvertRequest
from citeledger.publish.convert import convert as build
from citeledger.publish.convert.tools import REFERENCE_DOCS
from citeledger.renderers.pptx_join import CannotJoin, join_decks
from tests.helpers import make_ledger

PPTX = ["-f", "json", "-t", "pptx"]


def _png(rgb: tuple[int, int, int]) -> bytes:
    raw = b"".join(b"\x00" + bytes(rgb) * 4 for _ in range(3))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 4, 3, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))


def _draft(notes_late: bool = False, sections: int = 6) -> str:
    """A deck of every kind of slide pandoc writes: a title slide, section slides, images
    (one used twice), a table, code, links out and between slides, speaker notes."""
    out = ["---\ntitle: Ice\nsubtitle: A deck\nauthor: [A. Writer, B. Writer]\ndate: 2026\n---\n"]
    for k in range(1, sections + 1):
        out.append(f"# Part {k}\n\n## Findings {k}\n\nSea ice is *thin* in part {k}.[{k % 3 + 1}]")
        out.append(f"See [the data](https://example.org/{k}) and **more**.\n")
        out.append(f"![Ice {k}](ice{k % 2}.png)\n")
        if not notes_late and k == 1:
            out.append("::: notes\nSay the ice is thin.\n:::\n")
        out.append(f"## Table {k}\n\n| a | b |\n|---|---|\n| {k} | ice |\n")
        out.append(f"## Code {k}\n\n```python\nprint({k})\n```\n")
    out.append("## Back\n\nSee [the last findings](#findings-" + str(sections) + ").\n")
    if notes_late:
        out.append("::: notes\nSay it at the end.\n:::\n")
    return "\n".join(out)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "ice0.png").write_bytes(_png((200, 220, 255)))
    (tmp_path / "ice1.png").write_bytes(_png((20, 40, 90)))
    make_ledger(
        tmp_path / "ledger.json",
        [(k, f"https://example.org/ice/{k}", f"Ice paper {k}", "2024-05-01") for k in (1, 2, 3)],
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CITELEDGER_LEDGER", str(tmp_path / "ledger.json"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # Office files stamped alike
    return tmp_path


def _tree(folder: Path, text: str) -> dict[str, Any]:
    (folder / "deck.md").write_text(text, encoding="utf-8")
    data = run_pandoc(["-f", "markdown", "-t", "json", "deck.md"], what="deck.md")
    tree: dict[str, Any] = json.loads(data)
    return tree


def _slides(archive: zipfile.ZipFile) -> list[str]:
    rels = _rels(archive, "ppt/presentation.xml")
    listed = re.findall(rb'<p:sldId id="\d+" r:id="(rId\d+)"', archive.read("ppt/presentation.xml"))
    return [rels[r.decode()][1] for r in listed]


def _rels(archive: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """A part's relationships: id → (type, the target's part name or external address)."""
    folder, name = posixpath.split(part)
    try:
        root = etree.fromstring(archive.read(f"{folder}/_rels/{name}.rels"))
    except KeyError:
        return {}
    out = {}
    for el in root:
        target = el.get("Target")
        if el.get("TargetMode") != "External":
            target = posixpath.normpath(posixpath.join(folder, target))
        out[el.get("Id")] = (el.get("Type").rsplit("/", 1)[-1], target)
    return out


def _same_deck(whole: bytes, joined: bytes) -> None:
    """Every slide (and notes slide) the same bytes in the same place, pointing at the same
    things; every other part the same, but for the package's lists and a join's image names."""
    a, b = zipfile.ZipFile(io.BytesIO(whole)), zipfile.ZipFile(io.BytesIO(joined))
    sa, sb = _slides(a), _slides(b)
    assert len(sa) == len(sb)
    place_a = {name: k for k, name in enumerate(sa)}
    place_b = {name: k for k, name in enumerate(sb)}

    def pointed(archive: zipfile.ZipFile, part: str, place: dict[str, int]) -> object:
        out = {}
        for r_id, (kind, target) in _rels(archive, part).items():
            if target in place:
                out[r_id] = (kind, "slide", place[target])
            elif kind == "image":
                out[r_id] = (kind, hashlib.sha256(archive.read(target)).hexdigest())
            elif kind == "notesSlide":
                out[r_id] = (kind, archive.read(target), pointed(archive, target, place))
            else:
                out[r_id] = (kind, target)
        return out

    for x, y in zip(sa, sb, strict=True):
        assert a.read(x) == b.read(y), (x, y)
        assert pointed(a, x, place_a) == pointed(b, y, place_b), (x, y)
    assert _rels(a, "ppt/presentation.xml") == _rels(b, "ppt/presentation.xml")
    assert _c14n(a, "ppt/presentation.xml") == _c14n(b, "ppt/presentation.xml")
    skip = re.compile(r"ppt/(slides|notesSlides|media)/|ppt/_rels/|ppt/presentation|\[Content")
    for name in a.namelist():
        if not skip.match(name) and name != "docProps/core.xml":
            assert a.read(name) == b.read(name), name


def _c14n(archive: zipfile.ZipFile, part: str) -> bytes:
    return bytes(etree.tostring(etree.fromstring(archive.read(part)), method="c14n"))


@pytest.mark.parametrize("notes_late", [False, True], ids=["notes-first", "notes-late"])
def test_a_deck_written_in_parts_is_the_deck_written_whole(
    folder: Path, monkeypatch: pytest.MonkeyPatch, notes_late: bool
) -> None:
    tree = _tree(folder, _draft(notes_late=notes_late))
    monkeypatch.setattr(deck_parts, "PART_CHARS", 1200)
    split = deck_parts.split_deck(tree)
    assert split is not None
    payloads, level = split
    assert len(payloads) >= 3 and level == 2
    # The title slide's metadata is the first part's only; a part begins at a slide.
    firsts = [json.loads(p) for p in payloads]
    assert "title" in firsts[0]["meta"] and not any("title" in p["meta"] for p in firsts[1:])
    assert all(p["blocks"][0]["t"] == "Header" for p in firsts[1:])
    # The link to the last findings and its target are in one part.
    last = firsts[-1]["blocks"]
    assert any(b["t"] == "Header" and b["c"][1][0] == "findings-6" for b in last)
    whole = run_pandoc([*PPTX, "--resource-path", str(folder), "-o", "-"], stdin=json.dumps(tree))
    joined = deck_parts.write_in_parts(tree, [*PPTX, "--resource-path", str(folder)], "deck", 2)
    assert joined is not None
    _same_deck(whole, joined)
    # The images used twice are stored once each, as one run stores them.
    names = zipfile.ZipFile(io.BytesIO(joined)).namelist()
    assert len([n for n in names if n.startswith("ppt/media/")]) == 2


def test_the_slide_level_given_is_the_parts_own(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(folder, _draft())
    monkeypatch.setattr(deck_parts, "PART_CHARS", 1200)
    args = [*PPTX, "--resource-path", str(folder), "--slide-level=1"]
    payloads, level = deck_parts.split_deck(tree, 1) or ([], 0)
    assert level == 1 and all(json.loads(p)["blocks"][0]["c"][0] == 1 for p in payloads[1:])
    whole = run_pandoc([*args, "-o", "-"], stdin=json.dumps(tree))
    joined = deck_parts.write_in_parts(tree, args, "deck", 2)
    assert joined is not None
    _same_deck(whole, joined)


@pytest.mark.parametrize(
    "args",
    [
        ["--toc"],
        ["--table-of-contents"],
        ["-M", "title=Other"],
        ["--metadata=title:Other"],
        ["--lua-filter", "f.lua"],
        ["-d", "defaults.yaml"],
        ["--slide-level", "0"],
        ["--slide-level"],
        ["--number-sections"],
    ],
)
def test_options_whose_effect_spans_the_deck_write_it_whole(
    folder: Path, monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    tree = _tree(folder, _draft())
    monkeypatch.setattr(deck_parts, "PART_CHARS", 1200)
    assert deck_parts.split_deck(tree) is not None
    assert deck_parts.write_in_parts(tree, [*PPTX, *args], "deck", 2) is None


def test_a_deck_with_footnotes_or_too_short_is_written_whole(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(deck_parts, "PART_CHARS", 1200)
    assert deck_parts.split_deck(_tree(folder, _draft() + "\nA note.[^1]\n\n[^1]: Thin.\n")) is None
    monkeypatch.setattr(deck_parts, "PART_CHARS", 10**9)
    assert deck_parts.split_deck(_tree(folder, _draft())) is None


def test_a_link_between_slides_keeps_both_in_one_part(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _draft(sections=8).replace(
        "## Findings 2\n", "## Findings 2\n\nBack to [the start](#findings-1).\n"
    )
    tree = _tree(folder, text)
    monkeypatch.setattr(deck_parts, "PART_CHARS", 600)
    payloads, _level = deck_parts.split_deck(tree) or ([], 0)
    holding = [
        k
        for k, p in enumerate(payloads)
        for b in json.loads(p)["blocks"]
        if b["t"] == "Header" and b["c"][1][0] in ("findings-1", "findings-2")
    ]
    assert len(payloads) > 3 and len(set(holding)) == 1


def test_decks_the_join_does_not_know_are_refused(folder: Path) -> None:
    tree = _tree(folder, _draft())
    deck = run_pandoc([*PPTX, "--resource-path", str(folder), "-o", "-"], stdin=json.dumps(tree))
    other = run_pandoc(
        [*PPTX, "--resource-path", str(folder), "-o", "-", "--reference-doc", _reference(folder)],
        stdin=json.dumps(tree),
    )
    with pytest.raises(CannotJoin, match="differs"):
        join_decks([deck, other])
    with pytest.raises(CannotJoin):
        join_decks([deck, b"not a deck"])


def _reference(folder: Path) -> str:
    """A reference deck whose theme differs from pandoc's own."""
    out = io.BytesIO()
    with zipfile.ZipFile(REFERENCE_DOCS["pptx"]) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            body = src.read(item.filename)
            if item.filename == "ppt/theme/theme1.xml":
                body = body.replace(b'name="', b'name="Other ', 1)
            dst.writestr(item, body)
    path = folder / "other.pptx"
    path.write_bytes(out.getvalue())
    return str(path)


def test_convert_writes_a_long_deck_in_parts(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The deck convert writes (through the renderer) is the same file whether pandoc wrote it
    in parts or whole; a part is one pandoc run."""
    (folder / "deck.md").write_text(_draft(), encoding="utf-8")
    runs: list[list[str]] = []
    real = deck_parts.run_pandoc

    def counted(args: list[str], **kwargs: Any) -> bytes:
        runs.append(list(args))
        return real(args, **kwargs)

    monkeypatch.setattr(deck_parts, "run_pandoc", counted)
    files = {}
    for name, part_chars in (("whole", 10**9), ("parts", 1200)):
        monkeypatch.setattr(deck_parts, "PART_CHARS", part_chars)
        out = folder / f"{name}.pptx"
        build(ConvertRequest(draft=Path("deck.md"), outputs=[out], jobs=1))
        with zipfile.ZipFile(out) as archive:
            files[name] = {n: archive.read(n) for n in sorted(archive.namelist())}
    assert len(runs) >= 3
    assert all("--sandbox" in args and "--slide-level" in args for args in runs)
    assert files["parts"] == files["whole"]
