"""The contract between the Word filter and the Word renderer, as OpenXML text.

The filter runs inside every pandoc build and must start fast, so it cannot import python-docx;
the few raw runs it hands pandoc (a bookmark around a source's first note, a ``NOTEREF`` field
for each later citation) are built here from the standard library. Everything else that touches
OOXML lives in ``renderers/_oxml*.py``; the names below are what both sides agree on: the renderer
finds a source's note by the bookmark name, never by guessing from the text. It sits below both
packages so that neither imports the other.
"""

from __future__ import annotations

import re
from html import escape

BOOKMARK_PREFIX = "_clsrc"
# Word keeps bookmark names up to 40 characters, starting with a letter or "_" ("_" also hides
# them from the bookmark dialog). Pandoc numbers its own bookmarks from 0 upwards; ours live far
# above, so the two never share a w:id.
BOOKMARK_ID_BASE = 1_000_000
BOOKMARK_RE = re.compile(rf"^{BOOKMARK_PREFIX}(\d{{1,9}})$")
# A later citation's own note (``repeat-notes: short``) sits in a bookmark ``_clrep<id>_<k>``,
# ``k`` counting the document's repeat notes: names and ids unique, far above the first notes'.
REPEAT_PREFIX = "_clrep"
REPEAT_ID_BASE = 1_500_000_000
REPEAT_RE = re.compile(rf"^{REPEAT_PREFIX}(\d{{1,9}})_(\d{{1,9}})$")
NOTEREF_RE = re.compile(rf"^\s*NOTEREF\s+({BOOKMARK_PREFIX}\d{{1,9}})\b(.*)$")

FOOTNOTE_REFERENCE = "FootnoteReference"
ENDNOTE_REFERENCE = "EndnoteReference"


def bookmark_name(source_id: int) -> str:
    return f"{BOOKMARK_PREFIX}{source_id}"


def bookmark_id(source_id: int) -> int:
    return BOOKMARK_ID_BASE + source_id


def bookmark_start(source_id: int) -> str:
    return (
        f'<w:bookmarkStart w:id="{bookmark_id(source_id)}" '
        f'w:name="{escape(bookmark_name(source_id))}"/>'
    )


def bookmark_end(source_id: int) -> str:
    return f'<w:bookmarkEnd w:id="{bookmark_id(source_id)}"/>'


def repeat_bookmark_start(source_id: int, k: int) -> str:
    return f'<w:bookmarkStart w:id="{REPEAT_ID_BASE + k}" w:name="{REPEAT_PREFIX}{source_id}_{k}"/>'


def repeat_bookmark_end(k: int) -> str:
    return f'<w:bookmarkEnd w:id="{REPEAT_ID_BASE + k}"/>'


def _run(body: str, style: str | None) -> str:
    rpr = f'<w:rPr><w:rStyle w:val="{style}"/></w:rPr>' if style else ""
    return f"<w:r>{rpr}{body}</w:r>"


def noteref_field(source_id: int, cached: str, *, as_mark: bool = True) -> str:
    """A ``NOTEREF`` field to the note of ``source_id``: its number, as Word would show it.

    ``as_mark`` formats it as a note mark (``\\f``: the reference style, superscript);
    otherwise it is plain text (the label of a Sources entry). ``\\h`` makes it a link to the
    note's first citation. ``cached`` is the result shown until Word updates the field.
    """
    style = FOOTNOTE_REFERENCE if as_mark else None
    switches = r"\f \h" if as_mark else r"\h"
    instr = f" NOTEREF {bookmark_name(source_id)} {switches} "
    return "".join(
        (
            _run('<w:fldChar w:fldCharType="begin"/>', style),
            _run(
                f'<w:instrText xml:space="preserve">{escape(instr, quote=False)}</w:instrText>',
                style,
            ),
            _run('<w:fldChar w:fldCharType="separate"/>', style),
            _run(f'<w:t xml:space="preserve">{escape(cached, quote=False)}</w:t>', style),
            _run('<w:fldChar w:fldCharType="end"/>', style),
        )
    )
