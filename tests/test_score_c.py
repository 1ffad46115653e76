"""The C scorer (engines/c/score.c) is the compiled score data read in C: held equal to
:meth:`Scorer.outcome <gongzhu.scoring.Scorer.outcome>` and the pipeline.

Every shipped base with up to two modifiers (tests/test_implied.py's list), one deck and
two, shows included, hand for hand from the engines; any facts (hypothesis), slams and
满红 among them; the per-copy stages of plug-ins, whose answers the data holds; and the
rulesets it must leave to Python.
"""

from __future__ import annotations

import random
import types
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.bulk
import gongzhu.deal
import gongzhu_variants.two_deck
from gongzhu import PIG, SHEEP, TRANSFORMER, ShowKind
from gongzhu.bulk import RandomHands, facts_of
from gongzhu.deal import SEATS, Deal
from gongzhu.play import Capability
from gongzhu.plugin import (
    LeadRule,
    OpeningLead,
    Options,
    VariantInfo,
    hookimpl,
    lead_rule_of,
    opening_lead_rule,
)
from gongzhu.scoring import (
    CopyFactors,
    HandFacts,
    MaskScoring,
    ScoreStage,
    ShowRecord,
    StageList,
    TakenCopy,
)
from gongzhu.scoring.compiled import score_data
from gongzhu.scoring.copies import CopyFactorMasks
from gongzhu.showphase import KINDS

from .test_implied import shipped_rulesets
from .test_scoring_copies import OWN_SHEEP, lonely_transformer, plugin
from .test_scoring_facts import COMPILED, draw_facts

speedups: Any = pytest.importorskip("gongzhu._speedups")
if gongzhu.load_rules().scorer.native is None:  # GONGZHU_PURE_PYTHON
    pytest.skip("the C accelerator is not in use", allow_module_level=True)


def triples(records: Sequence[ShowRecord]) -> tuple[tuple[int, int, int], ...]:
    return tuple((r.seat, r.card.index, KINDS.index(r.kind)) for r in records)


def native_outcome(rules: gongzhu.Rules, facts: HandFacts) -> gongzhu.scoring.Outcome:
    """The C scorer's outcome of ``facts`` (ScoreData.raw, then the normalisation)."""
    shown = None if facts.shown_taken is None else [triples(s) for s in facts.shown_taken]
    raw, full_hearts, slam = rules.scorer.native.raw(
        facts.taken, facts.dealt, triples(facts.shows), shown
    )
    return gongzhu.scoring.Outcome(rules.scorer.normalise(raw), full_hearts, slam)


def reference(rules: gongzhu.Rules, facts: HandFacts) -> gongzhu.scoring.Outcome:
    """The pipeline's outcome (the reference), checked against Scorer.outcome."""
    sheet = rules.scorer.pipeline_sheet(facts)
    outcome = gongzhu.scoring.Outcome(sheet.final, any(sheet.full_hearts), any(sheet.slam))
    assert rules.scorer.outcome(facts) == outcome
    return outcome


def expressible(rules: gongzhu.Rules) -> bool:
    """Whether the ruleset's scoring is data alone: the compiled scorer, and only per-copy
    stages added."""
    scorer = rules.scorer
    return scorer.compiled is not None and all(
        isinstance(stage, CopyFactorMasks) for stage in scorer.mask_stages
    )


def play(rules: gongzhu.Rules, seed: int) -> Any:
    """An engine of the ruleset's fastest engine, played out at random from ``seed``, with
    its dealt masks."""
    deal, dealt = Deal.shuffled_with_masks(seed, rules.table.copies)
    lead = rules.opening_lead(deal)
    forced = 0 if lead.card is None else 1 << lead.card.index
    firsts = [deal.order[(seat - deal.first_seat) & 3].index for seat in range(SEATS)]
    engine = rules.make_engine(rules.engine_spec, dealt, lead.seat, forced, 0, firsts)
    engine.random_playout(random.Random(seed).random)
    return engine, dealt


@pytest.mark.parametrize("names", shipped_rulesets(), ids="+".join)
def test_the_engines_score_as_the_scorer(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    native = rules.scorer.native
    assert (native is not None) == expressible(rules)
    if native is None:
        return
    spec = rules.engine_spec
    assert spec.offers(Capability.SCORE)
    shown = 0
    for seed in range(40):
        engine, dealt = play(rules, seed)
        facts = facts_of(engine, dealt, rules.show_phase)
        shown += bool(facts.shows)
        raw, full_hearts, slam = spec.capable(engine, Capability.SCORE).score(native)
        outcome = gongzhu.scoring.Outcome(rules.scorer.normalise(raw), full_hearts, slam)
        assert outcome == reference(rules, facts) == native_outcome(rules, facts)
    if rules.show_kinds and rules.table.showable:
        assert shown  # the shows were scored too


def test_what_only_python_can_score_stays_in_python() -> None:
    for names in [("hearts-positive",), ("huapai", "hearts-positive")]:
        assert gongzhu.load_rules(*names).scorer.native is None
    # a stage with a hand-written mask form is not data
    handwritten = types.SimpleNamespace(
        gongzhu_variant_info=hookimpl(lambda: VariantInfo(name="hand", title="hand", summary="x")),
        gongzhu_score_stages=hookimpl(_add_handwritten),
    )
    rules = gongzhu.Rules.from_plugins(handwritten)
    assert rules.scorer.compiled is not None and rules.scorer.native is None
    # a per-copy stage whose function raises: the pipeline names the plug-in
    failing = plugin("failing", _failing)
    rules = gongzhu.Rules.from_plugins(failing)
    assert rules.scorer.native is None
    assert RandomHands(rules)._native is None


def _double_sheep(hand: MaskScoring) -> None:
    hand.multiply(SHEEP, 2)


def _add_handwritten(stages: StageList) -> None:
    stages.insert_after("values", ScoreStage("x", lambda ctx: None, _double_sheep))


def _failing(copy: TakenCopy, options: Options) -> CopyFactors | None:
    raise RuntimeError("no")


def _everything(copy: TakenCopy, options: Options) -> CopyFactors | None:
    """Every copy changed, by who took it, its show and whether it is its own."""
    shown = (
        0 if copy.shown is None else 1 + copy.shown.seat * 3 + list(ShowKind).index(copy.shown.kind)
    )
    return CopyFactors(own=2 + copy.seat + 5 * copy.own + shown, alone=3 + shown % 4)


EVERYTHING = plugin("everything", _everything, [PIG, SHEEP, TRANSFORMER, gongzhu.Card.parse("AH")])
LONELY = plugin("lonely", lonely_transformer)

STAGED = [
    gongzhu.Rules.from_plugins(OWN_SHEEP),
    gongzhu.Rules.from_plugins(gongzhu_variants.two_deck, OWN_SHEEP),
    gongzhu.Rules.from_plugins(EVERYTHING),
    gongzhu.Rules.from_plugins(gongzhu_variants.two_deck, EVERYTHING),
    gongzhu.Rules.from_plugins(gongzhu_variants.two_deck, LONELY),
    gongzhu.Rules.from_plugins(EVERYTHING, LONELY),
]


@pytest.mark.parametrize("rules", STAGED, ids=[str(i) for i in range(len(STAGED))])
def test_per_copy_stages_are_held_as_data(rules: gongzhu.Rules) -> None:
    assert rules.scorer.native is not None
    for seed in range(60):
        engine, dealt = play(rules, seed)
        facts = facts_of(engine, dealt, rules.show_phase)
        assert native_outcome(rules, facts) == reference(rules, facts)


@settings(max_examples=300, deadline=None)
@given(
    rules=st.sampled_from([gongzhu.load_rules(*names) for names in COMPILED] + STAGED),
    data=st.data(),
    dealt_known=st.booleans(),
)
def test_the_c_scorer_is_the_pipeline_on_any_facts(
    rules: gongzhu.Rules, data: st.DataObject, dealt_known: bool
) -> None:
    facts = draw_facts(data, rules)
    if not dealt_known:
        facts = facts._replace(dealt=None)
    assert native_outcome(rules, facts) == reference(rules, facts)


def test_slam_and_full_hearts() -> None:
    for rules in (gongzhu.load_rules(), gongzhu.load_rules("two-deck")):
        scoring = rules.table.scoring_mask
        hearts = gongzhu.Suit.HEARTS.mask
        hearts |= hearts << 52 if rules.table.copies == 2 else 0
        for taken in ((scoring, 0, 0, 0), (hearts, scoring & ~hearts, 0, 0)):
            facts = HandFacts(taken, None, (), ((),) * 4 if rules.table.copies == 2 else None)
            assert native_outcome(rules, facts) == reference(rules, facts)
            assert reference(rules, facts)[1]


def test_bad_data_and_input_raise() -> None:
    rules = gongzhu.load_rules()
    data = score_data(rules.table, rules.options, rules.scorer.stages)
    assert data is not None
    native = speedups.ScoreData(data)
    before = native.raw((0, 0, 0, 0), None, (), None)
    with pytest.raises(ValueError):
        speedups.ScoreData(data[:5])
    with pytest.raises(ValueError):
        speedups.ScoreData((3, *data[1:]))
    with pytest.raises(ValueError):
        speedups.ScoreData((*data[:2], (1 << 40,) * 13, *data[3:]))
    with pytest.raises(TypeError):
        speedups.ScoreData(list(data))
    with pytest.raises(ValueError):  # a bad re-init leaves the data as it was
        native.__init__((*data[:4], 13, *data[5:]))  # the pig a heart
    assert native.raw((0, 0, 0, 0), None, (), None) == before
    with pytest.raises(ValueError):
        native.raw((1 << 52, 0, 0, 0), None, (), None)  # a second copy, one deck
    with pytest.raises(ValueError):
        native.raw((0, 0, 0, 0), None, ((4, 0, 0),), None)
    with pytest.raises(TypeError):
        native.raw((0, 0, 0, 0), None, ((0, 0),), None)
    with pytest.raises(ValueError):
        speedups.ScoreData.__new__(speedups.ScoreData).raw((0, 0, 0, 0), None, (), None)
    engine, _dealt = play(rules, 1)
    with pytest.raises(TypeError):
        engine.score(data)
    with pytest.raises(ValueError):
        engine.score(gongzhu.load_rules("two-deck").scorer.native)


def _huge(copy: TakenCopy, options: Options) -> CopyFactors | None:
    return CopyFactors(own=1 << 24)


def test_a_score_that_could_leave_64_bits_is_left_to_python() -> None:
    rules = gongzhu.Rules.from_plugins(gongzhu_variants.two_deck, plugin("huge", _huge))
    assert rules.scorer.compiled is not None and rules.scorer.native is None
    hands = RandomHands(rules)
    assert hands._lead is None
    slow = [hands.outcome(seed, random.Random(seed).random) for seed in range(5)]
    assert slow  # scored in Python
    # the interpreter checks its arithmetic all the same: such data raises, never wraps
    plain = gongzhu.load_rules("two-deck")
    data = score_data(plain.table, plain.options, plain.scorer.stages)
    assert data is not None
    effects = tuple(
        (seat, card.index, 0, own, 1 << 24, 1)
        for seat in range(4)
        for card in (PIG, SHEEP, TRANSFORMER)
        for own in (0, 1)
    )
    native = speedups.ScoreData((*data[:8], PIG.bit | SHEEP.bit | TRANSFORMER.bit, effects, 1))
    scoring = rules.table.scoring_mask
    with pytest.raises(OverflowError):
        native.raw((scoring, 0, 0, 0), (scoring, 0, 0, 0), (), None)


# -- whole hands in C: RandomHands.outcomes and simulate ------------------------------------


@pytest.mark.parametrize("names", shipped_rulesets(), ids="+".join)
def test_outcomes_are_outcome_hand_after_hand(
    names: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gongzhu.bulk, "CHUNK", 7)  # chunks end inside the run
    rules = gongzhu.load_rules(*names)
    hands = RandomHands(rules)
    assert (hands._lead is not None) == (rules.scorer.native is not None)
    fast, slow = random.Random(3), random.Random(3)
    outcomes = list(hands.outcomes(30, lambda: fast.getrandbits(63), fast.random))
    assert outcomes == [hands.outcome(slow.getrandbits(63), slow.random) for _ in range(30)]
    assert fast.random() == slow.random()  # the same draws, no more
    seeds = [fast.getrandbits(63) for _ in range(20)]
    assert list(hands.seeded_outcomes(seeds)) == [
        hands.outcome(seed, random.Random(seed).random) for seed in seeds
    ]


def _python_lead(deal: Deal) -> OpeningLead:
    return OpeningLead(deal.first_receiver(PIG))


def test_a_plain_opening_lead_is_asked_per_hand() -> None:
    plain = types.SimpleNamespace(
        gongzhu_variant_info=hookimpl(lambda: VariantInfo(name="lead", title="l", summary="x")),
        gongzhu_opening_lead=hookimpl(_python_lead),
    )
    rules = gongzhu.Rules.from_plugins(plain)
    assert rules.compiled.lead_rule is None and rules.scorer.native is not None
    hands = RandomHands(rules)
    assert hands._lead is None
    rng = random.Random(1)
    assert len(list(hands.outcomes(3, lambda: rng.getrandbits(63), rng.random))) == 3
    assert gongzhu.load_rules("huapai").compiled.lead_rule == LeadRule(gongzhu.Card.parse("3S"))


def test_lead_rules_lead_as_their_functions() -> None:
    for seed in range(20):
        deal = Deal.shuffled(seed)
        for rule in (LeadRule(), LeadRule(PIG), LeadRule(PIG, forced=True)):
            lead = opening_lead_rule(rule)(deal)
            assert lead == rule.lead(deal)
            assert lead.seat == (0 if rule.card is None else deal.first_receiver(PIG))
            assert lead.card == (PIG if rule.forced else None)
    assert lead_rule_of(_python_lead) is None and lead_rule_of(len) is None


def test_random_hands_rejects_bad_input() -> None:
    rules = gongzhu.load_rules()
    engine, _dealt = play(rules, 1)
    native = rules.scorer.native
    digest = gongzhu.deal.seed_digest(1, 52)
    draw = random.Random(1).random
    with pytest.raises(ValueError, match="416 bytes"):
        engine.random_hands(native, 1, lambda: digest[:-1], draw, (-1, 0))
    with pytest.raises(ValueError):
        engine.random_hands(native, 1, lambda: digest, draw, (52, 0))
    with pytest.raises(ValueError):
        engine.random_hands(native, 1, lambda: digest, draw, (-1, 1))
    with pytest.raises(ValueError):
        engine.random_hands(native, -1, lambda: digest, draw, (-1, 0))
    with pytest.raises(TypeError):
        engine.random_hands(native, 1, None, draw, (-1, 0))
    with pytest.raises(ValueError):
        engine.random_hands(
            gongzhu.load_rules("two-deck").scorer.native, 1, lambda: digest, draw, (-1, 0)
        )
    with pytest.raises(ValueError, match="random"):
        engine.random_hands(native, 1, lambda: digest, lambda: 1.0, (-1, 0))
    with pytest.raises(ZeroDivisionError):
        engine.random_hands(native, 1, lambda: 1 // 0, draw, (-1, 0))
    with pytest.raises(TypeError, match="without a random"):
        engine.random_hands(native, 1, lambda: digest, None, (-1, 0))
    with pytest.raises(TypeError, match="without a random"):
        engine.random_hands(native, 1, lambda: (digest, 3), draw, (-1, 0))
    with pytest.raises(TypeError):
        engine.random_hands(native, 1, lambda: digest, 3, (-1, 0))
    own = engine.random_hands(native, 1, lambda: (digest, random.Random(4).random), None, (-1, 0))
    assert own == engine.random_hands(native, 1, lambda: digest, random.Random(4).random, (-1, 0))
    assert engine.random_hands(native, 0, lambda: digest, draw, (-1, 0)) == []
    ((raw, _full, _slam),) = engine.random_hands(native, 1, lambda: digest, draw, (-1, 0))
    assert len(raw) == 4
