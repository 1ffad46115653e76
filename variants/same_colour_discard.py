"""``same-colour-discard`` 垫牌规则: discard in the led suit's colour, a modifier.

Source: rule source ``001``, special rule 5 (出红色花色的牌时的垫牌必须是红色花色的牌；出黑色花色
的牌时的垫牌必须是黑色花色的牌。如果垫错，需得当圈所有的分牌).  A seat void in the led
suit must discard a card of the led suit's colour (red ♥♦, black ♠♣) if it
holds one.  By default a wrong discard is legal but penalised: the offender
takes all of that trick's scoring cards, the trick's winner still leads the
next trick, and the penalty shows in the trick (``Trick.taker``), the score
sheet's explanation and the record.  A seat holding no card of the right
colour may discard anything and is never penalised.

Options:

``same_colour_strict`` = ``False`` | ``True``
    ``True`` makes a wrong discard simply illegal (a stricter table's
    reading); ``False`` (default) is the source's penalty.
``same_colour_offender`` = ``"first"`` | ``"last"``
    With several offenders in one trick, who takes the penalty: the first in
    play order (default, a **(choice)** of docs/rules.rst: the first wrong discard
    is the one that breaks the trick) or the last.
"""

from __future__ import annotations

from gongzhu.plugin import (
    DiscardRule,
    Options,
    OptionSet,
    PlayConfigurator,
    Suit,
    VariantInfo,
    hookimpl,
)

SAME_COLOUR = {suit: frozenset(s for s in Suit if s.is_red == suit.is_red) for suit in Suit}


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="same-colour-discard",
        title="Same-colour discards",
        title_zh="垫牌规则",
        summary="A void seat discards in the led colour; a wrong discard takes the trick's points.",
    )


@hookimpl
def gongzhu_add_options(options: OptionSet) -> None:
    options.add(
        "same_colour_strict",
        False,
        "true: a discard of the wrong colour is illegal. false (default): it is legal, "
        "and the offender takes the trick's scoring cards.",
    )
    options.add(
        "same_colour_offender",
        "first",
        "With several wrong discards in one trick, the first ('first', default) or the "
        "last ('last') offender in play order takes the scoring cards.",
        choices=("first", "last"),
    )


@hookimpl
def gongzhu_play_config(config: PlayConfigurator, options: Options) -> None:
    rule = DiscardRule(
        SAME_COLOUR,
        strict=options["same_colour_strict"],
        offender=options["same_colour_offender"],
    )
    config.set("discard_rule", rule)
