"""``render --replace-in`` on a draft whose own Sources block gives an id another page than the
ledger's: the draft's number means that page (a search tool's own result number), and rewriting
the block would point the citation at the ledger's page with verify passing afterwards. The
draft is left untouched, with the id to cite instead."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import run_citeledger

NSIDC = "https://nsidc.org/learn/parts-cryosphere/sea-ice"
NOAA = "https://www.noaa.gov/sea-ice-extent"
OTHER = "https://example.org/never-registered"


def citeledger(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citeledger(*args, cwd=cwd, ledger=cwd / "ledger.json")


def _ledger(folder: Path) -> None:
    for url, title in ((NSIDC, "Sea ice"), (NOAA, "Sea ice extent")):
        assert citeledger("add", url, "--title", title, cwd=folder).returncode == 0


def _draft(folder: Path, url: str) -> tuple[Path, str]:
    text = f"# Ice\n\nArctic sea ice extent is shrinking.[1]\n\n## Sources\n\n[1] {url} — NOAA\n"
    draft = folder / "d.md"
    draft.write_text(text, encoding="utf-8")
    return draft, text


def test_a_block_giving_an_id_another_ledger_page_is_refused_with_the_id_to_cite(
    tmp_path: Path,
) -> None:
    _ledger(tmp_path)
    draft, text = _draft(tmp_path, NOAA)  # the search tool's [1]; the ledger numbers NOAA [2]
    done = citeledger("render", "--replace-in", "d.md", cwd=tmp_path)
    assert done.returncode != 0
    assert draft.read_text(encoding="utf-8") == text
    assert "Traceback" not in done.stderr
    assert f"gives [1] the URL {NOAA}, which the ledger numbers [2]" in done.stderr
    assert "write [2] where the draft cites [1]" in done.stderr


def test_a_stale_block_naming_a_page_the_ledger_lacks_is_replaced(tmp_path: Path) -> None:
    _ledger(tmp_path)
    draft, text = _draft(tmp_path, OTHER)
    done = citeledger("render", "--replace-in", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert NSIDC in draft.read_text(encoding="utf-8")


def test_a_block_that_agrees_with_the_ledger_is_rewritten(tmp_path: Path) -> None:
    _ledger(tmp_path)
    draft, text = _draft(tmp_path, NSIDC + "/")  # the same page, written another way
    done = citeledger("render", "--replace-in", "d.md", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert draft.read_text(encoding="utf-8") != text
    assert citeledger("verify", "d.md", cwd=tmp_path).returncode == 0
