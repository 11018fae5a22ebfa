"""One output written: its tree prepared, the filter applied, pandoc run, the file put in place.

Each output gets a tree of its own (the build's own for the last one built in a process, else a
copy): what pandoc cannot be trusted with is done to that tree first (remote images made local,
local files confined to the draft's folders, a draft's raw HTML made safe, for typst what it
cannot compile made plain, an HTML page's images written into it when the page goes to another
folder than the draft's), then the filter places the citations for the output's format and
pandoc writes it to a temporary file beside the output, renamed only when complete.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import mimetypes
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ... import formats
from ...errors import CiteledgerError
from ...files import fill, staged
from ...messages import Say
from ...options import Options
from ...pandoc import run_pandoc
from ...renderers.latex import pandoc_variables
from ...tree import (
    Inline,
    Inlines,
    PandocDoc,
    elements,
    elements_of,
    join_words,
    replace_elements,
    stringify,
)
from ..confine import Confinement, confine_local_files, drop_missing_images, missing_warning
from ..images import Fetcher, is_remote, localize_images, refused_warning
from .request import ConvertRequest, Output, is_stdout
from .tools import (
    add_latex_look,
    filters_at_write,
    latex_pdf,
    pandoc_args,
    run_renderer,
    sandboxed,
)

if TYPE_CHECKING:
    from ...document.markers import Scan
    from ...ledger import Ledger


@dataclass
class Build:
    """What every output of one build shares: the remote images fetched once, the draft's
    own text (its scripts choose a LaTeX PDF's fonts), the folders it may read files from."""

    fetcher: Fetcher
    text: str  # for a LaTeX PDF only (else empty): its scripts choose the fonts
    confinement: Confinement | None = None
    # Raw HTML written as it is: a flag or the project file said so (never the draft), or the
    # draft holds nothing the sanitiser would change (convert's ``_build``).
    trusted_html: bool = False
    missing_said: set[str] = field(default_factory=set)  # local images a warning named
    # The element types the draft holds (front matter included), found once: a draft with no
    # image and no raw markup needs none of the per-output walks over images and raw files.
    kinds: frozenset[str] = frozenset({"Image", "RawInline", "RawBlock"})
    # An HTML page's (lang, dir), chosen once for the build (``pool.page_language``).
    lang: tuple[str, str] | None = None
    # A writer started before the draft was verified (``pool.start_early``) waits here with its
    # file complete but not in place, until the build says the draft passed (else it raises).
    gate: Callable[[], None] | None = None


@dataclass
class Job:
    """One build's outputs and what every one of them reads."""

    outputs: list[Output]
    doc: PandocDoc  # the verified tree; never changed in the build's own process
    req: ConvertRequest
    draft: Path
    ledger: Ledger
    options: Options
    build: Build
    found: Scan | None = None  # the draft's scan, made on ``doc`` and verified
    # The tree as text, for outputs built in this process (made once, when first needed).
    text: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def freeze(self) -> None:
        """The tree as text, while no output has changed it yet."""
        with self.lock:
            if not self.text:
                self.text.append(json.dumps(self.doc, ensure_ascii=False))

    def tree(self, in_place: bool) -> PandocDoc:
        """A tree the output may change: the build's own in a forked writer (its copy) or for
        the last output built here, else a copy."""
        if in_place:
            return self.doc
        self.freeze()
        copy: PandocDoc = json.loads(self.text[0])
        return copy


def element_kinds(doc: PandocDoc) -> frozenset[str]:
    """The element types in ``doc``'s blocks and front matter."""
    nodes = [doc.get("blocks", []), list(doc.get("meta", {}).values())]
    return frozenset(el.get("t", "") for el in elements(nodes))


def draft_text(doc: PandocDoc) -> str:
    """The draft's text and title, whose scripts choose a LaTeX PDF's fonts."""
    title = doc.get("meta", {}).get("title")
    return stringify(doc.get("blocks", [])) + ("\n" + stringify(title) if title else "")


def build_output(job: Job, k: int, say: Say, *, in_place: bool) -> None:
    """Output ``k``: the filter applied to its own tree, pandoc, the renderer, in place."""
    from ...filters import html_page
    from ...filters.base import Caller
    from ...filters.run import apply

    output = job.outputs[k]
    req = dataclasses.replace(job.req, say=say)
    writer = "typst" if output.writer == "pdf" and req.pdf_engine == "typst" else None
    if output.writer == "pdf" and writer is None:
        writer = "latex"
    fmt = writer or output.writer
    tree = job.tree(in_place)
    # Threads of one build share the fetcher and the filter's imports; a forked writer has
    # its own of everything, and the lock of its own copy is free.
    with job.lock:
        changed = _prepare(tree, fmt, output, job.draft, job.build, say)
        if job.build.lang is not None and html_page.reads_as_page(fmt):
            meta = tree.setdefault("meta", {})
            meta.setdefault("lang", {"t": "MetaString", "c": job.build.lang[0]})
            if job.build.lang[1] == "rtl":
                meta.setdefault("dir", {"t": "MetaString", "c": "rtl"})
        # The draft's scan points into the build's own tree: reused while that tree is as the
        # scan found it, else the filter scans its copy again.
        found = job.found if in_place and not changed else None
        state = apply(
            tree,
            fmt,
            options=job.options,
            ledger=job.ledger,
            say=say,
            verify=False,
            found=found,
            rendered=formats.is_rendered(fmt),
            caller=Caller(source_name=str(job.draft)),
        )
    # The filter's options: a list under the draft's own title is found by that title.
    used = state.options if state is not None else job.options
    _write(output, fmt, tree, req, job.draft, job.ledger, used, job.build)


def _prepare(doc: PandocDoc, fmt: str, output: Output, draft: Path, build: Build, say: Say) -> bool:
    """What the writer needs of the tree before the filter runs: remote images made local
    (pandoc never fetches), and for typst what it cannot compile made plain. Returns whether
    the tree may have changed (the draft's scan then no longer points into it)."""
    family = formats.family(fmt)
    changed = False
    if not build.trusted_html:
        from ...filters.raw_html import sanitize_raw_html, writes_html

        if writes_html(fmt):
            changed = sanitize_raw_html(doc) > 0
    images = "Image" in build.kinds
    reads_files = images or bool(build.kinds & {"RawInline", "RawBlock"})
    if build.kinds & {"RawInline", "RawBlock"}:
        from ..display_math import drops_raw_tex, show_display_math

        # A raw TeX equation the writer would drop, written as math instead.
        if drops_raw_tex(fmt):
            changed = show_display_math(doc) > 0 or changed
    # Every binary output (a package, a PDF) holds its images: pandoc would fetch remote ones.
    if formats.is_binary(output.writer) or formats.is_binary(family):
        from ...renderers.typst import placeholder_name

        name = placeholder_name if family == "typst" else str
        if build.confinement is not None and (reads_files or family.startswith("epub")):
            changed = True
            missing = []
            for part in with_front_matter(doc) if images else []:
                missing += drop_missing_images(part, build.confinement)
            warning = missing_warning(draft, [m for m in missing if m not in build.missing_said])
            build.missing_said.update(missing)
            if warning:
                say(warning)
            confine_local_files(
                doc, build.confinement, writer=output.writer, family=family, point=family != "typst"
            )
        refused = []
        for part in with_front_matter(doc) if images else []:
            refused += localize_images(part, build.fetcher, name=name)
        changed = changed or images
        warning = refused_warning(draft, refused, build.fetcher)
        if warning:
            say(warning)
    elif build.confinement is not None and build.confinement.embeds and reads_files:
        # pandoc's --embed-resources puts local files into a text output too.
        changed = True
        confine_local_files(doc, build.confinement, writer=output.writer, family=family)
    elif images and build.confinement is not None and _page_elsewhere(output, draft, family):
        changed = embed_page_images(doc, build.confinement) > 0 or changed
    if family == "typst":
        # After the images: one written as its alt text takes its label with it, and a
        # cross-reference to that label is no longer one typst can resolve.
        from ...filters.run import make_compilable, unresolved_warning

        changed = True
        unresolved = make_compilable(doc)
        if unresolved:
            say(unresolved_warning(str(output.path), unresolved))
    return changed


def with_front_matter(doc: PandocDoc) -> list[PandocDoc]:
    """``doc`` and its front matter as a tree of its own: a title's or an abstract's image
    is fetched once and checked, or confined, as the body's are (pandoc fetches nothing)."""
    meta: PandocDoc = {
        "pandoc-api-version": doc.get("pandoc-api-version", []),
        "meta": {},
        "blocks": list(doc.get("meta", {}).values()),
    }
    return [doc, meta]


def _page_elsewhere(output: Output, draft: Path, family: str) -> bool:
    """An HTML page (or deck) written to a folder other than the draft's: the draft's image
    paths, relative to the draft, would not load from there."""
    row = formats.find(family)
    if row is None or row.kind != "html" or row.binary or not row.standalone or is_stdout(output):
        return False
    here = Path(os.path.realpath(draft)).parent
    return Path(os.path.realpath(output.path)).parent != here


def embed_page_images(doc: PandocDoc, confinement: Confinement) -> int:
    """Each local image of ``doc`` (confined to the draft's folders) written into the page as
    a ``data:`` address, so the page shows it wherever it is written or moved; an image the
    folders do not hold stays as the draft names it. Returns how many were embedded."""
    embedded: dict[str, str] = {}
    for el in elements_of(doc.get("blocks", []), ("Image",)):
        target = el["c"][2][0]
        if not isinstance(target, str) or not target or is_remote(target):
            continue
        if target.lower().startswith("data:"):
            continue
        if target not in embedded:
            path = confinement.resolve(target, "image")
            kind = mimetypes.guess_type(path.name)[0]
            if not path.is_file() or kind is None or not kind.startswith("image/"):
                continue
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            embedded[target] = f"data:{kind};base64,{data}"
        el["c"][2][0] = embedded[target]
    return len(embedded)


def _write(
    output: Output,
    fmt: str,
    doc: PandocDoc,
    req: ConvertRequest,
    draft: Path,
    ledger: Ledger,
    options: Options,
    build: Build,
) -> None:
    out = output.path
    family = formats.family(fmt)
    if family == "latex":
        add_latex_look(doc)
    variables: dict[str, str] = {}
    if output.writer == "pdf" and family == "latex":
        from ...filters.run import add_header_include
        from ...renderers.latex import plan

        chosen = plan(req.pdf_engine, build.text, doc.get("meta", {}), draft)
        for text in chosen.header:
            add_header_include(doc, "latex", text)
        variables = chosen.variables
    if family == "commonmark_x":
        _escape_braces(doc)
    if (
        sandboxed(req)
        and family != "typst"
        and (formats.is_binary(output.writer) or _embeds(build))
        # A draft with no image and no raw markup (which the vetting may make an image of)
        # has no image to embed: no walk over the whole tree for one.
        and build.kinds & {"Image", "RawInline", "RawBlock"}
    ):
        embed_images(doc, draft)
    if formats.joins_words(fmt) and not filters_at_write(req.pandoc_args):
        join_words(doc.get("blocks", []))
    if fmt == "pptx" and not is_stdout(output):
        deck = _deck_in_parts(doc, pandoc_args(fmt, req, draft), req, draft)
        if deck is not None:
            with staged(out) as tmp, _named_as(tmp, out):
                fill(tmp, deck, out)
                run_renderer(tmp, ledger, options, say=req.say, shown=out)
                if build.gate is not None:
                    build.gate()
            return
    payload = json.dumps(doc, ensure_ascii=False, check_circular=False, separators=(",", ":"))
    if is_stdout(output):
        data = run_pandoc(pandoc_args(fmt, req, draft), stdin=payload, what=str(draft))
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    with staged(out) as tmp, _named_as(tmp, out):
        args = pandoc_args(fmt, req, draft)
        if output.writer == "pdf" and family == "typst":
            from ...renderers.typst import compile_pdf

            source = run_pandoc(args, stdin=payload, what=str(draft))
            fetched = list(build.fetcher.fetched.values())
            fill(tmp, compile_pdf(source, draft, out, fetched, req.say), out)
        elif output.writer == "pdf":
            latex_pdf([*args, *pandoc_variables(variables)], payload, tmp, req, draft, out)
        elif formats.is_binary(fmt):
            run_pandoc([*args, "-o", str(tmp)], stdin=payload, what=str(draft))
        else:
            fill(tmp, run_pandoc(args, stdin=payload, what=str(draft)), out)
        if formats.is_rendered(fmt):
            run_renderer(tmp, ledger, options, say=req.say, shown=out)
        if build.gate is not None:
            build.gate()


def _deck_in_parts(
    doc: PandocDoc, args: list[str], req: ConvertRequest, draft: Path
) -> bytes | None:
    """A long deck written by pandoc in parts at once and joined (``deck_parts.py``), or None
    when it is to be written whole."""
    from .deck_parts import write_in_parts
    from .request import default_jobs

    return write_in_parts(doc, args, str(draft), req.jobs or default_jobs())


_EMBED_LIMIT = 20 * 1024 * 1024


def _embeds(build: Build) -> bool:
    return build.confinement is not None and build.confinement.embeds


def embed_images(doc: PandocDoc, draft: Path) -> None:
    """Every local image of ``doc`` (blocks and front matter), already confined to the draft's
    folders and fetched once when remote, handed to a sandboxed pandoc as a ``data:`` URI:
    under ``--sandbox`` pandoc reads no file the tree names."""
    import base64
    import mimetypes

    cache: dict[str, str] = {}
    nodes = [doc.get("blocks", []), list(doc.get("meta", {}).values())]
    for el in elements_of(nodes, ("Image",)):
        target = str(el["c"][2][0])
        if target.startswith(("data:", "http://", "https://")) or not target:
            continue
        if target not in cache:
            path = Path(target) if Path(target).is_absolute() else draft.parent / target
            kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            try:
                data = path.read_bytes() if path.stat().st_size <= _EMBED_LIMIT else b""
            except OSError:
                data = b""
            encoded = base64.b64encode(data).decode("ascii")
            cache[target] = f"data:{kind};base64,{encoded}" if data else target
        el["c"][2][0] = cache[target]


def _escape_braces(doc: PandocDoc) -> None:
    """pandoc's commonmark_x writer leaves ``{`` as it is, and its reader takes
    ``word{onclick=x}`` as attributes of the word: a title from the web (or the draft's text)
    would come back as a live span. Each ``{`` of the text is written escaped."""

    def change(el: Inline) -> Inlines | None:
        if el.get("t") != "Str" or "{" not in el["c"]:
            return None
        out: Inlines = []
        for k, part in enumerate(el["c"].split("{")):
            if k:
                out.append({"t": "RawInline", "c": ["commonmark_x", "\\{"]})
            if part:
                out.append({"t": "Str", "c": part})
        return out

    replace_elements(doc.get("blocks", []), change)


@contextlib.contextmanager
def _named_as(tmp: Path, out: Path) -> Iterator[None]:
    """An error inside the block names the output, never its hidden temporary file (pandoc's
    own "resource exhausted" line on a full disk quotes the path it was given)."""
    try:
        yield
    except CiteledgerError as exc:
        if str(tmp) not in exc.message:
            raise
        raise type(exc)(exc.message.replace(str(tmp), str(out)), hint=exc.hint) from None
