"""The bulk API: simulate() and HandState.play_out, accelerated or not."""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.hand
from gongzhu import Phase
from gongzhu.engine import PlayCore
from gongzhu.rules import Rules

from . import plugins
from .test_hooks import reference

RULESETS = {
    "39baobao": gongzhu.load_rules(),
    "lock-discards-hand": Rules.from_plugins(plugins.LockDiscards("hand")),
    "lock-discards-play": Rules.from_plugins(plugins.LockDiscards("play")),
    "colours-strict": Rules.from_plugins(plugins.Colours(strict=True)),
    "colours-penalty-last": Rules.from_plugins(
        plugins.Colours(strict=False, offender="last"), plugins.LockDiscards()
    ),
}


def playout(
    rules: Rules, seed: int, draws: int, accelerated: bool, monkeypatch: pytest.MonkeyPatch
) -> gongzhu.HandState:
    """Deal from ``seed``; play ``draws`` random steps one by one, then the rest in bulk."""
    rng = random.Random(seed)
    hand = rules.new_hand(seed, engine="single-c" if accelerated else "single-python")
    assert isinstance(hand._core, PlayCore) != accelerated
    for _ in range(draws):
        if hand.is_over:
            break
        legal = hand.legal_actions()
        hand.apply(legal[int(rng.random() * len(legal))])
    hand.play_out(rng.random)
    return hand


needs_speedups = pytest.mark.skipif(not gongzhu.hand.ACCELERATED, reason="C accelerator not built")


@needs_speedups
@pytest.mark.parametrize("name", sorted(RULESETS))
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), draws=st.integers(0, 40))
def test_accelerator_plays_exactly_like_python(name: str, seed: int, draws: int) -> None:
    rules = RULESETS[name]
    mp = pytest.MonkeyPatch()
    try:
        fast = playout(rules, seed, draws, True, mp)
        slow = playout(rules, seed, draws, False, mp)
    finally:
        mp.undo()
    assert fast.to_record() == slow.to_record()
    assert fast.tricks == slow.tricks
    assert fast.outcome() == slow.outcome()
    assert fast.returns() == fast.score().final
    assert gongzhu.replay(fast.to_record(), rules=rules).score() == fast.score()


@pytest.mark.parametrize("name", sorted(RULESETS))
@pytest.mark.parametrize("accelerated", [False, pytest.param(True, marks=needs_speedups)])
def test_bulk_playouts_only_play_legal_cards(name: str, accelerated: bool) -> None:
    """Replaying a bulk playout step by step checks every card against the rules."""
    rules = RULESETS[name]
    mp = pytest.MonkeyPatch()
    try:
        for seed in range(25):
            hand = playout(rules, seed, 0, accelerated, mp)
            assert hand.is_over and hand.phase is Phase.OVER
            again = gongzhu.replay(hand.to_record(), rules=rules)
            assert again.score() == hand.score()
    finally:
        mp.undo()


def test_bulk_agrees_with_reference_rules() -> None:
    """Walk a bulk-played hand again with the reference legality of test_hooks."""
    rules = RULESETS["colours-penalty-last"]
    for seed in range(20):
        hand = rules.new_hand(seed)
        hand.play_out(random.Random(seed).random)
        walk = rules.new_hand(seed)
        for _seat, action in hand.history:
            if walk.phase is Phase.PLAY:
                assert action.cards[0] in reference(walk)[0]
            walk.apply(action)


def test_simulate_is_deterministic_and_summarises() -> None:
    rules = gongzhu.load_rules()
    first = gongzhu.simulate(rules, 300, seed=5)
    assert first == gongzhu.simulate(rules, 300, seed=5)
    assert first != gongzhu.simulate(rules, 300, seed=6)
    assert first.hands == 300
    assert abs(sum(first.mean_final)) <= 12
    assert all(s > 0 for s in first.stderr_final)


@needs_speedups
def test_simulate_same_with_and_without_accelerator(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = gongzhu.load_rules()
    monkeypatch.setattr(Rules, "engine", property(lambda self: self.engine_named("single-c")))
    first = gongzhu.simulate(rules, 200, seed=9)
    monkeypatch.setattr(Rules, "engine", property(lambda self: self.engine_named("single-python")))
    assert gongzhu.simulate(rules, 200, seed=9) == first


def test_simulate_on_a_custom_pipeline() -> None:
    rules = Rules.from_plugins(plugins.Bonus())
    assert rules.compiled_scorer is None
    summary = gongzhu.simulate(rules, 50, seed=1)
    assert summary.hands == 50


def test_simulate_rejects_no_hands() -> None:
    with pytest.raises(ValueError, match="at least one hand"):
        gongzhu.simulate(gongzhu.load_rules(), 0)


@pytest.mark.parametrize("variants", [(), ("huapai",), ("two-deck",), ("huapai", "two-deck")])
def test_a_run_without_records_scores_as_the_hands_of_its_records(
    variants: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gongzhu simulate`` without ``--out`` plays random hands without a HandState (the
    bulk path); with records each hand is a HandState: the same hands, the same summary."""
    import io

    from gongzhu.runner import Job, run

    job = Job(variants, (), ("random",) * 4, seed=11)
    out = io.StringIO()
    with_records = run(attrs.evolve(job, records=True), 40, out=out)
    assert len(out.getvalue().splitlines()) == 40
    if gongzhu.load_rules(*variants).scorer.compiled is not None:  # no HandState at all

        def no_hand(*args: object, **kwargs: object) -> None:
            raise AssertionError("a HandState was made")

        monkeypatch.setattr(Rules, "new_hand", no_hand)
    assert run(job, 40) == with_records
