"""Inference from the play: soft facts that weight the search's samples, never exclude a deal."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence

import pytest

import gongzhu
from gongzhu import Phase, Play, Show
from gongzhu.bots import Bot, make_bot
from gongzhu.bots.sampler import Inference, infer
from gongzhu.cards import PIG, Card, full_deck
from gongzhu.hand import HandState
from gongzhu.implied import Determinizer, SampleWeights, knowledge
from gongzhu.view import SeatView

RULES = gongzhu.load_rules()
TEAMS = (0, 1, 0, 1)

# seat 1 holds no club and no pig; seat 2 holds the pig
DEAL = [
    "AC KC QC JC TC 9C 8C 2S 3S 4S 2H 3H 4H",
    "7S AS KS 5S 6S AH KH QH 2D 3D 4D 5D 6D",
    "7C 6C 5C QS 8S 9S JH TH 9H 7D 8D 9D AD",
    "4C 3C 2C TS JS 8H 7H 6H 5H JD QD KD TD",
]


def hand_after(plays: list[str], deal: list[str] = DEAL) -> HandState:
    hand = RULES.new_hand(deal=gongzhu.Deal.from_holdings(deal), leader=0)
    while hand.phase is not Phase.PLAY:
        hand.apply(Show(()))
    for text in plays:
        hand.apply(Play.parse(text))
    return hand


def test_a_discard_that_keeps_the_pig_reads_as_no_pig() -> None:
    # seat 1 cannot follow seat 0's ♣A and discards ♦2, not the pig
    view = hand_after(["AC", "2D"]).view(0)
    inference = infer(view, RULES, TEAMS)
    assert inference.factors[PIG] == (1.0, 0.1, 1.0, 1.0)
    # nor a heart worth points (it would have thrown the biggest)
    assert inference.factors[Card.parse("AH")][1] == 0.3
    assert Card.parse("3H") not in inference.factors  # worth nothing in 39baobao
    # a partner's trick: nothing is read (no pig or hearts onto a partner)
    assert not infer(view, RULES, (0, 0, 1, 1))


def test_following_under_an_opponents_spade_king_without_the_pig() -> None:
    deal = [
        "KS 2C 3C 4C 5C 6C 7C 8C 9C TC 2H 3H 4H",
        "2S 3S 4S JC QC KC AC 5H 6H 7H 8H 9H TH",
        "QS 5S 6S 2D 3D 4D 5D 6D 7D 8D 9D TD JH",
        "7S 8S 9S TS JS AS JD QD KD AD QH KH AH",
    ]
    view = hand_after(["KS", "2S"], deal).view(0)
    assert infer(view, RULES, TEAMS).factors[PIG] == (1.0, 0.1, 1.0, 1.0)
    # seat 2 keeps its pig from its partner's ♠K: nothing is read of that
    view = hand_after(["KS", "2S", "5S"], deal).view(0)
    assert infer(view, RULES, TEAMS).factors[PIG] == (1.0, 0.1, 1.0, 1.0)


def test_the_weighted_dealer_gives_the_pig_to_that_seat_rarely() -> None:
    view = hand_after(["AC", "2D"]).view(0)
    inference = infer(view, RULES, TEAMS)
    counts = {}
    for name, given in (("plain", None), ("inferred", inference)):
        sampler = Determinizer(view, RULES, inference=given)
        assert sampler.redeals
        rng = random.Random(4)
        held = 0
        for _ in range(600):
            engine, _dealt = sampler.sample_engine(rng)
            held += bool(engine.holdings[1] >> PIG.index & 1)
        counts[name] = held / 600
    assert counts["plain"] > 0.25  # a third of the unseen cards' places are seat 1's
    assert 0.01 < counts["inferred"] < 0.1  # about 0.1 x 12 / (0.1 x 12 + 25)


def test_a_seat_that_plays_what_it_was_read_not_to_hold_is_not_read() -> None:
    view = hand_after(["AC", "2D", "5C", "2C", "2H"]).view(0)
    assert infer(view, RULES, TEAMS).factors[Card.parse("AH")][1] < 1
    view = hand_after(["AC", "2D", "5C", "2C", "2H", "AH"]).view(0)
    factors = infer(view, RULES, TEAMS).factors
    assert all(f[1] == 1.0 for f in factors.values())


def test_bad_factors_are_refused() -> None:
    view = hand_after(["AC", "2D"]).view(0)
    with pytest.raises(ValueError, match="inference factors"):
        infer(view, RULES, TEAMS, pig=0)
    with pytest.raises(ValueError, match="inference factors"):
        infer(view, RULES, TEAMS, hearts=1.5)


def play_views(hand: HandState, bots: list[Bot]) -> Iterator[tuple[int, SeatView]]:
    """Play ``hand`` out (no shows; ``bots`` in play), giving each play-phase turn's
    seat and view before its bot acts."""
    while not hand.is_over:
        seat = hand.to_move
        assert seat is not None
        if hand.phase is not Phase.PLAY:
            hand.apply(hand.legal_actions()[0])
            continue
        view = hand.view(seat)
        yield seat, view
        hand.apply(bots[seat].choose(view))


@pytest.mark.parametrize("names", [("39baobao",), ("same-colour-discard",), ("two-deck",)])
def test_the_inference_never_excludes_the_true_deal(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    for seed in range(4):
        names_by_seat = ("random", "heuristic") if seed % 2 else ("heuristic", "random")
        bots = [
            make_bot(names_by_seat[seat % 2], seed=seed * 4 + seat, rules=rules, format="2v2")
            for seat in range(4)
        ]
        hand = rules.new_hand(seed=seed)
        for seat, view in play_views(hand, bots):
            inference = infer(view, rules, TEAMS)
            assert all(0 < f <= 1 for fs in inference.factors.values() for f in fs)
            truth = [() if s == seat else hand.holding(s) for s in range(4)]
            assert inference.weight(truth) > 0
            if rules.table.copies == 1 and len(view.legal_actions) > 1:
                facts = knowledge(view, rules)
                sampler = Determinizer(view, rules, facts=facts, inference=inference)
                rng = random.Random(seed)
                for _ in range(3):
                    engine, _dealt = sampler.sample_engine(rng)
                    for other in range(4):
                        held = engine.holdings[other]
                        cards = [c for c in full_deck() if held >> c.index & 1]
                        assert len(cards) == view.holding_sizes[other]
                        assert not any(c.suit in facts.voids[other] for c in cards)


def test_the_reading_is_right_about_the_rule_based_bot() -> None:
    """Against the heuristic's rules (unchecked) the play never misleads the inference."""
    for seed in range(12):
        bots = [
            make_bot("heuristic", seed=seed * 4 + s, rules=RULES, format="2v2", check=0)
            for s in range(4)
        ]
        hand = RULES.new_hand(seed=seed)
        for _seat, view in play_views(hand, bots):
            for card, factors in infer(view, RULES, TEAMS).factors.items():
                for other, factor in enumerate(factors):
                    if factor < 1:
                        assert card not in hand.holding(other), (seed, other, card)


def test_no_inference_with_two_decks() -> None:
    rules = gongzhu.load_rules("two-deck")
    hand = rules.new_hand(seed=1)
    while hand.phase is not Phase.PLAY:
        hand.apply(hand.legal_actions()[0])
    for _ in range(9):
        hand.apply(hand.legal_actions()[-1])
    assert hand.to_move is not None
    assert infer(hand.view(hand.to_move), rules) == Inference()


def views_with_choices(names: tuple[str, ...], hands: int) -> Iterator[SeatView]:
    """Every play-phase view of some random hands, for every seat."""
    rules = gongzhu.load_rules(*names)
    for seed in range(hands):
        hand = rules.new_hand(seed)
        rng = random.Random(seed)
        while not hand.is_over:
            if hand.phase is Phase.PLAY:
                for seat in range(4):
                    yield hand.view(seat)
            hand.apply(rng.choice(hand.legal_actions()))


class _Weights:
    """Weights of a test's own: the pig and two hearts, a factor per seat."""

    factors: Mapping[Card, Sequence[float]] = {
        Card.parse("QS"): (1.0, 0.1, 1.0, 0.5),
        Card.parse("AH"): (0.3, 1.0, 1.0, 1.0),
        Card.parse("9H"): (1.0, 1.0, 0.2, 1.0),
    }


TWO_DECK_WEIGHTS = _Weights()


@pytest.mark.skipif(
    __import__("gongzhu.engines").engines.ACCELERATED is False, reason="no C engines"
)
@pytest.mark.parametrize(
    "names",
    [("39baobao",), ("huapai",), ("same-colour-discard",), ("two-deck",), ("huapai", "two-deck")],
)
@pytest.mark.parametrize("inferred", [False, True])
def test_the_c_dealer_deals_the_python_dealers_samples(
    names: tuple[str, ...], inferred: bool
) -> None:
    """The sampler's deal in C (``SampleDealer``) is its Python reference draw for draw:
    the same masks (or the same dead end) and the same generator state after, over
    every view of a few hands, with and without the inference's weights; with two decks
    each copy a bit of its own, the masks in the usual form."""
    from gongzhu.implied import _MaskDealer

    rules = gongzhu.load_rules(*names)
    compared = weighted = guarded = 0
    for i, view in enumerate(views_with_choices(names, 3)):
        inference: SampleWeights | None = None
        if inferred:  # (the inference weighs no card with two decks: weights of a test's own)
            inference = infer(view, rules, TEAMS) if rules.table.copies == 1 else TWO_DECK_WEIGHTS
        dealer = _MaskDealer.of(knowledge(view, rules), inference)
        if dealer is None:
            continue
        assert dealer._in_c is not None
        weighted += bool(dealer.weighted)
        guarded += any(len(entry) == 4 for level in dealer.levels for entry in level)
        mine, theirs = random.Random(i), random.Random(i)
        for _ in range(5):
            assert dealer.deal(mine) == dealer.deal_in_python(theirs)
            assert mine.getstate() == theirs.getstate()
            compared += 1
    assert compared > 500
    assert weighted > 0 if inferred else weighted == 0
    assert guarded > 0 if rules.table.copies == 2 else guarded == 0  # (suits without pairs)


@pytest.mark.skipif(
    __import__("gongzhu.engines").engines.ACCELERATED is False, reason="no C engines"
)
def test_the_c_dealer_refuses_bad_data() -> None:
    speedups = __import__("gongzhu.engines").engines._speedups
    with pytest.raises(ValueError, match="one card of one deck"):
        speedups.SampleDealer([0] * 4, [0] * 4, (), (((3, (0,)),),), ())
    with pytest.raises(ValueError, match="a seat is 0-3"):
        speedups.SampleDealer([0] * 4, [1] * 4, (), (((1, (4,)),),), ())
    with pytest.raises(ValueError, match="room: one count per seat"):
        speedups.SampleDealer([0] * 4, [1] * 3, (), (), ())
    with pytest.raises(TypeError, match="weighted card"):
        speedups.SampleDealer([0] * 4, [1] * 4, ((1, (0, 1)),), (), ())
    dealer = speedups.SampleDealer([0] * 4, [1, 0, 0, 0], (), (((1, (1,)),),), ())
    assert dealer.deal(random.Random(1).random) is None  # no seat with room may take it
    with pytest.raises(TypeError, match="callable"):
        dealer.deal(3)
    with pytest.raises(ValueError, match="not initialised"):
        speedups.SampleDealer.__new__(speedups.SampleDealer).deal(random.random)
    # two decks: a bit is one copy of a card, the second copy's at 52 + index
    with pytest.raises(ValueError, match="copies: 1 or 2 decks"):
        speedups.SampleDealer([0] * 4, [0] * 4, (), (), (), copies=3)
    with pytest.raises(ValueError, match="one card of one deck"):
        speedups.SampleDealer([0] * 4, [1, 0, 0, 0], (), (), (1 << 52,))
    with pytest.raises(ValueError, match="one copy of a card"):
        speedups.SampleDealer([0] * 4, [1, 0, 0, 0], (), (), (3,), copies=2)
    with pytest.raises(ValueError, match="one copy of a card"):
        speedups.SampleDealer([0] * 4, [1, 0, 0, 0], (), (), (1 << 104,), copies=2)
    with pytest.raises(ValueError, match="known: four card masks"):
        speedups.SampleDealer([1 << 52, 0, 0, 0], [0] * 4, (), (), (), copies=2)
    two = speedups.SampleDealer([1, 0, 0, 0], [1, 1, 0, 0], (), (), (1 << 52, 2), copies=2)
    deals = {tuple(two.deal(random.Random(seed).random)) for seed in range(20)}
    # seat 0 holds ♠2 and takes its second copy or ♠3; a lone second copy is a first one
    assert deals == {(1 | 1 << 52, 2, 0, 0), (1 | 2, 1, 0, 0)}
