"""The manual's pictures, made from the bundled examples: ``make -C docs pictures``.

    python3 docs/pictures.py            write every picture into docs/pictures/
    python3 docs/pictures.py NAME ...   only those (word-page, pdf-typst, card-phone-dark, ...)

Each picture is what a reader of an output sees, rendered by the program that reader uses:

- ``word-page``: the report as Word, through LibreOffice (its first page, footnotes at its foot);
- ``pdf-typst``, ``pdf-xelatex``, ``pdf-pdflatex``: the report's first page by each PDF engine;
- ``slides-title``, ``slides-sources``: the deck's title slide and its first Sources slide,
  through LibreOffice;
- ``card-{desktop,phone}-{light,dark}``: the report as HTML in chromium (playwright), the
  evidence card of its second citation open, at desktop and phone width, light and dark.

The builds run in a temporary copy of examples/ with the checkout's citeledger; LibreOffice runs
with a profile of its own there. Pages are rasterised by pdftoppm, and every PNG is reduced to a
palette of at most 128 colours (Pillow) to keep the pictures small. Needs: LibreOffice, TeX Live
(xelatex, pdflatex), poppler, chromium and playwright, Pillow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "pictures"
CHROMIUM = "/usr/bin/chromium"
PAGE_DPI = 72
# The evidence card over the report's second citation (the summary's first sentence cites [1]).
CITATION = "#cite-2-1"
VIEWPORTS = {"desktop": (1100, 720), "phone": (390, 760)}


class Build:
    """A temporary copy of the examples, and the commands that build and render in it."""

    def __init__(self, work: Path) -> None:
        self.work = work
        shutil.copytree(ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("out"))
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
        for name in [k for k in self.env if k.startswith(("CITELEDGER", "HERMES"))]:
            del self.env[name]

    def run(self, *argv: str, cwd: Path) -> None:
        done = subprocess.run(argv, cwd=cwd, env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed in {cwd.name}:\n{done.stderr}")

    def convert(self, example: str, draft: str, out: str, *flags: str) -> Path:
        folder = self.work / "examples" / example
        citeledger = (sys.executable, "-m", "citeledger")
        self.run(*citeledger, "convert", draft, "-o", out, *flags, cwd=folder)
        return folder / out

    def office_pdf(self, path: Path) -> Path:
        """``path`` (docx, pptx) as LibreOffice prints it, with a profile of this build's own."""
        profile = (self.work / "lo-profile").as_uri()
        self.run(
            "soffice",
            f"-env:UserInstallation={profile}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(path.parent),
            str(path),
            cwd=path.parent,
        )
        return path.with_suffix(".pdf")


def page_png(build: Build, pdf: Path, page: int, name: str) -> None:
    stem = build.work / name
    build.run(
        "pdftoppm", "-png", "-r", str(PAGE_DPI), "-f", str(page), "-l", str(page), "-singlefile",
        str(pdf), str(stem), cwd=build.work,
    )  # fmt: skip
    save(Path(f"{stem}.png"), name)


def save(png: Path, name: str) -> None:
    """``png`` reduced to a palette and written as docs/pictures/NAME.png."""
    from PIL import Image

    with Image.open(png) as image:
        small = image.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT)
        OUT.mkdir(parents=True, exist_ok=True)
        small.save(OUT / f"{name}.png", optimize=True)
    print(f"wrote docs/pictures/{name}.png ({(OUT / f'{name}.png').stat().st_size // 1024} KB)")


def pdf_pages(pdf: Path) -> list[str]:
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    return text.split("\f")


def word_page(build: Build) -> None:
    docx = build.convert("report", "report.md", "report.docx")
    page_png(build, build.office_pdf(docx), 1, "word-page")


def pdf_engine(engine: str) -> Callable[[Build], None]:
    def make(build: Build) -> None:
        flags = () if engine == "typst" else ("--pdf-engine", engine)
        pdf = build.convert("report", "report.md", f"report-{engine}.pdf", *flags)
        page_png(build, pdf, 1, f"pdf-{engine}")

    return make


def slides(build: Build) -> None:
    pptx = build.convert("deck", "deck.md", "deck.pptx")
    pdf = build.office_pdf(pptx)
    pages = pdf_pages(pdf)
    page_png(build, pdf, 1, "slides-title")
    # The first Sources slide: the first page listing ledger entries with their URLs.
    sources = next(
        (i for i, text in enumerate(pages, 1) if text.count("[") >= 3 and "http" in text),
        len([p for p in pages if p.strip()]),
    )
    page_png(build, pdf, sources, "slides-sources")


def cards(build: Build, only: set[str]) -> None:
    from playwright.sync_api import sync_playwright

    html = build.convert("report", "report.md", "report.html")
    exe = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
        for screen, (width, height) in VIEWPORTS.items():
            for scheme in ("light", "dark"):
                name = f"card-{screen}-{scheme}"
                if name in only:
                    shoot(browser, html, width, height, scheme, build.work / f"{name}.png")
                    save(build.work / f"{name}.png", name)
        browser.close()


def shoot(browser: Any, html: Path, width: int, height: int, scheme: str, png: Path) -> None:
    context = browser.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme, device_scale_factor=1
    )
    context.route("http://*/**", lambda route: route.abort())
    context.route("https://*/**", lambda route: route.abort())
    page = context.new_page()
    page.goto(html.as_uri())
    page.wait_for_load_state("load")
    link = page.locator(CITATION)
    # The citation a third of the way down, so the card below it shows whole.
    link.evaluate("e => window.scrollTo(0, e.getBoundingClientRect().top + scrollY - 180)")
    link.hover()
    page.wait_for_timeout(300)
    page.screenshot(path=str(png))
    context.close()


MAKERS: dict[str, Callable[[Build], None]] = {
    "word-page": word_page,
    "pdf-typst": pdf_engine("typst"),
    "pdf-xelatex": pdf_engine("xelatex"),
    "pdf-pdflatex": pdf_engine("pdflatex"),
    "slides": slides,
}
CARDS = [f"card-{s}-{c}" for s in VIEWPORTS for c in ("light", "dark")]
NAMES = [*MAKERS, "slides-title", "slides-sources", *CARDS]


def main(argv: list[str]) -> int:
    wanted = set(argv) or set(NAMES)
    unknown = wanted - set(NAMES)
    if unknown:
        print(f"no picture named {', '.join(sorted(unknown))}; the names: {', '.join(NAMES)}")
        return 2
    with tempfile.TemporaryDirectory(prefix="citeledger-pictures-") as tmp:
        build = Build(Path(tmp))
        for name, make in MAKERS.items():
            if name in wanted or (name == "slides" and wanted & {"slides-title", "slides-sources"}):
                make(build)
        if wanted & set(CARDS):
            cards(build, wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
