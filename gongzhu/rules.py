"""The :class:`Rules` facade: one plugin manager per ruleset, compiled once.

A :class:`Rules` registers the chosen plug-ins with the core's defaults in a
fresh :class:`pluggy.PluginManager`, checks the combination, resolves the
options and has every build-time hook asked once (:mod:`gongzhu.compile`).
The answers are kept as plain data (:class:`~gongzhu.scoring.ScoreTable`,
card masks, the play engine), so playing a hand never goes through plug-in
dispatch for a card.

Rulesets are usually loaded by entry-point name with :func:`load_rules`: the
plug-ins are found by :mod:`gongzhu.discovery`, and :mod:`gongzhu.registry`
keeps equal rulesets one object.  A ruleset pickles as its spec and is
rebuilt by :func:`load_rules`.
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import CodeType, ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from . import defaults, engines, hookspecs, registry
from .actions import Show, ShowKind
from .cards import Card
from .compile import (
    CompiledRules,
    compile_rules,
    each_answer,
    first_answering,
    first_result_of,
)
from .deal import SEATS, Deal
from .discovery import DEFAULT_BASE, ENTRY_POINT_GROUP, installed, load_plugin, plugin_names
from .errors import (
    GongzhuError,
    IncompatibleVariants,
    InvalidCard,
    InvalidOption,
    InvalidPlugin,
    InvalidScoreInput,
    PluginError,
    UnknownVariant,
)
from .masks import CardMask, mask_of
from .play import EngineSetup, EngineSpec, HandEngine, PlayConfig
from .plugin import (
    PROJECT,
    DiscardRule,
    OpeningLead,
    Option,
    Options,
    OptionSet,
    ShownCardLock,
    VariantInfo,
)
from .scoring import (
    CardsBySeat,
    CompiledScorer,
    Scorer,
    ScoreSheet,
    ScoreStage,
    ScoreTable,
    ShownCopiesBySeat,
    score_cards,
)
from .showphase import ShowPhase

if TYPE_CHECKING:
    from .hand import HandState
    from .match import Match

__all__ = ["DEFAULT_BASE", "ENTRY_POINT_GROUP", "Rules", "load_rules", "variant_names"]

_HAND_STATE: type[HandState] | None = None
"""gongzhu.hand's HandState once the first hand is dealt: loading rules does not import the
hand state machine, and a hand does not pay for an import statement."""


def _import_hand_state() -> type[HandState]:
    global _HAND_STATE
    from .hand import HandState

    _HAND_STATE = HandState
    return HandState


def _is_seat(seat: object) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS


def _failing_hook(pm: pluggy.PluginManager, exc: BaseException) -> tuple[str | None, str] | None:
    """The plug-in and the hook whose implementation ``exc`` came through (the innermost),
    or ``None`` where it came through none of a variant's (the core's own registrations
    are gongzhu's)."""
    where: dict[CodeType, set[tuple[str, str]]] = {}
    for name, plugin in pm.list_name_plugin():
        if name in (defaults.NAME, engines.NAME):
            continue
        for caller in pm.get_hookcallers(plugin) or ():
            for impl in caller.get_hookimpls():
                function = getattr(impl.function, "__func__", impl.function)
                code = getattr(function, "__code__", None)
                if impl.plugin is plugin and code is not None:
                    where.setdefault(code, set()).add((name, caller.name))
    found = None
    for frame, _line in traceback.walk_tb(exc.__traceback__):
        seen = where.get(frame.f_code)
        if seen is not None:  # code two plug-ins share names neither (but the hook)
            found = next(iter(seen)) if len(seen) == 1 else (None, next(iter(seen))[1])
    return found


def _register(pm: pluggy.PluginManager, plugin: object, name: str | None = None) -> None:
    """Register ``plugin``; a hook implementation that does not fit its specification is
    refused naming the plug-in (pluggy names an unnamed one by a number)."""
    try:
        pm.register(plugin, name=name)
    except pluggy.PluginValidationError as exc:
        who = name or getattr(plugin, "__name__", None) or type(plugin).__name__
        detail = str(exc).split("\n", 1)[-1].replace("\n", "; ")
        raise InvalidPlugin(f"plug-in {who!r} does not fit gongzhu's hooks: {detail}") from None


def _described(plugin: object, name: str | None = None) -> VariantInfo:
    """What ``plugin`` says of itself (registered as ``name``, or anonymously).

    :raises IncompatibleVariants: it gives no :class:`VariantInfo`, or more than one.
    """
    scratch = pluggy.PluginManager(PROJECT)
    scratch.add_hookspecs(hookspecs)
    _register(scratch, plugin, name)
    try:
        infos = scratch.hook.gongzhu_variant_info()
    except GongzhuError:
        raise
    except Exception as exc:
        raise PluginError(name, "gongzhu_variant_info", exc) from exc
    if len(infos) != 1 or not isinstance(infos[0], VariantInfo):
        raise InvalidPlugin(
            f"plug-in {plugin if name is None else name!r} does not describe itself: it must "
            "implement gongzhu_variant_info() returning a VariantInfo"
        )
    info: VariantInfo = infos[0]
    return info


def _info_of(name: str, plugin: object) -> VariantInfo:
    info = _described(plugin, name)
    if info.name != name:
        raise InvalidPlugin(f"plug-in registered as {name!r} describes itself as {info.name!r}")
    return info


def _default_base() -> tuple[str, object]:
    return DEFAULT_BASE, load_plugin(DEFAULT_BASE)


def variant_names(*, refresh: bool = False) -> list[str]:
    """The entry-point names of every installed variant plug-in, sorted.

    :param refresh: look at the installed distributions again (after
        installing a plug-in while the program runs); this also forgets the
        rulesets :func:`load_rules` keeps.
    """
    if refresh:
        registry.forget()
    return plugin_names(refresh=refresh)


def load_rules(*names: str, **options: Any) -> Rules:
    """Build a ruleset from plug-ins chosen by entry-point name.

    ``names`` holds at most one base ruleset and any modifiers; without a
    base, :data:`DEFAULT_BASE` (``"39baobao"``) is used.  ``options`` set the
    options the loaded plug-ins declare (:attr:`Rules.option_specs`).

    A ruleset is immutable, so equal rulesets are one object: two calls whose
    rulesets have the same :meth:`Rules.spec` (the base first, the modifiers
    in the order given, every option resolved, defaults included) return the
    same :class:`Rules` while either is in use, however many other rulesets
    were loaded in between.  ``load_rules()``, ``load_rules("39baobao")`` and
    ``load_rules("39baobao", zero_sum="rounded")`` are one object.  The order
    of modifiers is part of the spec (it decides the order hooks run in), so
    ``load_rules("anmai", "biming")`` and ``load_rules("biming", "anmai")``
    are two rulesets.  The last 64 distinct requests are also kept when no
    longer used (:mod:`gongzhu.registry`).  Loading is thread-safe.

    >>> rules = load_rules()
    >>> rules.names
    ('39baobao',)
    >>> rules is load_rules("39baobao")
    True

    :raises UnknownVariant: a name no installed plug-in has (the error lists them).
    :raises IncompatibleVariants: plug-ins that cannot be combined.
    :raises InvalidOption: an option no loaded plug-in declares, or a bad value.
    """
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"variant names are strings, not {type(name).__name__}: {name!r}")
    found: Rules | None = registry.cached(names, options)
    if found is not None:
        return found
    rules = Rules(
        [(name, load_plugin(name)) for name in names], options, default_base=_default_base
    )
    rules._loaded_by_name = True
    return registry.remember((names, options), (rules.names, rules.options), rules)


def _rules_from_spec(names: Sequence[str], options: Mapping[str, Any]) -> Rules:
    """Unpickle a :class:`Rules`: :func:`load_rules` by its spec."""
    return load_rules(*names, **options)


class Rules:
    """A ruleset: a plugin manager with the chosen plug-ins, and what it compiles to.

    Build one with :func:`load_rules` (by entry-point name) or
    :meth:`from_plugins` (plug-in objects, for tests and unpublished plug-ins).
    A ruleset is immutable and may be shared by any number of hands; its
    copies are itself, and it pickles as its :meth:`spec` (rebuilt by
    :func:`load_rules`, see :mod:`gongzhu.registry`).
    """

    def __init__(
        self,
        plugins: Sequence[tuple[str, object]],
        options: Mapping[str, Any] | None = None,
        *,
        default_base: Any = None,
    ) -> None:
        plugins = list(plugins)
        names = [name for name, _ in plugins]
        for name in names:
            if names.count(name) > 1:
                raise IncompatibleVariants(f"variant {name!r} is listed more than once")
        infos = [_info_of(name, plugin) for name, plugin in plugins]
        bases = [info.name for info in infos if info.base]
        if len(bases) > 1:
            raise IncompatibleVariants(
                f"a ruleset has one base, but {' and '.join(map(repr, bases))} are both bases"
            )
        if not bases:
            if default_base is None:
                raise IncompatibleVariants("a ruleset needs a base plug-in; none was given")
            name, plugin = default_base()
            info = _info_of(name, plugin)
            if not info.base:
                raise IncompatibleVariants(f"the default base {name!r} is not a base plug-in")
            plugins.insert(0, (name, plugin))
            infos.insert(0, info)
        else:
            at = next(i for i, info in enumerate(infos) if info.base)
            plugins.insert(0, plugins.pop(at))
            infos.insert(0, infos.pop(at))
        for info in infos:
            clash = info.conflicts.intersection(i.name for i in infos if i is not info)
            if clash:
                raise IncompatibleVariants(
                    f"{info.name!r} cannot be combined with {', '.join(map(repr, sorted(clash)))}"
                )

        pm = pluggy.PluginManager(PROJECT)
        pm.add_hookspecs(hookspecs)
        pm.register(defaults, name=defaults.NAME)
        pm.register(engines, name=engines.NAME)
        for name, plugin in plugins:
            _register(pm, plugin, name)
        try:
            pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise InvalidPlugin(f"a plug-in implements an unknown hook: {exc}") from None
        self._pm = pm
        self._loaded_by_name = False  # set by load_rules: rebuildable from spec() alone
        self.variants: tuple[VariantInfo, ...] = tuple(infos)
        """Every loaded plug-in's description, base first."""
        self.names: tuple[str, ...] = tuple(info.name for info in infos)
        """The loaded plug-ins' names, base first, then modifiers in the order given."""

        self._ask(self._build, pm, options)

    def _build(self, pm: pluggy.PluginManager, options: Mapping[str, Any] | None) -> None:
        """The options, then every build-time hook's answer (:meth:`_compile`), checked."""
        option_set = OptionSet()
        each_answer(
            pm.hook.gongzhu_add_options, lambda name: {"options": option_set.for_plugin(name)}
        )
        self.option_specs: tuple[Option, ...] = tuple(option_set)
        """Every option the loaded plug-ins declare."""
        given = dict(options or {})
        unknown = sorted(set(given) - {o.name for o in self.option_specs})
        if unknown:
            known = ", ".join(o.name for o in self.option_specs) or "none"
            raise InvalidOption(
                f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                f"for {' + '.join(self.names)}; options: {known}"
            )
        self.options: Options = Options(
            {
                o.name: o.check(given[o.name]) if o.name in given else o.default
                for o in self.option_specs
            }
        )
        """The resolved option values."""
        hook = pm.hook
        self._compile(hook)
        hook.gongzhu_check_rules(rules=self, variants=self.variants, options=self.options)

    @classmethod
    def from_plugins(cls, *plugins: object | tuple[str, object], **options: Any) -> Rules:
        """A ruleset from plug-in objects (modules) rather than entry-point names.

        Each plug-in is registered under the name its
        :func:`~gongzhu.hookspecs.gongzhu_variant_info` gives (or pass
        ``(name, plugin)``).  Without a base among them, the default base is
        loaded by entry point, as :func:`load_rules` does.
        """
        pairs: list[tuple[str, object]] = []
        for item in plugins:
            if isinstance(item, tuple):
                pairs.append(item)
                continue
            pairs.append((_described(item).name, item))
        return cls(pairs, options, default_base=_default_base)

    # -- compilation -------------------------------------------------------------------

    def _compile(self, hook: Any) -> None:
        compiled = compile_rules(hook, self.names, self.variants, self.options)
        self.compiled: CompiledRules = compiled
        """Every build-time hook's answer, frozen (:class:`~gongzhu.compile.CompiledRules`)."""
        # the answers hands read, as plain attributes (read per card: no indirection)
        self.play_config: PlayConfig = compiled.play_config
        """How tricks are played: the compiled :class:`~gongzhu.play.PlayConfig`."""
        self.engines: tuple[EngineSpec, ...] = compiled.engines
        """The play engines that can play this ruleset, fastest first."""
        self._engine_spec = compiled.engines[0]
        self.table: ScoreTable = compiled.table
        """The compiled scoring data."""
        self.show_kinds: frozenset[ShowKind] = compiled.show_kinds
        """The kinds of show the ruleset offers."""
        self.show_kind_owners: Mapping[ShowKind, tuple[str, ...]] = compiled.show_kind_owners
        """Show kind -> the plug-ins offering it, base first, then the modifiers in
        order (the core's ``gongzhu.defaults`` offers open shows), for messages such as
        :func:`~gongzhu.plugin.refuse_show_kinds`."""
        self.auto_show_threshold: int | None = compiled.auto_show_threshold
        """Shown-card count that reveals the rest automatically, or ``None``."""
        self.score_stages: tuple[ScoreStage, ...] = compiled.score_stages
        """The scoring pipeline, in order."""
        self.showable_mask: int = compiled.showable_mask
        """Bitmask of the showable cards (every copy of them)."""
        self.first_shows: bool = compiled.first_shows
        """Whether the ruleset has the 首明 phase."""
        self.scorer: Scorer = compiled.scorer
        """Scores hands under this ruleset (:class:`~gongzhu.scoring.Scorer`)."""
        self.decides_match_end: bool = compiled.decides_match_end
        """Whether a plug-in answers :func:`~gongzhu.hookspecs.gongzhu_match_over` (by a
        target of its own, a number of hands...); without one, a match ends only at the
        ``target`` or the number of hands it was given."""
        self.show_phase: ShowPhase = compiled.show_phase
        """The show phases, compiled: every show each holding allows
        (:class:`~gongzhu.showphase.ShowPhase`)."""
        self.engine_setup: EngineSetup = EngineSetup(compiled.play_config, compiled.show_phase)
        """What engines read of the ruleset: :attr:`play_config` and :attr:`show_phase`."""
        self._prepared: dict[str, Any] = {}
        self._hook = hook
        self._lead_of = first_result_of(hook.gongzhu_opening_lead, "deal", options=self.options)

    @property
    def engine_spec(self) -> EngineSpec:
        """The play engine this ruleset's hands run on, as registered: the fastest of
        :attr:`engines`."""
        return self._engine_spec

    def engine_named(self, name: str) -> EngineSpec:
        """The engine called ``name`` among those that can play this ruleset.

        :raises IncompatibleVariants: no such engine can play it.
        """
        for spec in self.engines:
            if spec.name == name:
                return spec
        able = ", ".join(spec.name for spec in self.engines)
        raise IncompatibleVariants(
            f"no play engine {name!r} can play {' + '.join(self.names)} (engines: {able})"
        )

    @property
    def shown_card_lock(self) -> ShownCardLock | None:
        """The play restriction on shown cards, or ``None`` (from :attr:`play_config`)."""
        return self.play_config.shown_card_lock

    @property
    def discard_rule(self) -> DiscardRule | None:
        """The discard constraint (垫牌规则), or ``None`` (from :attr:`play_config`)."""
        return self.play_config.discard_rule

    # -- plug-in questions asked at phase boundaries ----------------------------------

    def show_choices(
        self, holding: Iterable[Card], kind: ShowKind = ShowKind.OPEN
    ) -> tuple[Show, ...]:
        """Every :class:`Show` of ``kind`` a seat holding the showable ``holding`` may make
        (for 首明, ``holding`` is the one first card), from :attr:`show_phase`.

        :raises InvalidCard: ``holding`` holds a card that is not showable, or more
            copies of one than the ruleset's decks.
        """
        held = tuple(sorted(holding))
        phase = self.show_phase
        if kind not in self.show_kinds:
            return ()
        if kind is ShowKind.FIRST:
            if len(held) != 1 or held[0].index not in phase.first:
                raise InvalidCard(f"首明 decides on one showable card, not {held!r}")
            return phase.first_shows_of(held[0].index)
        try:
            mask = mask_of(held)
        except ValueError as exc:
            raise InvalidCard(str(exc)) from None
        if mask not in phase.held:
            raise InvalidCard(
                f"not a holding of showable cards of {' + '.join(self.names)}: "
                + " ".join(map(str, held))
            )
        return tuple(show for show in phase.held_shows(mask) if show.kind is kind)

    def show_choices_for_mask(self, held: CardMask) -> tuple[Show, ...]:
        """Every show (open, and secret where offered) for a seat holding the showable
        cards of card mask ``held`` (the same tuple each time).

        :raises InvalidCard: ``held`` is not a holding of showable cards.
        """
        found = self.show_phase.held.get(held)
        if found is None:
            raise InvalidCard(f"not a holding of showable cards: {held:#x}")
        return self.show_phase.held_shows(held)

    def make_engine(
        self,
        spec: EngineSpec,
        holdings: Sequence[CardMask],
        leader: int,
        forced: CardMask,
        first_seat: int,
        first_cards: Sequence[int],
    ) -> HandEngine:
        """A fresh engine of ``spec`` for one hand (see :class:`~gongzhu.play.HandEngine`).

        What the engine prepares from :attr:`engine_setup` is made once per engine, when
        the ruleset first plays on it; its declared capabilities are checked then too.

        :raises IncompatibleVariants: the engine lacks a capability it declares.
        """
        prepared = self._prepared.get(spec.name)
        if prepared is None:
            setup = self.engine_setup
            made = setup if spec.prepare is None else spec.prepare(setup)
            engine = spec.factory(made, holdings, leader, forced, first_seat, first_cards)
            spec.check(engine)
            self._prepared[spec.name] = made
            return engine
        return spec.factory(prepared, holdings, leader, forced, first_seat, first_cards)

    def opening_lead(self, deal: Deal) -> OpeningLead:
        """Who leads the first trick of ``deal`` (asks :func:`~.hookspecs.gongzhu_opening_lead`).

        :raises PluginError: the plug-in's answer is no :class:`OpeningLead` of a seat 0-3
            (who holds the card it must lead), or its code raised.
        """
        lead = self._ask(self._lead_of, deal)
        if not (
            isinstance(lead, OpeningLead)
            and _is_seat(lead.seat)
            and (lead.card is None or lead.card in deal.holding(lead.seat))
        ):
            raise self._misanswered(
                self._hook.gongzhu_opening_lead,
                lead,
                "an OpeningLead of a seat 0-3 that holds the card it must lead",
                deal=deal,
                options=self.options,
            )
        return lead

    def next_leader(self, hand: HandState) -> int | None:
        """Who leads the hand after ``hand`` in a match, or ``None`` for the opening-lead rule.

        :raises PluginError: the plug-in's answer is no seat 0-3 nor ``None``, or its code
            raised.
        """
        caller = self._hook.gongzhu_next_leader
        seat: int | None = self._ask(caller, hand=hand, options=self.options)
        if seat is not None and not _is_seat(seat):
            raise self._misanswered(
                caller, seat, "a seat 0-3 or None", hand=hand, options=self.options
            )
        return seat

    def _ask(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)``: a hook, its compiled form, or the build that asks
        them; a plug-in's code that raises there is a :class:`PluginError` naming it."""
        try:
            return function(*args, **kwargs)
        except GongzhuError:
            raise
        except Exception as exc:
            raise self._failure(exc) from exc

    def _failure(self, exc: Exception) -> Exception:
        """``exc`` as a :class:`PluginError` naming the plug-in's hook it came through;
        itself where it came through none (a bug of gongzhu's own)."""
        culprit = _failing_hook(self._pm, exc)
        return exc if culprit is None else PluginError(*culprit, exc)

    def _misanswered(
        self, caller: Any, answer: object, wanted: str, **arguments: Any
    ) -> PluginError:
        """The :class:`PluginError` of ``answer`` to the hook ``caller``, which is not
        ``wanted``, naming the plug-in that gave it (the hook is asked again, with
        ``arguments``, one implementation at a time)."""
        wrong = TypeError(f"it answered {answer!r}, not {wanted}")
        return PluginError(first_answering(caller, arguments), caller.name, wrong)

    def normalise(self, raw: Sequence[int]) -> tuple[int, ...]:
        """The ruleset's hand-result normalisation alone (39baobao: zero-sum, rounded, ×12).

        >>> load_rules("39baobao").normalise((-120, -280, 0, 160))
        (-960, -3516, 960, 3516)
        """
        values = tuple(raw)
        if len(values) != SEATS or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            raise InvalidScoreInput(f"normalise takes four integer raw scores, got {raw!r}")
        return self.scorer.normalise(values)

    @property
    def compiled_scorer(self) -> CompiledScorer | None:
        """The mask-based scorer, when the pipeline is the core's (else ``None``)."""
        return self.scorer.compiled

    def normalisation_note(self) -> str:
        """How final scores follow from raw ones, as the base plug-in states it."""
        return self.compiled.normalisation_note

    def match_over(self, totals: Sequence[int], hands: int, target: int | None) -> bool:
        """Whether a match with these running ``totals`` is over.

        :raises PluginError: the plug-in's answer is not ``True``, ``False`` or ``None``
            (``"yes"`` is none of them), or its code raised.
        """
        caller = self._hook.gongzhu_match_over
        arguments = {"totals": tuple(totals), "hands": hands, "target": target}
        over = self._ask(caller, **arguments, options=self.options)
        if not isinstance(over, bool):
            raise self._misanswered(
                caller, over, "True or False", **arguments, options=self.options
            )
        return over

    def match_losers(self, totals: Sequence[int]) -> tuple[int, ...]:
        """The losers (当猪) of a match that ended with ``totals``.

        :raises PluginError: the plug-in's answer is not seats 0-3, or its code raised.
        """
        caller = self._hook.gongzhu_match_losers
        totals = tuple(totals)
        losers = self._ask(caller, totals=totals, options=self.options)
        if not (
            isinstance(losers, Sequence)
            and not isinstance(losers, str)
            and all(_is_seat(seat) for seat in losers)
        ):
            raise self._misanswered(
                caller, losers, "seats 0-3", totals=totals, options=self.options
            )
        return tuple(losers)

    # -- playing and scoring -----------------------------------------------------------

    def new_hand(
        self,
        seed: int | None = None,
        *,
        deal: Deal | Sequence[Card | str] | None = None,
        leader: int | None = None,
        engine: str | None = None,
        first_seat: int = 0,
    ) -> HandState:
        """Deal a hand and return its state, ready for the first decision.

        :param seed: shuffles reproducibly; ``None`` draws a fresh seed (kept
            in the record, so the hand can be replayed exactly).
        :param deal: the cards in dealing order (a :class:`~gongzhu.deal.Deal`
            or a sequence of cards), instead of shuffling.
        :param leader: who leads the first trick, any card (a later hand of a
            match); ``None`` applies the ruleset's opening-lead rule.
        :param engine: the name of the play engine to use (one of
            :attr:`engines`); ``None`` uses :attr:`engine`, the fastest.
        :param first_seat: for a shuffled deal, the seat dealt the first card
            (the dealer's left; 当猪 deals the next match).
        :raises GongzhuError: a seed that is not an integer (a ``bool`` is not
            one here: records keep them apart), or a leader that is not a seat.
        :raises InvalidCard: a deal that is not every card of the ruleset's deck(s).
        :raises IncompatibleVariants: an engine that cannot play the ruleset.
        """
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise GongzhuError(
                f"a seed must be an integer or None, not {type(seed).__name__}: {seed!r}"
            )
        if leader is not None and (
            not isinstance(leader, int) or isinstance(leader, bool) or leader not in range(SEATS)
        ):
            raise GongzhuError(f"leader must be a seat 0-3 or None, not {leader!r}")
        if (
            not isinstance(first_seat, int)
            or isinstance(first_seat, bool)
            or not (0 <= first_seat < SEATS)
        ):
            raise GongzhuError(f"first_seat must be a seat 0-3, not {first_seat!r}")
        holdings = None
        if deal is None:
            if seed is None:
                seed = random.SystemRandom().randrange(2**63)
            deal, holdings = Deal.shuffled_with_masks(seed, self.table.copies, first_seat)
        elif not isinstance(deal, Deal):
            if isinstance(deal, str) or not isinstance(deal, Iterable):
                raise InvalidCard(
                    f"a deal is a Deal or a sequence of cards, not {type(deal).__name__}"
                )
            deal = Deal(tuple(deal))
        if deal.copies != self.table.copies:
            raise InvalidCard(
                f"this ruleset plays with {self.table.copies} deck(s); the deal has {deal.copies}"
            )
        if (  # a hand's seed names its deal (a record replays, a match checks its hands so)
            seed is not None
            and holdings is None
            and deal != Deal.shuffled(seed, self.table.copies, deal.first_seat)
        ):
            raise InvalidCard(
                f"not the deal seed {seed} gives (first card to seat {deal.first_seat})"
            )
        spec = self.engine_spec if engine is None else self.engine_named(engine)
        hand_state = _HAND_STATE or _import_hand_state()
        return hand_state(self, deal, seed=seed, leader=leader, engine=spec, _holdings=holdings)

    def new_match(
        self,
        seed: int | None = None,
        *,
        target: int | None = None,
        hands: int | None = None,
        first_dealer: int = 0,
        leader: int | None = None,
    ) -> Match:
        """Start a match: hand after hand with running totals (:class:`~gongzhu.match.Match`).

        :param seed: the seed every hand's deal derives from.
        :param target: end when a total reaches ``+target`` or ``-target``;
            ``None`` leaves it to the ruleset (华牌: its ``match_target``
            option, 1000; 39baobao has none: give ``hands``).
        :param hands: end after this many hands (39baobao sessions).
        :param first_dealer: the seat dealt the first card of the first hand.
        :param leader: who leads the first hand, any card (``None``: the ruleset's
            opening-lead rule).
        """
        from .match import Match

        return Match(
            self, seed=seed, target=target, hands=hands, first_dealer=first_dealer, leader=leader
        )

    def score(
        self,
        taken: CardsBySeat,
        *,
        shown: CardsBySeat | None = None,
        first_shown: CardsBySeat | None = None,
        secret: CardsBySeat | None = None,
        dealt: CardsBySeat | None = None,
        shown_taken: ShownCopiesBySeat | None = None,
    ) -> ScoreSheet:
        """Score a finished hand from what each seat took.

        :param taken: seat -> the cards it took (other cards are ignored;
            seats not listed took nothing).
        :param shown: seat -> the cards it showed openly (亮牌).
        :param first_shown: seat -> the card it first-showed (首明).
        :param secret: seat -> the cards it sold secretly (暗卖).
        :param dealt: seat -> the cards it was dealt, for rules that need it (自得).
        :param shown_taken: two decks only: seat -> the shown copies it took
            (each shown copy doubles only itself, and counts for 自得 only
            with the seat that showed it).  A copy is named by its card, or,
            where the shown copies of a card differ (shown by two seats, or
            one first-shown and one open), by its
            :class:`~gongzhu.scoring.ShowRecord`.  By default each shown copy
            goes, in the order shown, to the lowest seat that took a copy of
            that card not yet given one.
        :raises InvalidScoreInput: a seat outside 0-3, a card taken more often
            than the deck holds it, a show of a card that is not showable or
            that the seat was not dealt, a show kind the ruleset lacks, or a
            ``shown_taken`` that does not fit (see
            :func:`~gongzhu.scoring.attribute_shown_copies`).
        """
        return score_cards(
            self.scorer,
            self.show_kinds,
            " + ".join(self.names),
            taken,
            shown=shown,
            first_shown=first_shown,
            secret=secret,
            dealt=dealt,
            shown_taken=shown_taken,
        )

    # -- description -------------------------------------------------------------------

    def spec(self) -> dict[str, Any]:
        """What a record stores to rebuild this ruleset: names and option values."""
        return {"variants": list(self.names), "options": dict(self.options)}

    def describe(self) -> str:
        """A one-line description: ``39baobao (拱猪 39baobao rules)``."""
        return " + ".join(f"{i.name} ({i.title_zh or i.title})" for i in self.variants)

    def plugin(self, name: str) -> ModuleType | object:
        """The loaded plug-in object registered under ``name``."""
        plugin = self._pm.get_plugin(name)
        if plugin is None:
            raise UnknownVariant(name, self.names)
        return plugin

    def _loadable(self) -> bool:
        """Whether :func:`load_rules` rebuilds this ruleset from :meth:`spec` alone:
        every plug-in is the object installed under its entry-point name."""
        return self._loaded_by_name or all(
            installed(name, self._pm.get_plugin(name)) for name in self.names
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle a ruleset as its :meth:`spec`; unpickling calls :func:`load_rules`.

        :raises GongzhuError: a ruleset built from plug-in objects
            (:meth:`from_plugins`) that are not installed under their names.
        """
        if not self._loadable():
            raise GongzhuError(
                f"cannot pickle {self!r}: it was built from plug-in objects "
                "(Rules.from_plugins), not installed plug-ins that load_rules can find by name"
            )
        return (_rules_from_spec, (self.names, dict(self.options)))

    def __copy__(self) -> Rules:
        """A ruleset is immutable: its copy is itself."""
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Rules:
        """A ruleset is immutable: its deep copy is itself."""
        return self

    def __repr__(self) -> str:
        args = [repr(n) for n in self.names]
        defaults_ = {o.name: o.default for o in self.option_specs}
        args += [f"{k}={v!r}" for k, v in self.options.items() if defaults_.get(k) != v]
        return f"load_rules({', '.join(args)})"
