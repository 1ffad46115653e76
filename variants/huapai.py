"""``huapai``: the 华牌 competition rules (《中国华牌竞赛规则》), a base ruleset.

Source: rule source ``001``.  What the plug-in sets:

* opening lead: the holder of ♠3 leads every hand, any card;
* 首明 first show: a seat whose first dealt card is showable may show it
  before seeing the rest of its holding (the hand's 首明 phase); it scores ×4
  and is free of the play restrictions;
* the stricter shown-card restriction: a shown card may neither be played in
  the first trick of its suit (unless it is the holder's only card of it) nor
  be discarded before its suit has been led;
* 自得 self-capture: a showable card taken by the seat that was dealt it
  counts ×2 on top of its show factor (for ♥A only the ♥A itself doubles).
  With two decks it goes copy by copy: a shown copy is self-captured only by
  the seat that showed it, and a seat self-captures as many unshown copies of
  a card as it both took and was dealt unshown; each doubles only itself (a
  ♣10 its own multiplier and alone-value);
* raw scores, no normalisation: they add up across the hands of a match,
  which ends when a total reaches +1000 or −1000 (option: 800); the lowest
  total is 当猪.

Options (each a **(choice)** of docs/rules.rst):

``shown_lock_stuck`` = ``"play"`` | ``"hand"``
    When the restriction leaves a seat no legal card (it can: a seat void in
    the led suit holding only shown cards of unled suits), it lifts for that
    one play (default: the least change to the rule) or for the rest of the
    hand for that seat.
``zide_transformer`` = ``"both"`` | ``"alone"`` | ``"none"``
    What 自得 doubles for ♣10: both its multiplier and its alone-value
    (default: the source doubles "the value" of a self-captured card, and the
    transformer's value is both), only the alone-value, or nothing.
``match_target`` = ``1000`` | ``800``
    The total that ends a match (局); source 001 names both.
"""

from __future__ import annotations

from typing import Final

from gongzhu.plugin import (
    TRANSFORMER,
    Card,
    CopyFactors,
    LeadRule,
    Options,
    OptionSet,
    PlayConfigurator,
    ScoreStage,
    ShowKind,
    ShownCardLock,
    StageList,
    TakenCopy,
    VariantInfo,
    hookimpl,
    opening_lead_rule,
)

NAME = "huapai"
OPENING_CARD = Card.parse("3S")


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name=NAME,
        title="华牌 competition rules",
        title_zh="华牌竞赛规则",
        base=True,
        summary="♠3 leads; 首明 ×4; 自得 ×2; strict shown-card lock; raw scores to ±1000.",
        normalisation="raw scores, added up across a match",
    )


@hookimpl
def gongzhu_add_options(options: OptionSet) -> None:
    options.add(
        "shown_lock_stuck",
        "play",
        "When the shown-card restriction leaves a seat no legal card, it lifts for that "
        "one play ('play', default) or for the rest of the hand for that seat ('hand').",
        choices=("play", "hand"),
    )
    options.add(
        "zide_transformer",
        "both",
        "What 自得 (self-capture) doubles for ♣10: its multiplier and alone-value "
        "('both', default), only the alone-value ('alone'), or nothing ('none').",
        choices=("both", "alone", "none"),
    )
    options.add(
        "match_target",
        1000,
        "A match ends when a total reaches +target or −target (1000, or 800).",
        choices=(1000, 800),
    )


gongzhu_opening_lead = hookimpl(opening_lead_rule(LeadRule(OPENING_CARD)))
"""The first seat dealt ♠3 leads, any card (a rule as data: bulk play reads it in C)."""


@hookimpl
def gongzhu_show_kinds() -> tuple[ShowKind, ...]:
    return (ShowKind.FIRST,)


@hookimpl
def gongzhu_play_config(config: PlayConfigurator, options: Options) -> None:
    lock = ShownCardLock(
        first_trick=True, discard_before_led=True, stuck=options["shown_lock_stuck"]
    )
    config.set("shown_card_lock", lock)


def self_capture(copy: TakenCopy, options: Options) -> CopyFactors | None:
    """自得: a showable card taken back by the seat dealt it counts ×2 again.

    Asked per copy taken (:meth:`ScoreStage.copy_factor
    <gongzhu.scoring.ScoreStage.copy_factor>` says which copy is the seat's own,
    with one deck or two).  Each copy taken back doubles only itself: for ♥A the
    ♥A card, not the hearts; for ♣10 what ``zide_transformer`` says.
    """
    if not copy.own:
        return None
    if copy.card != TRANSFORMER:
        return _TWICE
    return _TRANSFORMER_RULES[options["zide_transformer"]]


_TWICE: Final = CopyFactors(own=2)
_TRANSFORMER_RULES: Final[dict[str, CopyFactors | None]] = {
    "both": _TWICE,  # its multiplier and its alone-value
    "alone": CopyFactors(alone=2),
    "none": None,
}


@hookimpl
def gongzhu_score_stages(stages: StageList) -> None:
    stage = ScoreStage.copy_factor("self-capture", self_capture, label="自得 self-capture")
    stages.insert_after("values", stage)


@hookimpl
def gongzhu_match_over(totals: tuple[int, ...], target: int | None, options: Options) -> bool:
    limit = options["match_target"] if target is None else target
    return any(abs(total) >= limit for total in totals)
