"""Per-copy stages (ScoreStage.copy_factor): one definition for one deck and two, for the
pipeline and the compiled scorer; and which copy a seat owns (TakenCopy.own)."""

from __future__ import annotations

import random
import types
from collections.abc import Callable, Iterable
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu_variants.two_deck
from gongzhu import PIG, SHEEP, TRANSFORMER, Card, ShowKind
from gongzhu.plugin import Options, OptionSet, VariantInfo, hookimpl
from gongzhu.scoring import (
    CompiledScorer,
    CopyFactors,
    HandFacts,
    ScoreStage,
    ShowRecord,
    StageList,
    TakenCopy,
    seat_copies,
)
from gongzhu.scoring.copies import copy_owners

from .test_scoring_facts import assert_scored_alike, draw_facts

Factor = Callable[[TakenCopy, Options], CopyFactors | None]


def plugin(
    name: str, factor: Factor, cards: Iterable[Card] | None = None, *, label: str | None = None
) -> types.SimpleNamespace:
    """A modifier whose one stage, right after ``values``, is ``copy_factor(factor)``."""

    @hookimpl
    def gongzhu_variant_info() -> VariantInfo:
        return VariantInfo(name=name, title=name, summary="a per-copy stage")

    @hookimpl
    def gongzhu_score_stages(stages: StageList) -> None:
        stage = ScoreStage.copy_factor(name, factor, label=label or name, cards=cards)
        stages.insert_after("values", stage)

    return types.SimpleNamespace(
        gongzhu_variant_info=gongzhu_variant_info, gongzhu_score_stages=gongzhu_score_stages
    )


def rulesets(extra: types.SimpleNamespace) -> list[gongzhu.Rules]:
    """``extra`` with the default base, one deck and two."""
    return [
        gongzhu.Rules.from_plugins(extra),
        gongzhu.Rules.from_plugins(gongzhu_variants.two_deck, extra),
    ]


def own_sheep(copy: TakenCopy, options: Options) -> CopyFactors | None:
    """A sheep its taker was dealt counts ×3."""
    return CopyFactors(own=3) if copy.own and copy.card == SHEEP else None


def lonely_transformer(copy: TakenCopy, options: Options) -> CopyFactors | None:
    """A transformer its taker was dealt is worth ×3 alone (its multiplier unchanged)."""
    return CopyFactors(alone=3) if copy.own and copy.card == TRANSFORMER else None


OWN_SHEEP = plugin("own-sheep", own_sheep, [SHEEP], label="own sheep")
LONELY = plugin("lonely-transformer", lonely_transformer, label="lonely")


# -- a stage that triples the sheep its taker was dealt ------------------------------------


def test_own_sheep_with_one_deck() -> None:
    rules = gongzhu.Rules.from_plugins(OWN_SHEEP)
    assert rules.scorer.compiled is not None  # the stage has its mask form
    sheet = rules.score({0: "JD QS"}, dealt={0: "JD"})
    assert sheet.raw[0] == 300 - 100
    assert sheet.explain(0)[:3] == [
        "pig ♠Q −100",
        "sheep ♦J +100",
        "own sheep ♦J: now +300 (+100 ×3)",
    ]
    assert rules.score({0: "JD"}, dealt={1: "JD"}).raw[0] == 100  # not its own
    assert rules.score({0: "JD"}, shown={0: "JD"}, dealt={0: "JD"}).raw[0] == 600
    assert rules.score({3: "JD"}, shown={0: "JD"}, dealt={0: "JD"}).raw[3] == 200
    assert rules.score({0: "JD"}).raw[0] == 100  # the deal unknown: nobody's own


def test_own_sheep_with_two_decks() -> None:
    rules = gongzhu.Rules.from_plugins(gongzhu_variants.two_deck, OWN_SHEEP)
    assert rules.scorer.compiled is not None
    sheet = rules.score({0: "JD JD"}, dealt={0: "JD", 1: "JD"})
    assert sheet.raw[0] == 300 + 100  # one of the two copies is its own
    assert "own sheep ♦J (unshown copy): now +300 (+100 ×3)" in sheet.explain(0)
    # its own shown copy (×2 ×3) and seat 1's unshown one
    shown = rules.score(
        {0: "JD JD"}, shown={0: "JD"}, dealt={0: "JD", 1: "JD"}, shown_taken={0: "JD"}
    )
    assert shown.raw[0] == 600 + 100
    assert "own sheep ♦J (shown copy): now +600 (+200 ×3)" in shown.explain(0)
    # seat 1 took seat 0's shown copy: not its own, though seat 1 was dealt a ♦J
    other = rules.score({1: "JD"}, shown={0: "JD"}, dealt={0: "JD", 1: "JD"}, shown_taken={1: "JD"})
    assert other.raw[1] == 200


@pytest.mark.parametrize("extra", [OWN_SHEEP, LONELY], ids=["own-sheep", "lonely"])
def test_a_copy_stage_keeps_the_compiled_scorer_equal_to_the_pipeline(
    extra: types.SimpleNamespace,
) -> None:
    for rules in rulesets(extra):
        assert rules.scorer.compiled is not None
        for seed in range(40):
            hand = rules.new_hand(seed)
            hand.play_out(random.Random(seed).random)
            assert_scored_alike(rules.scorer, hand.facts())


# -- a stage that changes only the transformer's alone-value --------------------------------


def test_lonely_transformer_with_one_deck() -> None:
    rules = gongzhu.Rules.from_plugins(LONELY)
    assert rules.score({0: "TC"}, dealt={0: "TC"}).raw[0] == 150
    assert rules.score({0: "TC"}, shown={0: "TC"}, dealt={0: "TC"}).raw[0] == 300
    assert rules.score({0: "TC"}, dealt={1: "TC"}).raw[0] == 50
    sheet = rules.score({0: "TC QS"}, dealt={0: "TC"})
    assert sheet.raw[0] == -200  # the multiplier is unchanged
    assert "lonely ♣10: multiplier ×2, alone +150" in sheet.explain(0)


def test_lonely_transformer_with_two_decks() -> None:
    rules = gongzhu.Rules.from_plugins(gongzhu_variants.two_deck, LONELY)
    assert rules.score({0: "TC TC"}, dealt={0: "TC TC"}).raw[0] == 150 + 150
    assert rules.score({0: "TC TC"}, dealt={0: "TC", 1: "TC"}).raw[0] == 150 + 50
    assert rules.score({0: "TC TC QS"}, dealt={0: "TC TC"}).raw[0] == -400
    sheet = rules.score(
        {0: "TC TC"}, shown={1: "TC"}, dealt={0: "TC", 1: "TC"}, shown_taken={0: "TC"}
    )
    assert sheet.raw[0] == 100 + 150  # seat 1's shown copy, its own unshown one ×3
    assert sheet.explain(0)[:2] == [
        "transformer ♣10 ×8 (shown)",
        "lonely ♣10 (unshown copy): multiplier ×8, alone +250",
    ]


# -- any factors: the compiled form is the pipeline's ---------------------------------------

FACTORS = st.sampled_from([CopyFactors(), CopyFactors(own=2), CopyFactors(own=-3, alone=2),
                           CopyFactors(alone=5), CopyFactors(own=0), None])  # fmt: skip
CONCERNED = [PIG, SHEEP, TRANSFORMER, gongzhu.HEART_ACE, Card.parse("JH")]


@settings(max_examples=150, deadline=None)
@given(two_decks=st.booleans(), data=st.data())
def test_any_copy_factors_score_alike(two_decks: bool, data: st.DataObject) -> None:
    """A stage whose answer is any function of (card, show, own), on any facts."""
    keys = [
        (card, kind, own)
        for card in CONCERNED
        for kind in (None, *ShowKind)
        for own in (False, True)
    ]
    answers = data.draw(st.fixed_dictionaries(dict.fromkeys(keys, FACTORS)))

    def drawn(copy: TakenCopy, options: Options) -> CopyFactors | None:
        kind = None if copy.shown is None else copy.shown.kind
        return answers[copy.card, kind, copy.own]

    extra = plugin("drawn", drawn, CONCERNED)
    rules = rulesets(extra)[two_decks]
    assert rules.scorer.compiled is not None
    assert_scored_alike(rules.scorer, draw_facts(data, rules))


def test_copy_factor_stages_fit_the_compiled_scorer_with_two_decks() -> None:
    stages = gongzhu.scoring.core_stages()
    stages.insert_after("values", ScoreStage.copy_factor("x", own_sheep, label="x"))
    assert CompiledScorer.fits(stages, 1) and CompiledScorer.fits(stages, 2)
    late = gongzhu.scoring.core_stages()
    late.insert_after("slam", ScoreStage.copy_factor("x", own_sheep, label="x"))
    assert not CompiledScorer.fits(late, 1)  # after full-hearts: only the pipeline


def test_answers_are_kept_per_options() -> None:
    """One stage object in two rulesets with different options: each gets its own answers
    (the compiled form keeps the answers of the last options it scored under)."""

    def by_option(copy: TakenCopy, options: Options) -> CopyFactors | None:
        return CopyFactors(own=options["sheep_factor"]) if copy.card == SHEEP else None

    shared = ScoreStage.copy_factor("by-option", by_option, label="x", cards=[SHEEP])

    class Shared:
        @hookimpl
        def gongzhu_variant_info(self) -> VariantInfo:
            return VariantInfo(name="shared", title="shared", summary="a shared stage")

        @hookimpl
        def gongzhu_add_options(self, options: OptionSet) -> None:
            options.add("sheep_factor", 1, "The sheep's factor.")

        @hookimpl
        def gongzhu_score_stages(self, stages: StageList) -> None:
            stages.insert_after("values", shared)

    three = gongzhu.Rules.from_plugins(Shared(), sheep_factor=3)
    five = gongzhu.Rules.from_plugins(Shared(), sheep_factor=5)
    facts = HandFacts((SHEEP.bit, 0, 0, 0), (0, 0, 0, 0), ())
    for _ in range(2):
        assert three.scorer.raw(facts)[0] == 300
        assert five.scorer.raw(facts)[0] == 500


# -- which copy is a seat's own -------------------------------------------------------------

S0_OPEN = ShowRecord(0, PIG, ShowKind.OPEN)
S1_OPEN = ShowRecord(1, PIG, ShowKind.OPEN)
S1_FIRST = ShowRecord(1, PIG, ShowKind.FIRST)


@pytest.mark.parametrize(
    ("count", "shown", "dealt", "showed", "owners"),
    [
        # unshown copies are interchangeable: min(unshown taken, dealt and not shown)
        (2, [], 2, 0, [(None, True), (None, True)]),
        (2, [], 1, 0, [(None, True), (None, False)]),
        (1, [], 2, 0, [(None, True)]),
        (2, [], 2, 1, [(None, True), (None, False)]),  # it showed one: one unshown is its
        (1, [], 1, 1, [(None, False)]),  # its only copy was shown, and someone else took it
        (2, [], 0, 0, [(None, False), (None, False)]),
        # a shown copy is its own only for the seat that showed it; shown copies come first
        (2, [S0_OPEN], 1, 1, [(S0_OPEN, True), (None, False)]),
        (2, [S0_OPEN], 2, 1, [(S0_OPEN, True), (None, True)]),
        (2, [S1_OPEN], 1, 0, [(S1_OPEN, False), (None, True)]),
        (2, [S1_FIRST, S0_OPEN], 1, 1, [(S1_FIRST, False), (S0_OPEN, True)]),
        (1, [S1_OPEN, S0_OPEN], 2, 1, [(S1_OPEN, False)]),  # more shown than taken: cut
        # the deal unknown: nobody's own
        (2, [S0_OPEN], None, 1, [(S0_OPEN, False), (None, False)]),
    ],
)
def test_which_copies_are_the_seats_own(
    count: int,
    shown: list[ShowRecord],
    dealt: int | None,
    showed: int,
    owners: list[tuple[ShowRecord | None, bool]],
) -> None:
    assert copy_owners(0, count, shown, dealt, showed) == owners
    copies = seat_copies(0, PIG, count, shown, dealt, showed)
    assert copies == [TakenCopy(0, PIG, record, own) for record, own in owners]


def asked_copies(rules_of: Callable[..., gongzhu.Rules], facts: HandFacts) -> list[TakenCopy]:
    """The copies a stage is asked about when the pipeline scores ``facts``."""
    asked: list[TakenCopy] = []

    def recording(copy: TakenCopy, options: Options) -> None:
        asked.append(copy)

    rules_of(plugin("recording", recording)).scorer.pipeline_sheet(facts)
    return asked


def test_the_copies_asked_about_with_two_decks() -> None:
    """Seat 0 took seat 1's shown ♠Q and its own unshown one; seat 2 took nothing."""
    facts = HandFacts(
        (PIG.bit | PIG.bit << 52, 0, 0, 0),
        (PIG.bit, PIG.bit, 0, 0),
        (S1_OPEN,),
        [[S1_OPEN], [], [], []],
    )
    asked = asked_copies(partial(gongzhu.Rules.from_plugins, gongzhu_variants.two_deck), facts)
    assert asked == [TakenCopy(0, PIG, S1_OPEN, False), TakenCopy(0, PIG, None, True)]


def test_the_copies_asked_about_with_one_deck() -> None:
    """With one deck a copy's show is the card's, whoever took it."""
    facts = HandFacts(
        (0, TRANSFORMER.bit, 0, PIG.bit | SHEEP.bit), (PIG.bit, 0, 0, SHEEP.bit), (S0_OPEN,)
    )
    asked = asked_copies(gongzhu.Rules.from_plugins, facts)
    assert asked == [
        TakenCopy(1, TRANSFORMER, None, False),
        TakenCopy(3, PIG, S0_OPEN, False),
        TakenCopy(3, SHEEP, None, True),
    ]
