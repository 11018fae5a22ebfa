"""What an HTML page needs of the whole document besides its citations, so every reader can
use it (WCAG 2.2 AA): the html placement (``filters/html.py``) runs these after placing.

- **Marks never start a line**: each citation mark is bound to the word (or punctuation)
  before it, and a cluster ``[50][3][9]`` to itself, in a ``<span class="citeledger-nowrap">``
  (the stylesheet's ``white-space: nowrap``); a space the draft kept before the mark is kept,
  and stops being a place to break. After a quotation, a link or emphasis (too long to keep on
  one line) the span opens with a word joiner (U+2060), which forbids the break as well.
- **Tables scroll in their own box** (``<div class="citeledger-table" role="region">``, which
  the keyboard can reach): a wide table never makes a phone's page scroll sideways.
- **A figure's alt text holds no citation marker**: pandoc writes an implicit figure's caption
  as its image's alt text too, ``[2]`` included, and then hides the caption from screen readers
  as a repeat of the alt text, with the focusable mark inside it. The alt text loses its
  markers; the caption, with its live mark, stays for every reader.
- **A page says its language** (``lang``, and ``dir`` for a right-to-left script): from the
  draft's ``lang``; a draft without one gets :func:`default_lang` (``en``, or the language of
  the script other than Latin that writes much of its text: Arabic ``ar``, Han ``zh``, ...)
  and one warning.
- **A ``<main>`` landmark** around a standalone page's content (``html``, ``html5``), through
  pandoc's ``include-before`` and ``include-after``. Slides, chunked HTML and EPUB keep their
  own structure; the wiki's page frame has its own ``<main>``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet

from .. import formats
from ..options import meta_value
from ..tree import (
    Block,
    Inlines,
    Json,
    attr,
    elements,
    elements_of,
    inline_lists,
    raw_block,
    span,
    stringify,
)

NOWRAP = "citeledger-nowrap"
AFTER_LINK = "citeledger-after-link"
WORD_JOINER = "\u2060"
TABLE_BOX = "citeledger-table"
DEFAULT_LANG = "en"
# The language a page whose draft names none is taken to be, by the script (the first word of
# its letters' Unicode names) writing a sixth or more of its letters.
SCRIPT_LANGS = {
    "ARABIC": "ar",
    "HEBREW": "he",
    "CJK": "zh",
    "HIRAGANA": "ja",
    "KATAKANA": "ja",
    "HANGUL": "ko",
    "CYRILLIC": "ru",
    "GREEK": "el",
    "THAI": "th",
    "DEVANAGARI": "hi",
}
SHARE = 6
RTL_LANGS = frozenset({"ar", "he", "iw", "fa", "ur", "ps", "sd", "ug", "yi", "dv", "syr", "ckb"})
_BREAKS = ("Space", "SoftBreak")
_NO_BIND = ("LineBreak", "Note")
_MARKER = re.compile(r"\s*\[(\d+)\]")


def reads_as_page(fmt: str) -> bool:
    """Whether ``fmt`` writes HTML a person reads: a browser's page or deck, or an EPUB."""
    row = formats.find(fmt)
    return row is not None and row.writes and row.kind in ("html", "ebook")


def bind_marks(
    blocks: list[Block], marks: AbstractSet[int], holders: Iterable[Inlines] | None = None
) -> None:
    """Each run of citation marks (``id()`` in ``marks``) with the inline before it, and the
    space between, in one nowrap span, in every inline list of ``blocks`` but footnotes'.
    ``holders``: those of the lists that may hold a mark, when the caller knows them (each list
    once); the rest of the document is then not walked."""
    for inlines in inline_lists(blocks) if holders is None else holders:
        ids = list(map(id, inlines))
        if not marks.isdisjoint(ids):  # most lists of a page hold no mark, or a few
            _bind(inlines, [k for k, i in enumerate(ids) if i in marks])


def _bind(inlines: Inlines, at: list[int]) -> None:
    """Bind the marks at the indexes ``at`` (in order) of ``inlines``, from the last: what is
    done to the list is done at or after the mark, so the indexes before it stay true."""
    j = len(at) - 1
    while j >= 0:
        i = at[j]
        end = i + 1
        while j > 0 and at[j - 1] == i - 1:
            j -= 1
            i -= 1
        j -= 1
        start = i
        classes = [NOWRAP]
        glue: Inlines = []
        if start > 0 and inlines[start - 1].get("t") in _BREAKS:
            if start > 1 and inlines[start - 2].get("t") == "Str":
                start -= 2  # a space the draft kept: inside the span it is no place to break
            else:
                # A span opening with a space lets chromium break after it: the space stays
                # outside, and a word joiner forbids the break after it (UAX 14, LB11).
                glue = [{"t": "Str", "c": WORD_JOINER}]
        elif start > 1 and inlines[start - 2].get("t") == "Cite":
            # ``[@key].[10]`` with citeproc still to run: a note style moves its note past the
            # punctuation after the Cite, reaching into a span it opens (it took ``.[`` from
            # ``.[10]`` and left ``10]``). The punctuation stays out; a word joiner binds.
            glue = [{"t": "Str", "c": WORD_JOINER}]
        elif start > 0 and inlines[start - 1].get("t") not in _NO_BIND:
            start -= 1
            if inlines[start].get("t") != "Str":
                # A quotation, a link, emphasis: too long to keep on one line with the mark.
                # A word joiner (U+2060) forbids the break between it and the span instead.
                if inlines[start].get("t") in ("Link", "Image"):
                    classes.append(AFTER_LINK)  # two targets apart (WCAG 2.5.8)
                start += 1
                glue = [{"t": "Str", "c": WORD_JOINER}]
        if start < i and inlines[start].get("t") == "Str":
            # A run of words joined into one Str (convert joins them for the html writer):
            # only its last word, and the space after it, go with the mark.
            head, word = _last_word(inlines[start]["c"])
            if head:
                inlines[start] = {"t": "Str", "c": word}
                inlines.insert(start, {"t": "Str", "c": head})
                start += 1
                end += 1
        inlines[start:end] = [span(glue + inlines[start:end], classes=classes)]


_LAST_WORD = re.compile(r"\S*\s*$")
LONGEST_WORD = 24  # characters: a longer run is a line of CJK text (no spaces), not a word


def _last_word(text: str) -> tuple[str, str]:
    """``text`` cut before its last word (which keeps the spaces after it); in text written
    without spaces (Chinese, Japanese: any wide character) or a very long word, before its
    last two characters."""
    at = _LAST_WORD.search(text)
    cut = at.start() if at else len(text)
    word = text[cut:].rstrip()
    wide = any(unicodedata.east_asian_width(ch) in "WF" for ch in word)
    if len(word) > LONGEST_WORD or (wide and len(word) > 2):
        cut = max(cut, len(text.rstrip()) - 2)
    return text[:cut], text[cut:]


def table_boxes(blocks: list[Block]) -> None:
    """Every table in a box that scrolls sideways on its own, named for assistive technology
    by its caption (else "Table"), reachable by the keyboard (tabindex 0: the script takes it
    off a box with nothing to scroll)."""
    _walk_block_lists(blocks, _box_tables)


def _box_tables(blocks: list[Block]) -> None:
    for k, block in enumerate(blocks):
        if block.get("t") != "Table":
            continue
        caption = stringify(block["c"][1][1]).strip() if block["c"][1] else ""
        attrs = [("role", "region"), ("tabindex", "0"), ("aria-label", caption or "Table")]
        blocks[k] = {"t": "Div", "c": [attr("", [TABLE_BOX], attrs), [block]]}


def _walk_block_lists(node: Json, visit: Callable[[list[Block]], None]) -> None:
    """``visit`` every list of blocks under ``node`` (the document's, a Div's, a list item's,
    a note's ...), innermost first."""
    if isinstance(node, list):
        for item in node:
            _walk_block_lists(item, visit)
        if node and all(isinstance(b, dict) and _is_block(b) for b in node):
            visit(node)
    elif isinstance(node, dict):
        if node.get("t") == "Table":
            return  # cells are left as they are: a table inside a table's cell stays put
        c = node.get("c")
        if isinstance(c, list):
            _walk_block_lists(c, visit)


_BLOCKS = frozenset(
    {
        "Plain",
        "Para",
        "LineBlock",
        "CodeBlock",
        "RawBlock",
        "BlockQuote",
        "OrderedList",
        "BulletList",
        "DefinitionList",
        "Header",
        "HorizontalRule",
        "Table",
        "Figure",
        "Div",
    }
)


def _is_block(el: Json) -> bool:
    return el.get("t") in _BLOCKS


def figure_alts(blocks: list[Block], cited: set[int]) -> tuple[int, int, bool]:
    """In one walk: every image's alt text without the citation markers it holds (ids in
    ``cited``), and the images and links no one named (:func:`_unnamed`). Returns how many
    images and links were unnamed, and whether ``blocks`` hold a table (a page without one
    needs no walk for :func:`table_boxes`)."""
    images = links = 0
    tables = False
    for el in elements_of(blocks, _NAMED):
        t = el.get("t")
        if t == "Image":
            _figure_alt(el, cited)
            images += _unnamed(el)
        elif t == "Link":
            links += _unnamed(el)
        elif t == "Table":
            tables = True
    return images, links, tables


_NAMED = frozenset({"Image", "Link", "Table"})


def _figure_alt(el: Json, cited: set[int]) -> None:
    if any(i.get("t") == "Link" for i in elements(el["c"][1])):
        return  # pandoc 2's figure: the alt text is the caption, its marks placed
    alt = stringify(el["c"][1])
    if not any(int(m.group(1)) in cited for m in _MARKER.finditer(alt)):
        return
    bare = _MARKER.sub(lambda m: "" if int(m.group(1)) in cited else m.group(0), alt)
    el["c"][1] = [{"t": "Str", "c": bare.strip()}] if bare.strip() else []


def _unnamed(el: Json) -> int:
    """A draft's image with no alt text gets ``alt=""`` (a screen reader skips it rather than
    reading its address), and its link with no text an ``aria-label`` of its target (MyST's
    ``[](target)`` that pandoc leaves empty). Returns 1 when it did, for a warning: only the
    author can say what an image shows."""
    if el["t"] == "Image" and not stringify(el["c"][1]).strip():
        keys = el["c"][0][2]
        if not any(k in ("alt", "aria-label", "title") for k, _ in keys) and not el["c"][2][1]:
            keys.append(["alt", ""])
            return 1
    elif el["t"] == "Link" and not el["c"][1]:
        keys = el["c"][0][2]
        if not any(k in ("aria-label", "title") for k, _ in keys):
            keys.append(["aria-label", el["c"][2][1] or el["c"][2][0]])
            return 1
    return 0


def main_landmark(doc: Json, fmt: str) -> None:
    """A standalone html page's ``<main>`` (``html``, ``html5``): opened in pandoc's
    ``include-before`` and closed in its ``include-after``, which the page template writes
    around the title block and the text. Not a Div around the blocks: pandoc's ``--toc`` and
    ``--section-divs`` read the document's top-level headings only."""
    if formats.family(fmt) not in ("html", "html5", "html4"):
        return
    meta = doc.setdefault("meta", {})
    tags = (("include-before", "<main>", False), ("include-after", "</main>", True))
    for key, tag, at_end in tags:
        block = {"t": "MetaBlocks", "c": [raw_block("html", tag)]}
        current = meta.get(key)
        if current is None:
            meta[key] = {"t": "MetaList", "c": [block]}
        elif current.get("t") == "MetaList":
            current["c"].insert(len(current["c"]) if at_end else 0, block)
        else:
            meta[key] = {"t": "MetaList", "c": [current, block] if at_end else [block, current]}


def text_sample(doc: Json, limit: int = 4000) -> str:
    out: list[str] = []
    size = 0
    for el in elements(doc.get("blocks", [])):
        if el.get("t") == "Str":
            out.append(el["c"])
            size += len(el["c"])
            if size > limit:
                break
    return "".join(out)


def default_lang(text: str) -> tuple[str, str]:
    """``(lang, dir)`` for a page whose draft names no language: the language of the script
    (other than Latin) that writes a sixth or more of its letters (:data:`SCRIPT_LANGS`; Han
    with any kana is Japanese), else ``en``; ``rtl`` for a right-to-left one."""
    counts: dict[str, int] = {}
    letters = 0
    for ch in text:
        if not ch.isalpha():
            continue
        letters += 1
        name = unicodedata.name(ch, "").split(" ", 1)[0]
        if name in SCRIPT_LANGS:
            counts[name] = counts.get(name, 0) + 1
    if "CJK" in counts and ("HIRAGANA" in counts or "KATAKANA" in counts):
        counts["HIRAGANA"] = counts.pop("CJK") + counts.pop("KATAKANA", 0) + counts["HIRAGANA"]
    if counts and letters:
        script, count = max(counts.items(), key=lambda kv: kv[1])
        if count * SHARE >= letters:
            lang = SCRIPT_LANGS[script]
            return lang, direction(lang)
    return DEFAULT_LANG, "ltr"


def direction(lang: str) -> str:
    """``rtl`` for a language written right to left (its primary subtag), else ``ltr``."""
    return "rtl" if lang.split("-", 1)[0].lower() in RTL_LANGS else "ltr"


def page_lang(doc: Json, say: Callable[[str], None], where: str) -> tuple[str, str]:
    """The page's ``(lang, dir)``, set in ``doc``'s metadata (pandoc's templates write both);
    one warning when the draft names no language."""
    meta = doc.setdefault("meta", {})
    lang = _text(meta.get("lang"))
    if lang:
        text_dir = _text(meta.get("dir")) or direction(lang)
    else:
        lang, text_dir = default_lang(text_sample(doc))
        say(
            f"warn: {where}: no `lang` in the metadata: the page says lang={lang}; "
            "set `lang:` to the draft's language (a BCP 47 tag such as en-GB or ar)"
        )
        meta["lang"] = {"t": "MetaString", "c": lang}
    if text_dir == "rtl" and "dir" not in meta:
        meta["dir"] = {"t": "MetaString", "c": "rtl"}
    return lang, text_dir


def _text(value: Json) -> str:
    found = meta_value(value) if value is not None else ""
    return found.strip() if isinstance(found, str) else ""
