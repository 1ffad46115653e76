"""``fenpai-quanming`` 分牌全明: every showable card is shown.

Source: rule source ``001``, special rule 3 (所有的分牌全都必须明).  In its show turn a
seat's only legal action is the show of every showable card it holds
(``show -`` for a seat holding none); it still takes that action itself.  The
rule replaces 首明 and secret sales: combining it with a ruleset that offers
either (华牌, 暗卖) or with ``chuyang-quanming`` is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gongzhu.plugin import Card, ShowKind, VariantInfo, hookimpl, refuse_show_kinds

if TYPE_CHECKING:
    from gongzhu.plugin import Rules

NAME = "fenpai-quanming"


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name=NAME,
        title="Show every showable card",
        title_zh="分牌全明",
        conflicts={"chuyang-quanming"},
        summary="Every showable card must be shown.",
    )


@hookimpl
def gongzhu_filter_shows(
    holding: tuple[Card, ...], kind: ShowKind, choices: list[tuple[Card, ...]]
) -> None:
    if kind is ShowKind.OPEN:
        choices[:] = [choice for choice in choices if choice == holding]


@hookimpl
def gongzhu_check_rules(rules: Rules, variants: Sequence[VariantInfo]) -> None:
    refuse_show_kinds(rules, variants, NAME, "分牌全明")
