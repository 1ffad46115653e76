"""``hearts-broken``: no heart may be led until hearts are broken.

A common house rule (OpenSpiel's hearts calls it ``must_break_hearts``), and
the docs' example of a plug-in that changes *play* rather than scoring.  A
seat may not lead a heart until a heart has been played in an earlier trick
of the hand (discarded on another suit, or led by a seat that held nothing
else), unless it holds only hearts.

The plug-in adds one :class:`~gongzhu.play.PlayRule`.  "Unless it holds only
hearts" needs no code: a play rule that would leave the seat no legal play
lifts for that play, so a seat holding nothing but hearts (or whose other
cards the core's rules already forbid) may lead one.

Option ``hearts_broken_by_pig`` (default ``False``): ``True`` lets the pig
(♠Q) break hearts too, as some tables play.

It works with any base and with ``two-deck``.  With two decks a card mask
has a second bit (``52 + index``) for a card's second copy: the rule names
both copies of every heart (the engines read either copy's bit as the
card), and :attr:`PlaySituation.played <gongzhu.play.PlaySituation.played>`
has a card's first-copy bit once either copy has been played, so a heart of
either deck breaks hearts.

The rule says where it can matter: only on a lead (``when``) and only when
the leader may lead a heart (``cards``).  The engines, the C ones included,
ask it nowhere else, so a ruleset with this plug-in plays at nearly the
speed of its base.
"""

from __future__ import annotations

from collections.abc import Callable

from gongzhu.plugin import (
    PIG,
    Options,
    OptionSet,
    PlayConfigurator,
    PlayMoment,
    PlayRule,
    PlaySituation,
    Suit,
    VariantInfo,
    hookimpl,
)

HEARTS = Suit.HEARTS.mask
"""Every heart's first-copy bit."""
EVERY_HEART = HEARTS | HEARTS << 52
"""Every heart, both copies (bit ``52 + index`` is a card's second copy)."""


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="hearts-broken",
        title="Hearts must be broken",
        summary="No heart may be led until a heart has been played, unless the leader "
        "holds only hearts.",
    )


@hookimpl
def gongzhu_add_options(options: OptionSet) -> None:
    options.add(
        "hearts_broken_by_pig",
        False,
        "False (default): only a heart breaks hearts.  True: playing the pig (♠Q) breaks them too.",
        choices=(False, True),
    )


def refuse_unbroken_hearts(breakers: int) -> Callable[[PlaySituation], int]:
    """The rule: while none of ``breakers`` (a card mask) has been played, refuse heart leads."""

    def refuse(situation: PlaySituation) -> int:
        if situation.played & breakers:
            return 0  # hearts are broken: nothing to refuse
        return EVERY_HEART  # lifted by the core when the seat holds only hearts

    return refuse


@hookimpl
def gongzhu_play_config(config: PlayConfigurator, options: Options) -> None:
    by_pig = options["hearts_broken_by_pig"]
    breakers = HEARTS | (1 << PIG.index if by_pig else 0)
    config.add_rule(
        PlayRule(
            name="hearts-broken",
            refuse=refuse_unbroken_hearts(breakers),
            reason="{card}: no heart may be led until hearts are broken "
            f"(a heart{' or the pig' if by_pig else ''} played in an earlier trick)",
            when=PlayMoment.LEAD,  # asked on leads only ...
            cards=EVERY_HEART,  # ... and only when a heart may be led
        )
    )
