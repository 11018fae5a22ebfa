"""Start-up helpers of the ledger core: ``@record`` for data classes without the
``dataclasses`` module, and ``pattern`` for regular expressions compiled on first use.

``citeledger add`` runs at every retrieval, and ``dataclasses`` imports ``inspect`` (with
``ast``, ``dis``, ``tokenize``): together more than the rest of an ``add``. So the classes an
``add``, ``quote`` or ``list`` loads are made by :func:`record`, which writes the same
``__init__``, ``__repr__``, ``__eq__`` (and, frozen, ``__hash__`` and the refusal to change)
that ``@dataclass`` writes, for the subset used here: fields with a default or a
``field(default_factory=...)``, ``frozen=True``, ``__post_init__``. Type checkers see
``dataclasses.dataclass`` itself (the ``TYPE_CHECKING`` branch), so they check every call as a
dataclass's; ``tests/ledger/test_record.py`` holds both to the same behaviour. Code that needs
``dataclasses.replace`` or ``fields`` on one of these writes the copy out instead.

A module-level ``re.compile`` costs its compile at every start, used or not (a character class
over the bidirectional controls alone takes half a millisecond): :func:`pattern` compiles on
the first call of a method. A pattern made so is only called through its methods (``.sub``,
``.match``, ...), never handed to ``re.sub`` or tested with ``isinstance``.

:func:`sha256_hex` hashes a page as ``hashlib`` does, without loading OpenSSL (``hashlib``'s
import) for the few kilobytes a quote's page usually holds; a large page goes to ``hashlib``,
which is several times faster per byte.
"""

from __future__ import annotations

# The typing module is no cost of a quick verb either: type checkers read this name as true.
TYPE_CHECKING = False

if TYPE_CHECKING:
    import re
    from contextlib import contextmanager
    from dataclasses import FrozenInstanceError, field
    from dataclasses import dataclass as record
    from typing import Any, overload

    @overload
    def pattern(
        source: str, flags: int = 0, *, needs: tuple[str, ...] = (), opens: str = ""
    ) -> re.Pattern[str]: ...
    @overload
    def pattern(
        source: bytes, flags: int = 0, *, needs: tuple[bytes, ...] = (), opens: str = ""
    ) -> re.Pattern[bytes]: ...
    def pattern(
        source: str | bytes, flags: int = 0, *, needs: tuple[Any, ...] = (), opens: str = ""
    ) -> re.Pattern[Any]:
        return re.compile(source, flags)

else:
    _MISSING = object()

    class FrozenInstanceError(AttributeError):
        """A frozen record was assigned to (``dataclasses.FrozenInstanceError``'s role)."""

    class _Factory:
        __slots__ = ("make",)

        def __init__(self, make):
            self.make = make

    def field(*, default_factory):
        """A field whose default is made afresh for each instance."""
        return _Factory(default_factory)

    def record(cls=None, /, *, frozen=False):
        """The class with dataclass methods written for its annotated fields."""

        def wrap(cls):
            return _build(cls, frozen)

        return wrap if cls is None else wrap(cls)

    def _frozen_setattr(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def _frozen_delattr(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _build(cls, frozen):
        if any(hasattr(base, "__record_fields__") for base in cls.__mro__[1:]):
            raise TypeError(f"{cls.__name__}: a record does not inherit another record's fields")
        names = [
            name
            for name, kind in cls.__dict__.get("__annotations__", {}).items()
            if not str(kind).startswith(("ClassVar", "typing.ClassVar"))
        ]
        scope = {"_MISSING": _MISSING, "_set": object.__setattr__}
        params, lines = [], []
        defaults, makers = {}, {}
        for name in names:
            value = cls.__dict__.get(name, _MISSING)
            if isinstance(value, _Factory):
                scope[f"_make_{name}"] = makers[name] = value.make
                params.append(f"{name}=_MISSING")
                given = f"_make_{name}() if {name} is _MISSING else {name}"
                delattr(cls, name)
            elif value is not _MISSING:
                scope[f"_default_{name}"] = defaults[name] = value
                params.append(f"{name}=_default_{name}")
                given = name
            else:
                params.append(name)
                given = name
            lines.append(f"_set(self, {name!r}, {given})" if frozen else f"self.{name} = {given}")
        post_init = "__post_init__" in cls.__dict__
        if post_init:
            lines.append("self.__post_init__()")
        source = f"def __init__(self, {', '.join(params)}):\n " + "\n ".join(lines or ["pass"])
        fields = tuple(names)
        shape = _Shape(fields, defaults, makers, frozen, post_init)
        cls.__init__ = _first_init(cls, source, scope, shape)

        def __repr__(self):
            shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in fields)
            return f"{type(self).__qualname__}({shown})"

        def __eq__(self, other):
            if other.__class__ is not self.__class__:
                return NotImplemented
            mine = tuple(getattr(self, n) for n in fields)
            return mine == tuple(getattr(other, n) for n in fields)

        cls.__repr__ = __repr__
        cls.__eq__ = __eq__
        cls.__match_args__ = fields
        if "__hash__" not in cls.__dict__:
            if frozen:
                cls.__hash__ = lambda self: hash(tuple(getattr(self, n) for n in fields))
            else:
                cls.__hash__ = None
        if frozen:
            cls.__setattr__ = _frozen_setattr
            cls.__delattr__ = _frozen_delattr
        cls.__record_fields__ = fields
        return cls

    # The instances a record's class makes through the plain binder before its own
    # ``__init__`` is compiled: compiling one costs about what 60 binder calls cost over it.
    HOT = 64

    class _Shape:
        """What the plain binder of a record's class needs to know of its fields."""

        __slots__ = ("defaults", "fields", "frozen", "made", "makers", "post_init")

        def __init__(self, fields, defaults, makers, frozen, post_init):
            self.fields, self.defaults, self.makers = fields, defaults, makers
            self.frozen, self.post_init, self.made = frozen, post_init, 0

    def _first_init(cls, source, scope, shape):
        """The record's ``__init__`` until it is compiled: the arguments bound by the plain
        binder below, the same values set in the same order as the compiled one sets them.
        Compiling the text (``exec``) costs more than the rest of the class's import, and a
        run makes few instances of most classes it loads; a class made :data:`HOT` times, or a
        call the binder does not take (a missing or unknown argument, one given twice), gets
        the compiled ``__init__``, which also raises Python's own ``TypeError``."""

        def compiled():
            if cls.__dict__.get("__init__") is __init__:
                exec(source, scope)  # noqa: S102 - text built from the class's own field names
                init = scope["__init__"]
                init.__qualname__ = f"{cls.__qualname__}.__init__"
                cls.__init__ = init
            return cls.__dict__["__init__"]

        fields, count = shape.fields, len(shape.fields)
        plan = []  # what the binder needs, worked out at the class's first instance

        def __init__(self, *args, **kwargs):
            shape.made += 1
            given = len(args)
            if shape.made > HOT or given > count:
                return compiled()(self, *args, **kwargs)
            if not plan:
                plan.append(_plan(cls, shape))
            unset, makers, required, index, direct = plan[0]
            values = [*args, *unset[given:]] if given < count else list(args)
            for name, value in kwargs.items():
                i = index.get(name, -1)
                if i < given:  # unknown, or given twice: Python's own error
                    return compiled()(self, *args, **kwargs)
                values[i] = value
            for i in required:
                if i >= given and fields[i] not in kwargs:  # missing: Python's own error
                    return compiled()(self, *args, **kwargs)
            for i, make in makers.items():
                if i >= given and fields[i] not in kwargs:
                    values[i] = make()
            if direct:
                self.__dict__.update(zip(fields, values, strict=True))
            else:
                put = object.__setattr__ if shape.frozen else setattr
                for name, value in zip(fields, values, strict=True):
                    put(self, name, value)
            if shape.post_init:
                self.__post_init__()
            return None

        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        return __init__

    def _plan(cls, shape):
        """What the binder of ``cls`` needs: each field's value when no argument gives it (its
        default, else _MISSING: a required field, or one its factory makes), the factories
        by field index (called in field order, as the compiled ``__init__`` calls them), the
        required fields' indexes, each field's index by name, and whether the values may go
        straight into the instance's ``__dict__`` (:func:`_plain_attributes`)."""
        fields, defaults, makers = shape.fields, shape.defaults, shape.makers
        unset = tuple(defaults.get(name, _MISSING) for name in fields)
        return (
            unset,
            {i: makers[name] for i, name in enumerate(fields) if name in makers},
            [i for i, name in enumerate(fields) if unset[i] is _MISSING and name not in makers],
            {name: i for i, name in enumerate(fields)},
            _plain_attributes(cls, fields, shape.frozen),
        )

    def _plain_attributes(cls, fields, frozen):
        """Whether setting the fields one by one (``object.__setattr__`` on a frozen record,
        ``setattr`` else) comes to writing them into the instance's ``__dict__``: it has one,
        no class of its MRO holds a descriptor by a field's name, nor its own ``__setattr__``
        or ``__getattribute__``."""
        mro = cls.__mro__[:-1]
        if any("__slots__" in c.__dict__ for c in mro):
            return False
        if cls.__getattribute__ is not object.__getattribute__:
            return False
        if not frozen and cls.__setattr__ is not object.__setattr__:
            return False
        return not any(
            hasattr(type(c.__dict__[name]), "__set__")
            for c in mro
            for name in fields
            if name in c.__dict__
        )

    class _Pattern:
        """A compiled pattern made on first use; then its methods are this object's own."""

        def __init__(self, source, flags):
            self._args = (source, flags)

        def __getattr__(self, name):
            import re  # here: the fast lane (lane.py) loads this module, and re costs

            compiled = re.compile(*self._args)
            for attr in _PATTERN_ATTRS:
                setattr(self, attr, getattr(compiled, attr))
            return getattr(compiled, name)

        def __repr__(self):
            return f"pattern({self._args[0]!r})"

    _PATTERN_ATTRS = (
        "match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer",
        "pattern", "flags", "groups", "groupindex", "scanner",
    )  # fmt: skip

    class _Guarded(_Pattern):
        """A pattern told at once, uncompiled, that a text holds no match: every match holds
        one of the literal texts ``needs``; every match from a text's start (``match`` and
        ``fullmatch`` given the text alone) opens with spaces and then one of the characters
        ``opens``. ``match``, ``search``, ``fullmatch`` and ``sub`` answer a text ruled out
        so as the compiled pattern would (no match); anything else compiles it."""

        def __init__(self, source, flags, needs, opens):
            super().__init__(source, flags)
            self._needs, self._opens = needs, opens

        def _ruled_out(self, string, args=()):
            if self._needs and not any(need in string for need in self._needs):
                return True
            if self._opens and not args:
                first = string.lstrip(" ")[:1]
                return not first or first not in self._opens
            return False

        def match(self, string, *args):
            if self._ruled_out(string, args):
                return None
            return self.__getattr__("match")(string, *args)

        def fullmatch(self, string, *args):
            if self._ruled_out(string, args):
                return None
            return self.__getattr__("fullmatch")(string, *args)

        def search(self, string, *args):
            if self._needs and not any(need in string for need in self._needs):
                return None
            return self.__getattr__("search")(string, *args)

        def sub(self, repl, string, count=0):
            if self._needs and not any(need in string for need in self._needs):
                return string
            return self.__getattr__("sub")(repl, string, count)

    def contextmanager(func):
        """``contextlib.contextmanager``, its module loaded at the first call: a verify
        enters no context made so, and ``contextlib`` (its classes built on ``abc``) is a
        share of its start."""
        made = None

        def call(*args, **kwds):
            nonlocal made
            if made is None:
                import contextlib

                made = contextlib.contextmanager(func)
            return made(*args, **kwds)

        for name in ("__module__", "__name__", "__qualname__", "__doc__", "__annotations__"):
            setattr(call, name, getattr(func, name))
        call.__wrapped__ = func
        return call

    def pattern(source, flags=0, *, needs=(), opens=""):
        """``re.compile(source, flags)``, done when first used. ``needs``: literal texts one
        of which every match holds; ``opens``: the characters one of which every match from
        a text's start has first after spaces (a pattern opening ``^ {0,3}[-*+]``). A text
        they rule out is answered at once, uncompiled. Neither goes with a flag that changes
        what matches a literal (``re.IGNORECASE``, ``re.MULTILINE``, ``re.VERBOSE``)."""
        if needs or opens:
            if flags & (2 | 8 | 64):  # re.IGNORECASE, re.MULTILINE, re.VERBOSE
                raise ValueError("a pattern with these flags takes no needs nor opens")
            return _Guarded(source, flags, tuple(needs), opens)
        return _Pattern(source, flags)


# Above this size the OpenSSL hash is worth its import (it hashes several times faster).
_SMALL_PAGE = 1 << 20


def sha256_hex(data: bytes) -> str:
    """The sha256 of ``data`` in hex, as ``hashlib.sha256(data).hexdigest()`` gives it."""
    if len(data) <= _SMALL_PAGE:
        try:  # CPython's own module: _sha2 from 3.12, _sha256 before
            from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            try:
                from _sha256 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
            except ImportError:  # another Python: hashlib
                from hashlib import sha256
        return str(sha256(data).hexdigest())
    from hashlib import sha256 as openssl_sha256

    return openssl_sha256(data).hexdigest()


__all__ = ["FrozenInstanceError", "contextmanager", "field", "pattern", "record", "sha256_hex"]
