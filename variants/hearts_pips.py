"""``hearts-pips``: the heart table of some primers, a modifier.

Source: rule source ``001``, special rule 7: ♥9 to ♥5 count their pips (−9 … −5),
♥4 counts −10 (特别注意), ♥3 −3 and ♥2 −2; ♥A K Q J 10 as usual (−50 −40 −30
−20 −10).  The hearts still total −200, and full hearts (满红) changes their
sign as usual.
"""

from __future__ import annotations

from collections.abc import Mapping

from gongzhu.plugin import Rank, VariantInfo, hookimpl

HEART_VALUES: Mapping[Rank, int] = {
    Rank.ACE: -50,
    Rank.KING: -40,
    Rank.QUEEN: -30,
    Rank.JACK: -20,
    Rank.TEN: -10,
    Rank.NINE: -9,
    Rank.EIGHT: -8,
    Rank.SEVEN: -7,
    Rank.SIX: -6,
    Rank.FIVE: -5,
    Rank.FOUR: -10,
    Rank.THREE: -3,
    Rank.TWO: -2,
}


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="hearts-pips",
        title="Pip-valued hearts",
        title_zh="红桃按点计分",
        conflicts={"hearts-positive"},
        summary="♥9…5 count −9…−5, ♥4 −10, ♥3 −3, ♥2 −2 (the hearts still total −200).",
    )


@hookimpl
def gongzhu_heart_values() -> Mapping[Rank, int]:
    return HEART_VALUES
