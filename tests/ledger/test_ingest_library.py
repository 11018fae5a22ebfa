"""``citeledger ingest`` reads a writer's reference library: a real Zotero/Better BibTeX CSL-JSON
export, a real ``.bib`` and a RIS file (tests/fixtures/library/README.md says where each is
from), besides tool output. Each item's URL, else its DOI, becomes a source with the item's
authors, date, site and citation key; items with neither are named, never dropped silently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from citeledger.ledger import load_ledger, normalize_url
from tests.helpers import FIXTURES, Result

LIBRARY = FIXTURES / "library"
ZOTERO = LIBRARY / "quarto-chinese-bibliography.csl.json"
BIB = LIBRARY / "gmr-paper.bib"
RIS = LIBRARY / "web-pages.ris"


def _by_url(ledger: Path) -> dict[str, dict]:
    return {s.url: s.to_dict() for s in load_ledger(ledger).sources}


def test_zotero_csl_json_items_become_sources_with_authors_dates_sites_and_keys(
    cli, tmp_path: Path
) -> None:
    items = json.loads(ZOTERO.read_text(encoding="utf-8"))
    with_address = [i for i in items if i.get("URL") or i.get("DOI")]
    expected = {normalize_url(i.get("URL") or "doi:" + i["DOI"]) for i in with_address}
    result: Result = cli("--ledger", "L.json", "ingest", str(ZOTERO))
    assert result.code == 0, result.err
    sources = _by_url(tmp_path / "L.json")
    assert set(sources) == expected
    magazine = sources[
        "https://www.newyorker.com/magazine/2022/01/03/"
        "chinas-reform-generation-adapts-to-life-in-the-middle-class"
    ]
    assert magazine["author"] == [{"family": "Hessler", "given": "Peter"}]
    assert magazine["issued"] == "2021-12-27"
    assert magazine["site"] == "The New Yorker"
    assert magazine["key"] == "hessler2021"
    assert magazine["accessed"] == "2021-10-02"  # the library's access date, not today's
    by_doi = sources["https://doi.org/10.5281/zenodo.4273761"]
    assert by_doi["author"][1] == {
        "literal": "9 workshop participants who wished to remain anonymous"
    }
    # The items without a URL or DOI are counted and named, in one line.
    missing = [i["id"] for i in items if not (i.get("URL") or i.get("DOI"))]
    warning = [ln for ln in result.err.splitlines() if "no URL or DOI" in ln]
    assert len(warning) == 1
    assert f"{len(missing)} item(s)" in warning[0] and missing[0] in warning[0]


def test_csl_json_wrapped_in_an_items_object_is_read(cli, tmp_path: Path) -> None:
    item = {
        "id": "a",
        "type": "webpage",
        "title": "Zotero web item",
        "URL": "https://z.example/item",
        "author": [{"family": "Okafor", "given": "Ada"}],
        "issued": {"date-parts": [[2023, 4]]},
    }
    (tmp_path / "lib.json").write_text(json.dumps({"items": [item]}), encoding="utf-8")
    result = cli("--ledger", "L.json", "ingest", "lib.json")
    assert result.code == 0, result.err
    assert result.out == "[1] https://z.example/item\n"
    source = load_ledger(tmp_path / "L.json").source(1)
    assert (source.author, source.issued, source.key) == (item["author"], "2023-04", "a")


def test_a_bib_file_gives_its_urls_and_dois_and_names_the_rest(cli, tmp_path: Path) -> None:
    result = cli("--ledger", "L.json", "ingest", str(BIB))
    assert result.code == 0, result.err
    sources = _by_url(tmp_path / "L.json")
    assert set(sources) == {
        "http://www.jstor.org/stable/2984875",
        "https://proceedings.neurips.cc/paper/1993/file/f2201f5191c4e92cc5af043eebfd0946-Paper.pdf",
        "https://doi.org/10.1109/TSMCB.2006.886952",
        "http://www.sciencedirect.com/science/article/pii/S0893608015001185",
    }
    em = sources["http://www.jstor.org/stable/2984875"]
    assert em["key"] == "Dempster1977"
    assert em["issued"] == "1977"
    assert [a["family"] for a in em["author"]] == ["Dempster", "Laird", "Rubin"]
    assert "2 item(s)" in result.err and "Uhlmann1995, Pedregosa2011" in result.err


def test_a_ris_file_gives_its_urls_and_dois(cli, tmp_path: Path) -> None:
    result = cli("--ledger", "L.json", "ingest", str(RIS))
    assert result.code == 0, result.err
    sources = _by_url(tmp_path / "L.json")
    page = sources["https://polar.example.org/notes/sea-ice-extent"]
    assert page["key"] == "okafor2023" and page["site"] == "Polar Data Notes"
    assert "https://doi.org/10.5555/everyday.2019.033" in sources
    assert "1 item(s)" in result.err and "Nakamura_2001" in result.err


def test_from_names_the_format_of_a_file_whose_name_does_not(cli, tmp_path: Path) -> None:
    shutil.copy(BIB, tmp_path / "refs.txt")
    assert cli("--ledger", "L.json", "ingest", "--from", "bibtex", "refs.txt").code == 0
    assert len(load_ledger(tmp_path / "L.json").sources) == 4
    refused = cli("--ledger", "L.json", "ingest", "--from", "endnote", "refs.txt")
    assert refused.code == 2 and "unknown --from" in refused.err


def test_ingesting_a_library_again_keeps_every_id_and_writes_nothing(cli, tmp_path: Path) -> None:
    assert cli("--ledger", "L.json", "add", "http://www.jstor.org/stable/2984875").code == 0
    assert cli("--ledger", "L.json", "ingest", str(BIB)).code == 0
    ledger = tmp_path / "L.json"
    first = ledger.read_bytes()
    held = load_ledger(ledger).source(1)
    assert held.url == "http://www.jstor.org/stable/2984875" and held.key == "Dempster1977"
    again = cli("--ledger", "L.json", "ingest", str(BIB))
    assert again.code == 0
    assert ledger.read_bytes() == first
    assert again.out.splitlines()[0] == "[1] http://www.jstor.org/stable/2984875"


def test_a_library_without_any_address_is_refused_and_nothing_is_written(
    cli, tmp_path: Path
) -> None:
    (tmp_path / "books.json").write_text(
        json.dumps([{"id": "b", "type": "book", "title": "Offline"}]), encoding="utf-8"
    )
    result = cli("--ledger", "L.json", "ingest", "books.json")
    assert result.code != 0
    assert "no item of books.json" in result.err and "b" in result.err
    assert not (tmp_path / "L.json").exists()


def test_tool_output_is_still_read_as_before(cli, tmp_path: Path) -> None:
    (tmp_path / "hits.json").write_text(
        json.dumps({"results": [{"type": "web", "id": 1, "url": "https://t.example/a"}]}),
        encoding="utf-8",
    )
    result = cli("--ledger", "L.json", "ingest", "hits.json")
    assert (result.code, result.out) == (0, "[1] https://t.example/a (new)\n")
    assert load_ledger(tmp_path / "L.json").source(1).to_dict().keys() == {
        "id",
        "url",
        "title",
        "accessed",
        "quotes",
    }
