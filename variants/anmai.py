"""``anmai`` 暗卖: secret sales, a modifier for any base.

Source: rule source ``001``, special rule 1 (暗卖：只说明牌×张，并不出示所明花色。出牌规则同
"首明"，分数按明牌计算).  In its show turn a seat may, instead of showing
openly, sell showable cards secretly (``sell QS JD``): the other seats learn
only how many were sold (their :meth:`~gongzhu.hand.HandState.view` shows the
count, not the cards).  A sold card scores as shown (×2) and, like a 首明
card, is free of the play restrictions.  The sale is revealed in the score
sheet and in the hand's record.
"""

from __future__ import annotations

from gongzhu.plugin import ShowKind, VariantInfo, hookimpl


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="anmai",
        title="Secret sales",
        title_zh="暗卖",
        summary="A seat may sell showable cards secretly: scored ×2, only the count is public.",
    )


@hookimpl
def gongzhu_show_kinds() -> tuple[ShowKind, ...]:
    return (ShowKind.SECRET,)
