"""Hostile drafts: a draft written by someone else (a co-author, a pull request, an agent) reads
no file outside its folder into the delivered document, and its raw TeX opens no file and runs
nothing. Each test is named for the attack it stops."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import tempfile
import zipfile
import zlib
from pathlib import Path

import pytest

from tests.helpers import run_citeledger

SECRET = "SECRET-KEY-7f3a9c"


def png(text: bytes = b"chart") -> bytes:
    """A 1x1 PNG holding ``text`` in a tEXt chunk: what finds its bytes in an archive."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"tEXt", b"Comment\x00" + text)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITELEDGER", "HERMES"))}
    return run_citeledger(*args, cwd=cwd, env=env, text=False, timeout=300)


def refusal(done: subprocess.CompletedProcess[bytes], *words: str) -> str:
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, (done.returncode, err)
    assert "Traceback" not in err
    assert SECRET not in err and SECRET not in done.stdout.decode("utf-8", "replace")
    line = [ln for ln in err.splitlines() if ln.strip()][-1]
    for word in words:
        assert word in line, line
    return line


@pytest.fixture
def scene(tmp_path: Path) -> Path:
    """A draft's folder beside a folder holding something private."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text(SECRET + "\n")
    (tmp_path / "outside" / "secret.png").write_bytes(png(SECRET.encode()))
    draft = tmp_path / "draft"
    draft.mkdir()
    (draft / "ledger.json").write_text(json.dumps({"version": 1, "sources": []}))
    (draft / "chart.png").write_bytes(png(b"own-chart"))
    return draft


def _archive_holds(path: Path, needle: bytes) -> bool:
    with zipfile.ZipFile(path) as archive:
        return any(needle in archive.read(name) for name in archive.namelist())


@pytest.mark.parametrize("suffix", [".docx", ".odt", ".epub", ".pptx"])
@pytest.mark.parametrize("where", ["absolute", "dotdot", "symlink", "file-uri", "percent"])
def test_a_draft_image_outside_its_folder_is_not_embedded(
    suffix: str, where: str, scene: Path
) -> None:
    secret = scene.parent / "outside" / "secret.png"
    target = {
        "absolute": str(secret),
        "dotdot": "../outside/secret.png",
        "symlink": "innocent.png",
        "file-uri": secret.as_uri(),
        "percent": "%2E%2E/outside/secret.png",
    }[where]
    (scene / "innocent.png").symlink_to(secret)
    (scene / "d.md").write_text(f"# Report\n\nText.\n\n![chart]({target})\n")
    done = cli("convert", "d.md", "-o", f"out{suffix}", cwd=scene)
    refusal(done, "image", "a draft reads only files in its own folder")
    assert not (scene / f"out{suffix}").exists()


def test_a_relative_image_is_never_read_from_the_working_folder(scene: Path) -> None:
    """pandoc searches the working folder after the draft's: a user converting from their home
    folder must not embed ``.ssh/...`` a draft names relative to nothing."""
    home = scene.parent
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id.png").write_bytes(png(SECRET.encode()))
    (scene / "d.md").write_text("# Report\n\n![key](.ssh/id.png)\n")
    (home / "ledger.json").write_text(json.dumps({"version": 1, "sources": []}))
    done = cli("convert", "draft/d.md", "-o", "draft/out.docx", cwd=home)
    assert done.returncode == 0, done.stderr
    assert not _archive_holds(scene / "out.docx", SECRET.encode())


@pytest.mark.parametrize("suffix", [".docx", ".odt", ".epub", ".pptx"])
def test_images_inside_the_drafts_folder_still_embed(suffix: str, scene: Path) -> None:
    (scene / "sub").mkdir()
    (scene / "sub" / "two.png").write_bytes(png(b"sub-chart"))
    (scene / "d.md").write_text("# Report\n\n![one](chart.png)\n\n![two](sub/two.png)\n")
    done = cli("convert", "d.md", "-o", f"out{suffix}", cwd=scene)
    assert done.returncode == 0, done.stderr
    assert _archive_holds(scene / f"out{suffix}", b"own-chart")
    assert _archive_holds(scene / f"out{suffix}", b"sub-chart")


def test_an_epub_cover_or_raw_html_image_outside_the_folder_is_refused(scene: Path) -> None:
    # Trusted drafts too: the confinement holds for the author's own draft (an untrusted one
    # has its cover-image dropped and its raw HTML sanitised: test_trust_draft.py).
    (scene / "cover.md").write_text("---\ncover-image: ../outside/secret.png\n---\n\n# R\n")
    refusal(cli("convert", "cover.md", "-o", "c.epub", "--trust-draft", cwd=scene), "cover-image")
    (scene / "raw.md").write_text('# R\n\n<img src="../outside/secret.png">\n')
    refusal(cli("convert", "raw.md", "-o", "r.epub", "--trust-draft", cwd=scene), "raw HTML")


def test_folders_named_with_resource_path_are_read_and_no_others(scene: Path) -> None:
    from citeledger.errors import ResourceRefused
    from citeledger.publish.confine import Confinement, named_resource_folders

    assets = scene.parent / "assets"
    assets.mkdir()
    (assets / "logo.png").write_bytes(png())

    class Request:
        resource_path = str(assets)
        pandoc_args = ["--resource-path=" + str(scene.parent / "more")]

    named = named_resource_folders(Request())
    assert named == [str(assets), str(scene.parent / "more")]
    confinement = Confinement.for_draft(scene / "d.md", named)
    assert confinement.resolve("logo.png", "image") == assets.resolve() / "logo.png"
    with pytest.raises(ResourceRefused):
        confinement.resolve("../outside/secret.txt", "image")


# Raw TeX ---------------------------------------------------------------------------------

needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None and os.environ.get("CI") != "true",
    reason="needs pdflatex",
)


@pytest.mark.latex
@needs_pdflatex
@pytest.mark.parametrize(
    "raw",
    [
        r"\input{SECRET}",
        r"\input SECRET",
        r"\include{SECRET}",
        r"\verbatiminput{SECRET}",
        r"\lstinputlisting[language=C]{SECRET}",
        r"\includegraphics[width=2cm]{SECRET}",
        r"\openin5=SECRET",
        r"\read16 to \x",
        r"\directlua{io.open('SECRET')}",
    ],
)
def test_raw_tex_naming_a_file_outside_the_folder_is_refused(raw: str, scene: Path) -> None:
    secret = str(scene.parent / "outside" / "secret.txt")
    (scene / "d.md").write_text(f"# R\n\n```{{=latex}}\n{raw.replace('SECRET', secret)}\n```\n")
    done = cli(
        "convert", "d.md", "-o", "d.pdf", "--pdf-engine", "pdflatex", "--trust-draft", cwd=scene
    )
    refusal(done, "raw TeX")
    assert not (scene / "d.pdf").exists()


@pytest.mark.latex
@needs_pdflatex
@pytest.mark.parametrize("engine", ["pdflatex", "xelatex", "lualatex"])
def test_raw_tex_hiding_its_path_in_a_macro_cannot_read_it(engine: str, scene: Path) -> None:
    if shutil.which(engine) is None:
        pytest.skip(f"needs {engine}")
    # A path TeX reads as it is (no underscore, which a pytest folder name holds).
    secret = Path(tempfile.gettempdir()) / f"citeledgersecret{os.getpid()}{engine}.txt"
    secret.write_text(SECRET + "\n")
    (scene / "d.md").write_text(
        f"# R\n\nText `\\def\\x{{{secret}}}\\input\\x\\relax`{{=latex}} end.\n"
    )
    try:
        args = ("convert", "d.md", "-o", "d.pdf", "--pdf-engine", engine, "--trust-draft")
        done = cli(*args, cwd=scene)
    finally:
        secret.unlink()
    assert done.returncode != 0
    err = done.stderr.decode("utf-8", "replace")
    assert SECRET not in err and "Traceback" not in err
    assert not (scene / "d.pdf").exists()


@pytest.mark.latex
@needs_pdflatex
def test_raw_tex_reading_a_file_inside_the_folder_still_typesets(scene: Path) -> None:
    (scene / "part.tex").write_text("Included words.\n")
    (scene / "d.md").write_text("# R\n\n```{=latex}\n\\input{part.tex}\n```\n\n![c](chart.png)\n")
    done = cli(
        "convert", "d.md", "-o", "d.pdf", "--pdf-engine", "pdflatex", "--trust-draft", cwd=scene
    )
    assert done.returncode == 0, done.stderr
    assert (scene / "d.pdf").read_bytes().startswith(b"%PDF")


def test_embedding_resources_into_html_is_confined_too(scene: Path) -> None:
    """pandoc's --embed-resources (passed through to convert) reads local files into an HTML
    output: the same confinement holds there."""
    from citeledger.errors import ResourceRefused
    from citeledger.publish.confine import (
        Confinement,
        confine_local_files,
        embeds_resources,
    )

    class Request:
        pandoc_args = ["--embed-resources"]

    assert embeds_resources(Request())
    doc = {
        "blocks": [
            {"t": "Para", "c": [{"t": "Image", "c": [["", [], []], [], ["../outside/x.png", ""]]}]}
        ]
    }
    confinement = Confinement.for_draft(scene / "d.md", embeds=True)
    with pytest.raises(ResourceRefused, match="image"):
        confine_local_files(doc, confinement, writer="html", family="html")
