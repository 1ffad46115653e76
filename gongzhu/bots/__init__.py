"""Bots: anything with ``choose(view) -> action``, found by name in an entry-point group.

A bot sees only a :class:`~gongzhu.view.SeatView` (``hand.view(seat)``),
never the full state.  Every bot, the shipped ones included, is registered
in the entry-point group ``gongzhu.bots`` as a factory called
``factory(seed=seed, **options)``; :func:`make_bot` builds one by name and
:func:`bot_names` lists them.  The shipped bots:

- ``random`` (:class:`RandomBot`) and ``first`` (:class:`FirstLegalBot`);
- ``rules`` (:class:`RulesBot`): rules of thumb from the strategy advice
  of the sources, each a small named function (:data:`PLAY_RULES`);
- ``heuristic`` (:class:`HeuristicBot`): the rules of thumb, their play
  checked by a small search where points are at stake;
- ``search`` (:class:`SearchBot`): determinised Monte-Carlo search over
  deals sampled consistently with the view (:func:`sample_deal`,
  :func:`determinize`).

The package's modules: :mod:`~gongzhu.bots.base` (the interface, ``random``,
``first``, :func:`play_hand`), :mod:`~gongzhu.bots.registry` (bots by name),
:mod:`~gongzhu.bots.sampler` (hidden holdings consistent with a view),
:mod:`~gongzhu.bots.rulebook` (the rules of thumb), :mod:`~gongzhu.bots.heuristic`,
:mod:`~gongzhu.bots.search`,
:mod:`~gongzhu.bots.playout` (its playout policies), :mod:`~gongzhu.bots.objective`
(what a playout is worth) and :mod:`~gongzhu.bots.teams` (the table's format:
who are partners, told to the bots with :func:`tell_format`); everything
public is importable from ``gongzhu.bots``.

Bots that need the ruleset (its card values, discard rule, scoring) take it
as the ``rules`` option: a view does not say which ruleset is being played.

>>> import gongzhu
>>> rules = gongzhu.load_rules()
>>> bots = [make_bot("heuristic", seed=seat, rules=rules) for seat in range(4)]
>>> play_hand(rules.new_hand(seed=3), bots).is_over
True
"""

from __future__ import annotations

from ..implied import (  # what the rules imply of the hidden cards, for the bots too
    Determinizer,
    Inconsistent,
    Knowledge,
    SampledEngine,
    determinize,
    knowledge,
    no_pairs,
    sample_deal,
    sample_holdings,
    unpairable,
    voids,
)
from .base import Bot, FirstLegalBot, RandomBot, play_hand
from .heuristic import CHECK_SAMPLES, HeuristicBot, points_at_stake
from .objective import OBJECTIVES, EngineScorer, Objective, default_objective, seat_objective
from .playout import RolloutPolicy, card_values, greedy_rollout_policy, random_rollout_policy
from .registry import (
    BOTS,
    ENTRY_POINT_GROUP,
    QUICK_BOTS,
    BotRegistry,
    UnknownBot,
    bot_names,
    make_bot,
)
from .rulebook import (
    PLAY_RULES,
    SHOW_RULES,
    Rule,
    RulesBot,
    Situation,
    alike_plays,
    avoid_transformer_with_negatives,
    capture_own_sheep,
    discard_dangerous_cards,
    discard_pig_guards,
    duck_under_when_hearts_in_trick,
    dump_big_hearts_on_discard,
    dump_pig_on_discard,
    dump_transformer_on_loser,
    feed_partner,
    first_show_decision,
    guard_pig_until_safe,
    hunt_pig_with_low_spades,
    lead_low_safe_card,
    natural_following,
    nearest_show,
    quick_show,
    run_full_hearts,
    safe_fallback,
    shed_high_card_when_last_and_clean,
    show_decision,
    take_sheep_when_safe,
    void_short_suit,
    wanted_shows,
)
from .sampler import Inference, infer
from .search import DEFAULT_BUDGET_MS, SHOW_MODES, SearchBot
from .teams import (
    FORMATS,
    PARTNERS,
    SOLO,
    TABLE_FORMATS,
    TableFormat,
    format_of,
    tell_format,
    tell_formats,
)

__all__ = [
    "BOTS",
    "CHECK_SAMPLES",
    "DEFAULT_BUDGET_MS",
    "ENTRY_POINT_GROUP",
    "FORMATS",
    "OBJECTIVES",
    "PARTNERS",
    "PLAY_RULES",
    "QUICK_BOTS",
    "SHOW_MODES",
    "SHOW_RULES",
    "SOLO",
    "TABLE_FORMATS",
    "Bot",
    "BotRegistry",
    "Determinizer",
    "EngineScorer",
    "FirstLegalBot",
    "HeuristicBot",
    "Inconsistent",
    "Inference",
    "Knowledge",
    "Objective",
    "RandomBot",
    "RolloutPolicy",
    "Rule",
    "RulesBot",
    "SampledEngine",
    "SearchBot",
    "Situation",
    "TableFormat",
    "UnknownBot",
    "alike_plays",
    "avoid_transformer_with_negatives",
    "bot_names",
    "capture_own_sheep",
    "card_values",
    "default_objective",
    "determinize",
    "discard_dangerous_cards",
    "discard_pig_guards",
    "duck_under_when_hearts_in_trick",
    "dump_big_hearts_on_discard",
    "dump_pig_on_discard",
    "dump_transformer_on_loser",
    "feed_partner",
    "first_show_decision",
    "format_of",
    "greedy_rollout_policy",
    "guard_pig_until_safe",
    "hunt_pig_with_low_spades",
    "infer",
    "knowledge",
    "lead_low_safe_card",
    "make_bot",
    "natural_following",
    "nearest_show",
    "no_pairs",
    "play_hand",
    "points_at_stake",
    "quick_show",
    "random_rollout_policy",
    "run_full_hearts",
    "safe_fallback",
    "sample_deal",
    "sample_holdings",
    "seat_objective",
    "shed_high_card_when_last_and_clean",
    "show_decision",
    "take_sheep_when_safe",
    "tell_format",
    "tell_formats",
    "unpairable",
    "void_short_suit",
    "voids",
    "wanted_shows",
]
