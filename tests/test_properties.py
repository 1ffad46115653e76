"""Properties of random hands with random shows (hypothesis)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gongzhu
from gongzhu import Phase, Play, Show
from gongzhu.errors import IllegalAction

from .conftest import BOTH_ENGINES, pipeline_sheet

pytestmark = BOTH_ENGINES  # hands are played: on both play engines

RULES = gongzhu.load_rules()
SCORING = {c for c in gongzhu.full_deck() if RULES.table.is_scoring(c)}


def random_hand(rules: gongzhu.Rules, seed: int, rng: random.Random) -> gongzhu.HandState:
    hand = rules.new_hand(seed)
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal, "the legal set is never empty while the hand is not over"
        hand.apply(rng.choice(legal))
    return hand


def play_and_check(
    rules: gongzhu.Rules, seed: int, rng: random.Random, *, zero_sum: bool
) -> gongzhu.HandState:
    """A random hand under ``rules``: invariants, fast result and replay checked."""
    hand = random_hand(rules, seed, rng)
    check_hand_invariants(hand, zero_sum=zero_sum)
    assert hand.returns() == hand.score().final == pipeline_sheet(hand).final
    assert hand.score() == pipeline_sheet(hand)  # the lines and every number, too
    assert gongzhu.replay(hand.to_record()).score() == hand.score()
    return hand


def check_hand_invariants(hand: gongzhu.HandState, *, zero_sum: bool = True) -> None:
    assert hand.phase is Phase.OVER and hand.to_move is None
    plays = [c for _, a in hand.history if isinstance(a, Play) for c in a.cards]
    assert sorted(plays) == list(gongzhu.full_deck()), "each card played exactly once"
    assert len(hand.tricks) == 13
    assert all(len(t.plays) == 4 for t in hand.tricks)
    assert all(hand.holding(s) == () for s in range(4))
    taken = [c for s in range(4) for c in hand.taken(s)]
    assert sorted(taken) == list(gongzhu.full_deck()), "every card taken exactly once"
    for trick in hand.tricks:  # the winner played the highest card of the led suit
        led = trick.plays[0][1][0].suit
        top = max(
            (cards[0] for _, cards in trick.plays if cards[0].suit is led), key=lambda c: c.rank
        )
        assert dict(trick.plays)[trick.winner] == (top,)
    leaders = [t.leader for t in hand.tricks]
    assert leaders[1:] == [t.winner for t in hand.tricks[:-1]]
    sheet = hand.score()
    got = [c for cards in sheet.captured for c in cards]
    assert sorted(got) == sorted(SCORING), "each scoring card counted once"
    if zero_sum:
        assert abs(sum(sheet.final)) <= 12, "39baobao results are zero-sum up to rounding"
    assert sheet.final == hand.rules.normalise(sheet.raw)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1), rng=st.randoms(use_true_random=False))
def test_random_hands_keep_the_invariants(seed: int, rng: random.Random) -> None:
    hand = random_hand(RULES, seed, rng)
    check_hand_invariants(hand)
    record = json.loads(json.dumps(hand.to_record()))
    again = gongzhu.replay(record)
    assert again.score() == hand.score()
    assert again.to_record() == hand.to_record()


@settings(max_examples=500, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    rng=st.randoms(use_true_random=False),
    stop=st.integers(0, 60),
    wrong=st.sampled_from(gongzhu.full_deck()),
    show_cards=st.sets(st.sampled_from(gongzhu.full_deck()), max_size=3),
)
def test_random_illegal_actions_change_nothing(
    seed: int, rng: random.Random, stop: int, wrong: gongzhu.Card, show_cards: set[gongzhu.Card]
) -> None:
    hand = RULES.new_hand(seed)
    for _ in range(stop):
        if hand.is_over:
            break
        hand.apply(rng.choice(hand.legal_actions()))
    legal = hand.legal_actions()
    before = hand.to_record()
    for action in (Play.parse(str(wrong)), Show(tuple(show_cards)), Play((wrong, wrong))):
        if action in legal:
            continue
        try:
            hand.apply(action)
        except IllegalAction as exc:
            assert exc.action == action
            assert exc.rule
        else:
            raise AssertionError(f"{action} was applied but is not in {legal}")
        assert hand.to_record() == before
        assert hand.legal_actions() == legal
    if legal:
        hand.apply(legal[0])  # the state still works


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1), rng=st.randoms(use_true_random=False), cut=st.integers(0, 56)
)
def test_partial_records_replay_to_the_same_state(seed: int, rng: random.Random, cut: int) -> None:
    hand = RULES.new_hand(seed)
    for _ in range(cut):
        if hand.is_over:
            break
        hand.apply(rng.choice(hand.legal_actions()))
    again = gongzhu.replay(hand.to_record())
    assert again.legal_actions() == hand.legal_actions()
    assert again.to_move == hand.to_move
    assert [again.holding(s) for s in range(4)] == [hand.holding(s) for s in range(4)]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), rng=st.randoms(use_true_random=False))
def test_views_agree_with_the_state(seed: int, rng: random.Random) -> None:
    hand = RULES.new_hand(seed)
    while not hand.is_over:
        seat = hand.to_move
        for viewer in range(4):
            view = hand.view(viewer)
            assert view.holding == hand.holding(viewer)
            assert view.to_move == seat
            assert (view.legal_actions != ()) == (viewer == seat)
            assert sum(view.holding_sizes) == sum(len(hand.holding(s)) for s in range(4))
        hand.apply(rng.choice(hand.legal_actions()))


@settings(max_examples=500, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), rng=st.randoms(use_true_random=False))
def test_compiled_returns_equal_the_pipeline(seed: int, rng: random.Random) -> None:
    hand = RULES.new_hand(seed)
    while hand.phase is not Phase.PLAY:  # shows make the factors matter
        hand.apply(rng.choice(hand.legal_actions()))
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    assert RULES.compiled_scorer is not None
    sheet = pipeline_sheet(hand)
    assert hand.returns() == sheet.final  # compiled against the pipeline
    assert hand.score() == sheet


@pytest.mark.parametrize("seed", range(40))
def test_compiled_scorer_on_extreme_captures(seed: int) -> None:
    """Full hearts, slams and lone transformers are rare in random play: build them."""
    rng = random.Random(seed)
    scoring = sorted(SCORING)
    taken = [0, 0, 0, 0]
    owner = rng.randrange(4)
    for card in scoring:
        seat = owner if rng.random() < 0.8 else rng.randrange(4)
        taken[seat] |= card.bit
    shows = {c: rng.choice([1, 2]) for c in RULES.table.showable if rng.random() < 0.5}
    factors = {c.bit: f for c, f in shows.items()}
    shown = {0: [c for c in shows if shows[c] == 2]}
    taken_cards = {s: [c for c in scoring if taken[s] & c.bit] for s in range(4)}
    assert RULES.compiled_scorer is not None
    assert RULES.compiled_scorer.raw(taken, factors) == RULES.score(taken_cards, shown=shown).raw
