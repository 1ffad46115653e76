"""One way to score a finished hand: HandFacts to Scorer.raw / final / outcome / sheet.

The scorer picks the compiled scorer when the ruleset has one, else the pipeline; the
tests below hold the two equal on played hands and on any facts, one deck and two, and
check that the compiled path is the one taken and that its sheets explain lazily.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gongzhu
import gongzhu.scoring.scorer
from gongzhu.masks import add_copy
from gongzhu.scoring import CompiledScorer, HandFacts, Outcome, Scorer, ShowRecord

COMPILED = [
    (),
    ("huapai",),
    ("huapai", "anmai"),
    ("huapai", "heart-three"),
    ("fenpai-quanming",),
    ("chuyang-quanming",),
    ("biming",),
    ("hearts-pips",),
    ("two-deck",),
    ("two-deck", "anmai"),
    ("two-deck", "hearts-pips"),
    ("huapai", "two-deck"),
    ("huapai", "two-deck", "anmai"),
    ("huapai", "two-deck", "heart-three"),
]
"""Rulesets scored by the compiled scorer (one deck and two)."""

PIPELINE_ONLY = [
    ("hearts-positive",),
    ("huapai", "hearts-positive"),
    ("two-deck", "hearts-positive"),
]
"""Rulesets whose pipeline the compiled scorer does not fit."""

OPTIONS: dict[tuple[str, ...], dict[str, Any]] = {("huapai",): {"zide_transformer": "alone"}}


def load(names: tuple[str, ...]) -> gongzhu.Rules:
    return gongzhu.load_rules(*names, **OPTIONS.get(names, {}))


def played_facts(rules: gongzhu.Rules, seed: int) -> HandFacts:
    hand = rules.new_hand(seed)
    hand.play_out(random.Random(seed).random)
    facts = hand.facts()
    assert isinstance(facts, HandFacts)
    return facts


def assert_scored_alike(scorer: Scorer, facts: HandFacts) -> None:
    """raw, final, outcome and sheet against the pipeline's sheet of the same facts."""
    reference = scorer.pipeline_sheet(facts)
    assert scorer.raw(facts) == reference.raw
    assert scorer.final(facts) == reference.final == scorer.normalise(reference.raw)
    outcome = scorer.outcome(facts)
    assert isinstance(outcome, Outcome)
    assert outcome == (reference.final, any(reference.full_hearts), any(reference.slam))
    sheet = scorer.sheet(facts)
    assert (sheet.raw, sheet.final, sheet.captured, sheet.full_hearts, sheet.slam) == (
        reference.raw,
        reference.final,
        reference.captured,
        reference.full_hearts,
        reference.slam,
    )
    assert sheet == reference  # the lines too (the compiled sheet's are the pipeline's)


@pytest.mark.parametrize("names", COMPILED + PIPELINE_ONLY, ids="+".join)
def test_every_way_of_scoring_played_hands_agrees(names: tuple[str, ...]) -> None:
    rules = load(names)
    assert (rules.scorer.compiled is not None) == (names in COMPILED)
    for seed in range(60):
        assert_scored_alike(rules.scorer, played_facts(rules, seed))


def draw_facts(data: st.DataObject, rules: gongzhu.Rules) -> HandFacts:
    """Any facts: each copy of each scoring card taken by any seat and dealt to any seat,
    any dealt showable copy shown (or not) by its seat in any kind the ruleset offers, and
    with two decks any shown copy given to any seat's shown_taken (or to none).  Sometimes
    seat 0 takes a transformer and no other scoring card (a transformer alone)."""
    table = rules.table
    copies = table.copies
    taken, dealt = [0, 0, 0, 0], [0, 0, 0, 0]
    shows: list[ShowRecord] = []
    kinds = sorted(rules.show_kinds, key=lambda kind: kind.value)
    lone = data.draw(st.booleans())
    for card in (c for c in gongzhu.full_deck(copies) if table.is_scoring(c)):
        taker, holder = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
        if lone and card == gongzhu.TRANSFORMER and not taken[0]:
            taker = 0
        elif lone and taker == 0 and card != gongzhu.TRANSFORMER:
            taker = 1
        taken[taker] = add_copy(taken[taker], card.index)
        dealt[holder] = add_copy(dealt[holder], card.index)
        if card in table.showable and data.draw(st.booleans()):
            shows.append(ShowRecord(holder, card, data.draw(st.sampled_from(kinds))))
    shown_taken: list[list[ShowRecord]] | None = None
    if copies == 2:
        shown_taken = [[], [], [], []]
        for record in shows:
            if data.draw(st.booleans()):
                shown_taken[data.draw(st.integers(0, 3))].append(record)
    order = data.draw(st.permutations(range(len(shows))))
    return HandFacts(tuple(taken), tuple(dealt), tuple(shows[i] for i in order), shown_taken)


@settings(max_examples=400, deadline=None)
@given(names=st.sampled_from(COMPILED), data=st.data())
def test_the_compiled_scorer_is_the_pipeline_on_any_facts(
    names: tuple[str, ...], data: st.DataObject
) -> None:
    rules = load(names)
    assert_scored_alike(rules.scorer, draw_facts(data, rules))


def test_the_compiled_scorer_is_the_one_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a compiled scorer (and the deal), numbers never go through the pipeline."""
    for names in [("huapai",), ("huapai", "two-deck")]:
        rules = load(names)
        facts = [played_facts(rules, seed) for seed in range(5)]
        expected = [rules.scorer.pipeline_sheet(f) for f in facts]

        def no_pipeline(*_args: Any, **_kwargs: Any) -> None:
            raise AssertionError("scored through the pipeline")

        with monkeypatch.context() as patch:
            patch.setattr(gongzhu.scoring.scorer, "run_pipeline", no_pipeline)
            for fact, sheet in zip(facts, expected, strict=True):
                assert rules.scorer.raw(fact) == sheet.raw
                assert rules.scorer.final(fact) == sheet.final
                assert rules.scorer.outcome(fact).final == sheet.final
                assert rules.scorer.sheet(fact).final == sheet.final


def test_pipeline_only_rulesets_do_not_use_the_compiled_scorer() -> None:
    rules = load(("hearts-positive",))
    assert rules.scorer.compiled is None
    all_hearts = sum(1 << (13 + r) for r in range(13))
    facts = HandFacts((all_hearts, 0, 0, 0), None, ())
    assert rules.scorer.raw(facts)[0] == 230 + 200  # the plug-in's full-hearts bonus


def test_the_sheet_explains_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled sheet runs neither the pipeline nor ``extra_lines`` until its lines are
    read, then puts the extra lines first."""
    rules = load(("huapai",))
    facts = played_facts(rules, 4)
    runs: list[int] = []
    real = gongzhu.scoring.scorer.run_pipeline

    def counting(*args: Any, **kwargs: Any) -> Any:
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(gongzhu.scoring.scorer, "run_pipeline", counting)
    asked: list[int] = []

    def extra() -> list[list[str]]:
        asked.append(1)
        return [["note 0"], [], [], ["note 3a", "note 3b"]]

    sheet = rules.scorer.sheet(facts, extra)
    assert sheet.final == rules.scorer.final(facts)
    assert not runs and not asked
    lines = sheet.lines
    assert asked == [1] and runs == [1]
    assert lines[0][0] == "note 0" and lines[3][:2] == ("note 3a", "note 3b")
    own = rules.scorer.pipeline_sheet(facts).lines
    assert lines == (("note 0", *own[0]), own[1], own[2], ("note 3a", "note 3b", *own[3]))
    assert sheet.lines is lines and asked == [1]  # built once


@pytest.mark.parametrize("lazy", [False, True])
def test_the_pipelines_sheet_puts_extra_lines_first(lazy: bool) -> None:
    rules = load(("hearts-positive",))  # no compiled scorer: sheet() is the pipeline's
    facts = HandFacts((gongzhu.PIG.bit, 0, 0, 0), None, ())
    extra = [["a"], [], [], []]
    sheet = rules.scorer.sheet(facts, (lambda: extra) if lazy else extra)
    assert callable(sheet._lines) == lazy
    assert sheet.lines[0] == ("a", "pig ♠Q −100")
    assert sheet == rules.scorer.pipeline_sheet(facts, extra)


def test_an_unknown_deal_is_scored_by_the_pipeline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mask stages read the deal: without it the pipeline scores (no card is anyone's own)."""
    rules = load(("huapai",))
    sheep = gongzhu.SHEEP.bit
    monkeypatch.setattr(CompiledScorer, "raw", None)  # any use of it fails
    assert rules.scorer.raw(HandFacts((sheep, 0, 0, 0), None, ())) == (100, 0, 0, 0)
    plain = load(())  # no mask stage: the compiled scorer needs no deal
    monkeypatch.undo()
    assert plain.scorer.raw(HandFacts((sheep, 0, 0, 0), None, ())) == (100, 0, 0, 0)


def test_two_decks_without_shown_copies_taken() -> None:
    """``shown_taken=None`` with two decks: no seat took a shown copy."""
    rules = load(("two-deck",))
    pig = gongzhu.PIG
    shows = (ShowRecord(1, pig, gongzhu.ShowKind.OPEN),)
    taken = (pig.bit, 0, 0, 0)
    none = HandFacts(taken, None, shows)
    empty = HandFacts(taken, None, shows, [[], [], [], []])
    assert rules.scorer.raw(none) == rules.scorer.raw(empty) == (-100, 0, 0, 0)
    assert rules.scorer.pipeline_sheet(none).raw == (-100, 0, 0, 0)
    took_it = HandFacts(taken, None, shows, [[shows[0]], [], [], []])
    assert rules.scorer.raw(took_it) == rules.scorer.pipeline_sheet(took_it).raw == (-200, 0, 0, 0)


def test_rules_score_hands_its_facts_to_the_scorer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rules.score builds HandFacts from its cards: the compiled scorer gives the numbers
    (with the deal, for 自得) and the pipeline the lines."""
    rules = load(("huapai",))
    seen: list[HandFacts] = []
    real = Scorer.sheet

    def spying(self: Scorer, facts: HandFacts, *args: Any) -> Any:
        seen.append(facts)
        return real(self, facts, *args)

    monkeypatch.setattr(Scorer, "sheet", spying)
    sheet = rules.score({0: "JD QS 2C", 1: "AH"}, shown={2: "QS"}, dealt={0: "JD", 2: "QS"})
    jd, qs, c2, ah = gongzhu.parse_cards("JD QS 2C AH")
    assert seen == [
        HandFacts(
            [jd.bit | qs.bit | c2.bit, ah.bit, 0, 0],
            [jd.bit, 0, qs.bit, 0],
            (ShowRecord(2, qs, gongzhu.ShowKind.OPEN),),
            None,
        )
    ]
    assert callable(sheet._lines)  # numbers from the compiled scorer, lines not built yet
    assert sheet.raw == (200 - 200, -50, 0, 0)
    assert sheet.explain(0)[:3] == [
        "pig ♠Q −100 ×2 (shown)",
        "sheep ♦J +100",
        "自得 self-capture ♦J: now +200 (+100 ×2)",
    ]


def test_hand_facts_is_a_plain_tuple() -> None:
    facts = HandFacts((1, 0, 0, 0), None, ())
    assert facts.shown_taken is None and tuple(facts) == ((1, 0, 0, 0), None, (), None)
