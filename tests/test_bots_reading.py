"""The search's reading of the plays so far: the engine counts the plays the greedy policy
would not have made on a deal (``Capability.MISMATCHES``), and a sample is drawn among
dealt deals by that count."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

import gongzhu
from gongzhu import Phase, Play
from gongzhu.actions import Action
from gongzhu.bots.playout import card_values, greedy_rollout_policy
from gongzhu.bots.sampler import PlayReading
from gongzhu.bots.search import SearchBot
from gongzhu.cards import PIG, TRANSFORMER
from gongzhu.hand import HandState
from gongzhu.implied import DealSource, Determinizer, Inconsistent, start_of_play
from gongzhu.masks import CardMask
from gongzhu.play import Capability

from .test_bots_inference import DEAL, TEAMS, hand_after, views_with_choices

RULES = gongzhu.load_rules()

pytestmark = pytest.mark.skipif(
    not RULES.engine_spec.offers(Capability.MISMATCHES), reason="no C engines"
)


def key_of(action: Action) -> int:
    assert isinstance(action, Play)
    return action.key


def python_mismatches(
    start: HandState,
    keys: Sequence[int],
    seats: int,
    teams: Sequence[int] | None,
    leads: bool,
    points: bool = False,
) -> int:
    """The engine's count, in Python: the Python greedy policy asked before each play (on a
    lead, under every draw, any of its leads being its play)."""
    hand = start.clone()
    values = card_values(start.rules)
    count = 0
    for key in keys:
        legal = hand.legal_actions()
        seat = hand.to_move
        assert seat is not None
        if seats >> seat & 1 and len(legal) > 1:
            if hand.trick_keys:
                choice = key_of(greedy_rollout_policy(hand, random.Random(0), teams))
                marked = [values[c] != 0 or c == TRANSFORMER.index for c in (choice, key)]
                count += choice != key and (not points or any(marked))
            elif leads:
                picks = {key_of(greedy_rollout_policy(hand, random.Random(k))) for k in range(60)}
                count += key not in picks
        hand.apply(Play.of(gongzhu.Card.from_index(key)))
    return count


@pytest.mark.parametrize("names", [("39baobao",), ("huapai",), ("same-colour-discard",)])
def test_the_engines_count_is_the_python_policys(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    values = card_values(rules)
    compared = 0
    for seed in range(12):
        hand = rules.new_hand(seed=seed)
        rng = random.Random(seed)
        while hand.phase is not Phase.PLAY:
            hand.apply(hand.legal_actions()[0])
        start = hand.clone()
        keys = []
        while not hand.is_over:  # half the plays the policy's, half at random
            if rng.random() < 0.5:
                action = rng.choice(hand.legal_actions())
            else:
                action = greedy_rollout_policy(hand, rng, TEAMS)
            keys.append(key_of(action))
            hand.apply(action)
        for seats in (0b1010, 0b1111, 0b0001):
            for teams in (None, TEAMS):
                for leads, points in ((False, False), (True, False), (False, True)):
                    engine = rules.engine_spec.capable(start.engine.copy(), Capability.MISMATCHES)
                    got = engine.mismatches(keys, values, seats, teams, leads, points)
                    assert got == python_mismatches(start, keys, seats, teams, leads, points)
                    compared += 1
    assert compared == 12 * 18


def test_mismatches_refuses_a_card_that_may_not_be_played() -> None:
    hand = hand_after([])
    engine = RULES.engine_spec.capable(hand.engine.copy(), Capability.MISMATCHES)
    values = card_values(RULES)
    ace, spade = Play.parse("AC").key, Play.parse("2S").key
    with pytest.raises(ValueError, match="may not be played"):
        engine.mismatches([ace, spade], values, 0b1111)  # seat 1 holds no 2S
    with pytest.raises(ValueError, match="52"):
        engine.mismatches([ace], values[:51], 0b1111)
    assert engine.mismatches([], values, 0b1111) == 0


def test_a_discard_that_keeps_the_pig_weighs_down_the_deals_giving_it_the_pig() -> None:
    # seat 1 cannot follow seat 0's ♣A and discards ♦2 where the policy would drop the pig
    view = hand_after(["AC", "2D"]).view(0)
    reading = PlayReading(view, RULES, random.Random(1), TEAMS, factor=0.25)
    sampler = Determinizer(view, RULES)
    rng = random.Random(2)
    with_pig = without = 0.0
    for _ in range(300):
        engine, _dealt = sampler.sample_engine(rng)
        holdings = engine.holdings
        weight = reading.weigh(holdings)
        if holdings[1] & PIG.bit:
            assert weight <= 0.25
            with_pig += 1
        else:
            without += 1
    assert with_pig and without


class PigAt:
    """A reading that draws the first dealt deal giving ``seat`` the pig."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def draw(self, dealer: DealSource, rng: random.Random) -> list[CardMask] | None:
        for _ in range(60):
            masks = dealer.deal(rng)
            if masks is not None and masks[self.seat] & PIG.bit:
                return masks
        return None


def test_a_determinizer_deals_each_sample_by_its_reading() -> None:
    view = hand_after(["AC", "2D"]).view(0)
    plain = Determinizer(view, RULES)
    read = Determinizer(view, RULES, reading=PigAt(3))
    rng = random.Random(3)
    plain_count = read_count = 0
    for _ in range(200):
        plain_count += bool(plain.sample_engine(rng).engine.holdings[3] & PIG.bit)
        read_count += bool(read.sample_engine(rng).engine.holdings[3] & PIG.bit)
    assert 40 < plain_count < 160  # seat 2 or 3, as likely
    assert read_count == 200  # the first sample (the replayed one) too


@pytest.mark.parametrize("names", [("39baobao",), ("huapai",), ("same-colour-discard",)])
@pytest.mark.parametrize("options", [{}, {"points": True}, {"leads": True, "factor": 0.5}])
def test_the_engine_draws_the_python_readings_deals(
    names: tuple[str, ...], options: dict[str, object]
) -> None:
    """``read_deal`` in C is :meth:`PlayReading.draw_in_python` draw for draw: the same
    deal (or none) and the generator in the same state after, over the views of some hands."""
    from gongzhu.implied import _MaskDealer, knowledge

    rules = gongzhu.load_rules(*names)
    compared = 0
    for i, view in enumerate(views_with_choices(names, 2)):
        if i % 5 or not (view.tricks or view.current_trick):
            continue  # every fifth view once a card is played
        dealer = _MaskDealer.of(knowledge(view, rules))
        if dealer is not None and dealer.native is not None:
            reading = PlayReading(view, rules, random.Random(i), TEAMS, **options)  # type: ignore[arg-type]
            mine, theirs = random.Random(compared), random.Random(compared)
            for _ in range(3):
                assert reading.draw(dealer, mine) == reading.draw_in_python(dealer, theirs)
                assert mine.getstate() == theirs.getstate()
            compared += 1
    assert compared > 20


def test_read_deal_refuses_bad_arguments() -> None:
    from gongzhu.implied import _MaskDealer, knowledge

    hand = hand_after(["AC", "2D"])
    view = hand.view(0)
    reading = PlayReading(view, RULES, random.Random(1), TEAMS)
    dealer = _MaskDealer.of(knowledge(view, RULES))
    assert dealer is not None and dealer.native is not None
    spec = RULES.engine_spec
    start = spec.capable(reading._start, Capability.MISMATCHES)  # at the start of the play
    args: tuple[Any, ...] = (
        reading._played,
        0.3,
        random.random,
        reading._keys,
        reading._values,
        0b1110,
    )
    with pytest.raises(TypeError, match="SampleDealer"):
        start.read_deal(object(), 4, *args)
    with pytest.raises(ValueError, match="factor"):
        start.read_deal(dealer.native, 4, reading._played, 0.0, *args[2:])
    with pytest.raises(ValueError, match="start of the play"):
        spec.capable(hand.engine, Capability.MISMATCHES).read_deal(dealer.native, 4, *args)
    with pytest.raises(ValueError, match="engine's cards"):
        start.read_deal(dealer.native, 4, [0, 0, 0, 0], *args[1:])
    assert start.read_deal(dealer.native, 0, *args) is None
    speedups = __import__("gongzhu.engines").engines._speedups
    two_decks = speedups.SampleDealer([0] * 4, [1, 0, 0, 0], (), (), (1,), copies=2)
    with pytest.raises(ValueError, match="one-deck SampleDealer"):
        start.read_deal(two_decks, 4, *args)


def test_a_reading_needs_the_play_phase() -> None:
    hand = RULES.new_hand(deal=gongzhu.Deal.from_holdings(DEAL), leader=0)
    with pytest.raises(Inconsistent):
        start_of_play(hand.view(0), RULES, random.Random(1))
    with pytest.raises(ValueError, match="factor"):
        PlayReading(hand_after([]).view(0), RULES, random.Random(1), factor=0)


def test_the_start_of_play_holds_every_seats_cards_then() -> None:
    hand = hand_after(["AC", "2D", "5C", "2C", "KC"])
    view = hand.view(2)
    start = start_of_play(view, RULES, random.Random(4))
    assert start.phase is Phase.PLAY and not start.trick_keys and start.to_move == 0
    assert set(start.holding(2)) == set(hand.holding(2)) | {gongzhu.Card.parse("5C")}
    for text in ("AC", "2D", "5C", "2C", "KC"):  # the view's plays replay on it
        start.apply(Play.parse(text))


def test_the_search_bot_checks_its_reading_options() -> None:
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="reading must"):
            SearchBot(1, reading=bad)  # type: ignore[arg-type]
    for bad in (0, 1.5, float("nan")):
        with pytest.raises(ValueError, match="reading_factor"):
            SearchBot(1, reading_factor=bad)


@pytest.mark.parametrize("names", [("39baobao",), ("two-deck",)])
def test_a_reading_search_plays_whole_hands(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    bot = SearchBot(5, rules=rules, budget_ms=None, samples=12, reading=8, format="2v2")
    hand = rules.new_hand(seed=7)
    while not hand.is_over:
        seat = hand.to_move
        assert seat is not None
        hand.apply(bot.choose(hand.view(seat)))
    assert hand.is_over
