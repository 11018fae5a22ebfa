"""The reviewer's audit page (``citeledger audit DRAFT -o audit.html``): one self-contained
HTML file listing each cited sentence of a draft once, in order, with where it stands, its
verdict, and each source it cites with its quotes (and the page passage the check took).

The page is made for a person checking a report, on a desk or a phone: a radio group filters
it to the sentences that need a look (by CSS alone; a small script keeps a live count for
screen readers and hides items where ``:has()`` is missing), the details a sentence states
and its evidence lacks are marked in it, text of any script reads in its own direction
(``dir="auto"``), and nothing in it is wider than a 320 px screen. Every text from the draft
and the ledger is web content: escaped (:func:`citeledger.escape.html_text`), links only to
the ledger's http(s) URLs, and a Content-Security-Policy that runs only the page's own
script and style (by hash) and loads nothing.

The frame, style and script are ``templates/audit.html``, ``audit.css`` and ``audit.js``.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from pathlib import Path

from ..escape import html_text
from ..ledger import Ledger
from ..verify import ClaimVerdict, Detail

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
_VERDICTS = {
    "supported": ("verdict-supported", "Details found in the evidence"),
    "missing-detail": ("verdict-look", "Needs a look: a detail is not in the evidence"),
    "low-score": ("verdict-look", "Needs a look: the judge finds little support"),
    "no-evidence": ("verdict-none", "Needs a look: no evidence to check against"),
}


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def _line(location: str, name: str) -> str:
    """A finding's location as a reader says it: "line 12" (markdown), else the heading."""
    rest = location[len(name) :] if location.startswith(name) else location
    parts = rest.lstrip(":").split(":")
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        return f"line {parts[0]}"
    return rest.replace(" \u00a7 ", "", 1).strip() or name


def _marked(sentence: str, missing: Sequence[Detail]) -> str:
    """The sentence escaped, each detail its evidence lacks inside ``<mark>``."""
    spans: list[tuple[int, int]] = []
    for detail in missing:
        if detail.kind == "negation" and detail.way == "dropped":
            continue
        at = sentence.find(detail.shown)
        if at < 0:
            at = sentence.casefold().find(detail.shown.casefold())
        if at >= 0 and not any(a < at + len(detail.shown) and at < b for a, b in spans):
            spans.append((at, at + len(detail.shown)))
    out, pos = [], 0
    for a, b in sorted(spans):
        out += [html_text(sentence[pos:a]), f"<mark>{html_text(sentence[a:b])}</mark>"]
        pos = b
    out.append(html_text(sentence[pos:]))
    return "".join(out)


def _why(v: ClaimVerdict, threshold: float) -> str:
    lines = [html_text(d.described()) for d in v.missing]
    if v.score is not None:
        relation = "under" if v.score < threshold else "at or over"
        lines.append(
            f"The judge scores its support at {v.score:.2f}, {relation} the threshold "
            f"{threshold:.2f}."
        )
    if v.outcome == "no-evidence":
        lines.append("Its sources hold no quote to check it against: that is never support.")
    if v.pages_missing:
        ids = ", ".join(f"[{i}]" for i in v.pages_missing)
        lines.append(f"No kept page for {ids}: its quotes alone were read.")
    return "".join(f'<p class="why">{line}</p>' for line in lines)


def _sources(v: ClaimVerdict, ledger: Ledger, item: int) -> str:
    rows = []
    for i in v.ids:
        source = ledger.get(i)
        if source is None:
            continue
        title = html_text(source.title or source.url)
        quotes = v.evidence.get(i, [])
        shown = "".join(f'<li><q dir="auto">{html_text(q)}</q></li>' for q in quotes)
        for chunk in v.chunks.get(i, []):
            shown += (
                f'<li class="page-chunk">From the kept page: <q dir="auto">'
                f"{html_text(chunk)}</q></li>"
            )
        body = (
            f'<ul class="quotes" aria-label="Evidence of [{i}]">{shown}</ul>'
            if shown
            else '<p class="empty">No quote.</p>'
        )
        rows.append(
            f'<li><a href="{html_text(source.url)}" rel="noopener noreferrer" '
            f'id="c{item}-s{i}">[{i}] <span dir="auto">{title}</span></a>{body}</li>'
        )
    return f'<h3>Sources</h3><ul class="sources">{"".join(rows)}</ul>'


def _item(v: ClaimVerdict, k: int, ledger: Ledger, name: str, threshold: float) -> str:
    style, label = _VERDICTS[v.outcome]
    look = "yes" if v.needs_look else "no"
    return (
        f'<li class="claim" id="claim-{k}" data-outcome="{v.outcome}" data-look="{look}">'
        f'<article aria-labelledby="claim-{k}-h">'
        f'<h2 id="claim-{k}-h">Sentence {k}, {html_text(_line(v.location, name))}</h2>'
        f'<blockquote class="sentence" dir="auto">{_marked(v.sentence, v.missing)}</blockquote>'
        f'<p class="verdict {style}">{label}</p>{_why(v, threshold)}'
        f"{_sources(v, ledger, k)}</article></li>"
    )


def audit_page(
    claims: Sequence[ClaimVerdict],
    ledger: Ledger,
    *,
    draft: str,
    judge: str | None,
    threshold: float,
    pages: bool,
) -> str:
    """The audit page of ``claims`` (the support check's verdicts on one draft)."""
    frame = (TEMPLATES / "audit.html").read_text(encoding="utf-8")
    style = (TEMPLATES / "audit.css").read_text(encoding="utf-8")
    script = (TEMPLATES / "audit.js").read_text(encoding="utf-8")
    look = sum(1 for v in claims if v.needs_look)
    evidence = "their quotes and the nearest passage of each kept page" if pages else "quotes"
    how = (
        f"Each sentence was checked against its sources' {evidence}: figures and dates as "
        "values, names and negations"
        + (f", then scored by the judge ({html_text(judge)})." if judge else ".")
    )
    values = {
        "style": style,
        "script": script,
        "style-hash": _hash(style),
        "script-hash": _hash(script),
        "draft": html_text(draft),
        "summary": f"{len(claims)} cited sentence(s), {look} needing a look.",
        "how": how,
        "total": str(len(claims)),
        "look": str(look),
        "judged": " and the judge scored it at or over the threshold" if judge else "",
        "items": "\n".join(
            _item(v, k, ledger, draft, threshold) for k, v in enumerate(claims, start=1)
        ),
    }
    # Substituted in one pass: a value holding "$items$" (a sentence about templates) stays.
    pieces = frame.split("$")
    out = [pieces[0]]
    for k in range(1, len(pieces), 2):
        key = pieces[k]
        out.append(values.get(key, f"${key}$"))
        out.append(pieces[k + 1] if k + 1 < len(pieces) else "")
    return "".join(out)
