"""Small plug-ins that exercise core hooks (registered with ``Rules.from_plugins``)."""

from __future__ import annotations

from gongzhu.actions import ShowKind
from gongzhu.cards import PIG, SHEEP, Suit
from gongzhu.errors import IncompatibleVariants
from gongzhu.plugin import (
    DiscardRule,
    OpeningLead,
    ShownCardLock,
    VariantInfo,
    hookimpl,
)
from gongzhu.scoring import ScoreStage


class OtherBase:
    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("other-base", "A second base", base=True)

    @hookimpl
    def gongzhu_opening_lead(self, deal):
        return OpeningLead(2)


class Picky:
    """A modifier with an option and a declared conflict."""

    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("picky", "Picky", conflicts={"other-base"})

    @hookimpl
    def gongzhu_add_options(self, options):
        options.add("picky_level", 1, "How picky.", choices=(1, 2, 3))
        options.add("picky_name", "x", "A free-text option.")

    @hookimpl
    def gongzhu_check_rules(self, variants, options):
        if options["picky_level"] == 3 and options["picky_name"] == "refuse":
            raise IncompatibleVariants("picky refuses level 3 with that name")


class LockDiscards:
    """The stricter shown-card lock: no discarding a shown card before its suit is led."""

    def __init__(self, stuck: str = "play") -> None:
        self.stuck = stuck

    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("lock-discards", "Lock discards")

    @hookimpl
    def gongzhu_play_config(self, config):
        lock = ShownCardLock(first_trick=True, discard_before_led=True, stuck=self.stuck)
        config.set("shown_card_lock", lock, overrides="39baobao")


COLOUR = {s: frozenset(t for t in Suit if t.is_red == s.is_red) for s in Suit}


class Colours:
    """A discard rule: same colour when void."""

    def __init__(self, strict: bool, offender: str = "first") -> None:
        self.rule = DiscardRule(COLOUR, strict=strict, offender=offender)

    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("colours", "Colours")

    @hookimpl
    def gongzhu_play_config(self, config):
        config.set("discard_rule", self.rule)


class ShowFamily:
    """First shows and secret sales; the sheep may never be shown openly."""

    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("show-family", "Show family")

    @hookimpl
    def gongzhu_show_kinds(self):
        return (ShowKind.FIRST, ShowKind.SECRET)

    @hookimpl
    def gongzhu_filter_shows(self, holding, kind, choices):
        if kind is ShowKind.OPEN:
            choices[:] = [c for c in choices if SHEEP not in c]


class MustShowPig:
    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("must-show-pig", "Must show pig")

    @hookimpl
    def gongzhu_filter_shows(self, holding, choices):
        if PIG in holding:
            choices[:] = [c for c in choices if PIG in c]


class ForbidAll:
    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("forbid-all", "Forbids every show, even none")

    @hookimpl
    def gongzhu_filter_shows(self, choices):
        choices.clear()


class Bonus:
    """A scoring stage: +7 for each seat that took the pig; normalisation: ×2."""

    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("bonus", "Bonus")

    @hookimpl
    def gongzhu_score_stages(self, stages):
        def bonus(ctx):
            for tally in ctx.seats:
                if any(e.card == PIG for e in tally.entries):
                    tally.total += 7
                    tally.lines.append("bonus +7")

        stages.append(ScoreStage("bonus", bonus))

    @hookimpl
    def gongzhu_normalise(self, raw):
        return tuple(2 * r for r in raw)

    @hookimpl
    def gongzhu_match_losers(self, totals):
        return (totals.index(max(totals)), totals.index(min(totals)))


class Misnamed:
    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("real-name", "Misnamed")


class Typo:
    @hookimpl
    def gongzhu_variant_info(self):
        return VariantInfo("typo", "Typo")

    @hookimpl
    def gongzhu_opening_laed(self):
        return None
