"""``heart-three``: ♥3 is the showable heart, in place of ♥A, a modifier.

Source: rule source ``003`` (明：…豬、羊、變壓器或紅桃3).  The showable cards are ♠Q ♦J
♣10 ♥3; showing ♥3 multiplies every heart, as showing ♥A does elsewhere, and
♥3 is the heart that 首明 and 自得 concern (its own value is 0, so 自得
changes nothing for it).
"""

from __future__ import annotations

from collections.abc import Collection

from gongzhu.plugin import PIG, SHEEP, TRANSFORMER, Card, VariantInfo, hookimpl

HEART_THREE = Card.parse("3H")


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="heart-three",
        title="♥3 is showable",
        title_zh="红桃3可明",
        summary="♥3 replaces ♥A among the showable cards; showing it doubles every heart.",
    )


@hookimpl
def gongzhu_showable_cards() -> Collection[Card]:
    return (PIG, SHEEP, TRANSFORMER, HEART_THREE)
