"""``ledger/light.py``: ``@record`` behaves as ``@dataclass`` does for what the ledger core asks
of it, ``pattern`` compiles when first used and matches as ``re.compile`` does, and
``sha256_hex`` gives hashlib's digest on either side of its size threshold."""

from __future__ import annotations

import builtins
import copy
import dataclasses
import hashlib
import pickle
import re

import pytest

from citeledger.ledger import light
from citeledger.ledger.bibliography import Details
from citeledger.ledger.model import Quote, Source

# mypy sees dataclasses.dataclass behind ``light.record``; these run the run-time one.
record = light.record
field = light.field


@record
class Plain:
    name: str
    count: int = 0
    tags: list[str] = field(default_factory=list)


@dataclasses.dataclass
class PlainDC:
    name: str
    count: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)


@record(frozen=True)
class Frozen:
    a: int
    b: str = "x"


@dataclasses.dataclass(frozen=True)
class FrozenDC:
    a: int
    b: str = "x"


@record
class Checked:
    value: int
    doubled: int = 0

    def __post_init__(self) -> None:
        self.doubled = self.value * 2


def test_a_record_is_made_repr_and_compared_as_a_dataclass() -> None:
    one, same, other = Plain("a"), Plain("a", 0, []), Plain("a", 1)
    assert (one.name, one.count, one.tags) == ("a", 0, [])
    assert one == same and one != other
    assert repr(one) == repr(PlainDC("a")).replace("PlainDC", "Plain")
    assert Plain("a") != PlainDC("a")  # another class is never equal, as in dataclasses
    assert Plain.__match_args__ == ("name", "count", "tags")
    with pytest.raises(TypeError):
        hash(one)  # eq without frozen: unhashable, as a dataclass
    with pytest.raises(TypeError):
        Plain()  # type: ignore[call-arg]


def test_a_default_factory_gives_each_record_its_own_value() -> None:
    first, second = Plain("a"), Plain("b")
    first.tags.append("x")
    assert second.tags == [] and "tags" not in vars(Plain)


def test_a_frozen_record_refuses_changes_and_hashes_as_a_dataclass() -> None:
    item = Frozen(1)
    with pytest.raises(AttributeError):
        item.a = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del item.b  # type: ignore[misc]
    assert hash(item) == hash(FrozenDC(1)) == hash((1, "x"))
    assert {Frozen(1), Frozen(1, "x")} == {item}
    assert copy.deepcopy(item) == item and pickle.loads(pickle.dumps(item)) == item


def test_post_init_runs_after_the_fields_are_set() -> None:
    assert Checked(4).doubled == 8


def _shapes() -> tuple[type, type, type]:
    """A record class of each kind made afresh (its ``__init__`` not compiled yet), and the
    dataclass of the same fields."""

    @record
    class Fresh:
        name: str
        count: int = 0
        tags: list[str] = field(default_factory=list)

    @record(frozen=True)
    class FreshFrozen:
        a: int
        b: str = "x"

    return Fresh, FreshFrozen, PlainDC


_CALLS: list[tuple[tuple[object, ...], dict[str, object]]] = [
    (("a",), {}),
    (("a", 2), {}),
    (("a", 2, ["t"]), {}),
    ((), {"name": "a"}),
    (("a",), {"tags": ["t"]}),
    ((), {"tags": ["t"], "count": 3, "name": "a"}),
]
_BAD_CALLS: list[tuple[tuple[object, ...], dict[str, object]]] = [
    ((), {}),  # missing
    (("a",), {"colour": 1}),  # unknown
    (("a",), {"name": "b"}),  # given twice
    (("a", 1, [], 4), {}),  # too many
    ((), {"count": 1}),  # missing, after a keyword
]


def test_making_a_record_class_compiles_no_code(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = builtins.exec
    monkeypatch.setattr(
        builtins, "exec", lambda source, *rest: compiled.append(source) or real(source, *rest)
    )
    fresh, frozen, _ = _shapes()
    assert compiled == []  # the class alone: nothing compiled
    fresh("a", tags=["t"]), frozen(1)  # a few instances: bound without compiling
    assert compiled == []
    for _ in range(light.HOT):
        fresh("a")
    assert len(compiled) == 1  # a class made often gets its own compiled __init__


@pytest.mark.parametrize("hot", [False, True], ids=["bound", "compiled"])
def test_a_record_binds_its_arguments_as_a_dataclass(hot: bool) -> None:
    fresh, frozen, _ = _shapes()
    if hot:
        for _ in range(light.HOT + 1):
            fresh("warm"), frozen(0)
    for args, kwargs in _CALLS:
        made, expected = fresh(*args, **kwargs), PlainDC(*args, **kwargs)  # type: ignore[arg-type]
        assert (made.name, made.count, made.tags) == (expected.name, expected.count, expected.tags)
    assert fresh("a").tags is not fresh("a").tags
    assert vars(frozen(1)) == vars(FrozenDC(1)) and vars(frozen(b="y", a=2)) == {"a": 2, "b": "y"}
    assert Checked(4).doubled == 8


@pytest.mark.parametrize("call", _BAD_CALLS)
def test_a_bad_call_raises_what_the_dataclass_raises(
    call: tuple[tuple[object, ...], dict[str, object]],
) -> None:
    args, kwargs = call
    fresh = _shapes()[0]
    with pytest.raises(TypeError) as ours:
        fresh(*args, **kwargs)
    with pytest.raises(TypeError) as theirs:
        PlainDC(*args, **kwargs)  # type: ignore[arg-type]
    mine = str(ours.value).replace("_shapes.<locals>.Fresh", "X")
    assert mine == str(theirs.value).replace("PlainDC", "X")


def test_the_ledger_records_round_trip_as_before() -> None:
    quote = Quote("some words of a page", "2026-01-01", sha256="0" * 64)
    source = Source(1, "https://example.org/", "A page", "2026-01-01", quotes=[quote])
    assert Source.from_dict(source.to_dict(), "x", url_checked=True) == source
    assert copy.deepcopy(source) == source and copy.deepcopy(source).quotes is not source.quotes
    assert not Details() and Details(site="Nature") == Details(None, None, "Nature", None)


def test_a_pattern_compiles_on_first_use_and_matches_as_re_does() -> None:
    lazy = light.pattern(r"(\w+)-(\d+)", re.IGNORECASE)
    assert "match" not in vars(lazy)  # nothing compiled yet
    plain = re.compile(r"(\w+)-(\d+)", re.IGNORECASE)
    text = "Alpha-1 beta-22 gamma"
    assert lazy.sub(r"\2", text) == plain.sub(r"\2", text)
    assert "match" in vars(lazy)  # compiled once, now the pattern's own methods
    assert lazy.findall(text) == plain.findall(text)
    assert lazy.fullmatch("x-9") is not None and lazy.search("--") is None
    assert (lazy.pattern, lazy.flags, lazy.groups) == (plain.pattern, plain.flags, plain.groups)
    assert light.pattern(rb"<html", re.I).match(b"<HTML>") is not None


@pytest.mark.parametrize("size", [0, 3, 1 << 20, (1 << 20) + 1, 3 << 20])
def test_sha256_hex_is_hashlibs_digest(size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    assert light.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_word_count_of_ascii_text_counts_as_the_cjk_rule_without_compiling_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A quote of ASCII text holds no CJK: its count skips the astral-plane classes, whose
    compile costs half of Python's start, and gives the same number."""
    from citeledger.ledger import quotes

    cjk = re.compile(f"[{quotes._CJK_RANGES}]")
    wordish = re.compile(rf"[^\W{quotes._CJK_RANGES}]+")

    def by_rule(text: str) -> int:
        return sum(1 for t in text.split() if wordish.search(t)) + len(cjk.findall(text)) // 2

    texts = ["", "  ", "frozen water is less dense", "a - b -- c", "x_y 3.5 % $", "\x1ca\x1fb"]
    texts += [chr(code) + " w" for code in range(128)]
    compiled: list[str] = []
    plain = re.compile
    monkeypatch.setattr(re, "compile", lambda p, f=0: compiled.append(p) or plain(p, f))
    assert [quotes.word_count(t) for t in texts] == [by_rule(t) for t in texts]
    assert not [p for p in compiled if quotes._CJK_RANGES in str(p)]
    assert quotes.word_count("漢字漢字 ok") == by_rule("漢字漢字 ok") == 3


def test_a_record_refuses_to_inherit_fields_it_would_not_write() -> None:
    with pytest.raises(TypeError, match="does not inherit"):

        @record
        class More(Plain):
            extra: int = 0


def test_a_bound_record_holds_its_fields_in_the_dataclass_order() -> None:
    fresh, frozen, _ = _shapes()
    assert list(vars(fresh(tags=["t"], name="a"))) == list(vars(PlainDC(tags=["t"], name="a")))
    assert list(vars(frozen(b="y", a=2))) == ["a", "b"]


def test_a_record_with_its_own_setattr_or_a_property_is_set_through_them() -> None:
    """The binder writes the fields straight into ``__dict__`` only where setting them one by
    one comes to the same: a class's own ``__setattr__``, or a property named as a field
    (given by a base class), still sees every field set."""
    seen: list[str] = []

    @record
    class Watched:
        a: int
        b: int = 2

        def __setattr__(self, name: str, value: object) -> None:
            seen.append(name)
            object.__setattr__(self, name, value)

    class Base:
        @property
        def a(self) -> int:
            return int(self.__dict__["_a"])

        @a.setter
        def a(self, value: int) -> None:
            self.__dict__["_a"] = value * 10

    @record
    class Derived(Base):
        a: int  # type: ignore[assignment]

    made = Watched(1)
    assert seen == ["a", "b"] and (made.a, made.b) == (1, 2)
    assert Derived(3).a == 30


_GUARDED = [
    (r"^ {0,3}:{3,}", {"needs": (":::",)}),
    (r"^\s*(`{3,}|~{3,})", {"needs": ("```", "~~~")}),
    (r"[ \t]*\{[^{}]*\}[ \t]*$", {"needs": ("{",)}),
    (r"^ {0,3}(=+|-+)[ \t]*$", {"opens": "=-"}),
    (r"^ {0,3}\[\^[^\]\s]+\]:", {"needs": ("[^",)}),
]
_TEXTS = [
    "", " ", "plain words", "  :::", ":::: {.cell}", "    :::", "```python", "  ~~~~", "a ```",
    "## Title {#id}", "{}", "---", "  ===  ", "\t---", "- item", "    --", "[^1]: note", "x [^a]:",
]  # fmt: skip


@pytest.mark.parametrize(("source", "guard"), _GUARDED)
def test_a_guarded_pattern_answers_as_re_does_and_compiles_only_when_it_may_match(
    source: str, guard: dict[str, object]
) -> None:
    plain = re.compile(source)
    for text in _TEXTS:
        lazy = light.pattern(source, **guard)  # type: ignore[arg-type]
        for method in ("match", "fullmatch", "search"):
            got, want = getattr(lazy, method)(text), getattr(plain, method)(text)
            assert (got and got.group(0)) == (want and want.group(0)), (method, text)
        assert lazy.sub("<>", text) == plain.sub("<>", text), text
        if plain.search(text) is not None:
            assert "match" in vars(lazy), text  # a text that may match compiled it
    ruled_out = light.pattern(source, **guard)  # type: ignore[arg-type]
    assert ruled_out.match("plain words") is None and "match" not in vars(ruled_out)


def test_a_guard_refuses_the_flags_it_cannot_honour() -> None:
    with pytest.raises(ValueError, match="flags"):
        light.pattern("ab", re.IGNORECASE, needs=("ab",))
