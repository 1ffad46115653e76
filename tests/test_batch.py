"""The batch: the C batch, the Python loop and N separate hands, step for step.

:class:`gongzhu.batch.HandBatch` holds N hands of one ruleset; on the C engines they are
held in C (``gongzhu._speedups.Batch``), on the Python engines a Python loop steps them.
Played with the same actions from the same seeds, both batches and N hands made by
``rules.new_hand(seed)`` must agree at every step on the legal actions (as masks), the
seats to move, and at the end on the scores and the logs; the random step must draw as
``HandState.play_out`` does.  Bad input is refused with nothing changed.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.engines
from gongzhu.actions import Play, Show, ShowKind
from gongzhu.batch import ActionTable, HandBatch
from gongzhu.envs import encoding
from gongzhu.envs.fast import batch_observations
from gongzhu.hand import HandState
from gongzhu.play import PlayRule, PlaySituation
from gongzhu.plugin import ShownCardLock, VariantInfo, hookimpl
from gongzhu.rules import Rules
from gongzhu.view import Phase
from gongzhu_variants import anmai

from .test_engines_twins import PlayRules, ruleset

needs_c = pytest.mark.skipif(not gongzhu.engines.ACCELERATED, reason="the C engines are not built")

NAMES = [
    "39baobao",
    "huapai",
    "huapai+anmai",
    "shuangzhu",
    "same-colour-penalty-first",
    "same-colour-strict",
    "two-deck",
    "huapai+two-deck",
    "two-deck+five-showable+first-shows",
    "rules-both",
    "rules-all+huapai-stuck-hand",
    "two-deck-rules-all+anmai",
]


def python_engine(rules: Rules) -> str:
    """The name of the ruleset's pure-Python engine."""
    return next(spec.name for spec in rules.engines if spec.name.endswith("-python"))


def hand_mask(rules: Rules, table: ActionTable, hand: HandState) -> np.ndarray:
    """The legal actions of a separate hand, numbered by ``table``."""
    ids = {choice.show: choice.id for choice in rules.show_phase.choices}
    row = np.zeros(table.size, dtype=np.bool_)
    for action in hand.legal_actions():
        if isinstance(action, Play):
            row[table.plays[action.key]] = True
        else:
            assert isinstance(action, Show)
            row[table.shows[ids[action]]] = True
    return row


def action_of(rules: Rules, table: ActionTable, action: Any) -> int:
    if isinstance(action, Play):
        return table.plays[action.key]
    ids = {choice.show: choice.id for choice in rules.show_phase.choices}
    return table.shows[ids[action]]


def play_alike(rules: Rules, seeds: list[int], pick: random.Random, table: ActionTable) -> None:
    """Both batches (C where built) and separate hands, the same actions, step for step."""
    n = len(seeds)
    batches = [HandBatch(rules, n, seeds=seeds, actions=table, auto_reset=False)]
    batches.append(
        HandBatch(
            rules, n, seeds=seeds, actions=table, engine=python_engine(rules), auto_reset=False
        )
    )
    if gongzhu.engines.ACCELERATED:
        assert batches[0].in_c and not batches[1].in_c
    hands = [rules.new_hand(seed) for seed in seeds]
    while not all(hand.is_over for hand in hands):
        expected = np.array([hand_mask(rules, table, hand) for hand in hands])
        seats = [-1 if hand.to_move is None else hand.to_move for hand in hands]
        for batch in batches:
            assert (batch.legal_mask() == expected).all()
            assert batch.to_move.tolist() == seats
            out = np.ones((n, table.size), dtype=np.int8)
            assert (batch.legal_mask(out) == expected).all()
        actions = []
        was_over = [hand.is_over for hand in hands]
        for hand in hands:
            if hand.is_over:
                actions.append(pick.randrange(table.size))  # not read
                continue
            action = pick.choice(hand.legal_actions())
            actions.append(action_of(rules, table, action))
            hand.apply(action)
        ended = [hand.is_over and not over for hand, over in zip(hands, was_over, strict=True)]
        for batch in batches:
            assert batch.step(np.array(actions)).tolist() == ended
    for batch in batches:
        assert batch.hands_finished == n
        assert (batch.to_move == -1).all()
        assert batch.raw_scores.tolist() == [list(hand.raw_scores()) for hand in hands]
        assert batch.returns.tolist() == [list(hand.returns()) for hand in hands]
        for i, hand in enumerate(hands):
            for finished in (False, True):
                again = batch.hand(i, finished=finished)
                assert again.history == hand.history
                assert again.trick_log == hand.trick_log
                assert again.show_records == hand.show_records
                assert tuple(again.engine.show_log) == tuple(hand.engine.show_log)
            assert batch.record(i) == hand.to_record()


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4, deadline=None)
@given(base=st.integers(-(2**40), 2**40), salt=st.integers(0, 2**32))
def test_batches_and_separate_hands_agree(name: str, base: int, salt: int) -> None:
    rules = ruleset(name)
    seeds = [base + 7 * k for k in range(3)]
    play_alike(rules, seeds, random.Random(salt), ActionTable.default(rules))


@pytest.mark.parametrize("name", ["huapai+anmai", "two-deck+five-showable+first-shows"])
def test_the_envs_numbering(name: str) -> None:
    """The adapters' action numbering: the batch's masks are theirs."""
    rules = ruleset(name)
    table = encoding.batch_actions(rules)
    assert table.size == encoding.action_size(rules)
    play_alike(rules, [11, 12], random.Random(3), table)
    batch = HandBatch(rules, 2, seeds=11, actions=table)
    for i in range(2):
        expected = encoding.action_mask(rules, batch.hand(i).legal_actions())
        assert (batch.legal_mask()[i] == expected.astype(bool)).all()


class Recorder:
    """A numpy generator's ``random(n)`` that keeps what it drew."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.draws: list[float] = []

    def random(self, n: int) -> np.ndarray:
        drawn = self.rng.random(n)
        self.draws.extend(drawn.tolist())
        return drawn


@pytest.mark.parametrize("name", ["39baobao", "huapai+anmai", "two-deck", "rules-both"])
def test_random_step_draws_as_play_out(name: str) -> None:
    """One hand's random steps are play_out's draws; C and Python batches take the same."""
    rules = ruleset(name)
    for engine in (None, python_engine(rules)):
        batch = HandBatch(rules, 1, seeds=[42], engine=engine, auto_reset=False)
        rng = Recorder(9)
        while batch.hands_finished == 0:
            batch.random_step(rng)  # type: ignore[arg-type]
        draws = rng.draws
        hand = rules.new_hand(42)
        hand.play_out(iter(draws).__next__)
        assert batch.returns[0].tolist() == list(hand.returns())
        assert batch.hand(0, finished=True).history == hand.history


@pytest.mark.parametrize("name", ["huapai", "two-deck"])
def test_random_steps_alike_and_auto_reset(name: str) -> None:
    rules = ruleset(name)
    c = HandBatch(rules, 8, seeds=100)
    p = HandBatch(rules, 8, seeds=100, engine=python_engine(rules))
    rc, rp = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(200):
        done_c, done_p = c.random_step(rc), p.random_step(rp)
        assert (done_c == done_p).all()
        assert np.array_equal(c.last_actions, p.last_actions)  # type: ignore[arg-type]
        assert (c.legal_mask() == p.legal_mask()).all()
        assert (c.to_move == p.to_move).all()
        assert (c.returns == p.returns).all() and (c.raw_scores == p.raw_scores).all()
        assert (c.seeds == p.seeds).all()
    assert c.hands_finished == p.hands_finished > 8
    # a restarted slot holds the next seed's hand
    assert sorted(c.seeds.tolist())[-1] == 100 + c.hands_finished + 7
    for i in range(8):
        fresh = rules.new_hand(int(c.seeds[i]))
        assert c.hand(i).dealt_masks == fresh.dealt_masks


@pytest.mark.parametrize("name", ["huapai+anmai", "two-deck"])
def test_where_moves_only_the_hands_marked_and_restart_deals_afresh(name: str) -> None:
    """``where`` leaves the other hands exactly as they were (their actions unread), on
    both batches alike; ``restart`` deals a slot the next seed's hand, unscored."""
    rules = ruleset(name)
    batches = [
        HandBatch(rules, 6, seeds=40),
        HandBatch(rules, 6, seeds=40, engine=python_engine(rules)),
    ]
    generators = [np.random.default_rng(2), np.random.default_rng(2)]
    choice = np.random.default_rng(8)
    for _ in range(120):
        where = choice.random(6) < 0.5
        before = [[b.hand(i).history for i in range(6)] for b in batches]
        actions = []
        for batch, rng in zip(batches, generators, strict=True):
            batch.random_step(rng, where=where)
            assert batch.last_actions is not None
            actions.append(batch.last_actions.tolist())
        assert actions[0] == actions[1]
        for batch, seen in zip(batches, before, strict=True):
            for k in np.flatnonzero(~where).tolist():
                assert batch.hand(k).history == seen[k]
                assert batch.last_actions is not None and batch.last_actions[k] == -1
        mask = batches[0].legal_mask()
        assert (mask == batches[1].legal_mask()).all()
        chosen = np.array([np.flatnonzero(row)[0] for row in mask])
        chosen[~where] = -5  # not read: those hands do not move
        for batch in batches:
            batch.step(chosen, where=where)
    for batch in batches:
        finished = batch.hands_finished
        top = int(batch.seeds.max())
        batch.restart([1, 4])
        assert batch.hands_finished == finished
        assert batch.seeds[[1, 4]].tolist() == [top + 1, top + 2]
        for i in (1, 4):
            fresh = rules.new_hand(int(batch.seeds[i]))
            assert batch.hand(i).dealt_masks == fresh.dealt_masks and not batch.hand(i).history
        with pytest.raises(IndexError):
            batch.restart([6])
        with pytest.raises(TypeError, match="where: expected booleans"):
            batch.random_step(where=np.zeros(6, dtype=np.int8))
        with pytest.raises(ValueError, match="where: expected shape"):
            batch.step(np.zeros(6, dtype=np.int64), where=np.zeros(5, dtype=np.bool_))


def test_a_base_seed_and_reset() -> None:
    rules = gongzhu.load_rules()
    batch = HandBatch(rules, 3, seeds=10)
    assert batch.seeds.tolist() == [10, 11, 12]
    batch.reset(np.array([5, 9, 7]))
    assert batch.seeds.tolist() == [5, 9, 7]
    assert batch.hand(1).dealt_masks == rules.new_hand(9).dealt_masks
    assert batch.hand(1).to_move == rules.new_hand(9).to_move
    assert len(batch) == batch.size == 3
    assert "3 hands" in repr(batch)


# -- observations -------------------------------------------------------------------------------


class LockSecrets:
    """The shown-card lock on every show kind: a secret sale's cards bound, known to its seller."""

    @hookimpl
    def gongzhu_variant_info(self) -> VariantInfo:
        return VariantInfo("lock-secrets", "the lock binds secret sales too")

    @hookimpl
    def gongzhu_play_config(self, config: Any) -> None:
        config.set("shown_card_lock", ShownCardLock(exempt=()), overrides="39baobao")


@functools.cache
def observed_rules(name: str) -> Rules:
    if name == "anmai+lock-secrets":
        return Rules.from_plugins(anmai, LockSecrets())
    return ruleset(name)


OBSERVED = [
    "anmai+lock-secrets",
    "39baobao",
    "huapai",
    "huapai+anmai",
    "same-colour-penalty-first",
    "same-colour-strict-last",
    "huapai+same-colour-stuck-hand",
    "chuyang-quanming",
    "eight-showable+huapai+anmai",
    "two-deck",
    "two-deck+auto-show",
    "two-deck+five-showable+first-shows",
    "rules-all+huapai-stuck-hand",
]


class Reference:
    """What the reference encoders (:func:`~gongzhu.envs.encoding.encode_observation`,
    :func:`~gongzhu.envs.encoding.encode_information_state`) give of a hand, read from
    its views."""

    def __init__(self, hand: HandState) -> None:
        self.hand = hand

    def observation(self, seat: int) -> np.ndarray:
        return encoding.encode_observation(self.hand.rules, self.hand.view(seat))

    def information_state(self, seat: int) -> np.ndarray:
        hand = self.hand
        return encoding.encode_information_state(
            hand.rules,
            hand.view(seat),
            first_card=hand.deal.first_card(seat),
            first_turns={
                who
                for who, action in hand.history
                if isinstance(action, Show) and action.kind is ShowKind.FIRST
            },
        )


@needs_c
@pytest.mark.parametrize("name", OBSERVED)
@settings(max_examples=3, deadline=None)
@given(base=st.integers(-(2**40), 2**40), salt=st.integers(0, 2**32))
def test_observations_are_the_encoders(name: str, base: int, salt: int) -> None:
    """The C batch's observations and information states are the reference encoders', at
    every step
    of every hand, for the seat to move (and so encode_observation's, which the encoder
    tests hold it to)."""
    rules = observed_rules(name)
    if name == "anmai+lock-secrets":
        assert 2 in batch_observations(rules).binds
    table = encoding.batch_actions(rules)
    codec = encoding.layout(rules)
    # a secret sale's private void is rare (about one hand in 30): many hands for it
    size = 128 if name == "anmai+lock-secrets" else 3
    seeds = [base + k for k in range(size)]
    batch = HandBatch(
        rules,
        size,
        seeds=seeds,
        actions=table,
        observations=batch_observations(rules),
        auto_reset=False,
    )
    assert batch.in_c
    hands = [rules.new_hand(seed) for seed in seeds]
    encoders = [Reference(hand) for hand in hands]
    rng = np.random.default_rng(salt)
    while batch.hands_finished < size:
        observed = batch.observe()
        states = batch.observe(
            np.full((size, codec.information_state_size), 7, np.float32), history=True
        )
        for i, (hand, encoder) in enumerate(zip(hands, encoders, strict=True)):
            if hand.is_over:
                assert not observed[i].any() and not states[i].any()
                continue
            seat = hand.to_move
            assert seat is not None
            assert np.array_equal(observed[i], encoder.observation(seat))
            assert np.array_equal(states[i], encoder.information_state(seat))
        viewers = rng.integers(0, 4, size=size).astype(np.int8)
        seen = batch.observe(seats=viewers)  # any seat's view, a finished hand's too
        told = batch.observe(seats=viewers, history=True)
        for i, encoder in enumerate(encoders):
            viewer = int(viewers[i])
            assert np.array_equal(seen[i], encoder.observation(viewer)), (i, viewer)
            assert np.array_equal(told[i], encoder.information_state(viewer))
        batch.random_step(rng)
        assert batch.last_actions is not None
        for i, hand in enumerate(hands):
            if not hand.is_over:
                hand.apply(codec.decode(int(batch.last_actions[i])))


@needs_c
def test_observations_on_python_engines_and_bad_input() -> None:
    rules = gongzhu.load_rules("huapai")
    table = batch_observations(rules)
    batches = [
        HandBatch(rules, 2, seeds=4, observations=table, engine=engine)
        for engine in ("single-c", "single-python")
    ]
    rng = [np.random.default_rng(1), np.random.default_rng(1)]
    for _ in range(20):
        for history in (False, True):
            a, b = (batch.observe(history=history) for batch in batches)
            assert np.array_equal(a, b)
            seats = np.array([3, -1], dtype=np.int8)
            a, b = (batch.observe(history=history, seats=seats) for batch in batches)
            assert np.array_equal(a, b)
        for batch, r in zip(batches, rng, strict=True):
            batch.random_step(r)
    batch = batches[0]
    with pytest.raises(TypeError, match="float32"):
        batch.observe(np.zeros((2, table.observation_size)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shape"):
        batch.observe(np.zeros((2, table.observation_size + 1), np.float32))
    with pytest.raises(ValueError, match="without observations"):
        HandBatch(rules, 1).observe()
    with pytest.raises(ValueError, match="seats: expected seats 0 to 3"):
        batch.observe(seats=[0, 4])
    with pytest.raises(ValueError, match="seats: expected shape"):
        batch.observe(seats=[0])
    with pytest.raises(ValueError, match=r"seats\[1\]: expected -1 to 3"):
        batch._core.observe(
            np.zeros((2, table.observation_size), np.float32), np.array([0, 9], np.int8)
        )
    with pytest.raises(ValueError, match="not one of this ruleset"):
        HandBatch(gongzhu.load_rules(), 1, observations=table)
    core = batch._core
    with pytest.raises(ValueError, match="rows of"):
        core.observe(np.zeros((2, 5), np.float32))
    good = (table.ints, table.show_start, table.show_at, table.show_value, table.binds, table.first)
    for at, value in ((2, table.observation_size), (20, 12), (0, 0)):
        ints = list(table.ints)
        ints[at] = value
        with pytest.raises(ValueError, match="ints"):
            core.set_encoding(ints, *good[1:])
    with pytest.raises(ValueError, match="show_at"):
        core.set_encoding(
            table.ints, table.show_start, [table.observation_size] * len(table.show_at), *good[3:]
        )
    with pytest.raises(ValueError, match="show_start"):
        core.set_encoding(table.ints, table.show_start[:-1], *good[2:])
    core.set_encoding(*good)


# -- bad input ----------------------------------------------------------------------------------


@pytest.fixture(params=["c", "python"])
def batch(request: pytest.FixtureRequest) -> HandBatch:
    rules = gongzhu.load_rules("huapai")
    if request.param == "c" and not gongzhu.engines.ACCELERATED:
        pytest.skip("the C engines are not built")
    engine = None if request.param == "c" else "single-python"
    return HandBatch(rules, 3, seeds=1, engine=engine)


def snapshot(batch: HandBatch) -> tuple[Any, ...]:
    return (
        batch.legal_mask().tolist(),
        batch.to_move.tolist(),
        [batch.hand(i).history for i in range(len(batch))],
    )


def legal_actions(batch: HandBatch) -> np.ndarray:
    return batch.legal_mask().argmax(axis=1)


def test_bad_actions_change_nothing(batch: HandBatch) -> None:
    before = snapshot(batch)
    good = legal_actions(batch)
    with pytest.raises(TypeError, match="integers"):
        batch.step(good.astype(np.float64))
    with pytest.raises(TypeError, match="integers"):
        batch.step(good.astype(np.uint64))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        batch.step(good[:2])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        batch.step(good.reshape(1, 3))
    out_of_range = good.copy()
    out_of_range[2] = batch.action_size
    with pytest.raises(ValueError, match=r"hand 2: action \d+ is outside"):
        batch.step(out_of_range)
    out_of_range[2] = -1
    with pytest.raises(ValueError, match="hand 2: action -1 is outside"):
        batch.step(out_of_range)
    illegal = good.copy()
    mask = batch.legal_mask()
    illegal[1] = int(np.flatnonzero(~mask[1])[0])
    with pytest.raises(ValueError, match=rf"hand 1: action {illegal[1]} is not legal for seat"):
        batch.step(illegal)
    assert snapshot(batch) == before
    batch.step(good)
    assert snapshot(batch) != before


def test_bad_buffers(batch: HandBatch) -> None:
    with pytest.raises(ValueError, match="shape"):
        batch.legal_mask(np.zeros((3, 5), dtype=np.bool_))
    with pytest.raises(TypeError, match="bool, int8 or uint8"):
        batch.legal_mask(np.zeros((3, batch.action_size), dtype=np.int32))
    with pytest.raises(TypeError, match="numpy array"):
        batch.legal_mask([[0] * batch.action_size] * 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        batch.hand("0")  # type: ignore[arg-type]
    with pytest.raises(IndexError, match="hand 3"):
        batch.hand(3)
    with pytest.raises(LookupError, match="no hand has finished"):
        batch.hand(0, finished=True)
    with pytest.raises(ValueError, match="expected 3 seeds"):
        batch.reset([1, 2])
    with pytest.raises(TypeError, match="a seed is an int"):
        batch.reset([1, 2, 3.0])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="size"):
        HandBatch(batch.rules, 0)
    with pytest.raises(ValueError, match="not one of this ruleset"):
        HandBatch(batch.rules, 1, actions=ActionTable.default(gongzhu.load_rules()))


@needs_c
def test_the_c_batch_reads_its_arguments_whole() -> None:
    _speedups: Any = gongzhu.engines._speedups

    single = gongzhu.load_rules("huapai")
    pairs = gongzhu.load_rules("two-deck")
    table = ActionTable.default(single)
    batch = HandBatch(single, 2, seeds=3)
    engines = [batch._core.engine(i) for i in range(2)]
    other = HandBatch(pairs, 1)._core.engine(0)
    with pytest.raises(TypeError, match="one C engine type"):
        _speedups.Batch([engines[0], other], table.plays, table.shows, table.size)
    with pytest.raises(TypeError, match="one C engine type"):
        _speedups.Batch([object()], table.plays, table.shows, table.size)
    with pytest.raises(ValueError, match="one ruleset"):
        _speedups.Batch(
            [engines[0], HandBatch(gongzhu.load_rules(), 1)._core.engine(0)],
            table.plays,
            table.shows,
            table.size,
        )
    with pytest.raises(ValueError, match="each engine once"):
        _speedups.Batch([engines[0], engines[1], engines[0]], table.plays, table.shows, table.size)
    with pytest.raises(ValueError, match="at least one engine"):
        _speedups.Batch([], table.plays, table.shows, table.size)
    with pytest.raises(ValueError, match="plays"):
        _speedups.Batch(engines, table.plays[:-1], table.shows, table.size)
    with pytest.raises(ValueError, match="plays"):
        _speedups.Batch(engines, (table.size, *table.plays[1:]), table.shows, table.size)
    with pytest.raises(ValueError, match="two actions are numbered 0"):
        _speedups.Batch(engines, (0,) * len(table.plays), table.shows, table.size)
    with pytest.raises(ValueError, match="size"):
        _speedups.Batch(engines, table.plays, table.shows, 0)
    core = _speedups.Batch(engines, table.plays, table.shows, table.size)
    assert len(core) == 2 and core.size == table.size
    with pytest.raises(TypeError, match="int64"):
        core.step(np.zeros(2, dtype=np.int32))
    with pytest.raises(ValueError, match="expected 2 items"):
        core.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError):
        core.step([0, 1])
    with pytest.raises(TypeError, match="float64"):
        core.random_step(np.zeros(2, dtype=np.float32), np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match=r"uniforms\[1\] is not in \[0, 1\)"):
        core.random_step(np.array([0.5, 1.0]), np.zeros(2, dtype=np.int64))
    read_only = np.zeros((2, table.size), dtype=np.bool_)
    read_only.flags.writeable = False
    with pytest.raises((TypeError, ValueError, BufferError)):
        core.legal_mask(read_only)
    with pytest.raises(IndexError):
        core.engine(2)
    with pytest.raises(ValueError, match="each engine once"):
        core.replace(0, core.engine(1))
    core.replace(0, core.engine(0))  # itself: no change
    with pytest.raises(TypeError, match="int8"):
        core.seats(np.zeros(2, dtype=np.bool_))
    with pytest.raises(TypeError):
        core.replace(0, other)
    # an engine the batch holds, set up again for another ruleset, is refused, not read
    other = gongzhu.load_rules("huapai", "anmai")  # one deck, more show choices
    stranger = HandBatch(other, 1)._core.engine(0)
    core.engine(1).__init__(other._prepared["single-c"], stranger.holdings, 0, 0, 0, (0, 1, 2, 3))
    with pytest.raises(ValueError, match="hand 1: its engine was set up again"):
        core.legal_mask(np.zeros((2, table.size), dtype=np.bool_))
    with pytest.raises(ValueError, match="hand 1: its engine was set up again"):
        core.random_step(np.zeros(2), np.zeros(2, dtype=np.int64))
    unset = _speedups.Batch.__new__(_speedups.Batch)
    assert len(unset) == 0
    with pytest.raises(ValueError, match="not set up"):
        unset.step(np.zeros(0, dtype=np.int64))
    with pytest.raises(TypeError, match="set up once"):
        core.__init__(engines, table.plays, table.shows, table.size)


class Fussy:
    """A play rule that raises once armed: the batch must stay as it was."""

    armed = False
    seat = 2

    @staticmethod
    def refuse(situation: PlaySituation) -> int:
        if Fussy.armed and situation.seat == Fussy.seat:
            raise RuntimeError("the fussy rule fails")
        return 0


def test_a_failing_play_rule_changes_nothing() -> None:
    rule = PlayRule("fussy", refuse=Fussy.refuse)
    rules = Rules.from_plugins(PlayRules("fussy", rule))
    for engine in (None, python_engine(rules)):
        if engine is None and not gongzhu.engines.ACCELERATED:
            continue
        batch = HandBatch(rules, 6, seeds=20, engine=engine)
        rng = np.random.default_rng(2)
        while not (
            all(batch.hand(i).phase is Phase.PLAY for i in range(6))
            and batch.hand(5).trick_log  # past the opening lead, which asks no rule
            and batch.to_move[0] != batch.to_move[5]
        ):
            batch.random_step(rng)
        Fussy.seat = int(batch.to_move[5])
        # no legal actions were found since the last step: the rule is asked again
        before = (batch.to_move.tolist(), [batch.hand(i).history for i in range(6)])
        Fussy.armed = True
        try:
            with pytest.raises(gongzhu.errors.PluginError, match="fussy"):
                batch.random_step(rng)
            with pytest.raises(gongzhu.errors.PluginError, match="fussy"):
                batch.random_step(rng)
        finally:
            Fussy.armed = False
        assert (batch.to_move.tolist(), [batch.hand(i).history for i in range(6)]) == before
        assert (
            batch.legal_mask() == HandBatch(rules, 6, seeds=20, engine=engine).legal_mask()
        ).any()


def test_the_batch_imports_without_numpy() -> None:
    """numpy is imported on first use (the C batch takes buffers, not numpy arrays)."""
    import subprocess
    import sys

    code = "import sys, gongzhu.batch; assert 'numpy' not in sys.modules, 'numpy imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", ["huapai+anmai", "two-deck", "rules-both"])
def test_random_until_plays_the_other_seats_up_to_one(name: str) -> None:
    """``random_until(seat)``: the other seats' random rounds in one call, on both batches
    alike, until every hand waits for ``seat`` or is over (the rounds random_step plays)."""
    rules = ruleset(name)
    batches = [
        HandBatch(rules, 6, seeds=70, auto_reset=False),
        HandBatch(rules, 6, seeds=70, auto_reset=False, engine=python_engine(rules)),
    ]
    rngs = [np.random.default_rng(4), np.random.default_rng(4)]
    stepper = np.random.default_rng(5)
    for _ in range(40):
        done = [b.random_until(2, r) for b, r in zip(batches, rngs, strict=True)]
        assert (done[0] == done[1]).all()
        for batch in batches:
            assert set(batch.to_move.tolist()) <= {2, -1}
        histories = [[batch.hand(i).history for i in range(6)] for batch in batches]
        assert histories[0] == histories[1]
        assert (batches[0].raw_scores == batches[1].raw_scores).all()
        mask = batches[0].legal_mask()
        if not mask.any():
            break
        chosen = (stepper.random(mask.shape) * mask).argmax(1)
        for batch in batches:
            batch.step(chosen, where=batch.to_move == 2)
    with pytest.raises(ValueError, match="seat must be 0-3"):
        batches[0].random_until(4)
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        batches[0].random_until(0, rounds=0)
