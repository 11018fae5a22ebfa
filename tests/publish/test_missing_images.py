"""A local image the draft names but its folder does not hold: pandoc leaves it out of a Word
file with a warning and typst stops the whole PDF. Every output the build embeds images in
writes it as its alt text, with one warning line for the build (found on a Quarto chapter whose
repository keeps its images apart)."""

from __future__ import annotations

from pathlib import Path

from pypdf import PdfReader

from tests.helpers import make_ledger, run_citeledger

DRAFT = (
    "# Ice\n\n![A chart of sea ice extent](images/extent.png)\n\n"
    "Sea ice floats on the ocean all winter long.[1]\n\n"
    "## Sources\n\n[1] https://example.org/ice — Ice\n"
)


def test_a_missing_local_image_is_its_alt_text_in_every_output(tmp_path: Path) -> None:
    make_ledger(tmp_path / "ledger.json", [(1, "https://example.org/ice", "Ice", "2024-01-01")])
    (tmp_path / "d.md").write_text(DRAFT, encoding="utf-8")
    outputs = ["d.pdf", "d.docx", "d.pptx", "d.odt"]
    done = run_citeledger("convert", "d.md", *[a for o in outputs for a in ("-o", o)], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in outputs:
        assert (tmp_path / name).stat().st_size > 0, name
    warned = [ln for ln in done.stderr.splitlines() if "images/extent.png" in ln]
    assert len(warned) == 1 and warned[0].startswith("warn: d.md: 1 local image"), done.stderr
    text = "".join(page.extract_text() for page in PdfReader(tmp_path / "d.pdf").pages)
    assert "A chart of sea ice extent" in text
