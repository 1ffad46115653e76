"""华牌 with two decks: 自得 (self-capture) copy by copy, and its compiled form.

The reading (docs/rules.rst): a shown copy is identifiable, so it is
self-captured only when the seat that showed it takes it; unshown copies are
interchangeable, so a seat self-captures min(unshown copies of the card it was
dealt, unshown copies of it it took).  Each self-captured copy doubles only
itself: its value; for ♥A the ♥A card alone; for ♣10 its multiplier and its
own alone-value (``zide_transformer``).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.scoring.scorer
from gongzhu import Phase
from gongzhu.bulk import RandomHands
from gongzhu.scoring import (
    CompiledScorer,
    HandFacts,
    MaskScoring,
    Scorer,
    ScoreStage,
    ShowRecord,
    core_stages,
)

from .conftest import BOTH_ENGINES


@pytest.fixture(scope="module")
def rules() -> gongzhu.Rules:
    return gongzhu.load_rules("huapai", "two-deck")


# -- ♣10: each self-captured copy doubles its own alone-value -----------------------------


@pytest.mark.parametrize(
    ("option", "own_two", "own_and_other"),
    [("both", 200, 150), ("alone", 200, 150), ("none", 100, 100)],
)
def test_self_captured_transformers_alone(option: str, own_two: int, own_and_other: int) -> None:
    rules = gongzhu.load_rules("huapai", "two-deck", zide_transformer=option)
    # its own two ♣10s: 100 + 100 (not the whole alone-sum doubled per copy: 400)
    assert rules.score({0: "TC TC"}, dealt={0: "TC TC"}).raw[0] == own_two
    # its own ♣10 and seat 1's: 100 + 50 (not 200)
    assert rules.score({0: "TC TC"}, dealt={0: "TC", 1: "TC"}).raw[0] == own_and_other


@pytest.mark.parametrize(("option", "raw"), [("both", -800), ("alone", -400), ("none", -400)])
def test_self_captured_transformer_multiplies_only_its_own_copy(option: str, raw: int) -> None:
    rules = gongzhu.load_rules("huapai", "two-deck", zide_transformer=option)
    sheet = rules.score({0: "TC TC QS"}, dealt={0: "TC", 1: "TC", 2: "QS"})
    assert sheet.raw[0] == raw  # −100 × 2 (seat 1's) × 2 (its own) × 2 (自得, "both")


def test_self_captured_transformer_lines(rules: gongzhu.Rules) -> None:
    sheet = rules.score({0: "TC TC"}, dealt={0: "TC", 1: "TC"})
    assert sheet.explain(0) == [
        "transformer ♣10 ×4",
        "自得 self-capture ♣10 (unshown copy): multiplier ×8, alone +150",
        "transformer alone: +150",
        "raw +150",
    ]


def test_a_shown_self_captured_transformer_doubles_its_own_shown_value(
    rules: gongzhu.Rules,
) -> None:
    sheet = rules.score(
        {0: "TC TC"}, shown={0: "TC"}, dealt={0: "TC", 1: "TC"}, shown_taken={0: "TC"}
    )
    assert sheet.raw[0] == 200 + 50  # its shown copy 100 ×2; seat 1's unshown copy 50


# -- which copy is the seat's own ---------------------------------------------------------


def test_a_shown_copy_is_self_captured_only_by_the_seat_that_showed_it(
    rules: gongzhu.Rules,
) -> None:
    """Seat 0 showed its ♠Q and seat 3 took it; seat 0 took seat 3's unshown ♠Q."""
    sheet = rules.score(
        {0: "QS", 3: "QS"}, shown={0: "QS"}, dealt={0: "QS", 3: "QS"}, shown_taken={3: "QS"}
    )
    assert sheet.raw == (-100, 0, 0, -200)  # no 自得: a plain pig, a shown pig
    assert not any("自得" in line for lines in sheet.lines for line in lines)


def test_an_unshown_copy_is_not_the_seats_shown_one(rules: gongzhu.Rules) -> None:
    """Seat 0 took its own unshown ♠Q and seat 1's shown ♠Q: only the first doubles."""
    sheet = rules.score(
        {0: "QS QS"}, shown={1: "QS"}, dealt={0: "QS", 1: "QS"}, shown_taken={0: "QS"}
    )
    assert sheet.raw[0] == -200 + -200  # not −500 (the shown copy doubled)
    assert sheet.explain(0) == [
        "pig ♠Q −100 ×2 (shown)",
        "pig ♠Q −100",
        "自得 self-capture ♠Q (unshown copy): now −200 (−100 ×2)",
        "raw −400",
    ]


@pytest.mark.parametrize(
    ("shown", "raw"),
    [
        ({}, 400),  # both its unshown sheep taken back: 200 + 200
        ({0: "JD"}, 600),  # one shown: 200 ×2, the other 100 ×2
        ({0: "JD JD"}, 800),
    ],
)
def test_both_copies_dealt_and_taken_back(rules: gongzhu.Rules, shown: dict, raw: int) -> None:
    assert rules.score({0: "JD JD"}, shown=shown, dealt={0: "JD JD"}).raw[0] == raw


def test_more_copies_taken_than_dealt_unshown(rules: gongzhu.Rules) -> None:
    """Seat 0 was dealt one ♦J and took both (unshown): one copy is its own."""
    assert rules.score({0: "JD JD"}, dealt={0: "JD", 2: "JD"}).raw[0] == 200 + 100


def test_a_shown_heart_ace_self_captured(rules: gongzhu.Rules) -> None:
    """A shown ♥A doubles every heart; taken back by the seat that showed it, the ♥A
    card itself doubles again (and only that copy)."""
    dealt = {0: "AH", 1: "AH"}
    own = rules.score({0: "AH KH"}, shown={0: "AH"}, dealt=dealt, shown_taken={0: "AH"})
    assert own.raw[0] == -100 * 2 + -80  # ♥A −50 ×2 ×2, ♥K −40 ×2
    both = rules.score({0: "AH AH KH"}, shown={0: "AH"}, dealt=dealt, shown_taken={0: "AH"})
    assert both.raw[0] == -200 + -100 + -80  # seat 1's unshown ♥A is not seat 0's
    other = rules.score({1: "AH KH"}, shown={0: "AH"}, dealt=dealt, shown_taken={1: "AH"})
    assert other.raw[1] == -100 + -80  # seat 0's shown ♥A taken by seat 1: no 自得


def test_two_shown_heart_aces_with_full_hearts(rules: gongzhu.Rules) -> None:
    """Both ♥A shown (every heart ×4), all 26 hearts to seat 0, which showed one ♥A."""
    hearts = "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H"
    sheet = rules.score(
        {0: f"{hearts} {hearts}"},
        shown={0: "AH", 1: "AH"},
        dealt={0: "AH", 1: "AH"},
        shown_taken={0: "AH AH"},
    )
    assert sheet.full_hearts[0]
    assert sheet.raw[0] == -(-400 * 4 + -50 * 4)  # 满红 turns the sign of the doubled ♥A too


@pytest.mark.parametrize(
    ("taken", "dealt", "raw"),
    [
        ("JD", {0: "JD", 2: "JD"}, 800),  # its 首明 copy back: +100 ×4 ×2
        ("JD JD", {0: "JD", 2: "JD"}, 900),  # and seat 2's unshown copy: +100
        ("JD JD", {0: "JD JD"}, 1000),  # and its own unshown second copy: +200
    ],
)
def test_first_shown_copy_self_captured(
    rules: gongzhu.Rules, taken: str, dealt: dict, raw: int
) -> None:
    sheet = rules.score({0: taken}, first_shown={0: "JD"}, dealt=dealt, shown_taken={0: "JD"})
    assert sheet.raw[0] == raw


def test_one_deck_is_unchanged() -> None:
    rules = gongzhu.load_rules("huapai")
    assert rules.score({0: "TC"}, dealt={0: "TC"}).raw[0] == 100
    assert rules.score({0: "QS"}, shown={0: "QS"}, dealt={0: "QS"}).raw[0] == -400
    assert rules.score({3: "QS"}, shown={0: "QS"}, dealt={0: "QS"}).raw[3] == -200


# -- the compiled scorer: 自得's mask stage, per copy -------------------------------------

VARIANTS = [
    (("huapai", "two-deck"), {}),
    (("huapai", "two-deck"), {"zide_transformer": "alone"}),
    (("huapai", "two-deck"), {"zide_transformer": "none"}),
    (("huapai", "two-deck", "anmai"), {}),
    (("huapai", "two-deck", "heart-three"), {}),
]


def played(rules: gongzhu.Rules, seed: int, rng: random.Random) -> gongzhu.HandState:
    """A random hand whose shows are made often (shown copies make 自得 a question)."""
    hand = rules.new_hand(seed)
    while hand.phase is not Phase.PLAY:
        legal = hand.legal_actions()
        hand.apply(legal[-1] if rng.random() < 0.5 else rng.choice(legal))
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


@BOTH_ENGINES
@settings(max_examples=300, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**63 - 1),
    rng=st.randoms(use_true_random=False),
)
def test_the_compiled_scorer_is_the_pipeline(
    variant: tuple[tuple[str, ...], dict[str, str]], seed: int, rng: random.Random
) -> None:
    names, options = variant
    rules = gongzhu.load_rules(*names, **options)
    assert rules.scorer.compiled is not None
    hand = played(rules, seed, rng)
    sheet = rules.scorer.pipeline_sheet(hand.facts())  # the pipeline's sheet
    assert hand.raw_scores() == sheet.raw
    assert hand.returns() == sheet.final
    assert hand.score() == sheet  # the compiled numbers, the pipeline's lines
    assert hand.outcome() == (sheet.final, any(sheet.full_hearts), any(sheet.slam))


@BOTH_ENGINES
@pytest.mark.parametrize("variant", VARIANTS[:2] + VARIANTS[3:4])
def test_the_bulk_path_is_the_pipeline(variant: tuple[tuple[str, ...], dict[str, str]]) -> None:
    names, options = variant
    rules = gongzhu.load_rules(*names, **options)
    hands = RandomHands(rules)
    for seed in range(40):
        outcome = hands.outcome(seed, random.Random(seed).random)
        hand = rules.new_hand(seed)
        hand.play_out(random.Random(seed).random)
        sheet = rules.scorer.pipeline_sheet(hand.facts())
        assert outcome == (sheet.final, any(sheet.full_hearts), any(sheet.slam))


def test_the_compiled_path_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = gongzhu.load_rules("huapai", "two-deck")
    assert rules.scorer.compiled is not None and rules.compiled_scorer is not None
    hands = [played(rules, seed, random.Random(seed)) for seed in range(5)]
    expected = [rules.scorer.pipeline_sheet(hand.facts()) for hand in hands]
    calls: list[int] = []
    real = CompiledScorer.raw_copies

    def counting(self: CompiledScorer, *args: Any) -> tuple[int, ...]:
        calls.append(1)
        return real(self, *args)

    def no_pipeline(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("scored through the pipeline")

    monkeypatch.setattr(CompiledScorer, "raw_copies", counting)
    monkeypatch.setattr(gongzhu.scoring.scorer, "run_pipeline", no_pipeline)
    for hand, sheet in zip(hands, expected, strict=True):
        assert hand.returns() == sheet.final
        assert hand.score().final == sheet.final
        assert hand.outcome().final == sheet.final
    summary = gongzhu.simulate(rules, 20, seed=3)
    assert summary.hands == 20
    # bulk play scores from the compiled score data in C when it is built (no pipeline)
    in_python = 20 if rules.scorer.native is None else 0
    assert len(calls) == 3 * len(hands) + in_python


def test_a_mask_stage_must_say_it_handles_two_decks() -> None:
    """A mask stage written for one deck keeps a two-deck ruleset on the pipeline."""
    stages = core_stages()
    stages.insert_after("values", ScoreStage("mine", lambda ctx: None, lambda hand: None))
    assert CompiledScorer.fits(stages, 1)
    assert not CompiledScorer.fits(stages, 2)
    both = core_stages()
    both.insert_after(
        "values", ScoreStage("mine", lambda ctx: None, lambda hand: None, two_decks=True)
    )
    assert CompiledScorer.fits(both, 2)


@pytest.mark.parametrize("field", ["own", "alone"])
def test_a_two_deck_mask_stage_that_writes_one_deck_fields_is_refused(
    rules: gongzhu.Rules, field: str
) -> None:
    """own and alone are one deck's: a two-deck stage writing them would be ignored."""

    def one_deck_only(hand: MaskScoring) -> None:
        if field == "own":
            hand.multiply(gongzhu.PIG, 2)
        else:
            hand.alone *= 2

    stages = core_stages()
    stages.insert_after(
        "values", ScoreStage("mine", lambda ctx: None, one_deck_only, two_decks=True)
    )
    scorer = Scorer(rules.table, rules.options, stages, rules.scorer.normalise, "")
    pig = gongzhu.PIG.bit
    with pytest.raises(gongzhu.errors.IncompatibleVariants, match=r"one deck only"):
        scorer.raw(HandFacts((pig, 0, 0, 0), (pig, 0, 0, 0), (), None))


def test_mask_scoring_stays_backward_compatible() -> None:
    rules = gongzhu.load_rules("huapai")
    hand = MaskScoring(rules.table, rules.options, [0] * 4, [0] * 4, {})
    hand.multiply(gongzhu.PIG, 2)
    assert hand.own == {gongzhu.PIG.bit: 2} and hand.alone == 1
    assert hand.shows == () and hand.shown_taken == () and hand.copy_own == [{}, {}, {}, {}]
    hand.multiply_copy(1, gongzhu.PIG, 1, 2)
    assert hand.copy_own[1] == {gongzhu.PIG.bit << 52: 2}


def test_the_mask_stage_numbers_copies_as_the_scorer() -> None:
    """Seat 0 took seat 1's shown ♠Q (its copy 0) and its own unshown one (copy 1)."""
    rules = gongzhu.load_rules("huapai", "two-deck")
    pig = gongzhu.PIG
    record = ShowRecord(1, pig, gongzhu.ShowKind.OPEN)
    taken = [pig.bit | pig.bit << 52, 0, 0, 0]
    dealt = [pig.bit, pig.bit, 0, 0]
    scorer = rules.scorer
    assert scorer.raw(HandFacts(taken, dealt, (record,), [[record], [], [], []])) == (-400, 0, 0, 0)
    hand = MaskScoring(
        rules.table, rules.options, taken, dealt, {}, shows=[record], shown_taken=[[record]] * 4
    )
    for stage in scorer.mask_stages:
        stage(hand)
    assert hand.copy_own[0] == {pig.bit << 52: 2}  # copy 1: the unshown one


def test_huge_copy_factors_are_exact() -> None:
    """The two-deck compiled scorer works in Python integers: no factor is too large, and
    what is not a copy bit of the seat is left alone."""
    rules = gongzhu.load_rules("huapai", "two-deck")
    scorer = rules.compiled_scorer
    assert scorer is not None
    pig = gongzhu.PIG
    taken = [pig.bit | pig.bit << 52 | gongzhu.TRANSFORMER.bit, 0, 0, 0]
    cases: list[tuple[dict[Any, Any], int]] = [
        ({pig.bit: 2**63}, -100 * (2**63 + 1) * 2),  # more than 64 bits
        ({pig.bit: 2**62, pig.bit << 52: 2**62}, -100 * 2**63 * 2),  # a sum beyond 64 bits
        ({3: 2}, -400),  # keys that are not a copy bit
        ({1 << 110: 2}, -400),
        ({1 << 52 | 1 << 60: 2}, -400),
        ({True: 2}, -400),
    ]
    for own, raw in cases:
        copy_own: list[dict[Any, Any]] = [own, {}, {}, {}]
        assert scorer.raw_copies(taken, (), [[], [], [], []], copy_own)[0] == raw


# -- scoring by hand: which shown copy a seat took ------------------------------------------

PIG_SHOWS: dict[str, Any] = {  # seat 0 first-showed a ♠Q, seat 1 showed the other openly
    "shown": {1: "QS"},
    "first_shown": {0: "QS"},
    "dealt": {0: "QS", 1: "QS"},
}
FIRST = ShowRecord(0, gongzhu.PIG, gongzhu.ShowKind.FIRST)
OPEN = ShowRecord(1, gongzhu.PIG, gongzhu.ShowKind.OPEN)
NEVER = ShowRecord(2, gongzhu.PIG, gongzhu.ShowKind.OPEN)  # not among the shows


@pytest.mark.parametrize("order", [(0, 2), (2, 0)])
def test_a_card_that_does_not_say_which_shown_copy_is_refused(
    rules: gongzhu.Rules, order: tuple[int, int]
) -> None:
    """Two ♠Q shown differently: "seat 0 took a shown ♠Q" does not say which, and the
    answer matters (自得, ×4 or ×2), in whatever order the seats are given."""
    with pytest.raises(gongzhu.errors.InvalidScoreInput, match=r"shown copies of QS differ"):
        rules.score({0: "QS", 2: "QS"}, shown_taken=dict.fromkeys(order, "QS"), **PIG_SHOWS)


@pytest.mark.parametrize(
    "shown_taken",
    [{0: [FIRST], 2: [OPEN]}, {2: [OPEN], 0: [FIRST]}, {2: [OPEN], 0: "QS"}, {0: "QS", 2: [OPEN]}],
)
def test_a_show_record_names_the_copy(rules: gongzhu.Rules, shown_taken: dict) -> None:
    """Seat 0 took its own 首明 ♠Q back (−100 ×4 ×2), seat 2 seat 1's open one (×2); a card
    names the copy left once the others are named."""
    sheet = rules.score({0: "QS", 2: "QS"}, shown_taken=shown_taken, **PIG_SHOWS)
    assert sheet.raw == (-800, 0, -200, 0)
    assert sheet.lines[0][0] == "pig ♠Q −100 ×4 (first-shown 首明)"  # this copy's own show


def test_a_seat_that_took_every_shown_copy_needs_no_show_records(rules: gongzhu.Rules) -> None:
    sheet = rules.score({0: "QS QS"}, shown_taken={0: "QS QS"}, **PIG_SHOWS)
    assert sheet.raw[0] == -800 + -200


@pytest.mark.parametrize(
    ("taken", "shown_taken", "message"),
    [
        ({0: "QS QS"}, {}, r"2 copies of QS were taken and 1 shown"),  # the shown one is lost
        ({0: "QS"}, {0: [NEVER]}, r"seat 0 cannot have taken QS shown by seat 2 \(open\)"),
        ({0: "QS QS"}, {0: "QS QS QS"}, r"seat 0 cannot have taken 3 shown QS"),
    ],
)
def test_shown_copies_that_cannot_be_are_refused(
    rules: gongzhu.Rules, taken: dict, shown_taken: dict, message: str
) -> None:
    shows = PIG_SHOWS if "seat 2" in message else {"shown": {0: "QS"}, "dealt": {0: "QS QS"}}
    with pytest.raises(gongzhu.errors.InvalidScoreInput, match=message):
        rules.score(taken, shown_taken=shown_taken, **shows)


def test_mask_scoring_with_its_defaults_has_no_shown_copies(rules: gongzhu.Rules) -> None:
    """MaskScoring's documented defaults (no shows, no shown copies taken) score a seat's
    own unshown ♠Q as 自得."""
    pig = gongzhu.PIG.bit
    hand = MaskScoring(rules.table, rules.options, [pig, 0, 0, 0], [pig, 0, 0, 0], {})
    rules.scorer.mask_stages[0](hand)
    assert hand.copy_own == [{pig: 2}, {}, {}, {}]
