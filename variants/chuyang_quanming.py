"""``chuyang-quanming`` 除羊全明: every showable card but the sheep is shown.

Source: rule source ``001``, special rule 2 (除了羊以外的分牌全都必须明，但是羊必须不明).
In its show turn a seat's only legal action is the show of every showable
card it holds except ♦J (``show -`` for a seat holding none, or only the
sheep); it still takes that action itself.  The rule replaces 首明 and secret
sales: combining it with a ruleset that offers either (华牌, 暗卖) or with
``fenpai-quanming`` is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gongzhu.plugin import SHEEP, Card, ShowKind, VariantInfo, hookimpl, refuse_show_kinds

if TYPE_CHECKING:
    from gongzhu.plugin import Rules

NAME = "chuyang-quanming"


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name=NAME,
        title="Show everything but the sheep",
        title_zh="除羊全明",
        conflicts={"fenpai-quanming"},
        summary="Every showable card but ♦J must be shown; ♦J must not be.",
    )


@hookimpl
def gongzhu_filter_shows(
    holding: tuple[Card, ...], kind: ShowKind, choices: list[tuple[Card, ...]]
) -> None:
    if kind is ShowKind.OPEN:
        required = tuple(card for card in holding if card != SHEEP)
        choices[:] = [choice for choice in choices if choice == required]


@hookimpl
def gongzhu_check_rules(rules: Rules, variants: Sequence[VariantInfo]) -> None:
    refuse_show_kinds(rules, variants, NAME, "除羊全明")
