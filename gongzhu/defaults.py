"""The core's default hook implementations, registered (``trylast``) in every ruleset.

They give the behaviour a ruleset has when no plug-in says otherwise; a base
or modifier plug-in overrides any of them by returning a non-``None`` value.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from .actions import ShowKind
from .cards import HEART_ACE, PIG, SHEEP, TRANSFORMER, Card, Rank
from .plugin import LeadRule, Options, hookimpl, opening_lead_rule
from .scoring import DEFAULT_CARD_VALUES, DEFAULT_HEART_VALUES, DEFAULT_SHOW_FACTORS

NAME = "gongzhu.defaults"
"""The name the defaults are registered under in each plugin manager."""


@hookimpl(trylast=True)
def gongzhu_showable_cards() -> Collection[Card]:
    return (PIG, SHEEP, TRANSFORMER, HEART_ACE)


@hookimpl(trylast=True)
def gongzhu_heart_values() -> Mapping[Rank, int]:
    return DEFAULT_HEART_VALUES


@hookimpl(trylast=True)
def gongzhu_card_values() -> Mapping[Card, int]:
    return DEFAULT_CARD_VALUES


@hookimpl(trylast=True)
def gongzhu_show_factors() -> Mapping[ShowKind, int]:
    return DEFAULT_SHOW_FACTORS


@hookimpl(trylast=True)
def gongzhu_show_kinds() -> Collection[ShowKind]:
    return (ShowKind.OPEN,)


gongzhu_opening_lead = hookimpl(trylast=True)(opening_lead_rule(LeadRule()))
"""The deal's first seat leads, any card (a rule as data: bulk play reads it in C)."""


@hookimpl(trylast=True)
def gongzhu_normalise(raw: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(raw)


@hookimpl(trylast=True)
def gongzhu_match_over(totals: tuple[int, ...], target: int | None) -> bool:
    return target is not None and any(abs(t) >= target for t in totals)


@hookimpl(trylast=True)
def gongzhu_match_losers(totals: tuple[int, ...], options: Options) -> Sequence[int]:
    low = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == low)
