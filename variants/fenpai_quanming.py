"""``fenpai-quanming`` 分牌全明: every showable card is shown.

Source: seed ``001``, special rule 3 (所有的分牌全都必须明).  In its show turn a
seat's only legal action is the show of every showable card it holds
(``show -`` for a seat holding none); it still takes that action itself.  The
rule replaces 首明 and secret sales: combining it with a ruleset that offers
either (华牌, 暗卖) or with ``chuyang-quanming`` is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from gongzhu.actions import ShowKind
from gongzhu.cards import Card
from gongzhu.errors import IncompatibleVariants
from gongzhu.plugin import VariantInfo, hookimpl

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
    holding: frozenset[Card], kind: ShowKind, choices: list[frozenset[Card]]
) -> None:
    if kind is ShowKind.OPEN:
        choices[:] = [choice for choice in choices if choice == holding]


@hookimpl
def gongzhu_check_rules(rules, variants: Sequence) -> None:  # type: ignore[no-untyped-def]
    clashes = {ShowKind.FIRST: "首明 first shows", ShowKind.SECRET: "暗卖 secret sales"}
    for kind, what in clashes.items():
        if kind in rules.show_kinds:
            others = ", ".join(v.name for v in variants if v.name != NAME)
            raise IncompatibleVariants(
                f"{NAME} (分牌全明) fixes every show, so it cannot be combined with {what} "
                f"(offered by {others})"
            )
