from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gongzhu import HEART_ACE, PIG, SHEEP, TRANSFORMER, Card, Rank, Suit, full_deck, parse_cards
from gongzhu.cards import cards_text, sort_cards
from gongzhu.errors import GongzhuError, InvalidCard


@pytest.mark.parametrize(
    "text",
    ["QS", "Q♠", "♠Q", "SQ", "qs", " QS ", "黑桃Q", "Q♤"],
)
def test_pig_text_forms(text: str) -> None:
    assert Card.parse(text) == PIG
    assert str(Card.parse(text)) == "QS"


@pytest.mark.parametrize("text", ["TC", "10C", "10♣", "♣10", "梅花10", "草花10", "tc", "C10"])
def test_ten_text_forms(text: str) -> None:
    assert Card.parse(text) is TRANSFORMER
    assert str(Card.parse(text)) == "TC"


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("红桃A", HEART_ACE),
        ("红心A", HEART_ACE),
        ("方片J", SHEEP),
        ("方块J", SHEEP),
        ("AH", HEART_ACE),
    ],
)
def test_chinese_suit_names(text: str, card: Card) -> None:
    assert Card.parse(text) == card


@pytest.mark.parametrize("bad", ["", "Q", "S", "1S", "11S", "QX", "QSS", "XQ", "10", "♠"])
def test_bad_card_text(bad: str) -> None:
    with pytest.raises(InvalidCard, match="not a card"):
        Card.parse(bad)


def test_bad_card_is_value_error_and_gongzhu_error() -> None:
    with pytest.raises(ValueError):
        Card.parse("ZZ")
    with pytest.raises(GongzhuError):
        Card.parse("ZZ")
    with pytest.raises(InvalidCard, match="expected card text"):
        Card.parse(12)  # type: ignore[arg-type]


def test_parse_cards_accepts_spaces_and_commas() -> None:
    assert parse_cards("QS JD TC AH") == (PIG, SHEEP, TRANSFORMER, HEART_ACE)
    assert parse_cards("QS,JD, 10C") == (PIG, SHEEP, TRANSFORMER)
    assert parse_cards(["QS", SHEEP]) == (PIG, SHEEP)
    assert parse_cards("") == ()


def test_parse_cards_names_the_bad_entry() -> None:
    with pytest.raises(InvalidCard, match="'1X'"):
        parse_cards("QS 1X")


def test_index_and_interning() -> None:
    assert [c.index for c in full_deck()] == list(range(52))
    assert Card.from_index(PIG.index) is PIG
    assert Card.parse("Q♠") is Card.parse("QS")
    assert Card(Suit.SPADES, Rank.QUEEN) == PIG
    assert PIG.bit == 1 << PIG.index
    with pytest.raises(InvalidCard):
        Card.from_index(52)


def test_decks() -> None:
    assert len(full_deck()) == 52 and len(set(full_deck())) == 52
    assert len(full_deck(2)) == 104 and len(set(full_deck(2))) == 52
    with pytest.raises(ValueError, match="1 or 2"):
        full_deck(3)


def test_suits_and_ranks() -> None:
    assert [s.letter for s in Suit] == ["S", "H", "D", "C"]
    assert [s.is_red for s in Suit] == [False, True, True, False]
    assert Suit.CLUBS.chinese == "梅花"
    assert Rank.TEN.letter == "T" and str(Rank.ACE) == "A"
    assert Rank.TWO < Rank.ACE


def test_display_helpers() -> None:
    assert PIG.symbol == "♠Q" and TRANSFORMER.symbol == "♣10"
    assert repr(PIG) == "Card.parse('QS')"
    assert cards_text([]) == "-"
    assert cards_text(parse_cards("QS AH")) == "QS AH"
    assert sort_cards(parse_cards("2S AH KS")) == list(parse_cards("KS 2S AH"))


@given(st.sampled_from(full_deck()))
def test_text_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) is card
    assert Card.parse(card.symbol) is card
    assert Card.parse(str(card).lower()) is card
