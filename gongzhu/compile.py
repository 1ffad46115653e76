"""Compiling a ruleset: the build-time hooks asked once, their answers frozen.

:func:`compile_rules` asks every build-time hook of a ruleset's plugin manager
once and returns a :class:`CompiledRules`: the play configuration and the
engines able to play it, the show phases (:class:`~gongzhu.showphase.ShowPhase`),
the score table, the show kinds, the scoring pipeline and its
:class:`~gongzhu.scoring.Scorer`, and plain functions for the hooks asked at
every hand boundary.  :class:`~gongzhu.rules.Rules` keeps it
(:attr:`Rules.compiled <gongzhu.rules.Rules.compiled>`) and copies the fields
hands read to plain attributes of its own.

Where a hook's answers must be told apart by the plug-in that gave them (the
options and play settings each plug-in owns, the show kinds each offers), or
where a hook asked at every hand is worth calling without pluggy's dispatch
(measured: about 1.2 µs a call saved, twice a hand), the hook's
implementations are read in one place, :func:`hook_implementations`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from . import defaults
from .actions import ShowKind
from .cards import TRANSFORMER, Card, Rank, Suit, parse_cards
from .deal import SEATS
from .errors import IncompatibleVariants, InvalidCard, PluginError
from .play import EngineRegistry, EngineSpec, PlayConfig, PlayConfigurator, select_engines
from .plugin import LeadRule, Options, VariantInfo, lead_rule_of
from .scoring import Scorer, ScoreStage, ScoreTable, core_stages
from .showphase import ShowPhase, build_show_phase

__all__ = [
    "CompiledRules",
    "compile_rules",
    "each_answer",
    "first_result_chain",
    "first_result_of",
    "hook_implementations",
]


@attrs.frozen
class CompiledRules:
    """What a ruleset's build-time hooks answered, as plain data."""

    play_config: PlayConfig
    """How tricks are played (:func:`~gongzhu.hookspecs.gongzhu_play_config`)."""
    engines: tuple[EngineSpec, ...]
    """The play engines that can play the ruleset, fastest first."""
    table: ScoreTable
    """The compiled scoring data."""
    show_kinds: frozenset[ShowKind]
    """The kinds of show the ruleset offers."""
    show_kind_owners: Mapping[ShowKind, tuple[str, ...]]
    """Show kind -> the plug-ins offering it, in the ruleset's order."""
    auto_show_threshold: int | None
    """Shown-card count that reveals the rest automatically, or ``None``."""
    score_stages: tuple[ScoreStage, ...]
    """The scoring pipeline, in order."""
    showable_mask: int
    """Bitmask of the showable cards (every copy of them)."""
    first_shows: bool
    """Whether the ruleset has the 首明 phase."""
    show_phase: ShowPhase
    """The show phases, compiled."""
    opening_lead: Callable[..., Any]
    """:func:`~gongzhu.hookspecs.gongzhu_opening_lead` as a plain function (keywords)."""
    lead_rule: LeadRule | None
    """The opening lead as data, when the implementation that answers first is made by
    :func:`~gongzhu.plugin.opening_lead_rule` (it always answers, so it decides every
    deal); ``None`` when a plain function may answer (it is asked per hand)."""
    normalise: Callable[..., Any]
    """:func:`~gongzhu.hookspecs.gongzhu_normalise` as a plain function (keywords)."""
    normalisation_note: str
    """How final scores follow from raw ones, as the base plug-in states it."""
    scorer: Scorer
    """Scores hands under the ruleset."""
    decides_match_end: bool
    """Whether a plug-in answers :func:`~gongzhu.hookspecs.gongzhu_match_over`."""


def compile_rules(
    hook: Any, names: Sequence[str], variants: Sequence[VariantInfo], options: Options
) -> CompiledRules:
    """Ask every build-time hook of ``hook`` (a plugin manager's hook relay) once.

    :param names: the ruleset's plug-in names, base first (orders
        :attr:`CompiledRules.show_kind_owners`).
    :param variants: their descriptions (the base's states the normalisation).
    :param options: the resolved option values.
    :raises IncompatibleVariants: answers that do not fit together (no engine
        for the play configuration, a heart table without 13 ranks, two
        showable hearts, a show kind without a factor).
    """
    play_config = _compile_play(hook, options)
    registry = EngineRegistry()
    hook.gongzhu_play_engines(engines=registry)
    engines = select_engines(play_config, registry)
    copies = play_config.deck_copies
    showable = _showable(hook, options)
    hearts = _heart_values(hook, options)
    factors = _show_factors(hook, options)
    values = _card_values(hook, options)
    table = ScoreTable(copies, showable, hearts, factors, values)
    if sum(1 for c in showable if c.suit is Suit.HEARTS) > 1:
        raise IncompatibleVariants("at most one heart can be showable")
    kinds: set[ShowKind] = set()
    for answer in hook.gongzhu_show_kinds(options=options):
        kinds.update(answer)
    missing = [k.value for k in ShowKind if k in kinds and k not in factors]
    if missing:
        raise IncompatibleVariants(f"no show factor for show kind(s) {', '.join(missing)}")
    threshold = _auto_show(hook, options)

    def filter_shows(holding: tuple[Card, ...], kind: ShowKind, choices: list[Any]) -> None:
        hook.gongzhu_filter_shows(holding=holding, kind=kind, choices=choices, options=options)

    show_phase = build_show_phase(
        copies=copies,
        showable=showable,
        kinds=kinds,
        factors=factors,
        lock=play_config.shown_card_lock,
        auto_show=threshold,
        filter_shows=filter_shows,
        ruleset=" + ".join(names),
    )
    stages = core_stages()
    if _has_wrappers(hook.gongzhu_score_stages):
        hook.gongzhu_score_stages(stages=stages, options=options)
    else:  # each plug-in's edit alone, so that each stage it adds is known to be its own
        given = {"stages": stages, "options": options}
        for name, function, argnames in hook_implementations(hook.gongzhu_score_stages):
            before = {id(stage) for stage in stages}
            function(*[given[argument] for argument in argnames])
            for stage in list(stages):
                if id(stage) not in before and stage.owner is None:
                    stages.replace(stage.name, attrs.evolve(stage, owner=name))
    score_stages = tuple(stages)
    first_copies = sum(c.bit for c in showable)
    normalise = first_result_chain(hook.gongzhu_normalise)
    normalise_raw = first_result_of(hook.gongzhu_normalise, "raw", options=options)

    def normalised(raw: tuple[int, ...]) -> tuple[int, ...]:
        final = tuple(normalise_raw(raw))
        # a plug-in's answer that every score sheet would misread, or records could not
        # replay (a float, a bool: records keep the kinds apart); asked for every hand a
        # search plays out, so checked without a loop
        if len(final) == SEATS and (
            int is type(final[0]) is type(final[1]) is type(final[2]) is type(final[3])
        ):
            return final
        wrong = ValueError(f"it gave {final!r} for the raw scores {raw!r}, not four integer scores")
        answering = first_answering(hook.gongzhu_normalise, {"raw": raw, "options": options})
        raise PluginError(answering, "gongzhu_normalise", wrong)

    note = f"{names[0]}: {variants[0].normalisation or 'raw scores'}"
    return CompiledRules(
        play_config=play_config,
        engines=engines,
        table=table,
        show_kinds=frozenset(kinds),
        show_kind_owners=_show_kind_owners(hook, kinds, names, options),
        auto_show_threshold=threshold,
        score_stages=score_stages,
        showable_mask=first_copies | (first_copies << 52 if copies == 2 else 0),
        first_shows=ShowKind.FIRST in kinds,
        show_phase=show_phase,
        opening_lead=first_result_chain(hook.gongzhu_opening_lead),
        lead_rule=_lead_rule(hook.gongzhu_opening_lead),
        normalise=normalise,
        normalisation_note=note,
        scorer=Scorer(table, options, score_stages, normalised, note),
        decides_match_end=any(
            name != defaults.NAME for name, _, _ in hook_implementations(hook.gongzhu_match_over)
        ),
    )


# -- the plug-ins' values, checked, a bad one named with the plug-in that gave it ----------


def _first_answer(caller: Any, options: Options) -> tuple[str, Any]:
    """A firstresult hook's answer and the plug-in that gave it (pluggy's order)."""
    if _has_wrappers(caller):  # a wrapper may change the answer: the hook's own call
        return "a plug-in", caller(options=options)
    for name, answer in each_answer(caller, lambda _name: {"options": options}):
        if answer is not None:
            return name, answer
    return "no plug-in", None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _showable(hook: Any, options: Options) -> frozenset[Card]:
    name, answer = _first_answer(hook.gongzhu_showable_cards, options)
    try:
        return frozenset(parse_cards(answer))
    except InvalidCard as exc:
        raise IncompatibleVariants(f"{name}: gongzhu_showable_cards: {exc}") from None


def _heart_values(hook: Any, options: Options) -> dict[Rank, int]:
    name, answer = _first_answer(hook.gongzhu_heart_values, options)
    if not isinstance(answer, Mapping) or set(answer) != set(Rank):
        raise IncompatibleVariants(
            f"{name}: gongzhu_heart_values must give a value for all 13 ranks"
        )
    for rank, value in answer.items():
        if not _is_int(value):
            raise IncompatibleVariants(
                f"{name}: gongzhu_heart_values gives the {Rank(rank).letter} of hearts "
                f"{value!r}: a value is an integer"
            )
    return dict(answer)


def _show_factors(hook: Any, options: Options) -> dict[ShowKind, int]:
    name, answer = _first_answer(hook.gongzhu_show_factors, options)
    if not isinstance(answer, Mapping):
        raise IncompatibleVariants(f"{name}: gongzhu_show_factors must map show kinds to factors")
    for kind, factor in answer.items():
        if not isinstance(kind, ShowKind) or not _is_int(factor):
            raise IncompatibleVariants(
                f"{name}: gongzhu_show_factors gives {kind!r} the factor {factor!r}: a show "
                "kind's factor is an integer"
            )
    return dict(answer)


def _card_values(hook: Any, options: Options) -> dict[Card, int]:
    """Every plug-in's card values merged over the core's, the core's first."""
    values: dict[Card, int] = {}
    answers = each_answer(hook.gongzhu_card_values, lambda _name: {"options": options})
    for name, answer in reversed(answers):  # the core's first, then base, then modifiers
        if not isinstance(answer, Mapping):
            raise IncompatibleVariants(f"{name}: gongzhu_card_values must map cards to values")
        for key, value in answer.items():
            try:
                card = key if isinstance(key, Card) else Card.parse(key)
            except InvalidCard as exc:
                raise IncompatibleVariants(f"{name}: gongzhu_card_values: {exc}") from None
            if card.suit is Suit.HEARTS or card == TRANSFORMER:
                raise IncompatibleVariants(
                    f"{name}: gongzhu_card_values: {card} is valued by the heart table or is "
                    "the transformer, not a card value"
                )
            if value is None:
                values.pop(card, None)
            elif not _is_int(value):
                raise IncompatibleVariants(
                    f"{name}: gongzhu_card_values gives {card} {value!r}: a card's value is an "
                    "integer (or None: no value)"
                )
            else:
                values[card] = value
    return values


def _auto_show(hook: Any, options: Options) -> int | None:
    name, answer = _first_answer(hook.gongzhu_auto_show_threshold, options)
    if answer is not None and (not _is_int(answer) or answer < 0):
        raise IncompatibleVariants(
            f"{name}: gongzhu_auto_show_threshold gives {answer!r}: a count of cards (0: none)"
        )
    return answer


def hook_implementations(caller: Any) -> list[tuple[str, Callable[..., Any], tuple[str, ...]]]:
    """A hook's implementations in the order pluggy calls them: ``(plug-in name, function,
    argument names)`` each, wrappers left out.  The one place the core reads them."""
    return [
        (impl.plugin_name, impl.function, tuple(impl.argnames))
        for impl in reversed(caller.get_hookimpls())
        if not (impl.hookwrapper or impl.wrapper)
    ]


def _lead_rule(caller: Any) -> LeadRule | None:
    """The :class:`~gongzhu.plugin.LeadRule` of the opening-lead implementation pluggy
    asks first, when it is one made by :func:`~gongzhu.plugin.opening_lead_rule` and no
    wrapper can change its answer; else ``None``."""
    if _has_wrappers(caller):
        return None
    implementations = hook_implementations(caller)
    return lead_rule_of(implementations[0][1]) if implementations else None


def first_answering(caller: Any, arguments: Mapping[str, Any]) -> str | None:
    """The plug-in whose implementation gives a first-result hook's answer to
    ``arguments``: each is asked in turn, as pluggy asks them, until one answers (or
    raises); for naming a plug-in whose answer is wrong, off the hot path."""
    for name, function, names in hook_implementations(caller):
        try:
            if function(*(arguments[argument] for argument in names)) is not None:
                return name
        except Exception:
            return name
    return None


def _has_wrappers(caller: Any) -> bool:
    return any(impl.hookwrapper or impl.wrapper for impl in caller.get_hookimpls())


def each_answer(
    caller: Any, arguments: Callable[[str], Mapping[str, Any]]
) -> list[tuple[str, Any]]:
    """Ask each implementation of a hook alone, in pluggy's order, each with the arguments
    ``arguments(plug-in name)`` gives it: ``[(plug-in name, answer)]``.

    For the hooks whose answers belong to the plug-in that gave them: the options
    it declares (:class:`~gongzhu.plugin.OptionSet.for_plugin`), the play settings
    it owns, the show kinds it offers.
    """
    out = []
    for name, function, argnames in hook_implementations(caller):
        given = arguments(name)
        out.append((name, function(*[given[arg] for arg in argnames])))
    return out


def first_result_chain(caller: Any) -> Callable[..., Any]:
    """A plain function calling a firstresult hook's implementations in pluggy's order.

    Built once per ruleset for the hooks asked at every hand boundary, so they
    cost a few function calls instead of pluggy's dispatch.  With any wrapper
    registered, the hook caller itself is returned.
    """
    if _has_wrappers(caller):
        return caller
    chain = [(function, argnames) for _name, function, argnames in hook_implementations(caller)]

    def call(**kwargs: Any) -> Any:
        for function, argnames in chain:
            result = function(*[kwargs[name] for name in argnames])
            if result is not None:
                return result
        return None

    return call


def first_result_of(caller: Any, varying: str, **fixed: Any) -> Callable[[Any], Any]:
    """:func:`first_result_chain` for a hook asked with one argument that varies
    (``varying``) and the others fixed for the ruleset (``fixed``, its options):
    a function of that one argument, each implementation's fixed arguments bound
    once, so that a call builds no keyword dictionaries."""
    if _has_wrappers(caller):
        return lambda value: caller(**{varying: value}, **fixed)
    calls: list[Callable[[Any], Any]] = []
    for _name, function, names in hook_implementations(caller):
        if names == (varying,):
            calls.append(function)
        else:  # positional, as pluggy calls (a hook may take positional-only parameters)
            calls.append(_bound(function, names, varying, fixed))
    if len(calls) == 1:
        return calls[0]

    def call(value: Any) -> Any:
        for function in calls:
            result = function(value)
            if result is not None:
                return result
        return None

    return call


def _bound(
    function: Callable[..., Any], names: Sequence[str], varying: str, fixed: Mapping[str, Any]
) -> Callable[[Any], Any]:
    """``function`` as a function of the ``varying`` argument, the others bound to ``fixed``
    and all passed by position in the order of ``names``."""
    if varying not in names:  # an implementation may take fewer arguments than the spec
        args = tuple(fixed[n] for n in names)
        return lambda value: function(*args)
    at = names.index(varying)
    before = tuple(fixed[n] for n in names[:at])
    after = tuple(fixed[n] for n in names[at + 1 :])
    if not before:
        return lambda value: function(value, *after)
    return lambda value: function(*before, value, *after)


def _compile_play(hook: Any, options: Options) -> PlayConfig:
    """Ask every :func:`~gongzhu.hookspecs.gongzhu_play_config` once, in pluggy's order,
    each plug-in setting fields as its own."""
    configurator = PlayConfigurator()
    each_answer(
        hook.gongzhu_play_config,
        lambda name: {"config": configurator.for_plugin(name), "options": options},
    )
    return configurator.build()


def _show_kind_owners(
    hook: Any, kinds: Iterable[ShowKind], names: Sequence[str], options: Options
) -> Mapping[ShowKind, tuple[str, ...]]:
    """Ask each :func:`~gongzhu.hookspecs.gongzhu_show_kinds` implementation alone
    which kinds it offers: kind -> the offering plug-ins' names, in ``names`` order."""
    owners: dict[ShowKind, list[str]] = {kind: [] for kind in ShowKind if kind in kinds}
    for plugin, answer in each_answer(hook.gongzhu_show_kinds, lambda _name: {"options": options}):
        for kind in answer or ():
            found = owners.get(kind)
            if found is not None and plugin not in found:
                found.append(plugin)
    rank = {name: at for at, name in enumerate(names)}
    return MappingProxyType(
        {
            kind: tuple(sorted(found, key=lambda n: rank.get(n, len(rank))))
            for kind, found in owners.items()
        }
    )
