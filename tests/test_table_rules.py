"""Table rules: same-colour discards, the heart tables, the ♥3 showable card."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu import Phase, Play, Show
from gongzhu.errors import IllegalAction, IncompatibleVariants, InvalidScoreInput

from .conftest import BOTH_ENGINES, deal_with, play, play_through_shows
from .test_properties import play_and_check

pytestmark = BOTH_ENGINES  # hands are played: on both play engines

ALL_HEARTS = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"

COLOURS = [
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",  # seat 0: hearts only (no black card)
    "2D 3D 4D 5D 6D 7D 8D 2S 3S 4S 5S 6S 7S",  # seat 1: diamonds and spades
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",  # seat 2: clubs only (no red card)
    "9D TD JD QD KD AD 8S 9S TS JS QS KS AS",  # seat 3: diamonds and spades
]


def colour_hand(leader: int, **options: object) -> gongzhu.HandState:
    rules = gongzhu.load_rules("same-colour-discard", **options)
    hand = rules.new_hand(deal=deal_with(COLOURS), leader=leader)
    play_through_shows(hand)
    return hand


def test_red_lead_wrong_colour_discard_takes_the_points() -> None:
    hand = colour_hand(0)
    # ♥ led: seat 1 holds ♦ but discards ♠ (offence); seat 2 has no red card (free);
    # seat 3 discards ♦ (right colour)
    play(hand, "2H", "2S", "TC", "JD")
    trick = hand.tricks[0]
    assert trick.winner == 0 and trick.taker == 1 and trick.penalty
    assert hand.to_move == 0  # the winner still leads
    assert set(hand.taken(1)) == set(gongzhu.parse_cards("2H 2S TC JD"))
    assert "(penalty: seat 1 takes the scoring cards)" in str(trick)


def test_black_lead_wrong_colour_discard_takes_the_points() -> None:
    hand = colour_hand(2)
    # ♣ led: seat 3 holds ♠ but discards ♦ (offence); seat 0 has no black card (free)
    play(hand, "TC", "KD", "AH", "2S")
    trick = hand.tricks[0]
    assert trick.winner == 2
    assert trick.taker == 3


def test_no_penalty_without_a_card_of_the_right_colour() -> None:
    hand = colour_hand(2)
    # ♣ led by seat 2; seats 3 and 1 discard ♠ (right), seat 0 ♥ (it holds no black card)
    play(hand, "TC", "8S", "AH", "2S")
    trick = hand.tricks[0]
    assert trick.taker == trick.winner == 2 and not trick.penalty
    assert gongzhu.HEART_ACE in hand.taken(2)


@pytest.mark.parametrize(("offender", "taker"), [("first", 1), ("last", 3)])
def test_two_offenders(offender: str, taker: int) -> None:
    hand = colour_hand(0, same_colour_offender=offender)
    play(hand, "2H", "2S", "2C", "8S")  # seats 1 and 3 both discard ♠ on ♥ holding ♦
    assert hand.tricks[0].taker == taker


def test_strict_mode_makes_the_wrong_colour_illegal() -> None:
    hand = colour_hand(0, same_colour_strict=True)
    play(hand, "2H")
    assert {a.cards[0].suit for a in hand.legal_actions()} == {gongzhu.Suit.DIAMONDS}
    with pytest.raises(IllegalAction, match="垫牌规则"):
        hand.apply(Play.parse("2S"))
    play(hand, "2D", "2C")  # seat 2 has no red card: anything goes
    assert {a.cards[0].suit for a in hand.legal_actions()} == {gongzhu.Suit.DIAMONDS}


def test_penalty_shows_in_sheet_and_record() -> None:
    hand = colour_hand(0)
    play(hand, "2H", "2S", "TC", "JD")
    while not hand.is_over:
        hand.apply(hand.legal_actions()[0])
    assert (
        hand.score().explain(1)[0]
        == "垫牌 penalty: took trick 1's scoring cards (♥2 ♦J ♣10) from seat 0"
    )
    record = hand.to_record()
    assert record["tricks"][0] == {
        "leader": 0,
        "cards": ["2H", "2S", "TC", "JD"],
        "winner": 0,
        "taker": 1,
    }
    assert gongzhu.replay(record).score() == hand.score()


# -- heart tables -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "cards", "shown", "raw"),
    [
        (("hearts-pips",), "9H 4H 3H 2H", {}, -24),
        (("hearts-pips",), "9H 4H 3H 2H", {1: "AH"}, -48),
        (("hearts-pips",), "AH KH 5H", {}, -95),
        (("hearts-pips",), ALL_HEARTS, {}, 200),
        (("hearts-pips",), ALL_HEARTS, {0: "AH"}, 400),
        (("hearts-pips",), ALL_HEARTS.replace(" 4H", ""), {}, -190),
        (("hearts-positive",), "AH 5H", {}, 60),
        (("hearts-positive",), "AH 5H", {2: "AH"}, 120),
        (("hearts-positive",), "AH 5H TC", {}, 120),
        (("hearts-positive",), ALL_HEARTS, {}, 230 + 200),
        (("hearts-positive",), ALL_HEARTS, {0: "AH"}, 460 + 400),
        (("hearts-positive",), ALL_HEARTS + " QS JD TC", {}, (430 + 100 + 100) * 2),
        (("heart-three",), "KH 2H", {1: "3H"}, -80),
        (("heart-three",), ALL_HEARTS, {1: "3H"}, 400),
        (("heart-three", "hearts-pips"), "4H", {0: "3H"}, -20),
    ],
)
def test_heart_tables(names: tuple[str, ...], cards: str, shown: dict, raw: int) -> None:
    assert gongzhu.load_rules(*names).score({0: cards}, shown=shown).raw[0] == raw


def test_full_hearts_lines() -> None:
    sheet = gongzhu.load_rules("hearts-positive").score({0: ALL_HEARTS}, shown={1: "AH"})
    assert "满红 full hearts: bonus +400" in sheet.explain(0)
    assert sheet.full_hearts[0]


def test_heart_tables_conflict() -> None:
    with pytest.raises(IncompatibleVariants, match="cannot be combined"):
        gongzhu.load_rules("hearts-pips", "hearts-positive")


def test_heart_three_replaces_the_heart_ace() -> None:
    rules = gongzhu.load_rules("heart-three")
    assert gongzhu.Card.parse("3H") in rules.table.showable
    assert gongzhu.HEART_ACE not in rules.table.showable
    with pytest.raises(InvalidScoreInput, match="AH, which is not showable"):
        rules.score({0: "KH"}, shown={1: "AH"})
    hand = rules.new_hand(deal=deal_with(COLOURS), leader=0)
    assert [str(a) for a in hand.legal_actions()] == ["show -", "show 3H"]
    hand.apply(Show("3H"))
    play_through_shows(hand)
    # the shown ♥3 is locked in the first heart trick (seat 0 holds other hearts)
    assert Play.parse("3H") not in hand.legal_actions()


def test_heart_three_with_huapai_first_show_and_self_capture() -> None:
    rules = gongzhu.load_rules("huapai", "heart-three")
    sheet = rules.score({0: "KH 3H"}, first_shown={0: "3H"}, dealt={0: "3H"})
    assert sheet.raw[0] == -160  # ♥K −40 ×4 (♥3 first-shown); ♥3 itself is 0, 自得 or not
    assert rules.score({0: "KH 3H"}, shown={0: "3H"}, dealt={0: "3H"}).raw[0] == -80
    holdings = [h.split() for h in COLOURS]
    holdings[0].remove("3H")
    holdings[0].insert(0, "3H")  # seat 0's first card: the showable ♥3
    hand = rules.new_hand(deal=deal_with([" ".join(h) for h in holdings]))
    assert hand.phase is Phase.FIRST_SHOW and hand.to_move == 0
    assert [str(a) for a in hand.legal_actions()] == ["first-show -", "first-show 3H"]


# -- random hands -----------------------------------------------------------------------------

TABLE_RULES = (
    ("same-colour-discard",),
    ("hearts-pips",),
    ("hearts-positive",),
    ("heart-three",),
)
COMBINATIONS = [
    (base, *(name for extra in extras for name in extra))
    for base in ("39baobao", "huapai")
    for n in range(1, 3)
    for extras in itertools.combinations(TABLE_RULES, n)
    if not {("hearts-pips",), ("hearts-positive",)} <= set(extras)
]


@settings(max_examples=300, deadline=None)
@given(
    names=st.sampled_from(COMBINATIONS),
    strict=st.booleans(),
    seed=st.integers(0, 2**63 - 1),
    rng=st.randoms(use_true_random=False),
)
def test_random_hands_under_table_rules(
    names: tuple[str, ...], strict: bool, seed: int, rng: random.Random
) -> None:
    options = {"same_colour_strict": strict} if "same-colour-discard" in names else {}
    rules = gongzhu.load_rules(*names, **options)
    hand = play_and_check(rules, seed, rng, zero_sum="39baobao" in names)
    if strict:
        assert not any(t.penalty for t in hand.tricks)
