"""Page writing: every page of a build through as few pandoc runs as possible.

pandoc starts once per batch of pages, not once per page: the pages of a batch are joined with a
separator block carrying a random token and split apart afterwards, so a 500-page build costs
about one conversion of the whole draft. Pages with footnotes are the exception in formats whose
writers collect notes at the end of the document (gfm, obsidian, html, mediawiki): each such
page is written by its own pandoc run.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from ...errors import BadInput, OutputError
from ...files import Guard, write_bytes
from ...pandoc import run_pandoc
from ...tree import Json
from .formats import WikiFormat
from .pages import Page

# Blocks a batch holds at the least: a pandoc run costs 60 ms or more of CPU besides its work,
# about what writing 100 to 200 blocks of prose costs, so smaller batches spend more on
# starting pandoc than on writing.
MIN_BATCH = 500


class PageWriter:
    """Writes pages while the build still prepares later ones: pages are collected into
    batches, each batch joined with separator blocks into one document and written by one
    pandoc run in a worker thread (the run is a separate process, so it overlaps the Python
    work), then split apart at the separators. A page with footnotes, in a format whose writer
    gathers notes at the document's end, is a batch of its own.

    A batch is half of each CPU's share of the work still to come, and at least an eighth of
    its share of all the work and ``MIN_BATCH`` blocks: batches shrink towards the end, so the
    last one, written after the last page is prepared, is a short tail, while a build starts
    few pandoc runs (on the 500-page benchmark, batches of a sixteenth throughout cost gfm a
    fifth more pandoc CPU and html a quarter more; a 50-page build made 33 runs without the
    floor, 3 with it)."""

    def __init__(self, fmt: WikiFormat, api: Json, pages: list[Page]) -> None:
        self.fmt = fmt
        self.api = api
        self.separator = f"<!-- citeledger-page-{secrets.token_hex(8)} -->"
        self.args = ["-f", "json", "-t", fmt.writer, *fmt.args]
        self.workers = max(1, min(4, os.cpu_count() or 1))
        self.pool = ThreadPoolExecutor(max_workers=self.workers)
        self.remaining = sum(len(p.blocks) for p in pages)
        self.floor = max(MIN_BATCH, self.remaining // (8 * self.workers))
        self.batch: list[Page] = []
        self.size = 0
        self.futures: list[Future[None]] = []

    def add(self, page: Page, *, flush: bool = False) -> None:
        if page.has_notes and self.fmt.notes_at_end:
            self.futures.append(self.pool.submit(self.write, [page]))
            return
        self.batch.append(page)
        self.size += len(page.blocks)
        target = max(self.floor, self.remaining // (2 * self.workers))
        if flush or self.size >= target:
            self.futures.append(self.pool.submit(self.write, self.batch))
            self.remaining -= self.size
            self.batch, self.size = [], 0

    def wait(self) -> None:
        if self.batch:
            self.futures.append(self.pool.submit(self.write, self.batch))
            self.batch = []
        for future in self.futures:
            future.result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def save(
        self,
        pages: list[Page],
        out_dir: Path,
        guard: Guard,
        framed: Callable[[Page], str] | None = None,
    ) -> list[Path]:
        """Write each page's file into ``out_dir`` (html pages in their frame), from the pool:
        replacing a file can wait on the disk (truncating 500 existing pages took over a
        second on the benchmark's machine, a fifth of that from two threads). Every page is
        checked against the run's inputs before any is written, and each is written through
        the one safe write (a symlink in the folder is replaced, never written through; a full
        disk leaves the old page); pages skip the per-file fsync, which 500 pages would feel.
        ``framed``: an html page's whole text from the page (``frame.html_frame``)."""
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"cannot create {out_dir}: {exc.strerror or exc}") from None
        paths = [out_dir / f"{page.slug}{self.fmt.ext}" for page in pages]
        for path in paths:
            guard.check(path)

        def save_one(page: Page, path: Path) -> Path:
            body = framed(page) if framed is not None else page.text
            write_bytes(path, body.encode("utf-8"), durable=False)
            return path

        return list(self.pool.map(save_one, pages, paths))

    def write(self, batch: list[Page]) -> None:
        for page, text in zip(batch, self.texts([p.blocks for p in batch]), strict=True):
            page.text = text

    def texts(self, parts: list[list[Json]]) -> list[str]:
        """The text of each of ``parts`` (block lists), written by one pandoc run."""
        blocks: list[Json] = []
        for part in parts:
            if len(parts) > 1:
                blocks.append({"t": "RawBlock", "c": [self.fmt.raw, self.separator]})
            blocks.extend(part)
        if "--wrap=none" in self.args:
            merge_text(blocks)
        doc = {"pandoc-api-version": self.api, "meta": {}, "blocks": blocks}
        # A page's tree holds no cycle: the check would cost a fifth of the encoding.
        data = json.dumps(doc, ensure_ascii=False, check_circular=False, separators=(",", ":"))
        out = run_pandoc(self.args, stdin=data, what="the wiki pages").decode("utf-8")
        written = out.split(self.separator)[1:] if len(parts) > 1 else [out]
        if len(written) != len(parts):
            raise BadInput(
                "pandoc dropped a page separator while writing the wiki",
                hint="report this with the draft",
            )
        return [text.strip("\n") + "\n" for text in written]


_TEXT = frozenset({"Str", "Space", "SoftBreak"})


def merge_text(node: Json) -> None:
    """Runs of Str and Space as one Str, in place. The writers print both the same way with
    ``--wrap=none``, and pandoc parses the JSON of a large build about 30% faster (measured on
    the 500-page benchmark: identical output). Only for formats written with ``--wrap=none``."""
    if isinstance(node, list):
        if node and isinstance(node[0], dict) and node[0].get("t") in _TEXT:
            out: list[Json] = []
            buf: list[str] = []
            for el in node:
                t = el.get("t")
                if t == "Str":
                    buf.append(el["c"])
                elif t == "Space" or t == "SoftBreak":
                    buf.append(" ")
                else:
                    if buf:
                        out.append({"t": "Str", "c": "".join(buf)})
                        buf = []
                    out.append(el)
                    merge_text(el)
            if buf:
                out.append({"t": "Str", "c": "".join(buf)})
            node[:] = out
        else:
            for item in node:
                merge_text(item)
    elif isinstance(node, dict):
        c = node.get("c")
        if isinstance(c, list):
            merge_text(c)
