"""The exact end game of the search's playouts (``Capability.ENDGAME``).

``engine.playouts(data, keys, random, values, teams, endgame=k)`` plays each key's
playout greedily until no seat holds more than ``k`` cards, then searches the rest of
the hand exactly for two teams.  Held here to a reference: an exhaustive minimax in
Python over the same engine's legal plays (``copy``, ``legal_mask``, ``play``) with the
hand's end scored by the engine's ``score(data)``, on many random end positions of
several rulesets; and the greedy part to the Python greedy policy with the same draws.
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
from gongzhu.bots.playout import card_values, greedy_rollout_policy
from gongzhu.bots.search import DEFAULT_ENDGAME
from gongzhu.play import PLAY_PHASE, Capability

pytestmark = [
    pytest.mark.one_engine,
    pytest.mark.skipif(not gongzhu.engines.ACCELERATED, reason="the C engines are not built"),
]

RULESETS = {
    "39baobao": (),
    "huapai": ("huapai",),
    "same-colour-discard": ("same-colour-discard",),
    "hearts-pips": ("hearts-pips",),
    "huapai-anmai": ("huapai", "anmai"),
}

TEAMS = (0, 1, 0, 1)


def position(rules: gongzhu.Rules, seed: int, plays: int) -> gongzhu.HandState:
    """The hand dealt from ``seed``: random shows, then ``plays`` random plays."""
    hand = rules.new_hand(seed)
    rng = random.Random(seed)
    while hand.phase is not gongzhu.Phase.PLAY:
        hand.apply(rng.choice(hand.legal_actions()))
    for _ in range(plays):
        if hand.is_over:
            break
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


def engine_of(hand: gongzhu.HandState) -> Any:
    return hand._engine


def keys_of(hand: gongzhu.HandState) -> list[int]:
    return [action.key for action in hand.legal_actions() if isinstance(action, Play)]


def team_value(raw: tuple[int, ...], sign: list[int]) -> int:
    return sum(s * r for s, r in zip(sign, raw, strict=True))


def minimax(engine: Any, data: Any, sign: list[int]) -> int:
    """The exact value for the team with ``sign`` +1 (it maximises, the other minimises)."""
    if engine.phase != PLAY_PHASE:
        return team_value(engine.score(data)[0], sign)
    mask = engine.legal_mask()
    values = []
    while mask:
        low = mask & -mask
        mask ^= low
        child = engine.copy()
        child.play(low.bit_length() - 1)
        values.append(minimax(child, data, sign))
    return max(values) if sign[engine.seat] > 0 else min(values)


def signs(seat: int) -> list[int]:
    return [1 if TEAMS[s] == TEAMS[seat] else -1 for s in range(4)]


def shows_of(hand: gongzhu.HandState) -> list[tuple[Any, Any]]:
    return [(card, show.kind) for show in hand.shows for card in show.cards or ()]


@pytest.mark.parametrize("name", RULESETS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), left=st.integers(1, 13), draw=st.integers(0, 2**32))
def test_the_end_game_is_the_minimax_of_the_engine(
    name: str, seed: int, left: int, draw: int
) -> None:
    """At most three tricks left: every key's result is the exact team value, found by an
    exhaustive search in Python over the engine's own legal plays and score."""
    rules = gongzhu.load_rules(*RULESETS[name])
    assert rules.engine_spec.offers(Capability.ENDGAME)
    hand = position(rules, seed, 52 - left)
    if hand.is_over:
        return
    engine = engine_of(hand)
    data = rules.scorer.native
    keys = keys_of(hand)
    before = (engine.holdings, engine.taken, engine.trick_log, engine.trick, engine.seat)
    sign = signs(engine.seat)
    rng = random.Random(draw)
    got = engine.playouts(data, keys, rng.random, card_values(rules, shows_of(hand)), TEAMS, 4)
    assert rng.getstate() == random.Random(draw).getstate()  # the end game draws nothing
    assert (engine.holdings, engine.taken, engine.trick_log, engine.trick, engine.seat) == before
    for key, raw in zip(keys, got, strict=True):
        child = engine.copy()
        child.play(key)
        assert team_value(raw, sign) == minimax(child, data, sign)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), plays=st.integers(0, 40), draw=st.integers(0, 2**32))
def test_the_playout_is_greedy_until_the_end_game(seed: int, plays: int, draw: int) -> None:
    """Before its last trick (``endgame=1``) a playout plays the Python greedy policy's
    cards with the same draws (the trick under way for the teams), then the exact end."""
    rules = gongzhu.load_rules()
    hand = position(rules, seed, plays)
    data = rules.scorer.native
    values = card_values(rules, shows_of(hand))
    engine = engine_of(hand)
    sign = signs(engine.seat)
    keys = keys_of(hand)
    got = engine.playouts(data, keys, random.Random(draw).random, values, TEAMS, endgame=1)
    rng = random.Random(draw)
    for key, raw in zip(keys, got, strict=True):
        state = hand.clone()
        state.apply(_play(hand, key))
        teams: tuple[int, ...] | None = TEAMS if state.trick_keys else None
        while not state.is_over and sum(len(state.holding(s)) for s in range(4)) > 4:
            if not state.trick_keys:
                teams = None  # the trick under way is over: the teams part is done
            state.apply(greedy_rollout_policy(state, rng, teams))
        assert team_value(raw, sign) == (
            minimax(engine_of(state), data, sign)
            if not state.is_over
            else team_value(state.raw_scores(), sign)
        )


def _play(hand: gongzhu.HandState, key: int) -> Play:
    return next(a for a in hand.legal_actions() if isinstance(a, Play) and a.key == key)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"endgame": -1}, ValueError),
        ({"endgame": 14}, ValueError),
        ({"endgame": 2**70}, ValueError),
        ({"endgame": "3"}, TypeError),
        ({"endgame": 3.0}, TypeError),
        ({"endgame": 3, "values": None, "teams": None}, ValueError),
        ({"endgame": 3, "teams": None}, ValueError),
        ({"endgame": 3, "teams": (0, 1, 0)}, ValueError),
        ({"endgame": 3, "data": object()}, TypeError),
        ({"endgame": 3, "keys": [51 - 0]}, ValueError),
    ],
)
def test_bad_input_is_refused_before_anything_is_played(
    kwargs: dict[str, Any], error: type[Exception]
) -> None:
    rules = gongzhu.load_rules()
    hand = position(rules, 3, 30)
    engine = engine_of(hand)
    legal = keys_of(hand)
    args: dict[str, Any] = {
        "data": rules.scorer.native,
        "keys": legal,
        "random": random.Random(0).random,
        "values": card_values(rules, []),
        "teams": TEAMS,
    }
    if "keys" in kwargs and kwargs["keys"][0] in legal:
        kwargs = {**kwargs, "keys": [next(k for k in range(52) if k not in legal)]}
    args.update(kwargs)
    before = (engine.holdings, engine.taken, engine.trick_log, engine.trick, engine.seat)
    with pytest.raises(error):
        engine.playouts(**args)
    assert (engine.holdings, engine.taken, engine.trick_log, engine.trick, engine.seat) == before
    # endgame=0 is the greedy playout
    values = card_values(rules, [])
    plain = engine.playouts(rules.scorer.native, legal, random.Random(1).random, values, TEAMS)
    assert plain == engine.playouts(
        rules.scorer.native, legal, random.Random(1).random, values, TEAMS, endgame=0
    )


def test_over_the_end_game_is_refused_not_in_the_play_phase() -> None:
    rules = gongzhu.load_rules()
    hand = position(rules, 4, 52)
    engine = engine_of(hand)
    with pytest.raises(ValueError, match="play phase"):
        engine.playouts(rules.scorer.native, [], random.random, card_values(rules, []), TEAMS, 3)


def test_only_the_one_deck_engine_declares_it() -> None:
    assert gongzhu.load_rules().engine_spec.offers(Capability.ENDGAME)
    assert not gongzhu.load_rules("two-deck").engine_spec.offers(Capability.ENDGAME)


@pytest.mark.parametrize("endgame", [-1, 14, 2.5, True, None, "3"])
def test_the_search_refuses_a_bad_endgame(endgame: object) -> None:
    with pytest.raises(ValueError, match="endgame"):
        SearchBot(1, endgame=endgame)  # type: ignore[arg-type]


def test_the_search_searches_the_end_game_in_2v2_only() -> None:
    """The 2-vs-2 search passes its end game to the engine; solo, or ``endgame=0``, not."""
    rules = gongzhu.load_rules()
    hand = position(rules, 5, 44)
    assert hand.to_move is not None
    view = hand.view(hand.to_move)
    cases = (("2v2", DEFAULT_ENDGAME, DEFAULT_ENDGAME), ("2v2", 0, 0), ("solo", 3, 0))
    for format, endgame, want in cases:
        bot = SearchBot(1, rules=rules, budget_ms=None, samples=4, format=format, endgame=endgame)
        assert search_module._Decision(bot, view, 0.0).endgame == want
        assert bot.choose(view) in view.legal_actions
