"""A claim that names its own source ("According to Reuters, ...") names what the evidence need
not repeat: the cited source's title, site and host count as supported names; for names only,
never for a figure, a date or another source's name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeledger.verify.support.details import ClaimEvidence, missing_details

PAGE = "Global temperatures rose by 1.1 degrees since pre-industrial times, the report found."
QUOTE = "temperatures rose by 1.1 degrees"


def _support(cli, folder: Path, url: str, claim: str, *add: str) -> list[str]:
    (folder / "p.txt").write_text(PAGE, encoding="utf-8")
    assert cli("add", url, *add).code == 0
    assert cli("quote", "1", "--text", QUOTE, "--from", "p.txt").code == 0
    (folder / "d.md").write_text(f"# T\n\n{claim}[1]\n\n## Sources\n\n[1] {url}\n")
    done = cli("verify", "d.md", "--support", "--format", "json")
    return [f["message"] for f in json.loads(done.out)["findings"] if f["level"] != "info"]


@pytest.mark.parametrize(
    ("url", "add", "claim"),
    [
        (
            "https://www.reuters.com/climate/t",
            (),
            "According to Reuters, temperatures rose by 1.1 degrees.",
        ),
        (
            "https://example.org/t",
            ("--title", "Record heat | Reuters"),
            "As Reuters reports, temperatures rose by 1.1 degrees.",
        ),
        (
            "https://example.org/t",
            ("--site", "Carbon Brief"),
            "As Carbon Brief reports, temperatures rose by 1.1 degrees.",
        ),
        (
            "https://www.carbonbrief.org/t",
            (),
            "As Carbon Brief reports, temperatures rose by 1.1 degrees.",
        ),
        (
            "https://www.the-guardian.com/t",
            (),
            "The Guardian says temperatures rose by 1.1 degrees.",
        ),
    ],
)
def test_the_sources_own_name_is_a_supported_name(
    cli, tmp_path: Path, url: str, add: tuple[str, ...], claim: str
) -> None:
    assert _support(cli, tmp_path, url, claim, *add) == []


def test_another_outlets_name_is_still_unsupported(cli, tmp_path: Path) -> None:
    found = _support(
        cli,
        tmp_path,
        "https://www.reuters.com/t",
        "According to Bloomberg, temperatures rose by 1.1 degrees.",
    )
    assert len(found) == 1 and found[0].startswith("\u201cBloomberg\u201d (a name)")


def test_a_title_supports_names_only_never_a_figure() -> None:
    evidence = ClaimEvidence(("Temperatures rose by 1.1 degrees.",), ("Reuters 2024: 1.5 degrees",))
    missing = missing_details("Reuters says temperatures rose by 1.5 degrees.", evidence)
    assert [(d.kind, d.shown) for d in missing] == [("number", "1.5")]
