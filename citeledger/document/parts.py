"""A long markdown draft read by several pandoc runs at once, when that gives pandoc's own tree.

pandoc's markdown reader runs on one core, and on a 1.6 MB draft it is two thirds of what one
plain conversion costs: a wiki build waited for it with the other core idle. Cut at headings
into parts read side by side, the draft reads in about half the time on two cores, and the
parts' blocks, joined, are the tree pandoc gives the whole draft, provided nothing crosses a
cut. The reader carries state from one part of a draft to the next in a few ways only, each
refused here before any part is read (:func:`cuts`), or after (:class:`Joined`), when the whole
draft is read as always:

- reference and footnote definitions, example lists, LaTeX macros (``]:``, ``[^``, ``(@``,
  ``\\newcommand`` ...): defined in one part, used in another;
- headings' identifiers, made unique over the document (``summary``, ``summary-1``): a heading
  text twice, or an identifier in two parts, is refused; a heading's text in brackets
  elsewhere (``[Summary]``, pandoc's implicit link to it) too;
- citations (``@key``: numbered over the document), metadata after the first part;
- a block or inline element running over a blank line into the next heading: fenced code and
  fenced divs are followed line by line, and a cut never falls inside one; an HTML comment is
  followed too; HTML blocks, ``\\begin{...}``, a line of dashes with text under it (a multiline
  table, a YAML block) refuse the draft, and so does a paragraph whose LaTeX braces, raw HTML
  tags or comments may not close inside it.

Each rule is conservative: a draft it cannot vouch for is read whole, as before.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from ..ledger.light import pattern
from ..pandoc import run_pandoc
from ..pandoc_start import SANDBOX_ARG
from ..tree import PandocDoc

# Below this size one run costs less than starting several.
MIN_CHARS = 200_000

# Anything that carries state from one part to another, found anywhere in the text: reference
# and footnote definitions, LaTeX environments and macros, a carriage return or a byte order
# mark (pandoc drops them; the cuts would be counted without).
_GLOBAL = (
    "]:", "[^", "\\begin", "\\new", "\\renew", "\\provide", "\\def", "\\gdef",
    "\\edef", "\\xdef", "\\let", "\\Declare", "\r", "\ufeff",
)  # fmt: skip
# An example list's item (``(@)``, ``(@good)``, ``@.``) once its line's start is checked.
_EXAMPLE = pattern(r"\(?@[\w-]*[.)]")

# A line that opens or may open a block reaching over blank lines, other than a fence.
_BLOCK_HTML = pattern(r"^[ \t]*<(?!!--)")
_FENCE = pattern(r"^([ \t]*)(`{3,}|~{3,})(.*)$")
_DIV = pattern(r"^([ \t]*)(:{3,})(.*)$")
_DASHES = pattern(r"^[ \t]*-[-\t ]*$")
_ATX = pattern(r"^(#{1,6})[ \t]+(.*?)[ \t]*$")
_CLOSING_HASHES = pattern(r"[ \t]+#+$")
_ATTRIBUTES = pattern(r"[ \t]*\{[^{}]*\}$")
# Any heading's underline, and an ATX heading anywhere (in a quote, a list): their texts are
# implicit link targets and identifiers over the whole document.
_SETEXT = pattern(r"^[ \t>]*(?:=+|-+)[ \t]*$")
_ANY_ATX = pattern(r"^[ \t>*+\-0-9.)]*#{1,6}[ \t]+(.*?)[ \t]*$")
_PREFIX = pattern(r"^[ \t>*+\-0-9.)]*")
# A raw HTML tag that closes on its line, quotes balanced (an attribute may hold a blank line).
_TAG = pattern(r"<[A-Za-z/?!](?:[^<>\"'\n]|\"[^\"\n]*\"|'[^'\n]*')*>")
_TAG_START = pattern(r"<[A-Za-z/?!]")
_LABEL = pattern(r"\[([^\[\]]*)\](?!\([^()\s]*\))")


def read_in_parts(
    text: str,
    fmt: str,
    parts: int,
    what: str,
    each: Callable[[PandocDoc], object] = lambda _part: None,
    *,
    sandbox: bool = False,
) -> PandocDoc | None:
    """pandoc's tree of ``text`` (a draft in pandoc's ``markdown``) read in up to ``parts``
    runs at once; None when the draft is short, or cannot be cut safely (the caller reads it
    whole). ``each`` sees each part's tree as it is decoded, before it is joined, while pandoc
    may still read the later parts (the caller's walk of the tree, made part by part).
    ``sandbox``: each part read under pandoc's ``--sandbox``, as an untrusted draft is read
    whole."""
    if fmt != "markdown" or parts < 2 or len(text) < MIN_CHARS:
        return None
    offsets = cuts(text, parts)
    if not offsets:
        return None
    pieces = [text[a:b] for a, b in zip([0, *offsets], [*offsets, len(text)], strict=True)]
    args = ["-f", fmt, "-t", "json", *([SANDBOX_ARG] if sandbox else [])]
    with ThreadPoolExecutor(max_workers=len(pieces)) as pool:
        runs = [pool.submit(run_pandoc, args, stdin=piece, what=what) for piece in pieces]
        joined = Joined(each)
        for run in runs:  # a part decoded while pandoc still reads the later ones
            if not joined.add(run.result()):
                return None
        return joined.tree


class Joined:
    """The parts' trees joined into one, part by part, in order; :meth:`add` refuses a part
    the whole draft would read differently: one holding a citation (numbered over the
    document), metadata after the first part, a heading identifier of an earlier part."""

    def __init__(self, each: Callable[[PandocDoc], object] = lambda _part: None) -> None:
        self.each = each
        self.tree: PandocDoc | None = None
        self.ids: set[bytes] = set()

    def add(self, out: bytes) -> bool:
        """Join the next part's JSON; False when refused."""
        if b'"t":"Cite"' in out:
            return False
        ids = set(_HEADER_ID.findall(out))
        if ids & self.ids:
            return False
        self.ids |= ids
        tree = json.loads(out)
        self.each(tree)
        if self.tree is None:
            self.tree = tree
            return True
        if tree.get("meta") or tree.get("pandoc-api-version") != self.tree.get(
            "pandoc-api-version"
        ):
            return False
        self.tree["blocks"].extend(tree["blocks"])
        return True


_HEADER_ID = pattern(rb'"t":"Header","c":\[\d+,\["((?:[^"\\]|\\.)*)"')


def cuts(text: str, parts: int) -> list[int]:
    """Offsets in ``text`` to cut it at, each at the start of an ATX heading after a blank
    line outside any fence or comment, nearest to the end of its share of the text; [] when the
    draft holds anything a cut could change (see the module docstring)."""
    if any(needle in text for needle in _GLOBAL if needle[0] != "\\") or _examples(text):
        return []
    if "\\" in text and any(needle in text for needle in _GLOBAL if needle[0] == "\\"):
        return []
    lines = text.split("\n")
    start = _front_matter(lines)
    if start < 0:
        return []
    walk = _Blocks()
    offset = sum(len(line) + 1 for line in lines[:start])
    for k in range(start, len(lines)):
        line = lines[k]
        if not walk.line(line, offset, lines[k + 1] if k + 1 < len(lines) else ""):
            return []
        offset += len(line) + 1
    if not walk.ended() or not _headings_apart(walk.keys, text):
        return []
    return _nearest(walk.candidates, len(text), parts)


class _Blocks:
    """The draft's lines in order, followed as far as a cut needs: where fenced code, fenced
    divs and comments begin and end, each paragraph's closing, each heading's text."""

    def __init__(self) -> None:
        self.candidates: list[int] = []  # offsets of headings a cut may fall before
        self.keys: list[tuple[str, ...]] = []  # each heading's text, bare and as written
        self.fence: tuple[str, int] | None = None
        self.comment = False
        self.divs = 0
        self.blank = True  # the line before was blank (or there was none)
        self.paragraph: list[str] = []

    def line(self, line: str, here: int, after: str) -> bool:
        """Take the line at offset ``here`` (``after``: the next line); False: no cut is safe."""
        prose = line[:1].isalnum() and "<!--" not in line and "#" not in line  # no block opens
        if prose and self.fence is None and not self.comment:
            self.paragraph.append(line)
            self.blank = False
            return True
        if self.fence is not None:
            return self._fenced(line)
        if self.comment:  # a comment opened at a line's start: pandoc's raw HTML until -->
            end = line.find("-->")
            if end >= 0:
                if line[end + 3 :].strip():
                    return False
                self.comment = self.blank = False
            return True
        if not line.strip():
            if self.paragraph and not _closed(self.paragraph):
                return False
            self.paragraph, self.blank = [], True
            return True
        return self._block(line, here, after)

    def _fenced(self, line: str) -> bool:
        assert self.fence is not None
        closing = _FENCE.match(line)
        if closing is not None:
            char, exact = closing.group(2)[0], not closing.group(1) + closing.group(3).strip()
            if char == self.fence[0] and not exact:
                return False  # a closing fence pandoc may read otherwise
            if exact and char == self.fence[0] and len(closing.group(2)) >= self.fence[1]:
                self.fence = None
        self.blank = not line.strip()
        return True

    def _block(self, line: str, here: int, after: str) -> bool:
        opened = _FENCE.match(line)
        if opened is not None:
            if opened.group(1) or not self.blank or "`" in opened.group(3):
                return False
            self.fence = (opened.group(2)[0], len(opened.group(2)))
            self.paragraph, self.blank = [], False
            return True
        div = _DIV.match(line)
        if div is not None:
            if div.group(1):
                return False
            if div.group(3).strip():
                self.divs += 1
            elif self.divs:
                self.divs -= 1
            self.paragraph, self.blank = [], False
            return True
        if _BLOCK_HTML.match(line):
            return False
        if _DASHES.match(line) and line.count("-") >= 3 and after.strip():
            return False  # a multiline table or a YAML block
        if _SETEXT.match(line) and self.paragraph:
            self._heading(_PREFIX.sub("", self.paragraph[-1]))
        heading = _ATX.match(line)
        if heading is not None:
            self._heading(heading.group(2))
            if self.blank and not self.divs:
                self.candidates.append(here)
        elif "#" in line and (nested := _ANY_ATX.match(line)) is not None:
            self._heading(nested.group(1))
        if _opens_comment(line):
            if not line.startswith("<!--") or self.paragraph or not self.blank:
                return False  # inside a paragraph, or indented: perhaps no comment to pandoc
            self.comment = True
            self.paragraph, self.blank = [], False
            return True
        self.paragraph.append(line)
        self.blank = False
        return True

    def _heading(self, text: str) -> None:
        title = _CLOSING_HASHES.sub("", text.strip())
        self.keys.append((_key(_ATTRIBUTES.sub("", title)), _key(title)))

    def ended(self) -> bool:
        """Whether the draft ends with every fence, comment and paragraph closed."""
        if self.fence is not None or self.comment:
            return False
        return not self.paragraph or _closed(self.paragraph)


def _examples(text: str) -> bool:
    """Whether a line of ``text`` may start an example list's item."""
    for found in _EXAMPLE.finditer(text) if "@" in text else ():
        start = text.rfind("\n", 0, found.start()) + 1
        if not text[start : found.start()].strip(" \t"):
            return True
    return False


def _front_matter(lines: list[str]) -> int:
    """The index of the first line after a YAML block opening the draft (0 without one);
    -1 when it never closes."""
    if not lines or lines[0].rstrip() != "---" or len(lines) < 2 or not lines[1].strip():
        return 0
    for k in range(1, len(lines)):
        if lines[k].rstrip() in ("---", "..."):
            return k + 1
    return -1


def _opens_comment(line: str) -> bool:
    """Whether ``line`` leaves an HTML comment open."""
    at = line.rfind("<!--")
    return at >= 0 and line.find("-->", at + 4) < 0


def _closed(paragraph: list[str]) -> bool:
    """Whether no element of ``paragraph`` can reach over the blank line after it: LaTeX's
    braces and brackets balanced (a raw command or math may span blank lines), every raw HTML
    tag closed on its line with its quotes (an attribute may hold blank lines)."""
    text = "\n".join(paragraph)
    if "<" in text and _TAG_START.search(_TAG.sub("", text.replace("<!--", ""))):
        return False
    if "\\" in text or "$" in text or "{" in text:
        for opening, closing in ("{}", "[]") if "\\" in text else ("{}",):
            depth = 0
            for char in text:
                if char == opening:
                    depth += 1
                elif char == closing:
                    depth -= 1
                    if depth < 0:
                        return False
            if depth:
                return False
    return True


def _key(title: str) -> str:
    return " ".join(title.lower().split())


def _headings_apart(keys: list[tuple[str, ...]], text: str) -> bool:
    """No two headings alike once all but letters and digits is dropped (pandoc would number
    their identifiers over the document), none with brackets, and none in brackets in the text
    (pandoc's implicit link to a heading). ``keys``: each heading's text, and with its
    attributes."""
    words = [re.sub(r"[\W_]+", "", own[0]) for own in keys]
    if len(set(words)) != len(words):
        return False
    every = {key for own in keys for key in own}
    if any("[" in key or "]" in key for key in every):
        return False
    labels = {" ".join(label.lower().split()) for label in set(_LABEL.findall(text))}
    return not labels & every


def _nearest(candidates: list[int], size: int, parts: int) -> list[int]:
    """For each of the ``parts - 1`` shares of ``size``, the candidate nearest to its end:
    even shares but for a tenth of the text more in the last part, which pandoc reads
    while the others are decoded."""
    chosen: list[int] = []
    for k in range(1, parts):
        goal = size * k * 9 // (10 * parts)
        best = min(candidates, key=lambda c: abs(c - goal), default=0)
        if best > (chosen[-1] if chosen else 0):
            chosen.append(best)
    return chosen
