"""``worthless-sheep``: an unshown sheep scores only ``sheep_bonus`` (default 0).

The complete third-party plug-in built in the docs' tutorial "Writing a
plug-in".  It declares itself, adds an option, checks a combination, and adds
a stage to the scoring pipeline; it works with any base.
"""

from __future__ import annotations

from gongzhu.plugin import (
    SHEEP,
    IncompatibleVariants,
    OptionSet,
    ScoreStage,
    ScoringContext,
    StageList,
    VariantInfo,
    hookimpl,
    signed,
)


@hookimpl
def gongzhu_variant_info() -> VariantInfo:
    return VariantInfo(
        name="worthless-sheep",
        title="Worthless unshown sheep",
        title_zh="无名羊",
        summary="An unshown sheep scores only sheep_bonus (default 0).",
    )


@hookimpl
def gongzhu_add_options(options: OptionSet) -> None:
    options.add("sheep_bonus", 0, "What an unshown sheep scores instead of +100.")


@hookimpl
def gongzhu_check_rules(options) -> None:  # type: ignore[no-untyped-def]
    if options["sheep_bonus"] > 100:
        raise IncompatibleVariants("worthless-sheep: sheep_bonus above 100 is not worthless")


def unshown_sheep(ctx: ScoringContext) -> None:
    """The stage: an unshown sheep's value becomes the bonus."""
    if ctx.show_factor(SHEEP) != 1:
        return
    bonus = ctx.options["sheep_bonus"]
    for tally in ctx.seats:
        for entry in tally.entries:
            if entry.card == SHEEP:
                entry.value = bonus
                tally.note(ctx, f"worthless sheep: counts {signed(bonus)}")


@hookimpl(trylast=True)  # after the base's edits: its own stages are in place by then
def gongzhu_score_stages(stages: StageList) -> None:
    # right after "values": the sheep is worth the bonus before any other stage
    # (华牌's 自得 then doubles the bonus of a sheep taken back by its own seat)
    stages.insert_after("values", ScoreStage("worthless-sheep", unshown_sheep))
