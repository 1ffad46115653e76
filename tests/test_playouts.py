"""A search's playouts of one position in one engine call (``Capability.PLAYOUTS``).

``engine.playouts(data, keys, random, values=None, teams=None)`` must give, key for key,
what ``copy()``, ``play(key)``, the playout and ``score(data)`` give one key after the
other with the same generator, leave the engine as it was, and refuse bad input before
playing anything.  The search bot's values with the batched playouts equal those of its
playouts one engine copy at a time.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.engines
from gongzhu.actions import Play
from gongzhu.bots import SearchBot
from gongzhu.bots import search as search_module
from gongzhu.bots.playout import card_values
from gongzhu.play import PLAY_PHASE, Capability

pytestmark = [
    pytest.mark.one_engine,
    pytest.mark.skipif(not gongzhu.engines.ACCELERATED, reason="the C engines are not built"),
]

RULESETS = {
    "39baobao": (),
    "two-deck": ("two-deck",),
    "huapai": ("huapai",),
    "same-colour-discard": ("same-colour-discard",),
}


def position(rules: gongzhu.Rules, seed: int, plays: int) -> gongzhu.HandState:
    """The hand dealt from ``seed``: shows by their first legal choice, then ``plays``
    random plays."""
    hand = rules.new_hand(seed)
    rng = random.Random(seed)
    while hand.phase is not gongzhu.Phase.PLAY:
        hand.apply(hand.legal_actions()[0])
    for _ in range(plays):
        if hand.is_over:
            break
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def one_by_one(
    engine: Any,
    data: Any,
    keys: list[int],
    rng: random.Random,
    values: list[int] | None = None,
    teams: tuple[int, ...] | None = None,
) -> tuple[tuple[int, ...], ...]:
    out = []
    for key in keys:
        child = engine.copy()
        child.play(key)
        if child.phase == PLAY_PHASE:
            if values is None:
                child.random_playout(rng.random)
            elif teams is None:
                child.greedy_playout(values, rng.random)
            else:
                child.greedy_playout(values, rng.random, teams)
        out.append(child.score(data)[0])
    return tuple(out)


def keys_of(hand: gongzhu.HandState) -> list[int]:
    """The play keys of the legal plays (the play phase)."""
    return [action.key for action in hand.legal_actions() if isinstance(action, Play)]


def engine_of(hand: gongzhu.HandState) -> Any:
    return hand._engine


@pytest.mark.parametrize("name", RULESETS)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), plays=st.integers(0, 60), draw=st.integers(0, 2**32))
def test_random_playouts_are_the_copies_one_by_one(
    name: str, seed: int, plays: int, draw: int
) -> None:
    rules = gongzhu.load_rules(*RULESETS[name])
    hand = position(rules, seed, plays)
    if hand.is_over:
        return
    assert rules.engine_spec.offers(Capability.PLAYOUTS)
    engine = engine_of(hand)
    keys = keys_of(hand)
    before = (engine.holdings, engine.taken, engine.trick_log, engine.trick)
    mine, theirs = random.Random(draw), random.Random(draw)
    got = engine.playouts(rules.scorer.native, keys, mine.random)
    assert got == one_by_one(engine, rules.scorer.native, keys, theirs)
    assert mine.getstate() == theirs.getstate()
    assert (engine.holdings, engine.taken, engine.trick_log, engine.trick) == before


@pytest.mark.parametrize("name", ["39baobao", "two-deck"])
@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    plays=st.integers(0, 50),
    draw=st.integers(0, 2**32),
    teams=st.sampled_from([None, (0, 1, 0, 1)]),
)
def test_greedy_playouts_are_the_copies_one_by_one(
    name: str, seed: int, plays: int, draw: int, teams: tuple[int, ...] | None
) -> None:
    rules = gongzhu.load_rules(*RULESETS[name])
    hand = position(rules, seed, plays)
    if hand.is_over:
        return
    engine = engine_of(hand)
    keys = keys_of(hand)
    values = card_values(rules)
    mine, theirs = random.Random(draw), random.Random(draw)
    got = engine.playouts(rules.scorer.native, keys, mine.random, values, teams)
    assert got == one_by_one(engine, rules.scorer.native, keys, theirs, values, teams)
    assert mine.getstate() == theirs.getstate()


@pytest.mark.parametrize("name", ["39baobao", "two-deck"])
def test_bad_input_is_refused_before_anything_is_played(name: str) -> None:
    rules = gongzhu.load_rules(*RULESETS[name])
    hand = position(rules, 3, 5)
    engine = engine_of(hand)
    legal = keys_of(hand)
    illegal = next(key for key in range(52) if key not in legal)
    native = rules.scorer.native
    rng = random.Random(1)
    state = rng.getstate()
    with pytest.raises(ValueError, match=f"play key {illegal} is not legal"):
        engine.playouts(native, [legal[0], illegal], rng.random)
    assert rng.getstate() == state  # nothing was played: nothing was drawn
    with pytest.raises(TypeError):
        engine.playouts(None, legal, rng.random)
    with pytest.raises(TypeError, match="random must be callable"):
        engine.playouts(native, legal, 3)
    other = gongzhu.load_rules(*RULESETS["two-deck" if name == "39baobao" else "39baobao"])
    with pytest.raises(ValueError, match=r"no ScoreData of this engine.s decks"):
        engine.playouts(other.scorer.native, legal, rng.random)
    assert engine.playouts(native, [], rng.random) == ()
    fresh = rules.new_hand(3)
    if fresh.phase is not gongzhu.Phase.PLAY:
        with pytest.raises(ValueError, match="not in the play phase"):
            engine_of(fresh).playouts(native, legal, rng.random)


def search_views(rules: gongzhu.Rules, hands: int) -> list[gongzhu.SeatView]:
    views = []
    for seed in range(hands):
        hand = rules.new_hand(seed)
        rng = random.Random(seed)
        while not hand.is_over:
            seat = hand.to_move
            assert seat is not None
            view = hand.view(seat)
            if view.phase is gongzhu.Phase.PLAY and len(view.legal_actions) > 1:
                views.append(view)
            hand.apply(rng.choice(hand.legal_actions()))
    return views[::3]


@pytest.mark.parametrize("rollout", ["greedy", "random"])
@pytest.mark.parametrize("format", ["solo", "2v2"])
def test_the_search_values_are_those_of_playouts_one_by_one(
    rollout: str, format: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = gongzhu.load_rules()
    views = search_views(rules, 3)

    def decide() -> list[tuple[object, dict[str, float]]]:
        bot = SearchBot(
            5, rules=rules, budget_ms=None, samples=12, rollout=rollout, format=format, endgame=0
        )
        out: list[tuple[object, dict[str, float]]] = []
        for view in views:
            out.append((bot.choose(view), {k: bot.last_stats[k] for k in ("samples", "playouts")}))
        return out

    seen = []
    batched = search_module._Decision._batched_sample

    def spy(self: Any, *args: Any) -> Any:
        seen.append(1)
        return batched(self, *args)

    monkeypatch.setattr(search_module._Decision, "_batched_sample", spy)
    fast = decide()
    assert seen  # the batched path ran
    monkeypatch.setattr(
        search_module._Decision, "_batched_sample", search_module._Decision._engine_sample
    )
    assert decide() == fast


@pytest.mark.parametrize("name", ["39baobao", "two-deck"])
def test_an_engine_subclass_keeps_its_slots_and_weakrefs(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The playouts copy the engine's own struct, not a subclass's slots and weakref list
    (copying those without references freed the slots' objects)."""
    import sys
    import weakref

    speedups: Any = gongzhu.engines._speedups
    type_name = "SingleEngine" if name == "39baobao" else "PairsEngine"

    class Tagged(getattr(speedups, type_name)):  # type: ignore[misc]
        __slots__ = ("__weakref__", "tag")

    monkeypatch.setattr(speedups, type_name, Tagged)  # the ruleset's hands are Tagged now
    rules = gongzhu.load_rules(*RULESETS[name])
    hand = position(rules, 3, 4)
    engine = engine_of(hand)
    assert type(engine) is Tagged
    tag = engine.tag = object()
    ref = weakref.ref(engine)
    before = sys.getrefcount(tag)
    keys = keys_of(hand)
    for _ in range(5):
        engine.playouts(rules.scorer.native, keys, random.Random(1).random)
    assert sys.getrefcount(tag) == before and engine.tag is tag
    assert ref() is engine


@pytest.mark.parametrize("name", ["39baobao", "two-deck"])
def test_an_engine_changed_while_its_keys_are_read_is_refused(name: str) -> None:
    rules = gongzhu.load_rules(*RULESETS[name])
    hand = position(rules, 3, 4)
    engine = engine_of(hand)
    keys = keys_of(hand)

    class Sneaky:
        def __init__(self, key: int) -> None:
            self.key = key

        def __index__(self) -> int:
            engine.random_playout(random.Random(0).random)  # the hand ends meanwhile
            return self.key

    with pytest.raises(RuntimeError, match="changed while playouts read its keys"):
        engine.playouts(rules.scorer.native, [Sneaky(key) for key in keys], random.random)
