"""Scripted hands under the 39baobao rules: every trick and score known in advance."""

from __future__ import annotations

import random

import pytest

import gongzhu
from gongzhu import Phase, Play, Show, ShowKind
from gongzhu.bots import FirstLegalBot, play_hand
from gongzhu.errors import HandNotOver, IllegalAction
from gongzhu.plugin import Deal

from .conftest import BOTH_ENGINES, deal_with, engine_state, play, play_through_shows

pytestmark = BOTH_ENGINES  # hands are played: on both play engines

# The rotation deal played by "lowest legal card" bots (legal_actions()[0]), worked out
# by hand: (leader, cards in play order, winner) for each trick.
EXPECTED_TRICKS = [
    (3, "2C 3C 4C 5C", 2),
    (2, "4S 5S 2S 3S", 3),
    (3, "9S 6S 7S 8S", 3),
    (3, "KS TS JS QS", 3),  # seat 2 must give up the pig under the ♠K
    (3, "4H 5H 2H 3H", 0),
    (0, "AS 6H 7H 8H", 0),  # three voids discard hearts
    (0, "9H TH JH QH", 3),
    (3, "3D 4D 5D 2D", 1),
    (1, "AH 6D 7D KH", 1),
    (1, "9D TD JD 8D", 3),  # the sheep wins its own trick
    (3, "6C 7C 8C 9C", 2),
    (2, "AD TC QD KD", 2),  # the transformer is discarded to seat 2
    (2, "KC AC JC QC", 3),
]


def test_full_scripted_hand(rotation_deal: Deal) -> None:
    rules = gongzhu.load_rules()
    hand = rules.new_hand(deal=rotation_deal)
    assert hand.leader == 3  # ♣2 holder
    play_hand(hand, [FirstLegalBot()] * 4)
    assert hand.is_over and hand.to_move is None
    assert len(hand.tricks) == 13
    for trick, (leader, cards, winner) in zip(hand.tricks, EXPECTED_TRICKS, strict=True):
        assert trick.leader == leader
        assert [str(c) for c in trick.cards] == cards.split()
        assert trick.winner == winner == trick.taker
    sheet = hand.score()
    # seat 0: ♥2-8 (−40); seat 1: ♥A ♥K (−90); seat 2: ♣10 alone (+50);
    # seat 3: pig −100, ♥9 10 J Q −70, sheep +100 (−70)
    assert sheet.raw == (-40, -90, 50, -70)
    assert sheet.final == (-36, -840, 1404, -516)
    assert rules.next_leader(hand) == 3  # took the pig


def test_opening_lead_must_be_two_of_clubs(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    play_through_shows(hand)
    assert hand.legal_actions() == (Play.parse("2C"),)
    with pytest.raises(IllegalAction, match="opening lead must be 2C"):
        hand.apply(Play.parse("AC"))


def test_explicit_leader_leads_anything(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal, leader=1)
    play_through_shows(hand)
    assert hand.to_move == 1
    assert len(hand.legal_actions()) == 13


def test_show_turns_start_with_the_leader(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    assert hand.phase is Phase.SHOW
    seats = []
    while hand.phase is Phase.SHOW:
        seats.append(hand.to_move)
        hand.apply(Show(()))
    assert seats == [3, 0, 1, 2]
    assert hand.phase is Phase.PLAY


def test_show_choices_are_every_subset_of_the_showable_cards(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    # seat 3 holds ♦J and ♣10
    assert [str(a) for a in hand.legal_actions()] == [
        "show -",
        "show JD",
        "show TC",
        "show JD TC",
    ]


def test_illegal_show_leaves_state_unchanged(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    before = hand.to_record()
    with pytest.raises(IllegalAction, match="seat 3 does not hold QS"):
        hand.apply(Show("QS"))
    with pytest.raises(IllegalAction, match="KD is not a showable card"):
        hand.apply(Show("KD"))
    with pytest.raises(IllegalAction, match="has no secret shows"):
        hand.apply(Show("JD", ShowKind.SECRET))
    with pytest.raises(IllegalAction, match="show phase"):
        hand.apply(Play.parse("2C"))
    assert hand.to_record() == before


def test_shown_card_blocked_in_first_trick_of_its_suit(rotation_deal: Deal) -> None:
    """Seat 2 shows ♠Q and holds ♠4 ♠8: it may neither lead nor follow with the pig."""
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    play_through_shows(hand, {2: "QS"})
    play(hand, "2C", "3C", "4C", "5C")  # seat 2 wins, leads next
    assert Play.parse("QS") not in hand.legal_actions()
    with pytest.raises(IllegalAction, match="QS was shown and may not be led"):
        hand.apply(Play.parse("QS"))
    play(hand, "4S", "5S", "2S", "3S")  # first spade trick done (seat 3 wins)
    play(hand, "KS", "6S", "7S")
    assert Play.parse("QS") in hand.legal_actions()  # second spade trick: free


def test_shown_card_blocked_when_following(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal, leader=3)
    play_through_shows(hand, {2: "QS"})
    play(hand, "KS", "2S", "3S")
    assert [str(a) for a in hand.legal_actions()] == ["play 4S", "play 8S"]
    with pytest.raises(IllegalAction, match="QS was shown and may not be played in the first"):
        hand.apply(Play.parse("QS"))


SINGLETON_PIG = [
    "2S 6S TS AS 4S 8S 5H 9H KH 4D 8D QD 3C",  # seat 0
    "3S 7S JS 2H 6H TH AH 5D 9D KD 4C 8C QC",  # seat 1
    "QS 3H 7H JH 2D 6D TD AD 5C 9C KC 7C JC",  # seat 2: the pig is its only spade
    "5S 9S KS 4H 8H QH 3D 7D JD 2C 6C TC AC",  # seat 3
]


def test_shown_singleton_may_be_led() -> None:
    hand = gongzhu.load_rules().new_hand(deal=deal_with(SINGLETON_PIG), leader=2)
    play_through_shows(hand, {2: "QS"})
    assert Play.parse("QS") in hand.legal_actions()


def test_shown_singleton_must_follow() -> None:
    hand = gongzhu.load_rules().new_hand(deal=deal_with(SINGLETON_PIG), leader=3)
    play_through_shows(hand, {2: "QS"})
    play(hand, "KS", "2S", "3S")
    assert hand.legal_actions() == (Play.parse("QS"),)
    play(hand, "QS")
    assert hand.tricks[-1].winner == 3


VOID_IN_CLUBS = [
    "2S 6S TS AS 4D 8D QD 3C 7C JC 5C 9C KC",  # seat 0
    "3S 7S JS 2H 6H TH AH 5D 9D KD 4C 8C QC",  # seat 1
    "4S 8S QS 3H 7H JH 5H 9H KH 2D 6D TD AD",  # seat 2: no clubs
    "5S 9S KS 4H 8H QH 3D 7D JD 2C 6C TC AC",  # seat 3
]


def test_shown_card_may_be_discarded_any_time() -> None:
    hand = gongzhu.load_rules().new_hand(deal=deal_with(VOID_IN_CLUBS))
    play_through_shows(hand, {2: "QS"})
    play(hand, "2C", "3C", "4C")
    assert Play.parse("QS") in hand.legal_actions()
    play(hand, "QS")
    assert hand.tricks[-1].winner == 1
    assert hand.taken(1) == gongzhu.parse_cards("QS 2C 3C 4C")


def test_must_follow_suit(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    play_through_shows(hand)
    play(hand, "2C")
    assert {str(a) for a in hand.legal_actions()} == {"play 3C", "play 7C", "play JC"}
    with pytest.raises(IllegalAction, match="must follow suit: seat 0 holds ♣"):
        hand.apply(Play.parse("2S"))
    with pytest.raises(IllegalAction, match="seat 0 does not hold 4C"):
        hand.apply(Play.parse("4C"))
    with pytest.raises(IllegalAction, match="one card"):
        hand.apply(Play("3C 7C"))


def test_auto_fourth_show(rotation_deal: Deal) -> None:
    """Three showable cards shown: the fourth (seat 1's ♥A) is shown automatically."""
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    play_through_shows(hand, {3: "JD TC", 2: "QS"})
    assert hand.phase is Phase.PLAY
    assert hand.shown[1] == (gongzhu.HEART_ACE,)
    forced = [s for s in hand.view(0).shows if s.forced]
    assert [(s.seat, s.cards) for s in forced] == [(1, (gongzhu.HEART_ACE,))]
    assert [r.kind for r in hand.show_records] == [ShowKind.OPEN] * 4


def test_two_shown_cards_reveal_nothing_more(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    play_through_shows(hand, {3: "JD TC"})
    assert hand.shown[1] == () and hand.shown[2] == ()


def test_illegal_play_leaves_state_unchanged(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    play_through_shows(hand)
    play(hand, "2C", "3C")
    before = hand.to_record()
    legal = hand.legal_actions()
    for bad in ("2C", "AS", "AH"):
        with pytest.raises(IllegalAction):
            hand.apply(Play.parse(bad))
    with pytest.raises(IllegalAction, match="play phase"):
        hand.apply(Show(()))
    assert hand.to_record() == before
    assert hand.legal_actions() == legal
    assert hand.to_move == 1


def test_errors_after_the_end(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    with pytest.raises(HandNotOver):
        hand.score()
    play_hand(hand, [FirstLegalBot()] * 4)
    assert hand.legal_actions() == ()
    with pytest.raises(IllegalAction, match="the hand is over"):
        hand.apply(Play.parse("2C"))


def test_clone_is_independent(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    play_through_shows(hand, {2: "QS"})
    play(hand, "2C", "3C")
    copy = hand.clone()
    play(copy, "4C", "5C", "4S")
    assert len(hand.current_trick) == 2 and hand.to_move == 1
    assert len(copy.tricks) == 1 and len(hand.tricks) == 0
    assert hand.holding(1) != copy.holding(1)
    play(hand, "4C", "5C", "4S")
    assert hand.to_record() == copy.to_record()


def test_view_hides_other_holdings(rotation_deal: Deal) -> None:
    hand = gongzhu.load_rules().new_hand(deal=rotation_deal)
    play_through_shows(hand, {2: "QS"})
    play(hand, "2C")
    view = hand.view(0)
    assert view.seat == 0 and view.phase is Phase.PLAY
    assert view.holding == hand.holding(0)
    assert view.holding_sizes == (13, 13, 13, 12)
    assert view.current_trick == ((3, (gongzhu.Card.parse("2C"),)),)
    assert view.to_move == 0 and view.legal_actions == hand.legal_actions()
    assert [(s.seat, s.cards) for s in view.shows] == [(2, (gongzhu.PIG,))]
    assert hand.view(1).legal_actions == ()
    with pytest.raises(ValueError):
        hand.view(4)


def test_seeded_deals_are_reproducible() -> None:
    rules = gongzhu.load_rules()
    assert rules.new_hand(5).deal == rules.new_hand(5).deal
    assert rules.new_hand(5).deal != rules.new_hand(6).deal
    fresh = rules.new_hand()
    assert isinstance(fresh.seed, int)
    assert rules.new_hand(fresh.seed).deal == fresh.deal


def test_deal_order_and_holdings() -> None:
    deal = Deal.shuffled(1)
    assert sorted(deal.order) == list(gongzhu.full_deck())
    assert deal.holding(0) == deal.order[0::4]
    assert deal.first_card(2) == deal.order[2]
    rotated = Deal(deal.order, first_seat=1)
    assert rotated.holding(1) == deal.holding(0)
    assert Deal.from_holdings(deal.holdings).order == deal.order
    with pytest.raises(gongzhu.errors.InvalidCard):
        Deal(deal.order[:-1])
    with pytest.raises(gongzhu.errors.InvalidCard):
        Deal(deal.order[:-1] + deal.order[:1])
    with pytest.raises(gongzhu.errors.InvalidCard):
        Deal(deal.order, first_seat=4)


def test_new_hand_validates_arguments() -> None:
    rules = gongzhu.load_rules()
    with pytest.raises(gongzhu.errors.GongzhuError, match="leader must be a seat"):
        rules.new_hand(1, leader=4)
    hand = rules.new_hand(deal=[str(c) for c in Deal.shuffled(3).order])
    assert hand.deal == Deal.shuffled(3)


@pytest.mark.parametrize("names", [(), ("huapai", "anmai"), ("two-deck",)])
def test_a_clone_at_any_step_has_every_slot_and_leaves_the_original(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    hand = rules.new_hand(5)
    rng = random.Random(1)
    while not hand.is_over:
        copy = hand.clone()
        for name in type(hand).__slots__:
            if name != "_engine":  # an engine has no __eq__: compared by its state below
                assert getattr(copy, name) == getattr(hand, name), name
        assert copy.engine is not hand.engine
        assert type(copy.engine) is type(hand.engine)
        state = engine_state(hand.engine)
        assert engine_state(copy.engine) == state
        before = ([hand.view(seat) for seat in range(4)], hand.legal_actions(), hand.phase)
        while not copy.is_over:  # the clone plays on, through the show phases too
            copy.apply(rng.choice(copy.legal_actions()))
        assert ([hand.view(seat) for seat in range(4)], hand.legal_actions(), hand.phase) == before
        assert engine_state(hand.engine) == state
        hand.apply(rng.choice(hand.legal_actions()))
