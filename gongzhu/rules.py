"""The :class:`Rules` facade: one plugin manager per ruleset, compiled once.

:func:`load_rules` finds plug-ins by entry-point name (group
``gongzhu.variants``), registers them with the core's defaults in a fresh
:class:`pluggy.PluginManager`, checks the combination, resolves the options
and asks every build-time hook once.  The answers are kept as plain data
(:class:`~gongzhu.scoring.ScoreTable`, card masks, the play engine class), so
playing a hand never goes through plug-in dispatch for a card.
"""

from __future__ import annotations

import importlib.metadata
import itertools
import random
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType, ModuleType
from typing import Any, Final

import pluggy

from . import defaults, engines, hookspecs
from .actions import Show, ShowKind
from .cards import Card, Rank, Suit, parse_cards
from .deal import SEATS, Deal
from .engine import add_copy, cards_of_mask
from .errors import (
    GongzhuError,
    IncompatibleVariants,
    InvalidCard,
    InvalidOption,
    InvalidScoreInput,
    UnknownVariant,
)
from .hand import HandState
from .match import Match
from .play import (
    EngineRegistry,
    EngineSpec,
    PlayConfig,
    PlayConfigurator,
    select_engines,
)
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
from .scorer import Scorer
from .scoring import (
    CompiledScorer,
    ScoreSheet,
    ScoreStage,
    ScoreTable,
    ShowRecord,
    core_stages,
)

__all__ = ["DEFAULT_BASE", "ENTRY_POINT_GROUP", "Rules", "load_rules", "variant_names"]

ENTRY_POINT_GROUP: Final = "gongzhu.variants"
"""The entry-point group plug-ins register in."""

DEFAULT_BASE: Final = "39baobao"
"""The base ruleset used when the names given to :func:`load_rules` contain none."""

_entry_point_cache: dict[str, importlib.metadata.EntryPoint] | None = None


def _entry_points(refresh: bool = False) -> dict[str, importlib.metadata.EntryPoint]:
    global _entry_point_cache
    if _entry_point_cache is None or refresh:
        found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
        _entry_point_cache = {ep.name: ep for ep in found}
    return _entry_point_cache


def variant_names(*, refresh: bool = False) -> list[str]:
    """The entry-point names of every installed variant plug-in, sorted.

    :param refresh: look at the installed distributions again (after
        installing a plug-in while the program runs); this also forgets the
        rulesets :func:`load_rules` keeps.
    """
    if refresh:
        _clear_rules_cache()
    return sorted(_entry_points(refresh))


def _load_plugin(name: str) -> object:
    eps = _entry_points()
    if name not in eps:
        eps = _entry_points(refresh=True)
    if name not in eps:
        raise UnknownVariant(name, eps)
    return eps[name].load()


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
    longer used.  Loading is thread-safe.

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
    key = _cache_key(names, options)
    if key is not None:
        with _cache_lock:
            cached = _rules_cache.get(key)
            if cached is not None:
                _rules_cache.move_to_end(key)
                return cached
    plugins = [(name, _load_plugin(name)) for name in names]
    rules = Rules(plugins, options, default_base=lambda: (DEFAULT_BASE, _load_plugin(DEFAULT_BASE)))
    rules._loaded_by_name = True
    canonical = _cache_key(rules.names, rules.options)
    with _cache_lock:
        if canonical is not None:
            # an equal ruleset still in use wins, so equal specs share one object
            shared = _rules_by_spec.get(canonical)
            if shared is not None:
                rules = shared
            else:
                _rules_by_spec[canonical] = rules
        if key is not None:
            _rules_cache[key] = rules
            _rules_cache.move_to_end(key)
            while len(_rules_cache) > _RULES_CACHE_SIZE:
                _rules_cache.popitem(last=False)
    return rules


def _cache_key(names: Sequence[str], options: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """A hashable key for a ruleset request or spec, or ``None`` for unhashable options.

    Each option value is keyed with its type, so ``x=1`` and ``x=True`` (equal
    in Python) stay apart.
    """
    key = (tuple(names), tuple(sorted((k, type(v), v) for k, v in options.items())))
    try:
        hash(key)
    except TypeError:
        return None
    return key


_RULES_CACHE_SIZE: Final = 64
_cache_lock: Final = threading.Lock()
_rules_cache: OrderedDict[tuple[Any, ...], Rules] = OrderedDict()
"""Request (names as given, options as given) -> ruleset: the last 64 requests, LRU."""
_rules_by_spec: weakref.WeakValueDictionary[tuple[Any, ...], Rules]
_rules_by_spec = weakref.WeakValueDictionary()
"""Resolved spec -> the one ruleset with that spec, while anything uses it."""


def _clear_rules_cache() -> None:
    with _cache_lock:
        _rules_cache.clear()
        _rules_by_spec.clear()


def _info_of(name: str, plugin: object) -> VariantInfo:
    scratch = pluggy.PluginManager(PROJECT)
    scratch.add_hookspecs(hookspecs)
    scratch.register(plugin, name=name)
    infos = scratch.hook.gongzhu_variant_info()
    if len(infos) != 1 or not isinstance(infos[0], VariantInfo):
        raise IncompatibleVariants(
            f"plug-in {name!r} does not describe itself: it must implement "
            "gongzhu_variant_info() returning a VariantInfo"
        )
    info: VariantInfo = infos[0]
    if info.name != name:
        raise IncompatibleVariants(
            f"plug-in registered as {name!r} describes itself as {info.name!r}"
        )
    return info


def _first_result_chain(caller: Any) -> Any:
    """A plain function calling a firstresult hook's implementations in pluggy's order.

    Built once per ruleset for the hooks asked at every hand boundary, so they
    cost a few function calls instead of pluggy's dispatch.  With any wrapper
    registered, the hook caller itself is returned.
    """
    impls = caller.get_hookimpls()
    if any(impl.hookwrapper or impl.wrapper for impl in impls):
        return caller
    chain = [(impl.function, impl.argnames) for impl in reversed(impls)]

    def call(**kwargs: Any) -> Any:
        for function, argnames in chain:
            result = function(*[kwargs[name] for name in argnames])
            if result is not None:
                return result
        return None

    return call


def _subsets(cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    """Every sub-multiset of ``cards`` (sorted), smallest first, each once."""
    seen: dict[tuple[Card, ...], None] = {}
    for size in range(len(cards) + 1):
        for combo in itertools.combinations(sorted(cards), size):
            seen.setdefault(combo)
    return list(seen)


def _cards_by_seat(
    value: Mapping[int, Iterable[Card | str] | str] | None, what: str
) -> dict[int, tuple[Card, ...]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidScoreInput(
            f"{what} must be a mapping seat -> cards, not {type(value).__name__}"
        )
    out: dict[int, tuple[Card, ...]] = {}
    for seat, cards in value.items():
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in range(SEATS):
            raise InvalidScoreInput(f"{what}: seat {seat!r} is not a seat 0-3")
        try:
            out[seat] = parse_cards(cards)
        except InvalidCard as exc:
            raise InvalidScoreInput(f"{what} of seat {seat}: {exc}") from None
    return out


class Rules:
    """A ruleset: a plugin manager with the chosen plug-ins, and what it compiles to.

    Build one with :func:`load_rules` (by entry-point name) or
    :meth:`from_plugins` (plug-in objects, for tests and unpublished plug-ins).
    A ruleset is immutable and may be shared by any number of hands; its
    copies are itself, and it pickles as its :meth:`spec` (rebuilt by
    :func:`load_rules`).
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
            pm.register(plugin, name=name)
        try:
            pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise IncompatibleVariants(f"a plug-in implements an unknown hook: {exc}") from None
        self._pm = pm
        self._loaded_by_name = False  # set by load_rules: rebuildable from spec() alone
        self.variants: tuple[VariantInfo, ...] = tuple(infos)
        """Every loaded plug-in's description, base first."""
        self.names: tuple[str, ...] = tuple(info.name for info in infos)
        """The loaded plug-ins' names, base first, then modifiers in the order given."""

        option_set = OptionSet()
        for impl in reversed(pm.hook.gongzhu_add_options.get_hookimpls()):
            option_set._owner = impl.plugin_name
            impl.function(**{arg: option_set for arg in impl.argnames})
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
            probe = pluggy.PluginManager(PROJECT)
            probe.add_hookspecs(hookspecs)
            probe.register(item)
            infos = probe.hook.gongzhu_variant_info()
            if len(infos) != 1:
                raise IncompatibleVariants(
                    f"plug-in {item!r} does not implement gongzhu_variant_info"
                )
            pairs.append((infos[0].name, item))
        return cls(pairs, options, default_base=lambda: (DEFAULT_BASE, _load_plugin(DEFAULT_BASE)))

    # -- compilation -------------------------------------------------------------------

    def _compile(self, hook: Any) -> None:
        opts = self.options
        self.play_config: PlayConfig = self._compile_play(hook)
        """How tricks are played: the compiled :class:`~gongzhu.play.PlayConfig`."""
        registry = EngineRegistry()
        hook.gongzhu_play_engines(engines=registry)
        self.engines: tuple[EngineSpec, ...] = select_engines(self.play_config, registry)
        """The play engines that can play this ruleset, fastest first."""
        self._engine = self.engines[0]
        copies = self.play_config.deck_copies
        showable = frozenset(parse_cards(hook.gongzhu_showable_cards(options=opts)))
        hearts = dict(hook.gongzhu_heart_values(options=opts))
        if set(hearts) != set(Rank):
            raise IncompatibleVariants("gongzhu_heart_values must give a value for all 13 ranks")
        factors = dict(hook.gongzhu_show_factors(options=opts))
        self.table: ScoreTable = ScoreTable(copies, showable, hearts, factors)
        """The compiled scoring data."""
        if sum(1 for c in showable if c.suit is Suit.HEARTS) > 1:
            raise IncompatibleVariants("at most one heart can be showable")
        kinds: set[ShowKind] = set()
        for answer in hook.gongzhu_show_kinds(options=opts):
            kinds.update(answer)
        self.show_kinds: frozenset[ShowKind] = frozenset(kinds)
        """The kinds of show the ruleset offers."""
        self.show_kind_owners: Mapping[ShowKind, tuple[str, ...]] = self._show_kind_owners(
            hook, kinds
        )
        """Show kind -> the plug-ins offering it, base first, then the modifiers in
        order (the core's ``gongzhu.defaults`` offers open shows), for messages such as
        :func:`~gongzhu.plugin.refuse_show_kinds`."""
        missing = [k.value for k in kinds if k not in factors]
        if missing:
            raise IncompatibleVariants(f"no show factor for show kind(s) {', '.join(missing)}")
        self.auto_show_threshold: int | None = hook.gongzhu_auto_show_threshold(options=opts)
        """Shown-card count that reveals the rest automatically, or ``None``."""
        stages = core_stages()
        hook.gongzhu_score_stages(stages=stages, options=opts)
        self.score_stages: tuple[ScoreStage, ...] = tuple(stages)
        """The scoring pipeline, in order."""
        first_copies = sum(c.bit for c in showable)
        self.showable_mask: int = first_copies | (first_copies << 52 if copies == 2 else 0)
        """Bitmask of the showable cards (every copy of them)."""
        self.first_shows: bool = ShowKind.FIRST in kinds
        """Whether the ruleset has the 首明 phase."""
        self._show_cache: dict[tuple[int, ShowKind], tuple[Show, ...]] = {}
        self._mask_choices: dict[int, tuple[Show, ...]] = {}
        self._hook = hook
        self._opening_lead = _first_result_chain(hook.gongzhu_opening_lead)
        self._normalize = _first_result_chain(hook.gongzhu_normalize)
        self.scorer: Scorer = Scorer(
            self.table,
            self.options,
            self.score_stages,
            self._normalized,
            self.normalisation_note(),
        )
        """Scores hands under this ruleset (:class:`~gongzhu.scorer.Scorer`)."""
        self.decides_match_end: bool = any(
            impl.plugin_name != defaults.NAME for impl in hook.gongzhu_match_over.get_hookimpls()
        )
        """Whether a plug-in answers :func:`~gongzhu.hookspecs.gongzhu_match_over` (by a
        target of its own, a number of hands...); without one, a match ends only at the
        ``target`` or the number of hands it was given."""

    def _show_kind_owners(
        self, hook: Any, kinds: Iterable[ShowKind]
    ) -> Mapping[ShowKind, tuple[str, ...]]:
        """Ask each :func:`~gongzhu.hookspecs.gongzhu_show_kinds` implementation alone
        which kinds it offers: kind -> the offering plug-ins' names, in :attr:`names` order."""
        owners: dict[ShowKind, list[str]] = {kind: [] for kind in kinds}
        args = {"options": self.options}
        for impl in reversed(hook.gongzhu_show_kinds.get_hookimpls()):
            if impl.hookwrapper or impl.wrapper:
                continue
            answer = impl.function(*[args[name] for name in impl.argnames])
            for kind in answer or ():
                names = owners.get(kind)
                if names is not None and impl.plugin_name not in names:
                    names.append(impl.plugin_name)
        rank = {name: at for at, name in enumerate(self.names)}
        return MappingProxyType(
            {
                kind: tuple(sorted(names, key=lambda n: rank.get(n, len(rank))))
                for kind, names in owners.items()
            }
        )

    def _compile_play(self, hook: Any) -> PlayConfig:
        """Ask every :func:`~gongzhu.hookspecs.gongzhu_play_config` once, in pluggy's order."""
        configurator = PlayConfigurator()
        for impl in reversed(hook.gongzhu_play_config.get_hookimpls()):
            configurator._plugin = impl.plugin_name
            args = {"config": configurator, "options": self.options}
            impl.function(*[args[name] for name in impl.argnames])
        return configurator.build()

    @property
    def engine(self) -> EngineSpec:
        """The play engine this ruleset's hands run on: the fastest of :attr:`engines`."""
        return self._engine

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
        """Every :class:`Show` of ``kind`` a seat holding the showable ``holding`` may make.

        The answer goes through :func:`~gongzhu.hookspecs.gongzhu_filter_shows`
        once per distinct holding and is then cached.
        """
        held = tuple(sorted(holding))
        mask = 0
        for card in held:
            mask = add_copy(mask, card.index)
        key = (mask, kind)
        cached = self._show_cache.get(key)
        if cached is not None:
            return cached
        if kind not in self.show_kinds:
            result: tuple[Show, ...] = ()
        else:
            choices = _subsets(sorted(held))
            if kind is ShowKind.SECRET:
                choices = [c for c in choices if c]
            self._hook.gongzhu_filter_shows(
                holding=held, kind=kind, choices=choices, options=self.options
            )
            if not choices and kind is not ShowKind.SECRET:
                raise IncompatibleVariants(
                    f"the show filters of {' + '.join(self.names)} leave no legal "
                    f"{kind.value} show for a seat holding {' '.join(map(str, held))}"
                )
            result = tuple(Show(choice, kind) for choice in choices)
        self._show_cache[key] = result
        return result

    def show_choices_for_mask(self, held: int) -> tuple[Show, ...]:
        """Every show (open, and secret where offered) for a seat holding the showable ``held``.

        ``held`` is a card mask; the answer is cached per mask.
        """
        choices = self._mask_choices.get(held)
        if choices is None:
            holding = cards_of_mask(held)
            choices = self.show_choices(holding, ShowKind.OPEN)
            if ShowKind.SECRET in self.show_kinds:
                choices += self.show_choices(holding, ShowKind.SECRET)
            self._mask_choices[held] = choices
        return choices

    def opening_lead(self, deal: Deal) -> OpeningLead:
        """Who leads the first trick of ``deal`` (asks :func:`~.hookspecs.gongzhu_opening_lead`)."""
        lead: OpeningLead = self._opening_lead(deal=deal, options=self.options)
        return lead

    def next_leader(self, hand: HandState) -> int | None:
        """Who leads the hand after ``hand`` in a match, or ``None`` for the opening-lead rule."""
        seat: int | None = self._hook.gongzhu_next_leader(hand=hand, options=self.options)
        return seat

    def normalize(self, raw: Sequence[int]) -> tuple[int, ...]:
        """The ruleset's hand-result normalisation alone (39baobao: zero-sum, rounded, ×12).

        >>> load_rules("39baobao").normalize((-120, -280, 0, 160))
        (-960, -3516, 960, 3516)
        """
        values = tuple(raw)
        if len(values) != SEATS or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            raise InvalidScoreInput(f"normalize takes four integer raw scores, got {raw!r}")
        result: tuple[int, ...] = self._normalize(raw=values, options=self.options)
        return tuple(result)

    def _normalized(self, raw: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(self._normalize(raw=raw, options=self.options))

    @property
    def compiled_scorer(self) -> CompiledScorer | None:
        """The mask-based scorer, when the pipeline is the core's (else ``None``)."""
        return self.scorer.compiled

    def normalisation_note(self) -> str:
        """How final scores follow from raw ones, as the base plug-in states it."""
        return f"{self.names[0]}: {self.variants[0].normalisation or 'raw scores'}"

    def match_over(self, totals: Sequence[int], hands: int, target: int | None) -> bool:
        """Whether a match with these running ``totals`` is over."""
        return bool(
            self._hook.gongzhu_match_over(
                totals=tuple(totals), hands=hands, target=target, options=self.options
            )
        )

    def match_losers(self, totals: Sequence[int]) -> tuple[int, ...]:
        """The losers (当猪) of a match that ended with ``totals``."""
        return tuple(self._hook.gongzhu_match_losers(totals=tuple(totals), options=self.options))

    # -- playing and scoring -----------------------------------------------------------

    def new_hand(
        self,
        seed: int | None = None,
        *,
        deal: Deal | Sequence[Card | str] | None = None,
        leader: int | None = None,
        engine: str | None = None,
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
        if deal is None:
            if seed is None:
                seed = random.SystemRandom().randrange(2**63)
            deal = Deal.shuffled(seed, self.table.copies)
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
        spec = self.engine if engine is None else self.engine_named(engine)
        return HandState(self, deal, seed=seed, leader=leader, engine=spec)

    def new_match(
        self, seed: int | None = None, *, target: int | None = None, hands: int | None = None
    ) -> Match:
        """Start a match: hand after hand with running totals (:class:`~gongzhu.match.Match`).

        :param seed: the seed every hand's deal derives from.
        :param target: end when a total reaches ``+target`` or ``-target``;
            ``None`` leaves it to the ruleset (华牌: its ``match_target``
            option, 1000; 39baobao has none: give ``hands``).
        :param hands: end after this many hands (39baobao sessions).
        """
        return Match(self, seed=seed, target=target, hands=hands)

    def score(
        self,
        taken: Mapping[int, Iterable[Card | str] | str],
        *,
        shown: Mapping[int, Iterable[Card | str] | str] | None = None,
        first_shown: Mapping[int, Iterable[Card | str] | str] | None = None,
        secret: Mapping[int, Iterable[Card | str] | str] | None = None,
        dealt: Mapping[int, Iterable[Card | str] | str] | None = None,
        shown_taken: Mapping[int, Iterable[Card | str] | str] | None = None,
    ) -> ScoreSheet:
        """Score a finished hand from what each seat took.

        :param taken: seat -> the cards it took (other cards are ignored;
            seats not listed took nothing).
        :param shown: seat -> the cards it showed openly (亮牌).
        :param first_shown: seat -> the card it first-showed (首明).
        :param secret: seat -> the cards it sold secretly (暗卖).
        :param dealt: seat -> the cards it was dealt, for rules that need it (自得).
        :param shown_taken: two decks only: seat -> the shown copies it took
            (each shown copy doubles only itself).  By default each shown copy
            goes, in the order shown, to the lowest seat that took a copy of
            that card not yet given one.
        :raises InvalidScoreInput: a seat outside 0-3, a card taken more often
            than the deck holds it, a show of a card that is not showable or
            that the seat was not dealt, or a show kind the ruleset lacks.
        """
        taken_cards = _cards_by_seat(taken, "taken")
        limit = self.table.copies
        counts: dict[Card, int] = {}
        for cards in taken_cards.values():
            for card in cards:
                counts[card] = counts.get(card, 0) + 1
                if counts[card] > limit:
                    raise InvalidScoreInput(f"{card} is taken more than {limit} time(s)")
        dealt_cards = _cards_by_seat(dealt, "dealt") if dealt is not None else None
        if dealt_cards is not None:
            deal_counts: dict[Card, int] = {}
            for cards in dealt_cards.values():
                for card in cards:
                    deal_counts[card] = deal_counts.get(card, 0) + 1
            if any(n > limit for n in deal_counts.values()):
                raise InvalidScoreInput("dealt: a card is dealt more often than the deck holds it")
        shows: list[ShowRecord] = []
        for kind, value in (
            (ShowKind.OPEN, shown),
            (ShowKind.FIRST, first_shown),
            (ShowKind.SECRET, secret),
        ):
            by_seat = _cards_by_seat(value, kind.value + " shows")
            if by_seat and any(by_seat.values()) and kind not in self.show_kinds:
                raise InvalidScoreInput(f"{' + '.join(self.names)} has no {kind.value} shows")
            for seat, cards in by_seat.items():
                for card in cards:
                    if card not in self.table.showable:
                        raise InvalidScoreInput(
                            f"seat {seat} shows {card}, which is not showable under "
                            f"{' + '.join(self.names)} (showable: "
                            f"{' '.join(map(str, sorted(self.table.showable)))})"
                        )
                    if dealt_cards is not None and cards.count(card) > dealt_cards.get(
                        seat, ()
                    ).count(card):
                        raise InvalidScoreInput(f"seat {seat} shows {card} but was not dealt it")
                    shows.append(ShowRecord(seat, card, kind))
        show_counts: dict[Card, int] = {}
        for record in shows:
            show_counts[record.card] = show_counts.get(record.card, 0) + 1
            if show_counts[record.card] > limit:
                raise InvalidScoreInput(f"{record.card} is shown more than {limit} time(s)")
        per_seat = [taken_cards.get(seat, ()) for seat in range(SEATS)]
        attributed = None
        if limit == 2:
            attributed = self._attribute_shown_copies(per_seat, shows, shown_taken)
        elif shown_taken is not None:
            raise InvalidScoreInput("shown_taken is for two decks, where copies are told apart")
        dealt_by_seat = (
            None if dealt_cards is None else tuple(dealt_cards.get(s, ()) for s in range(SEATS))
        )
        return self.scorer.sheet(per_seat, tuple(shows), dealt_by_seat, attributed)

    def _attribute_shown_copies(
        self,
        taken: Sequence[Sequence[Card]],
        shows: Sequence[ShowRecord],
        shown_taken: Mapping[int, Iterable[Card | str] | str] | None,
    ) -> list[list[ShowRecord]]:
        out: list[list[ShowRecord]] = [[], [], [], []]

        def has_room(seat: int, card: Card) -> bool:
            """Whether ``seat`` took a copy of ``card`` not yet given a shown copy."""
            return list(taken[seat]).count(card) > sum(r.card == card for r in out[seat])

        pending = list(shows)
        if shown_taken is not None:
            for seat, cards in _cards_by_seat(shown_taken, "shown_taken").items():
                for card in cards:
                    record = next((r for r in pending if r.card == card), None)
                    if record is None or not has_room(seat, card):
                        raise InvalidScoreInput(
                            f"shown_taken: seat {seat} cannot have taken a shown {card}"
                        )
                    pending.remove(record)
                    out[seat].append(record)
            return out
        for record in pending:
            taker = next((s for s in range(SEATS) if has_room(s, record.card)), None)
            if taker is not None:
                out[taker].append(record)
        return out

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
        if self._loaded_by_name:
            return True
        eps = _entry_points()
        for name in self.names:
            if name not in eps:
                return False
            try:
                installed = eps[name].load()
            except Exception:  # a broken entry point: not loadable by name
                return False
            if installed is not self._pm.get_plugin(name):
                return False
        return True

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


def _rules_from_spec(names: Sequence[str], options: Mapping[str, Any]) -> Rules:
    """Unpickle a :class:`Rules`: :func:`load_rules` by its spec."""
    return load_rules(*names, **options)
