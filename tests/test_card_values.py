"""The scoring cards belong to the score table: a plug-in adds one or revalues the pig."""

from __future__ import annotations

import random
import types

import pytest

import gongzhu
from gongzhu import Card
from gongzhu.errors import IncompatibleVariants
from gongzhu.plugin import VariantInfo, hookimpl

DIAMOND_ACE = Card.parse("AD")


def plugin(name: str, values: dict[str, int | None]) -> types.SimpleNamespace:
    @hookimpl
    def gongzhu_variant_info() -> VariantInfo:
        return VariantInfo(name=name, title=name, summary="card values")

    @hookimpl
    def gongzhu_card_values() -> dict[str, int | None]:
        return values

    return types.SimpleNamespace(
        gongzhu_variant_info=gongzhu_variant_info, gongzhu_card_values=gongzhu_card_values
    )


def test_the_core_table_is_standard_and_compiled() -> None:
    rules = gongzhu.load_rules()
    assert rules.table.is_standard and rules.scorer.compiled is not None
    assert rules.table.scoring_count == 16
    assert not rules.table.is_scoring(DIAMOND_ACE)


def test_a_plugin_adds_a_scoring_card() -> None:
    rules = gongzhu.Rules.from_plugins(plugin("diamond-ace", {"AD": 50}))
    table = rules.table
    assert table.is_scoring(DIAMOND_ACE) and table.base_value(DIAMOND_ACE) == 50
    assert table.scoring_count == 17 and not table.is_standard
    assert rules.scorer.compiled is None  # the compiled scorer knows only the core's cards
    sheet = rules.score({0: "AD JD", 1: "QS"})
    assert sheet.raw[:2] == (150, -100)
    assert sheet.captured[0] == gongzhu.parse_cards("JD AD")
    assert any("card ♦A +50" in line for line in sheet.explain(0))
    everything = [c for c in gongzhu.full_deck() if table.is_scoring(c)]
    slam = rules.score({2: everything})
    assert slam.slam[2]  # 满贯 now needs the ♦A too
    assert not rules.score({2: [c for c in everything if c != DIAMOND_ACE]}).slam[2]


def test_a_later_plugin_revalues_or_removes_a_card() -> None:
    rules = gongzhu.Rules.from_plugins(
        plugin("cheap-pig", {"QS": -50}), plugin("no-sheep", {"JD": None})
    )
    assert rules.table.base_value(gongzhu.PIG) == -50
    assert not rules.table.is_scoring(gongzhu.SHEEP) and rules.table.scoring_count == 15
    assert rules.score({0: "QS JD"}).raw[0] == -50


def test_played_hands_score_the_new_card() -> None:
    rules = gongzhu.Rules.from_plugins(plugin("diamond-ace", {"AD": 50}))
    rng = random.Random(3)
    for seed in range(20):
        hand = rules.new_hand(seed)
        while not hand.is_over:
            hand.apply(rng.choice(hand.legal_actions()))
        taker = next(s for s in range(4) if DIAMOND_ACE in hand.taken(s))
        assert DIAMOND_ACE in hand.score().captured[taker]
        assert hand.score().final == hand.returns()


@pytest.mark.parametrize("card", ["5H", "TC"])
def test_hearts_and_the_transformer_are_not_card_values(card: str) -> None:
    with pytest.raises(IncompatibleVariants, match="gongzhu_card_values"):
        gongzhu.Rules.from_plugins(plugin("odd", {card: 10}))
