"""Zip archives handed to a reader (docx, pptx, odt, epub), sized before anything inflates them.

A draft or a delivered file is a zip whoever made it chose: a 320 KB .docx can hold a
``document.xml`` of 300 MB (deflate packs a repeated byte about a thousand to one), and pandoc,
handed it by ``citeledger verify``, took 2.5 GB of memory. So before pandoc or python-docx sees
an archive, :func:`check_archive` reads its directory and refuses, in one line:

- more than :data:`MAX_MEMBERS` files;
- more than :data:`MAX_TOTAL` bytes declared in all (real documents, media included, stay far
  below: the largest fixture inflates to 110 KB);
- a member past :data:`BOMB_SIZE` that inflates more than :data:`BOMB_RATIO` to one (XML that
  Word, PowerPoint or LibreOffice write packs 5 to 20 to one);
- a member that inflates to more than it declares: the check is measured, not trusted. Each
  deflated member is inflated here, in bounded steps, and stopped one byte past its declared
  size, so the work is at most the declared total (which the caps bound) and no lie about a
  size gets past.

Not bounded here: pandoc's memory for an archive that passes (a heap cap, ``+RTS -M``, would
need a figure right for every real document, and pandoc built without ``-rtsopts`` refuses the
flag outright).
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from typing import BinaryIO

from .errors import DraftError

MAX_MEMBERS = 10_000
MAX_TOTAL = 1 << 30  # 1 GiB
BOMB_SIZE = 16 << 20  # 16 MiB
BOMB_RATIO = 100
_STEP = 1 << 20
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, ..., file name length, extra length
_HINT_HOSTILE = "do not open it elsewhere either; get the document again from whoever made it"


def check_archive(path: str | Path) -> None:
    """Refuse (``DraftError``) the zip at ``path`` if inflating it would cost more than a real
    document does (see the module docstring). A file that is no zip passes: its reader says
    what is wrong with it."""
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile, ValueError):
        return
    with archive, open(path, "rb") as raw:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise DraftError(
                f"{path} holds {len(infos):,} files, more than the {MAX_MEMBERS:,} a document "
                "needs",
                hint="save it again from the program that made it",
            )
        total = sum(info.file_size for info in infos)
        if total > MAX_TOTAL:
            raise DraftError(
                f"{path} inflates to {total:,} bytes, more than {MAX_TOTAL:,}",
                hint="split the document, or take out large embedded media",
            )
        for info in infos:
            ratio = info.file_size // max(info.compress_size, 1)
            if info.file_size > BOMB_SIZE and ratio > BOMB_RATIO:
                raise DraftError(
                    f"{path} is a zip bomb: {info.filename} inflates {info.compress_size:,} "
                    f"bytes to {info.file_size:,} ({ratio:,} to 1)",
                    hint=_HINT_HOSTILE,
                )
        for info in infos:
            if info.compress_type == zipfile.ZIP_DEFLATED and _inflates_past(raw, info):
                raise DraftError(
                    f"{path}: {info.filename} inflates to more than the {info.file_size:,} "
                    "bytes it declares",
                    hint=_HINT_HOSTILE,
                )


def _inflates_past(handle: BinaryIO, info: zipfile.ZipInfo) -> bool:
    """Whether the member's deflate stream gives more than its declared size (inflating at
    most one step past it). A member too broken to read is left to the reader to report."""
    handle.seek(info.header_offset)
    header = handle.read(_LOCAL_HEADER.size)
    if len(header) < _LOCAL_HEADER.size:
        return False
    signature, name_len, extra_len = _LOCAL_HEADER.unpack(header)
    if signature != b"PK\x03\x04":
        return False
    handle.seek(info.header_offset + _LOCAL_HEADER.size + name_len + extra_len)
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    left, produced = info.compress_size, 0
    try:
        while left > 0 and not inflater.eof:
            data = handle.read(min(_STEP, left))
            if not data:
                break
            left -= len(data)
            while data:
                produced += len(inflater.decompress(data, _STEP))
                if produced > info.file_size:
                    return True
                data = inflater.unconsumed_tail
    except zlib.error:
        return False
    return False
