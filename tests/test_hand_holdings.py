"""HandState.with_holdings: the same hand with the unplayed cards re-dealt, as a replay makes it."""

from __future__ import annotations

import random
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu import Card, Phase, Play, Show
from gongzhu.bots import Determinizer, SearchBot, determinize
from gongzhu.errors import IllegalAction, InvalidHoldings
from gongzhu.hand import HandState
from gongzhu.implied import sample_holdings
from gongzhu.play import Capability

from .conftest import BOTH_ENGINES, SHORT_SPADES_DEAL, engine_state

pytestmark = BOTH_ENGINES

RULESETS = [
    ("39baobao",),
    ("huapai",),
    ("39baobao", "same-colour-discard"),
    ("fenpai-quanming",),
    ("two-deck",),
]


def play_position(names: tuple[str, ...], seed: int, plays: int) -> HandState:
    """A hand of ``names`` in its play phase after random shows and ``plays`` random plays."""
    rules = gongzhu.load_rules(*names)
    hand = rules.new_hand(seed=seed)
    rng = random.Random(seed)
    while hand.phase is not Phase.PLAY:
        hand.apply(rng.choice(hand.legal_actions()))
    for _ in range(plays):
        hand.apply(rng.choice(hand.legal_actions()))
        if hand.is_over:
            break
    return hand


def replayed(state: HandState) -> HandState:
    """``state``'s history replayed on its deal, checking every action."""
    hand = state.rules.new_hand(deal=state.deal, leader=state.explicit_leader)
    for _seat, action in state.history:
        hand.apply(action)
    return hand


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.sampled_from(RULESETS),
    seed=st.integers(0, 10_000),
    plays=st.integers(0, 50),
    sample_seed=st.integers(0, 1000),
)
def test_a_redealt_state_is_the_replay_of_its_deal(
    names: tuple[str, ...], seed: int, plays: int, sample_seed: int
) -> None:
    hand = play_position(names, seed, plays)
    if hand.is_over:
        return
    seat = hand.to_move
    assert seat is not None
    view = hand.view(seat)
    rng = random.Random(sample_seed)
    try:
        holdings = sample_holdings(view, rng, rules=hand.rules)
    except gongzhu.bots.Inconsistent:
        return
    try:
        state = hand.with_holdings(holdings)
    except InvalidHoldings as error:
        # what the sampler does not know: which copy was shown (two decks), and
        # whom the opening-lead rule picks from the deal (before the first card)
        two_decks = hand.rules.table.copies == 2 and "shown copies" in str(error)
        first_lead = (
            not hand.tricks and not hand.current_trick and "opening lead would fall" in str(error)
        )
        asked = hand.rules.first_shows and "first card and would have none" in str(error)
        assert two_decks or first_lead or asked, error
        assume(False)
    assert state.seed is None
    assert [state.holding(s) for s in range(4)] == [tuple(sorted(h)) for h in holdings]
    try:  # the deal it reports deals these cards; the history is legal under them
        again = replayed(state)
    except IllegalAction as error:
        # the sampler does not know every constraint (a shown-card lock lifted for a
        # seat that held only locked cards): never the deal's own consistency
        assert "first-show" not in str(error) and " show " not in str(error), error
        assume(False)
    # the sampler knows a discard rule's penalties only in part: a sample under which
    # the public history comes out otherwise is its miss, not the state's
    assume(again.view(seat) == view)
    for other in range(4):
        assert again.view(other) == state.view(other)
        assert again.dealt(other) == state.dealt(other)
    assert state.view(seat) == view  # the seat cannot tell it from the real hand
    # both play on identically to the end
    draws = random.Random(sample_seed)
    while not state.is_over:
        action = draws.choice(state.legal_actions())
        assert again.legal_actions() == state.legal_actions()
        state.apply(action)
        again.apply(action)
    assert again.score() == state.score()
    assert gongzhu.replay(state.to_record()).score() == state.score()


def test_with_holdings_leaves_the_state_alone() -> None:
    hand = gongzhu.load_rules().new_hand(seed=3)
    while hand.phase is not Phase.PLAY:
        hand.apply(Show(()))  # no shows: any seat may take any holding
    for _ in range(8):  # two tricks: every seat holds 11 cards
        hand.apply(hand.legal_actions()[0])
    before = [hand.holding(s) for s in range(4)]
    deal, history = hand.deal, hand.history
    holdings = [list(h) for h in before]
    holdings[0], holdings[2] = holdings[2], holdings[0]  # seats 0 and 2 trade holdings
    state = hand.with_holdings(holdings)
    assert state.holding(0) == before[2] and state.holding(2) == before[0]
    assert [hand.holding(s) for s in range(4)] == before
    assert (hand.deal, hand.history) == (deal, history)
    assert state.deal != deal and state.history == history


def refusal(hand: HandState, holdings: Any) -> str:
    before = (hand.history, [hand.holding(s) for s in range(4)], hand.legal_actions())
    with pytest.raises(InvalidHoldings) as info:
        hand.with_holdings(holdings)
    assert (hand.history, [hand.holding(s) for s in range(4)], hand.legal_actions()) == before
    return str(info.value)


def test_bad_holdings_are_refused_precisely() -> None:
    hand = play_position(("39baobao",), 11, 5)  # mid-trick: seat sizes differ
    now = [list(hand.holding(s)) for s in range(4)]
    sizes = [len(h) for h in now]
    short = [h[:] for h in now]
    short[1].append(short[0].pop())
    assert f"seat 0 holds {sizes[0]} cards now, not {sizes[0] - 1}" in refusal(hand, short)
    other = [h[:] for h in now]
    missing = next(c for c in gongzhu.full_deck() if c not in {x for h in now for x in h})
    other[0][0] = missing
    assert f"no seat holds {missing} now" in refusal(hand, other)
    both = [h[:] for h in now]
    both[2][0] = both[1][0]
    assert f"{both[1][0]} is in two holdings (seat 2's and another)" in refusal(hand, both)
    twice = [h[:] for h in now]
    twice[1][0] = twice[1][1]
    assert f"seat 1's holding lists {twice[1][1]} twice" in refusal(hand, twice)
    assert "seat 0's holding: not a card: 'ZZ'" in refusal(hand, [["ZZ"], *now[1:]])
    assert "four holdings" in refusal(hand, now[:3])
    assert "in a sequence" in refusal(hand, dict(enumerate(now)))
    # card text and any iterables are read as cards
    texts = [" ".join(map(str, h)) for h in now]
    assert hand.with_holdings(iter(texts)).view(0) == hand.view(0)  # type: ignore[arg-type]


def test_shown_cards_stay_with_their_seat() -> None:
    rules = gongzhu.load_rules()
    deal = SHORT_SPADES_DEAL
    hand = rules.new_hand(deal=deal)
    for show in (Show(()), Show((Card.parse("QS"),)), Show(()), Show(())):
        hand.apply(show)
    hand.apply(Play.parse("2C"))
    now = [list(hand.holding(s)) for s in range(4)]
    swapped = [now[0], [*now[2][:12], now[1][0]], [*now[1][1:], now[2][12]], now[3]]
    assert Card.parse("QS") in now[1]
    assert Card.parse("QS") not in swapped[1]
    assert "seat 1 has shown QS and must keep it" in refusal(hand, swapped)


def test_the_leader_keeps_its_forced_lead() -> None:
    hand = play_position(("39baobao",), 5, 0)
    leader = hand.to_move
    assert leader is not None and hand.legal_actions() == (Play.parse("2C"),)
    now = [list(hand.holding(s)) for s in range(4)]
    other = (leader + 1) % 4
    two = Card.parse("2C")
    give = next(c for c in now[other])
    now[leader] = [give if c == two else c for c in now[leader]]
    now[other] = [two if c == give else c for c in now[other]]
    assert f"seat {leader} leads first and must hold 2C" in refusal(hand, now)


def test_holdings_change_in_the_play_phase_only() -> None:
    hand = gongzhu.load_rules().new_hand(seed=1)
    now = [list(hand.holding(s)) for s in range(4)]
    assert "play phase only, not in the show phase" in refusal(hand, now)


@pytest.mark.one_engine
def test_an_engine_without_redeal_gets_the_history_replayed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hand = play_position(("39baobao",), 21, 9)
    view = hand.view(hand.to_move or 0)
    holdings = sample_holdings(view, random.Random(2), rules=hand.rules)
    fast = hand.with_holdings(holdings)
    assert fast._redeal_from is not None  # redealt in place, not replayed
    spec = hand.engine_spec
    assert spec.offers(Capability.REDEAL)
    # the same engine, declaring no REDEAL (whose redeal() may then not be called)
    monkeypatch.setattr(hand, "engine_spec", attrs.evolve(spec, capabilities=Capability.NONE))
    monkeypatch.delattr(type(hand.engine), "redeal")
    slow = hand.with_holdings(holdings)
    assert slow._redeal_from is None  # a hand dealt anew, its history replayed
    assert slow.deal == fast.deal
    assert slow.history == fast.history
    assert [slow.view(s) for s in range(4)] == [fast.view(s) for s in range(4)]
    assert engine_state(slow.engine) == engine_state(fast.engine)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), plays=st.integers(1, 45), sample_seed=st.integers(0, 99))
def test_the_determinizer_draws_what_determinize_draws(
    seed: int, plays: int, sample_seed: int
) -> None:
    hand = play_position(("39baobao",), seed, plays)
    if hand.is_over:
        return
    view = hand.view(hand.to_move or 0)
    sampler = Determinizer(view, hand.rules)
    fast, slow = random.Random(sample_seed), random.Random(sample_seed)
    for _ in range(4):
        one = sampler.sample(fast)
        two = determinize(view, hand.rules, slow, tries=20, check=False)
        assert one.view(view.seat) == view
        assert [one.holding(s) for s in range(4)] == [two.holding(s) for s in range(4)]


def test_a_given_leader_is_kept_after_the_first_card() -> None:
    # seat 3 leads by appointment (as in a match's later hands), not holding 2C;
    # the seat to follow cannot see 2C: samples may give it to seat 3 all the same
    rules = gongzhu.load_rules()
    two = Card.parse("2C")
    for seed in range(100):
        hand = rules.new_hand(seed=seed, leader=3)
        if two not in hand.holding(3) + hand.holding(0):
            break
    while hand.phase is not Phase.PLAY:
        hand.apply(Show(()))
    hand.apply(hand.legal_actions()[-1])
    view = hand.view(0)
    rng = random.Random(0)
    holders = {determinize(view, rules, rng).holding(3).count(two) for _ in range(200)}
    assert holders == {0, 1}


@pytest.mark.one_engine
@pytest.mark.parametrize("names", [("39baobao",), ("two-deck",)])
def test_every_engine_refuses_a_bad_redeal_unchanged(names: tuple[str, ...]) -> None:
    hand = play_position(names, 4, 3)
    copies = hand.rules.table.copies
    for spec in hand.rules.engines:
        state = hand.rules.new_hand(deal=hand.deal, engine=spec.name)
        for _seat, action in hand.history:
            state.apply(action)
        assert spec.offers(Capability.REDEAL), spec.name  # all four core engines declare it
        core = spec.capable(state.engine, Capability.REDEAL)
        assert callable(getattr(core, "redeal", None)), spec.name
        now = list(core.holdings)
        low = [h & ((1 << 52) - 1) for h in now]
        # a card seat 0 holds once, and one no seat holds every copy of, seat 0 none
        once = next(
            i
            for i in range(52)
            if low[0] >> i & 1 and not now[0] >> (52 + i) & 1 and not low[1] >> i & 1
        )
        held = [
            sum(h >> i & 1 for h in low) + sum(h >> (52 + i) & 1 for h in now) for i in range(52)
        ]
        spare = next(i for i in range(52) if held[i] < copies and not low[0] >> i & 1)
        cases = {
            "number of cards": [now[0] & (now[0] - 1), now[1] | 1 << once, now[2], now[3]],
            "same cards": [now[0] ^ 1 << once | 1 << spare, *now[1:]],
            "four": now[:3],
        }
        if copies == 1:
            cases["overlap"] = [now[0], now[1] | 1 << once, now[2], now[3]]
        for words, masks in cases.items():
            before = engine_state(core)
            with pytest.raises(ValueError, match=words):
                core.redeal(masks)
            assert list(core.holdings) == now, (spec.name, words)
            assert engine_state(core) == before, (spec.name, words)
        # a good redeal: seat 0 and seat 1 trade a card each
        give = next(
            i
            for i in range(52)
            if low[1] >> i & 1 and not now[1] >> (52 + i) & 1 and not low[0] >> i & 1
        )
        traded = [now[0] ^ 1 << once | 1 << give, now[1] ^ 1 << give | 1 << once, *now[2:]]
        core.redeal(traded)
        assert list(core.holdings) == traded


def test_a_named_leader_holding_the_opening_card_leads_freely_in_samples() -> None:
    # a match's later hand: the leader is named, holds 2C, and may lead any card
    rules = gongzhu.load_rules()
    two = Card.parse("2C")
    holder = next(s for s in range(4) if two in rules.new_hand(seed=12).holding(s))
    hand = rules.new_hand(seed=12, leader=holder)
    while hand.phase is not Phase.PLAY:
        hand.apply(Show(()))
    view = hand.view(holder)
    assert len(view.legal_actions) > 1
    rng = random.Random(3)
    for _ in range(5):
        assert determinize(view, rules, rng).view(holder) == view
    sampler = Determinizer(view, rules)
    for _ in range(5):
        assert sampler.sample(rng).legal_actions() == view.legal_actions
    bot = SearchBot(1, rules=rules, budget_ms=None, samples=8)
    assert bot.choose(view) in view.legal_actions


@pytest.mark.parametrize("names", [("two-deck",), ("39baobao",), ("huapai",)])
def test_every_determinizer_sample_replays_from_its_record(names: tuple[str, ...]) -> None:
    # where the sampler's knowledge is partial (two decks' pair-following) the
    # Determinizer replays: a sample is always a hand that could have happened
    for seed in range(40):
        hand = play_position(names, seed, seed % 25 + 8)
        if hand.is_over:
            continue
        view = hand.view(hand.to_move or 0)
        try:
            sampler = Determinizer(view, hand.rules)
            states = [sampler.sample(random.Random(k)) for k in range(10)]
        except gongzhu.bots.Inconsistent:
            continue
        for state in states:
            again = gongzhu.replay(state.to_record())
            assert again.view(view.seat) == state.view(view.seat)
