"""``shuangzhu`` 双豬: the highest and the lowest total both lose the match.

Source: rule source ``001``, special rule 6 (一轮牌中得分最高和最低的都视为"当猪").  At the
end of a match the seats at the highest total and those at the lowest are
all 当猪.
"""

from __future__ import annotations

from gongzhu.plugin import VariantInfo, hookimpl


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="shuangzhu",
        title="Two pigs",
        title_zh="双豬",
        summary="The highest and the lowest scorer both lose the match (当猪).",
    )


@hookimpl
def gongzhu_match_losers(totals: tuple[int, ...]) -> tuple[int, ...]:
    high, low = max(totals), min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total in (high, low))
