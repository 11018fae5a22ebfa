"""Figures and dates compared as values across their spellings, in the languages citeledger
reads; and the details a claim states that its evidence lacks."""

from __future__ import annotations

import pytest

from citeledger.verify.support.details import ClaimEvidence, missing_details


def missing(evidence: str, claim: str) -> list[str]:
    return [d.shown for d in missing_details(claim, ClaimEvidence((evidence,)))]


@pytest.mark.parametrize(
    ("evidence", "claim"),
    [
        ("It rose 12%.", "It rose twelve percent."),
        ("It rose 12%.", "It rose 12 per cent."),
        ("Es stieg um 12 Prozent.", "Es stieg um zwölf Prozent."),
        ("1.5 million people", "1,500,000 people"),
        ("1.5 million people", "1.500.000 people"),
        ("1.5 million people", "1 500 000 people"),
        ("1.5 million people", "150万 people"),
        ("1.5 million people", "15 lakh people"),
        ("2.3 billion euros", "2,3 Mrd. Euro"),
        ("It rose 3 percent.", "It rose \u0663 percent."),
        ("It landed on 21 July 1969.", "It landed on 1969-07-21."),
        ("It landed on 21 July 1969.", "It landed on July 21, 1969."),
        ("It landed on 21 July 1969.", "It landed on 21.07.1969."),
        ("It landed on 21 July 1969.", "Es landete am 21. Juli 1969."),
        ("It landed on 21 July 1969.", "Aterrizó el 21 de julio de 1969."),
        ("It landed on 21 July 1969.", "Он сел 21 июля 1969 года."),
        ("It landed on 21 July 1969.", "1969年7月21日登月。"),
        ("It landed on 21 July 1969.", "It landed in July 1969."),
        ("有40个州还在使用。", "四十个州还在使用。"),
        ("Neil Armstrong was in command.", "Armstrong was in command."),
        ("Lice migrated from the Andes.", "Lice migrated to the Andean highlands."),
    ],
)
def test_a_detail_written_another_way_is_found(evidence: str, claim: str) -> None:
    assert missing(evidence, claim) == []


@pytest.mark.parametrize(
    ("evidence", "claim", "shown"),
    [
        ("It rose 12%.", "It rose 13%.", "13%"),
        ("1.5 million people", "1.5 billion people", "1.5 billion"),
        ("It landed in July 1969.", "It landed on 21 July 1969.", "21 July 1969"),
        ("It landed on 21 July 1969.", "It landed on 21 June 1969.", "21 June 1969"),
        ("It came from Austria.", "It came from Australia.", "Australia"),
        ("The drug reduced deaths in adults.", "The drug did not reduce deaths in adults.", "not"),
        ("The drug did not reduce deaths.", "The drug reduced deaths.", "not"),
        ("1959年，这不是强制规定。", "1959年，这是强制规定。", "不"),
    ],
)
def test_a_changed_detail_is_missing(evidence: str, claim: str, shown: str) -> None:
    assert missing(evidence, claim) == [shown]


def test_little_or_no_and_avoid_are_no_change_of_negation() -> None:
    assert missing("with little or no roof insulation", "with little roof insulation") == []
    assert missing("Avoid feeding worms onions.", "Do not feed worms onions.") == []
    assert missing("Its digits COVID-19 are a name's.", "COVID-19 spread.") == []
