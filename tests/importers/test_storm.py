"""STORM outputs from a public repository (tests/fixtures/corpora/agents/README.md): the
article's numbers name URLs through ``url_to_unified_index``, whatever the key order of the
file, and every way in follows that map."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from citeledger.ledger import load_ledger
from citeledger.ledger.urls import url_key

from ..helpers.answers import cited_by_sentence
from ..helpers.ledgers import make_ledger

AGENTS = Path(__file__).parents[1] / "fixtures" / "corpora" / "agents"
HILARY = AGENTS / "storm-hurricane-hilary"
HAWKINS = AGENTS / "storm-taylor-hawkins"


def _map(folder: Path) -> dict[int, str]:
    data = json.loads((folder / "url_to_info.json").read_text(encoding="utf-8"))
    return {n: url for url, n in data["url_to_unified_index"].items()}


def test_the_real_file_lists_its_urls_out_of_index_order() -> None:
    order = list(_map(HILARY))
    assert order != sorted(order)  # why reading it in key order misattributes


def test_ingest_on_an_empty_ledger_gives_each_url_the_id_its_article_cites(cli) -> None:
    done = cli("--ledger", "l.json", "ingest", str(HILARY / "url_to_info.json"))
    assert done.code == 0, done.err
    book = load_ledger(Path("l.json"))
    for number, url in _map(HILARY).items():
        assert url_key(book.source(number).url) == url_key(url)


def test_ingest_into_a_ledger_holding_other_ids_refuses_in_one_line_naming_import(
    cli, tmp_path: Path
) -> None:
    make_ledger(tmp_path / "l.json", [(1, "https://example.org/mine", "Mine", "2026-01-01")])
    before = (tmp_path / "l.json").read_bytes()
    done = cli("--ledger", "l.json", "ingest", str(HILARY / "url_to_info.json"))
    assert done.code == 2
    assert len(done.err.strip().splitlines()) == 1, done.err
    assert "citeledger import" in done.err
    assert (tmp_path / "l.json").read_bytes() == before


def test_ingest_of_the_same_file_again_changes_nothing(cli, tmp_path: Path) -> None:
    assert cli("--ledger", "l.json", "ingest", str(HILARY / "url_to_info.json")).code == 0
    before = (tmp_path / "l.json").read_bytes()
    assert cli("--ledger", "l.json", "ingest", str(HILARY / "url_to_info.json")).code == 0
    assert (tmp_path / "l.json").read_bytes() == before


@pytest.mark.parametrize("folder", [HILARY, HAWKINS], ids=["hilary", "hawkins"])
def test_import_renumbers_through_the_ledger_and_each_citation_keeps_its_url(
    cli, tmp_path: Path, folder: Path
) -> None:
    make_ledger(tmp_path / "l.json", [(1, "https://example.org/mine", "Mine", "2026-01-01")])
    done = cli("--ledger", "l.json", "import", str(folder), "-o", "draft.md")
    assert done.code == 0, done.out + done.err
    assert done.out.rstrip().endswith("citations OK")
    book = load_ledger(tmp_path / "l.json")
    assert book.source(1).url == "https://example.org/mine"  # nothing already there changes
    draft = (tmp_path / "draft.md").read_text(encoding="utf-8")
    body = draft.split("\n## Sources\n")[0]
    numbers = _map(folder)
    article = (folder / "storm_polished_article.txt").read_text(encoding="utf-8")
    wanted = cited_by_sentence(article, numbers.__getitem__)
    assert cited_by_sentence(body, lambda n: book.source(n).url) == wanted
    # markers after the sentence's punctuation, never before it, and none spaced off
    assert not re.search(r"\[[0-9]+\][.!?]", body), "a marker before a full stop"
    assert not re.search(r" \[[0-9]+\]", body), "a space before a marker"


def test_import_keeps_storm_snippets_as_provider_quotes_only(cli, tmp_path: Path) -> None:
    assert cli("--ledger", "l.json", "import", str(HAWKINS), "-o", "d.md").code == 0
    book = load_ledger(tmp_path / "l.json")
    assert all(not s.quotes for s in book.sources)
    held = [q for s in book.sources for q in s.provider_quotes]
    assert held and all(q.provider == "storm" for q in held)
    assert "url_to_info.json" in held[0].origin


def test_both_article_names_are_read(cli, tmp_path: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(HAWKINS, folder)
    (folder / "storm_polished_article.txt").rename(folder / "storm_gen_article_polished.txt")
    done = cli("--ledger", "l.json", "import", str(folder))
    assert done.code == 0, done.err
    assert (tmp_path / "run.md").is_file()


def test_importing_the_same_folder_twice_changes_nothing(cli, tmp_path: Path) -> None:
    assert cli("--ledger", "l.json", "import", str(HAWKINS), "-o", "d.md").code == 0
    ledger, draft = (tmp_path / "l.json").read_bytes(), (tmp_path / "d.md").read_bytes()
    assert cli("--ledger", "l.json", "import", str(HAWKINS), "-o", "d.md").code == 0
    assert (tmp_path / "l.json").read_bytes() == ledger
    assert (tmp_path / "d.md").read_bytes() == draft
