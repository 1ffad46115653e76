"""``39baobao``: the single-deck rules of the 39baobao page (QQ game), the default base.

Source: rule source ``000`` (一副牌规则).  What the plug-in sets:

* opening lead: the holder of ♣2 leads ♣2 in a hand dealt with no leader;
  in a match, each later hand is led by the seat that took the pig in the
  hand before — the first to take one, with two decks (``gongzhu_next_leader``);
* showing: any showable card (♠Q ♦J ♣10 ♥A) may be shown after the deal;
  once three are shown, the fourth is shown automatically;
* a shown card may not be led or followed in the first trick of its suit
  unless it is the holder's only card of that suit; it may be discarded on
  another suit at any time;
* result: ``raw − (sum of the other three) / 3`` rounded to the nearest
  integer, then ×12, as the source's worked example does (−120, −280, 0,
  160 give −960, −3516, 960, 3516).  Each seat is rounded on its own, so the
  four results are zero-sum only up to rounding: about one hand in three
  they add up to +12 or −12 (``(10, 10, 10, 0)`` gives 36, 36, 36, −120),
  and match totals drift by as much.

Options:

``zero_sum`` = ``"rounded"`` | ``"exact"``
    ``"rounded"`` (default) is the source's rounding above.  ``"exact"``
    scores ``4·(4·raw − sum)``: the same ×12 scale with no rounding, so the
    results always add up to zero (a **(choice)** for tables that keep
    running totals).

The **(choice)** of docs/rules.rst on a restriction that leaves a seat no legal
card never arises here: a single deck has one showable card per suit, a lone
card of its suit is exempt, and discards are free, so some card is always
legal.  It arises under rulesets that also lock discards (华牌).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gongzhu.plugin import (
    PIG,
    Card,
    LeadRule,
    Options,
    OptionSet,
    PlayConfigurator,
    ShownCardLock,
    VariantInfo,
    hookimpl,
    opening_lead_rule,
)

if TYPE_CHECKING:
    from gongzhu.plugin import HandState

NAME = "39baobao"
SCALE = 12
OPENING_CARD = Card.parse("2C")


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name=NAME,
        title="39baobao single-deck rules",
        title_zh="拱猪 单副牌",
        base=True,
        summary="♣2 leads ♣2; shows ×2 with three revealing the fourth; zero-sum ×12 results.",
        normalisation=f"raw − (others' sum) / 3, rounded per seat (sum may be ±12), ×{SCALE}",
    )


gongzhu_opening_lead = hookimpl(opening_lead_rule(LeadRule(OPENING_CARD, forced=True)))
"""The first seat dealt ♣2 leads it (a rule as data: bulk play reads it in C)."""


@hookimpl
def gongzhu_next_leader(hand: HandState) -> int | None:
    # the first seat to take a pig (with two decks there are two: the earlier trick counts)
    for trick in hand.tricks:
        if PIG in trick.cards:
            return int(trick.taker)
    return None


@hookimpl
def gongzhu_auto_show_threshold() -> int:
    return 3


@hookimpl
def gongzhu_play_config(config: PlayConfigurator) -> None:
    config.set("shown_card_lock", ShownCardLock(first_trick=True, discard_before_led=False))


@hookimpl
def gongzhu_add_options(options: OptionSet) -> None:
    options.add(
        "zero_sum",
        "rounded",
        "'rounded' (default, the source's worked example): raw − (others' sum)/3 rounded "
        "per seat, ×12; the results may add up to ±12.  'exact': 4·(4·raw − sum), the same "
        "scale with no rounding, always adding up to zero.",
        choices=("rounded", "exact"),
    )


def zero_sum_thirds(raw: tuple[int, ...]) -> tuple[int, ...]:
    """``raw − (sum of the other three) / 3`` for each seat, rounded to the nearest integer.

    ``(4·raw − total) / 3`` is never halfway between two integers, so the
    rounding has no ties.
    """
    total = sum(raw)
    # floor(q/3 + 1/2) in integers, with q = 4·raw − total
    return tuple([(2 * (4 * r - total) + 3) // 6 for r in raw])


@hookimpl
def gongzhu_normalise(raw: tuple[int, ...], options: Options) -> tuple[int, ...]:
    if options["zero_sum"] == "exact":
        total = sum(raw)
        return tuple([4 * (4 * value - total) for value in raw])  # = 12 · (4·raw − total) / 3
    return tuple([SCALE * value for value in zero_sum_thirds(raw)])
