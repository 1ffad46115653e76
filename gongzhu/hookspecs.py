"""Hook specifications: every way a plug-in can change the rules.

Each ruleset has its own :class:`pluggy.PluginManager`; the core registers
its defaults (all ``trylast=True``) and then the chosen plug-ins, loaded by
entry-point name.  When the hooks are consulted is part of each contract:

* **at build time** (once, in :func:`gongzhu.load_rules`): what the hot path
  needs is asked for then and compiled into plain data;
* **at a phase boundary**: when a hand is dealt, when a seat's show turn
  starts (cached per holding), when a hand ends, when a match hand ends.

No hook is called for an individual card play.

Hooks marked *firstresult* stop at the first implementation that returns
something other than ``None``; a plug-in that wants to leave the decision to
others returns ``None``.  Modifiers are registered after the base, so their
implementations run before the base's (pluggy calls the last registered
first), and the core's defaults run last.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from .plugin import hookspec

if TYPE_CHECKING:
    from .actions import ShowKind
    from .cards import Card, Rank
    from .hand import HandState
    from .play import EngineRegistry, PlayConfigurator
    from .plugin import (
        Deal,
        OpeningLead,
        Options,
        OptionSet,
        VariantInfo,
    )
    from .rules import Rules
    from .scoring import StageList

# -- describing and configuring a ruleset (build time) -------------------------


@hookspec
def gongzhu_variant_info() -> VariantInfo:
    """Describe the plug-in: its name, titles, whether it is a base, what it conflicts with.

    Every plug-in loaded as a variant must implement it.

    :return: a :class:`~gongzhu.plugin.VariantInfo` whose ``name`` is the
        plug-in's entry-point name.
    """


@hookspec
def gongzhu_add_options(options: OptionSet) -> None:
    """Declare the ruleset options this plug-in understands.

    Called at build time, before the option values are resolved; user values
    given to :func:`gongzhu.load_rules` are checked against what was declared.

    :param options: call :meth:`~gongzhu.plugin.OptionSet.add` on it.
    """


@hookspec
def gongzhu_check_rules(rules: Rules, variants: Sequence[VariantInfo], options: Options) -> None:
    """Refuse a combination of plug-ins or option values that cannot work together.

    Called at the end of the build, after the core's own checks (one base,
    declared conflicts) and after every other build-time hook has answered,
    so ``rules`` shows what the combination compiles to (its show kinds, its
    lock, its deck).

    :param rules: the ruleset being built.
    :param variants: every loaded plug-in, base first.
    :param options: the resolved option values.
    :raises gongzhu.errors.IncompatibleVariants: to refuse the ruleset.
    """


@hookspec(firstresult=True)
def gongzhu_showable_cards(options: Options) -> Collection[Card] | None:
    """The cards that may be shown (亮牌): by default ♠Q ♦J ♣10 ♥A.

    The one heart among them is *the showable heart*: showing it multiplies
    every heart.  Stops at the first non-``None`` result.

    :param options: the resolved option values.
    """


@hookspec(firstresult=True)
def gongzhu_heart_values(options: Options) -> Mapping[Rank, int] | None:
    """The heart table: the base value of each heart by rank.

    Default: A −50, K −40, Q −30, J −20, 10 to 5 −10, 4 to 2 0.  Stops at the
    first non-``None`` result.

    :param options: the resolved option values.
    """


@hookspec
def gongzhu_card_values(options: Options) -> Mapping[Card | str, int | None]:
    """The scoring cards other than the hearts and the transformer, with their base values.

    Default (the core's): ♠Q (the pig) −100 and ♦J (the sheep) +100.  Every
    plug-in's answer is merged over the core's, base first, then the
    modifiers in order: a plug-in may change a value, add a scoring card (it
    counts in 满贯, is taken under 垫牌 penalties and shows on the score
    sheet) or, answering ``None`` for it, make a card score nothing.  A
    ruleset whose scoring cards or values differ from the core's is scored by
    the pipeline rather than the compiled scorer.

    :param options: the resolved option values.
    """


@hookspec(firstresult=True)
def gongzhu_show_factors(options: Options) -> Mapping[ShowKind, int] | None:
    """The factor a shown card's value is multiplied by, for each kind of show.

    Default: open ×2, first show (首明) ×4, secret sale (暗卖) ×2.  Stops at
    the first non-``None`` result.

    :param options: the resolved option values.
    """


@hookspec
def gongzhu_show_kinds(options: Options) -> Collection[ShowKind]:
    """The kinds of show this plug-in offers.

    The ruleset offers the union of every plug-in's answer (the core adds
    open shows).  Offering :attr:`~gongzhu.actions.ShowKind.FIRST` adds the
    首明 phase after the first card of the deal; offering
    :attr:`~gongzhu.actions.ShowKind.SECRET` lets a seat's show be a secret sale.

    :param options: the resolved option values.
    """


@hookspec(firstresult=True)
def gongzhu_auto_show_threshold(options: Options) -> int | None:
    """Automatic showing: once this many showable cards are shown, the rest are shown too.

    Applied when the show phase ends; the holder has no choice (逼明, and the
    39baobao rule that three shown cards reveal the fourth).  Cards are
    counted copy by copy.  ``None`` (the default) passes the question on; a
    modifier returns ``0`` to turn a base's automatic showing off.  Stops at
    the first non-``None`` result.

    :param options: the resolved option values.
    """


@hookspec
def gongzhu_filter_shows(
    holding: tuple[Card, ...], kind: ShowKind, choices: list[tuple[Card, ...]], options: Options
) -> None:
    """Remove the shows a seat may not make (forced and forbidden shows).

    Called at a phase boundary (a seat's show turn), at most once per distinct
    ``(holding, kind)`` in a ruleset: the result is cached, so the answer must
    depend on the arguments alone.  Removing every choice but one forces that
    show; the core refuses a filter that leaves none.

    :param holding: the showable cards the seat holds, sorted (a card held
        twice, with two decks, appears twice).
    :param kind: the kind of show being decided.
    :param choices: every sub-multiset of ``holding`` (sorted tuples) still
        allowed; edit in place.
    :param options: the resolved option values.
    """


@hookspec
def gongzhu_play_config(config: PlayConfigurator, options: Options) -> None:
    """Set how tricks are played: the fields of the ruleset's :class:`~gongzhu.play.PlayConfig`.

    Called at build time; the answers are compiled into a frozen
    :class:`~gongzhu.play.PlayConfig` before any hand is dealt.  Call
    :meth:`config.set(field, value) <gongzhu.play.PlayConfigurator.set>` for
    ``deck_copies`` (2 for 拱雙豬), ``pairs``, ``pair_beats_unmatched``,
    ``shown_card_lock`` (a :class:`~gongzhu.plugin.ShownCardLock`) and
    ``discard_rule`` (a :class:`~gongzhu.plugin.DiscardRule`), and
    :meth:`config.add_rule(rule) <gongzhu.play.PlayConfigurator.add_rule>`
    for a legality rule of the plug-in's own (a :class:`~gongzhu.play.PlayRule`).

    Every field has one owner: a second plug-in setting the same field is an
    error naming both, unless it passes ``overrides=`` naming the first.
    Modifiers run before the base (the last registered first), so a
    modifier that replaces its base's setting names the base.

    :param config: set fields and add rules on it.
    :param options: the resolved option values.
    """


@hookspec
def gongzhu_play_engines(engines: EngineRegistry) -> None:
    """Register play engines: the code that plays the tricks of a hand.

    Called at build time.  Each :class:`~gongzhu.play.EngineSpec` declares
    the features of a :class:`~gongzhu.play.PlayConfig` it implements; the
    ruleset runs on the fastest engine that implements every feature its
    configuration needs, and is refused (naming the missing features) when
    none does.  The core registers its own engines through this hook, as a
    third party would: ``single-c`` and ``pairs-c`` (when the C accelerator
    was built) and the pure-Python references ``single-python`` and
    ``pairs-python``.

    :param engines: call :meth:`~gongzhu.play.EngineRegistry.add` on it.
    """


@hookspec
def gongzhu_score_stages(stages: StageList, options: Options) -> None:
    """Edit the scoring pipeline: insert, replace or remove stages.

    Called at build time.  The core's pipeline is ``values``, ``full-hearts``,
    ``slam``, ``total``; see :mod:`gongzhu.scoring`.

    :param stages: the pipeline; edit it in place.
    :param options: the resolved option values.
    """


# -- phase boundaries -----------------------------------------------------------


@hookspec(firstresult=True)
def gongzhu_opening_lead(deal: Deal, options: Options) -> OpeningLead | None:
    """Who leads the first trick of a hand dealt ``deal``, and what they must lead.

    Called when a hand is dealt without an explicit ``leader``.  Default: the
    deal's first seat leads any card.  Stops at the first non-``None`` result.

    A rule of the form "the seat dealt the first copy of a card leads (it)" is best
    stated as data, ``gongzhu_opening_lead = hookimpl(opening_lead_rule(LeadRule(card,
    forced=True)))`` (:func:`~gongzhu.plugin.opening_lead_rule`): then
    :func:`gongzhu.simulate` leads each hand in C instead of asking Python.

    :param deal: the deal, in dealing order.
    :param options: the resolved option values.
    """


@hookspec(firstresult=True)
def gongzhu_next_leader(hand: HandState, options: Options) -> int | None:
    """The seat that leads the next hand of a match, given the hand just finished.

    ``None`` (the default) means the next hand uses
    :func:`gongzhu_opening_lead`.  Stops at the first non-``None`` result.

    :param hand: the finished hand.
    :param options: the resolved option values.
    """


@hookspec(firstresult=True)
def gongzhu_normalise(raw: tuple[int, ...], options: Options) -> tuple[int, ...] | None:
    """Turn a hand's raw scores into its result (39baobao: zero-sum, ×12).

    Called once per scored hand.  Default: the raw scores unchanged.  Stops at
    the first non-``None`` result.

    :param raw: the four raw scores.
    :param options: the resolved option values.
    """


@hookspec(firstresult=True)
def gongzhu_match_over(
    totals: tuple[int, ...], hands: int, target: int | None, options: Options
) -> bool | None:
    """Whether a match is over after ``hands`` hands with running ``totals``.

    Called after each hand of a match.  Default: over when a total reaches
    ``+target`` or ``-target``; with no target, never (the caller decides
    how many hands to play).  Stops at the first non-``None`` result.

    :param totals: the running totals after the hand.
    :param hands: how many hands have been played.
    :param target: the match's target (华牌: 1000), or ``None``.
    :param options: the resolved option values.
    """


@hookspec(firstresult=True)
def gongzhu_match_losers(totals: tuple[int, ...], options: Options) -> Sequence[int] | None:
    """The losers (当猪) of a finished match.

    Default: the seats at the lowest total.  Stops at the first non-``None``
    result.

    :param totals: the final totals.
    :param options: the resolved option values.
    """


def hook_names() -> list[str]:
    """The names of every hook specification, in definition order."""
    return [
        name for name, value in globals().items() if name.startswith("gongzhu_") and callable(value)
    ]
