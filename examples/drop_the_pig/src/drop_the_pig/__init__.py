"""``drop-the-pig``: a seat that cannot follow suit must play the pig (♠Q) if it holds it.

A house rule of the hearts family (some tables play the Black Lady so), and
the docs' example of a play rule that *requires* a card rather than refusing
one.  When a seat holds no card of the led suit and holds the pig, every play
it may make contains the pig: one card, or with two decks and a pair led, a
two-card discard that includes a ♠Q (or both ♠Q as a pair).

The plug-in adds one :class:`~gongzhu.play.PlayRule` with a ``require``
function.  It needs no code for the cases where it gives way: the core's
rules come first, so a ♠Q the shown-card lock holds back (华牌: a shown card
may not be discarded before its suit is led) is no longer among the seat's
candidates, and the rule, asked only where a candidate play uses the pig
(``cards``), is not asked at all.

The rule says where it can matter: only when the seat cannot follow suit
(``when``) and only when a play it may make uses the pig (``cards``), so the
engines, the C ones included, ask it rarely.
"""

from __future__ import annotations

from gongzhu.plugin import (
    PIG,
    PlayConfigurator,
    PlayMoment,
    PlayRule,
    PlaySituation,
    VariantInfo,
    hookimpl,
)

PIGS = PIG.bit | PIG.bit << 52
"""Both copies of the pig (bit ``52 + index`` is a card's second copy, with two decks)."""


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="drop-the-pig",
        title="Drop the pig",
        summary="A seat that cannot follow suit must play the pig (♠Q) while it holds it.",
    )


def require_the_pig(situation: PlaySituation) -> int:
    """The rule: the plays of a seat void in the led suit must use the pig."""
    return PIGS


@hookimpl
def gongzhu_play_config(config: PlayConfigurator) -> None:
    config.add_rule(
        PlayRule(
            name="drop-the-pig",
            require=require_the_pig,
            reason="{card}: a seat that cannot follow suit must play the pig (♠Q)",
            when=PlayMoment.DISCARD,  # asked only when the seat cannot follow suit ...
            cards=PIGS,  # ... and only when it may play the pig
        )
    )
