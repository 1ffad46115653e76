"""HandState.score(), Scorer.sheet: numbers from the compiled scorer, explanation built when
first read."""

from __future__ import annotations

import pickle
import random
from typing import cast

import pytest

import gongzhu
from gongzhu.scoring import HandFacts, ScoreSheet

RULESETS: list[tuple[str, ...] | tuple[tuple[str, ...], dict[str, str]]] = [
    (),
    ("huapai",),
    (("huapai",), {"zide_transformer": "alone"}),
    (("huapai",), {"zide_transformer": "none"}),
    ("huapai", "heart-three"),
    ("huapai", "hearts-positive"),
    ("huapai", "anmai"),
    ("two-deck",),
    ("huapai", "two-deck"),
    ("hearts-positive", "heart-three"),
    ("same-colour-discard",),
    ("chuyang-quanming",),
]


def finished(
    names: tuple[str, ...] | tuple[tuple[str, ...], dict[str, str]], seed: int
) -> gongzhu.HandState:
    if names and isinstance(names[0], tuple):
        variants, options = cast(tuple[tuple[str, ...], dict[str, str]], names)
        rules = gongzhu.load_rules(*variants, **options)
    else:
        rules = gongzhu.load_rules(*cast(tuple[str, ...], names))
    hand = rules.new_hand(seed)
    rng = random.Random(seed)
    while not hand.is_over:
        hand.apply(rng.choice(hand.legal_actions()))
    return hand


@pytest.mark.parametrize("names", RULESETS)
def test_the_lazy_sheet_is_the_pipelines_sheet(names: tuple[str, ...]) -> None:
    for seed in range(120):
        hand = finished(names, seed)
        sheet = hand.score()
        explained = hand.rules.scorer.pipeline_sheet(hand.facts(), hand._penalty_lines)
        assert sheet == explained
        assert (sheet.raw, sheet.final, sheet.captured, sheet.full_hearts, sheet.slam) == (
            explained.raw,
            explained.final,
            explained.captured,
            explained.full_hearts,
            explained.slam,
        )
        assert sheet.lines == explained.lines and str(sheet) == str(explained)
        assert sheet.final == hand.returns()


def test_the_explanation_is_built_once_on_first_read() -> None:
    calls = []

    def explain() -> tuple[tuple[str, ...], ...]:
        calls.append(1)
        return (("a",), (), (), ())

    sheet = ScoreSheet(
        (1, 0, 0, 0), (1, 0, 0, 0), ((), (), (), ()), (), (False,) * 4, (False,) * 4, explain
    )
    assert not calls
    assert sheet.lines == (("a",), (), (), ()) and sheet.explain(0)[0] == "a"
    assert calls == [1]
    copy = pickle.loads(pickle.dumps(sheet))
    assert copy == sheet and copy.lines == sheet.lines


def test_a_lazy_sheet_pickles_and_hashes_as_an_explained_one() -> None:
    hand = finished((), 3)
    sheet = hand.score()
    assert pickle.loads(pickle.dumps(hand.score())) == sheet
    assert hash(hand.score()) == hash(hand.rules.scorer.pipeline_sheet(hand.facts()))


@pytest.mark.parametrize("names", [(), ("two-deck",)])
def test_mask_sheets_agree_on_slams_and_full_hearts(names: tuple[str, ...]) -> None:
    rules = gongzhu.load_rules(*names)
    scorer = rules.scorer
    assert scorer.compiled is not None
    deck = gongzhu.full_deck(rules.table.copies)
    hearts = [c for c in deck if c.suit is gongzhu.Suit.HEARTS]
    scoring = [c for c in deck if rules.table.is_scoring(c)]
    rng = random.Random(5)
    deals = [
        {2: scoring},  # a slam
        {1: hearts, 3: [c for c in scoring if c not in hearts]},  # full hearts, no slam
    ]
    for _ in range(20):
        spread: dict[int, list[gongzhu.Card]] = {0: [], 1: [], 2: [], 3: []}
        for card in scoring:
            spread[rng.randrange(4)].append(card)
        deals.append(spread)
    for deal in deals:
        cards = [list(deal.get(seat, ())) for seat in range(4)]
        masks = [0, 0, 0, 0]
        for seat, held in enumerate(cards):
            for card in held:
                masks[seat] |= card.bit << 52 if masks[seat] & card.bit else card.bit
        raw = (
            scorer.compiled.raw(masks, {})
            if rules.table.copies == 1
            else scorer.compiled.raw_copies(masks, (), [[], [], [], []])
        )
        facts = HandFacts(masks, None, ())
        eager = scorer.pipeline_sheet(facts)
        lazy = scorer.sheet(facts)
        assert callable(lazy._lines)  # the compiled scorer's numbers, lines not built yet
        assert lazy.raw == raw
        assert lazy == eager
        if deal is deals[0]:
            assert lazy.slam == (False, False, True, False)
        if deal is deals[1]:
            assert lazy.full_hearts == (False, True, False, False) and not any(lazy.slam)


@pytest.mark.parametrize("names", [(), ("huapai", "anmai"), ("two-deck",), ("huapai", "two-deck")])
def test_raw_scores_are_the_sheets(names: tuple[str, ...]) -> None:
    for seed in range(30):
        hand = finished(names, seed)
        pipeline = hand.rules.scorer.pipeline_sheet(hand.facts())
        assert hand.raw_scores() == hand.score().raw == pipeline.raw
    with pytest.raises(gongzhu.errors.HandNotOver):
        gongzhu.load_rules(*names).new_hand(1).raw_scores()
