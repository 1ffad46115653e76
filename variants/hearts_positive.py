"""``hearts-positive``: hearts count for you, a modifier.

Source: rule source ``001``, special rule 7: ♥A K Q J count +50 +40 +30 +20 and
♥10 to ♥2 +10 each; full hearts (满红) adds a bonus of +200 (doubled with the
showable heart shown, as every heart is) instead of changing the hearts' sign.
"""

from __future__ import annotations

from collections.abc import Mapping

from gongzhu.plugin import (
    Rank,
    ScoreStage,
    ScoringContext,
    StageList,
    VariantInfo,
    hookimpl,
    signed,
)

FULL_HEARTS_BONUS = 200

HEART_VALUES: Mapping[Rank, int] = {
    Rank.ACE: 50,
    Rank.KING: 40,
    Rank.QUEEN: 30,
    Rank.JACK: 20,
    **{rank: 10 for rank in Rank if rank <= Rank.TEN},
}


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="hearts-positive",
        title="Positive hearts",
        title_zh="红桃正分",
        conflicts={"hearts-pips"},
        summary="Hearts count +50…+10; full hearts adds +200 instead of changing sign.",
    )


@hookimpl
def gongzhu_heart_values() -> Mapping[Rank, int]:
    return HEART_VALUES


def full_hearts_bonus(ctx: ScoringContext) -> None:
    """满红 with positive hearts: a bonus, doubled as the hearts are."""
    need = 13 * ctx.table.copies
    bonus = FULL_HEARTS_BONUS * ctx.hearts_factor
    for tally in ctx.seats:
        hearts = tally.hearts()
        if len(hearts) == need:
            tally.full_hearts = True
            hearts[0].value += bonus
            tally.note(ctx, f"满红 full hearts: bonus {signed(bonus)}")


@hookimpl
def gongzhu_score_stages(stages: StageList) -> None:
    stages.replace("full-hearts", ScoreStage("full-hearts-bonus", full_hearts_bonus))
