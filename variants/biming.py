"""``biming`` 逼明: three shown cards force the fourth, a modifier for any base.

Source: rule source ``001``, special rule 4 (任意三张可明的牌明了，其余一张可明的分牌也必须明).
When the show phase ends with three showable cards shown (of any kind), the
fourth is shown for its holder automatically: it appears in the shows as a
forced open show.  39baobao has this rule already; the plug-in adds it to a
base that lacks it (华牌).
"""

from __future__ import annotations

from gongzhu.plugin import VariantInfo, hookimpl


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="biming",
        title="Forced fourth show",
        title_zh="逼明",
        summary="Once three showable cards are shown, the fourth is shown automatically.",
    )


@hookimpl
def gongzhu_auto_show_threshold() -> int:
    return 3
