"""The bulk API: simulate() and HandState.play_out, on every engine.

Hands played step by step and then in bulk (``play_out``, inside the engine) are the
same hands on every engine that can play the ruleset: the same records, tricks and
outcomes; every card a bulk playout plays is legal (a replay checks each); simulate()
sums exactly the hands play_out plays, whichever engine plays them.
"""

from __future__ import annotations

import io
import random

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.engines
from gongzhu import Phase
from gongzhu.play import EngineSpec
from gongzhu.rules import Rules
from gongzhu.runner import Job, run
from gongzhu.simulate import ScoreStats
from gongzhu_variants import huapai, two_deck

from . import plugins
from .test_engines_twins import PlayRules, rule_sets

RULESETS = {
    "39baobao": gongzhu.load_rules(),
    "huapai+anmai+biming": gongzhu.load_rules("huapai", "anmai", "biming"),
    "lock-discards-hand": Rules.from_plugins(plugins.LockDiscards("hand")),
    "lock-discards-play": Rules.from_plugins(plugins.LockDiscards("play")),
    "colours-strict": Rules.from_plugins(plugins.Colours(strict=True)),
    "colours-penalty-last": Rules.from_plugins(
        plugins.Colours(strict=False, offender="last"), plugins.LockDiscards()
    ),
    "play-rules": Rules.from_plugins(huapai, PlayRules("r", *rule_sets(1)["both"])),
    "two-deck": gongzhu.load_rules("two-deck"),
    "huapai+two-deck+anmai": gongzhu.load_rules("huapai", "two-deck", "anmai"),
    "two-deck-play-rules": Rules.from_plugins(two_deck, PlayRules("r", *rule_sets(2)["both"])),
}


def playout(rules: Rules, seed: int, draws: int, engine: str) -> gongzhu.HandState:
    """Deal from ``seed``; play ``draws`` random steps one by one, then the rest in bulk."""
    rng = random.Random(seed)
    hand = rules.new_hand(seed, engine=engine)
    assert hand.engine_spec.name == engine and hand.engine is not None
    for _ in range(draws):
        if hand.is_over:
            break
        legal = hand.legal_actions()
        hand.apply(legal[int(rng.random() * len(legal))])
    hand.play_out(rng.random)
    assert hand.is_over
    return hand


@pytest.mark.parametrize("name", sorted(RULESETS))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), draws=st.integers(0, 60))
def test_every_engine_plays_the_same_hands(name: str, seed: int, draws: int) -> None:
    rules = RULESETS[name]
    hands = [playout(rules, seed, draws, spec.name) for spec in rules.engines]
    first = hands[0]
    for hand in hands[1:]:
        assert hand.to_record() == first.to_record()
        assert hand.tricks == first.tricks and hand.shows == first.shows
        assert hand.outcome() == first.outcome()
        assert hand.facts() == first.facts()
    assert first.returns() == first.score().final
    assert gongzhu.replay(first.to_record(), rules=rules).score() == first.score()


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_bulk_playouts_only_play_legal_cards(name: str) -> None:
    """Replaying a bulk playout step by step checks every card against the rules."""
    rules = RULESETS[name]
    for spec in rules.engines:
        for seed in range(6):
            hand = playout(rules, seed, seed * 3, spec.name)
            assert hand.phase is Phase.OVER and hand.to_move is None
            again = gongzhu.replay(hand.to_record(), rules=rules)
            assert again.score() == hand.score()
            assert again.history == hand.history


def test_bulk_agrees_with_reference_rules() -> None:
    """Walk a bulk-played hand again with the reference legality of test_hooks."""
    from .test_hooks import reference  # (written from the rules, not from an engine)

    rules = RULESETS["colours-penalty-last"]
    for spec in rules.engines:
        for seed in range(10):
            hand = rules.new_hand(seed, engine=spec.name)
            hand.play_out(random.Random(seed).random)
            walk = rules.new_hand(seed, engine=spec.name)
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


def engine_property(spec: EngineSpec) -> property:
    """A :attr:`Rules.engine_spec` that is ``spec``."""

    def engine(self: Rules) -> EngineSpec:
        return spec

    return property(engine)


@pytest.mark.parametrize("name", ["39baobao", "play-rules", "two-deck", "huapai+two-deck+anmai"])
def test_simulate_is_play_out_on_every_engine(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """simulate() on each engine: the sums of the hands play_out plays, draw for draw."""
    rules = RULESETS[name]
    summaries = []
    for spec in rules.engines:
        monkeypatch.setattr(Rules, "engine_spec", engine_property(spec))
        assert rules.engine_spec is spec
        summaries.append(gongzhu.simulate(rules, 40, seed=9))
        rng = random.Random(9)
        stats = ScoreStats()
        for _ in range(40):
            hand = rules.new_hand(rng.getrandbits(63))
            assert hand.engine_spec is spec
            hand.play_out(rng.random)
            stats.add_scores(*hand.outcome())
        assert summaries[-1].mean_final == tuple(stats.mean(seat) for seat in range(4))
        assert (summaries[-1].full_hearts, summaries[-1].slams) == (stats.full_hearts, stats.slams)
    assert len(summaries) == len(rules.engines) == (2 if gongzhu.engines.ACCELERATED else 1)
    assert all(summary == summaries[0] for summary in summaries)


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
    job = Job(variants, (), ("random",) * 4, seed=11)
    out = io.StringIO()
    with_records = run(attrs.evolve(job, records=True), 40, out=out)
    assert len(out.getvalue().splitlines()) == 40
    if gongzhu.load_rules(*variants).scorer.compiled is not None:  # no HandState at all

        def no_hand(*args: object, **kwargs: object) -> None:
            raise AssertionError("a HandState was made")

        monkeypatch.setattr(Rules, "new_hand", no_hand)
    assert run(job, 40) == with_records
