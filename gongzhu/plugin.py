"""What a plug-in author imports: the ``hookimpl`` marker and the values hooks exchange.

A plug-in is a module (or any object) with functions named after the hooks in
:mod:`gongzhu.hookspecs`, each decorated with :data:`hookimpl`, registered in
the ``gongzhu.variants`` entry-point group of its distribution::

    # my_variant.py
    from gongzhu.plugin import VariantInfo, hookimpl

    @hookimpl
    def gongzhu_variant_info():
        return VariantInfo(name="my-variant", title="My variant", title_zh="我的")

    # pyproject.toml
    [project.entry-points."gongzhu.variants"]
    "my-variant" = "my_variant"

A plug-in imports from this module alone: beside its own values it re-exports
what the hooks pass and take, the same objects as at their homes: cards
(:mod:`gongzhu.cards`), card masks (:mod:`gongzhu.masks`), actions and show
kinds, the errors a plug-in raises, the play configuration and play rules
(:mod:`gongzhu.play`), the engine contract, the scoring pipeline's stages and
what they read (:mod:`gongzhu.scoring`), and, for annotations,
:class:`~gongzhu.rules.Rules` and :class:`~gongzhu.hand.HandState`.  The names
of the layers above this one (play, scoring, the ruleset, the hand) load on
first use (PEP 562), so importing this module imports none of them.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs
import pluggy

from .actions import Action, Play, Show, ShowKind
from .cards import (
    HEART_ACE,
    PIG,
    SHEEP,
    TRANSFORMER,
    Card,
    Rank,
    Suit,
    cards_text,
    full_deck,
    parse_cards,
    sort_cards,
)
from .deal import SEATS, Deal
from .errors import GongzhuError, IncompatibleVariants, InvalidOption
from .masks import (
    ALL_CARDS,
    BOTH_COPIES,
    SECOND_COPY,
    SUIT_MASKS,
    CardMask,
    add_copies,
    add_copy,
    both_copies,
    cards_of_mask,
    copies_in,
    indices,
    mask_of,
    plays_of_mask,
    remove_copy,
    subtract_copies,
    suits_of,
)

if TYPE_CHECKING:
    from .hand import HandState
    from .play import (
        ILLEGAL,
        OVER,
        Capability,
        EngineRegistry,
        EngineSetup,
        EngineSpec,
        HandEngine,
        PlayConfig,
        PlayConfigurator,
        PlayMoment,
        PlayRule,
        PlaySituation,
    )
    from .rules import Rules
    from .scoring import (
        CopyFactors,
        Entry,
        MaskScoring,
        ScoreStage,
        ScoringContext,
        SeatTally,
        ShowRecord,
        StageList,
        TakenCopy,
        signed,
    )

__all__ = [
    "ALL_CARDS",
    "BOTH_COPIES",
    "HEART_ACE",
    "ILLEGAL",
    "OVER",
    "PIG",
    "PROJECT",
    "SEATS",
    "SECOND_COPY",
    "SHEEP",
    "SUIT_MASKS",
    "TRANSFORMER",
    "Action",
    "Capability",
    "Card",
    "CardMask",
    "CopyFactors",
    "Deal",
    "DiscardRule",
    "EngineRegistry",
    "EngineSetup",
    "EngineSpec",
    "Entry",
    "GongzhuError",
    "HandEngine",
    "HandState",
    "IncompatibleVariants",
    "InvalidOption",
    "LeadRule",
    "MaskScoring",
    "OpeningLead",
    "Option",
    "OptionSet",
    "Options",
    "Play",
    "PlayConfig",
    "PlayConfigurator",
    "PlayMoment",
    "PlayRule",
    "PlaySituation",
    "Rank",
    "Rules",
    "ScoreStage",
    "ScoringContext",
    "SeatTally",
    "Show",
    "ShowKind",
    "ShowRecord",
    "ShownCardLock",
    "StageList",
    "Suit",
    "TakenCopy",
    "VariantInfo",
    "add_copies",
    "add_copy",
    "both_copies",
    "cards_of_mask",
    "cards_text",
    "copies_in",
    "full_deck",
    "hookimpl",
    "hookspec",
    "indices",
    "lead_rule_of",
    "mask_of",
    "opening_lead_rule",
    "parse_cards",
    "plays_of_mask",
    "refuse_show_kinds",
    "remove_copy",
    "signed",
    "sort_cards",
    "subtract_copies",
    "suits_of",
]

_LAZY: Final[dict[str, str]] = {
    **dict.fromkeys(
        (
            "ILLEGAL",
            "OVER",
            "Capability",
            "EngineRegistry",
            "EngineSetup",
            "EngineSpec",
            "HandEngine",
            "PlayConfig",
            "PlayConfigurator",
            "PlayMoment",
            "PlayRule",
            "PlaySituation",
        ),
        "play",
    ),
    **dict.fromkeys(
        (
            "CopyFactors",
            "Entry",
            "MaskScoring",
            "ScoreStage",
            "ScoringContext",
            "SeatTally",
            "ShowRecord",
            "StageList",
            "TakenCopy",
            "signed",
        ),
        "scoring",
    ),
    "Rules": "rules",
    "HandState": "hand",
}
"""The re-exported names whose modules import this one (:mod:`gongzhu.play`,
:mod:`gongzhu.scoring`...) or stand above it: name -> its module, imported on the name's
first use.  Plug-ins import them at the top as any other name; the core imports them from
their homes."""

if not TYPE_CHECKING:  # type checkers see the imports above, and no catch-all attribute

    def __getattr__(name: str) -> Any:
        module_name = _LAZY.get(name)
        if module_name is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(f"gongzhu.{module_name}"), name)
        globals()[name] = value  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(_LAZY))


PROJECT: Final = "gongzhu"
"""The pluggy project name; hook functions are named ``gongzhu_*``."""

hookspec: Final = pluggy.HookspecMarker(PROJECT)
"""Marker for hook specifications (used by :mod:`gongzhu.hookspecs`)."""

hookimpl: Final = pluggy.HookimplMarker(PROJECT)
"""Marker for hook implementations: decorate a plug-in's ``gongzhu_*`` functions with it."""


def _kinds(kinds: Iterable[ShowKind]) -> frozenset[ShowKind]:
    """ShownCardLock.exempt: any iterable of show kinds, kept as a frozenset."""
    if isinstance(kinds, str):
        raise InvalidOption(f"ShownCardLock.exempt takes show kinds, not a string: {kinds!r}")
    kept = frozenset(kinds)
    for kind in kept:
        if not isinstance(kind, ShowKind):
            raise InvalidOption(f"ShownCardLock.exempt takes show kinds, not {kind!r}")
    return kept


def _kinds_repr(kinds: frozenset[ShowKind]) -> str:
    """A set of show kinds as its repr, in the kinds' definition order (a set of kinds
    iterates in no fixed order from run to run: kinds hash by identity)."""
    inside = ", ".join(repr(kind) for kind in ShowKind if kind in kinds)
    return f"frozenset({{{inside}}})" if inside else "frozenset()"


def _names(names: Iterable[str]) -> frozenset[str]:
    return frozenset(names)


@attrs.frozen
class VariantInfo:
    """How a plug-in describes itself (:func:`~gongzhu.hookspecs.gongzhu_variant_info`).

    :ivar name: the entry-point name the plug-in is registered under.
    :ivar title: a short English title.
    :ivar title_zh: the Chinese name (拱猪 players' own term).
    :ivar base: ``True`` for a base ruleset (exactly one per ruleset),
        ``False`` for a modifier that composes with a base.
    :ivar conflicts: names of plug-ins this one cannot be combined with.
    :ivar summary: one sentence saying what the plug-in changes.
    :ivar normalisation: for a base, how a hand's final result follows from
        the raw scores (shown on score sheets).
    """

    name: str
    title: str
    title_zh: str = ""
    base: bool = False
    conflicts: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    summary: str = ""
    normalisation: str = ""


@attrs.frozen
class Option:
    """One ruleset option a plug-in declares (:func:`~gongzhu.hookspecs.gongzhu_add_options`).

    :ivar name: keyword name used with :func:`gongzhu.load_rules`.
    :ivar default: the value when the user gives none.
    :ivar help: what the option decides (and, for a **(choice)** of the rules,
        why the default goes the way it does).
    :ivar choices: the allowed values, or ``None`` for any value of ``default``'s type.
    :ivar owner: the plug-in that declared it.
    """

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    owner: str = ""

    def check(self, value: Any) -> Any:
        """``value`` as the option keeps it, if it is allowed, else :class:`InvalidOption`.

        A value is kept in the type of the option's default (or of the choice it
        equals): a whole-number float for an integer option becomes that integer
        (``800.0`` is ``800``), so equal rulesets stay one; a ``bool`` is not taken
        for a number, nor a number for a ``bool``.
        """
        owner = f" ({self.owner})" if self.owner else ""
        if self.choices is not None:
            for choice in self.choices:
                kept = _as_type_of(choice, value)
                if kept is not _REFUSED and kept == choice:
                    return choice
            allowed = ", ".join(map(repr, self.choices))
            raise InvalidOption(f"option {self.name}={value!r}{owner}: expected one of {allowed}")
        kept = _as_type_of(self.default, value)
        if kept is _REFUSED:
            kind = type(self.default)
            expected = _KIND_NAMES.get(kind, kind.__name__)
            raise InvalidOption(f"option {self.name}={value!r}{owner}: expected {expected}")
        return kept


_KIND_NAMES: Final = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}
"""How a refused option value's message names the kind expected (as the command line
writes it: JSON's ``true``, not Python's ``True``)."""


_REFUSED: Final = object()


def _as_type_of(example: Any, value: Any) -> Any:
    """``value`` in ``example``'s type, where the two are alike enough (an integral float for
    an int), else :data:`_REFUSED`."""
    kind = type(example)
    if kind is bool or type(value) is bool:
        return value if type(value) is kind else _REFUSED
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind is float and type(value) is int:
        return float(value)
    return value if isinstance(value, kind) else _REFUSED


class OptionSet:
    """The collection plug-ins add their options to while a ruleset is built."""

    def __init__(self) -> None:
        self._options: dict[str, Option] = {}
        self._owner = ""

    def for_plugin(self, name: str) -> OptionSet:
        """This collection, as the plug-in called ``name`` declares into it (the options it
        adds are its own)."""
        view = OptionSet()
        view._options = self._options  # one collection
        view._owner = name
        return view

    def add(
        self,
        name: str,
        default: Any,
        help: str,
        *,
        choices: Iterable[Any] | None = None,
    ) -> None:
        """Declare option ``name`` with its default and help text.

        :raises InvalidOption: when another loaded plug-in declared the same name.
        """
        if name in self._options:
            other = self._options[name].owner
            raise InvalidOption(
                f"option {name!r} is declared by both {other!r} and {self._owner!r}"
            )
        option = Option(
            name, default, help, None if choices is None else tuple(choices), self._owner
        )
        if option.choices is not None and default not in option.choices:
            raise InvalidOption(f"option {name!r}: default {default!r} is not among its choices")
        self._options[name] = option

    def __iter__(self) -> Iterator[Option]:
        return iter(self._options.values())

    def __contains__(self, name: object) -> bool:
        return name in self._options

    def __getitem__(self, name: str) -> Option:
        return self._options[name]


class Options(Mapping[str, Any]):
    """The resolved option values of a ruleset: read-only, also readable as attributes."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self._values = dict(values)

    def __getitem__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:  # a plug-in reading an option nobody declared: say which there are
            known = ", ".join(self._values) or "none"
            raise KeyError(f"{name!r} is no option of this ruleset (options: {known})") from None

    def __contains__(self, name: object) -> bool:
        return name in self._values

    def get(self, name: str, default: Any = None) -> Any:
        """The option's value, or ``default`` where the ruleset has no such option."""
        return self._values.get(name, default)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in sorted(self._values.items()))
        return f"Options({inner})"


@attrs.frozen
class OpeningLead:
    """Who leads a hand's first trick, and the card (if any) they must lead.

    Returned by :func:`~gongzhu.hookspecs.gongzhu_opening_lead`.
    """

    seat: int
    card: Card | None = None


@attrs.frozen
class LeadRule:
    """An opening-lead rule as data, which bulk play reads without asking Python per hand
    (:func:`opening_lead_rule` makes the hook implementation from it).

    :ivar card: ``None``: the deal's first seat leads, any card; else the seat dealt
        the first copy of ``card`` leads.
    :ivar forced: whether that seat must lead ``card``.
    """

    card: Card | None = None
    forced: bool = False

    def lead(self, deal: Deal) -> OpeningLead:
        """The opening lead of ``deal`` under this rule."""
        if self.card is None:
            return OpeningLead(deal.first_seat)
        return OpeningLead(deal.first_receiver(self.card), self.card if self.forced else None)


_LEAD_RULES: Final[weakref.WeakKeyDictionary[Any, LeadRule]] = weakref.WeakKeyDictionary()


def opening_lead_rule(rule: LeadRule) -> Callable[[Deal], OpeningLead]:
    """A :func:`~gongzhu.hookspecs.gongzhu_opening_lead` implementation that answers by
    ``rule`` (decorate it with ``hookimpl``): the rule, stated once as data, which
    :func:`gongzhu.simulate` reads in C where a plain function would be asked once a
    hand.

    >>> gongzhu_opening_lead = hookimpl(opening_lead_rule(LeadRule(Card.parse("2C"), True)))
    """

    def gongzhu_opening_lead(deal: Deal) -> OpeningLead:
        return rule.lead(deal)

    _LEAD_RULES[gongzhu_opening_lead] = rule
    return gongzhu_opening_lead


def lead_rule_of(implementation: Callable[..., Any]) -> LeadRule | None:
    """The :class:`LeadRule` a hook implementation made by :func:`opening_lead_rule`
    answers by, or ``None`` for any other function."""
    try:
        return _LEAD_RULES.get(implementation)
    except TypeError:  # (not weakly referable: no rule)
        return None


@attrs.frozen
class ShownCardLock:
    """The play restriction on shown cards (set as ``shown_card_lock`` through
    :func:`~gongzhu.hookspecs.gongzhu_play_config`).

    :ivar first_trick: a shown card may not be led or followed in the first
        trick led in its suit, unless it is the holder's only card of that suit.
    :ivar discard_before_led: a shown card may not be discarded on another
        suit before its own suit has been led (华牌).
    :ivar exempt: the kinds of show the restriction does not apply to
        (首明 and 暗卖 cards are free by default).
    :ivar stuck: what happens when the restriction leaves a seat no legal
        card: ``"play"`` lifts it for that one play, ``"hand"`` lifts it for
        the stuck seat for the rest of the hand.
    """

    first_trick: bool = True
    discard_before_led: bool = False
    exempt: frozenset[ShowKind] = attrs.field(
        default=frozenset({ShowKind.FIRST, ShowKind.SECRET}), converter=_kinds, repr=_kinds_repr
    )
    stuck: str = attrs.field(default="play")

    @stuck.validator
    def _check_stuck(self, _attribute: object, value: str) -> None:
        if value not in ("play", "hand"):
            raise InvalidOption(f"ShownCardLock.stuck must be 'play' or 'hand', not {value!r}")


@attrs.frozen
class DiscardRule:
    """A rule on what a seat void in the led suit may discard.

    Set as ``discard_rule`` through :func:`~gongzhu.hookspecs.gongzhu_play_config`.

    :ivar preferred: for each led suit, the suits a void seat should discard
        from when it holds any (垫牌规则: the suits of the same colour).
    :ivar strict: ``True``: discarding outside ``preferred`` while holding a
        preferred card is illegal.  ``False``: it is legal, but the offender
        takes the trick's scoring cards as a penalty.
    :ivar offender: with several offenders in one trick, who takes the
        penalty: ``"first"`` or ``"last"`` in play order.
    """

    preferred: Mapping[Suit, frozenset[Suit]]
    strict: bool = False
    offender: str = "first"


def refuse_show_kinds(rules: Any, variants: Sequence[VariantInfo], name: str, rule: str) -> None:
    """Refuse a ruleset that offers 首明 or secret sales beside a rule that fixes every show.

    A public helper for plug-in authors (see :doc:`writing-plugins`), kept in the
    core because plug-ins do not import each other.  For plug-ins such as
    分牌全明 whose :func:`~gongzhu.hookspecs.gongzhu_filter_shows` decides each
    seat's show: call it from :func:`~gongzhu.hookspecs.gongzhu_check_rules`.

    The message names the plug-ins whose
    :func:`~gongzhu.hookspecs.gongzhu_show_kinds` offers the refused kind
    (:attr:`Rules.show_kind_owners <gongzhu.rules.Rules.show_kind_owners>`)::

        fenpai-quanming (分牌全明) fixes every show, so it cannot be combined
        with 暗卖 secret sales (offered by anmai)

    :param rules: the ruleset being built.
    :param variants: its plug-ins.
    :param name: the calling plug-in's name.
    :param rule: how the message names the rule (``"分牌全明"``).
    :raises IncompatibleVariants: naming the plug-ins that offer the other kind.
    """
    clashes = {ShowKind.FIRST: "首明 first shows", ShowKind.SECRET: "暗卖 secret sales"}
    owners_by_kind: Mapping[ShowKind, Sequence[str]] = getattr(rules, "show_kind_owners", {})
    for kind, what in clashes.items():
        if kind in rules.show_kinds:
            owners = [owner for owner in owners_by_kind.get(kind, ()) if owner != name]
            if not owners:  # a ruleset-like object that does not say: name every other plug-in
                owners = [v.name for v in variants if v.name != name]
            raise IncompatibleVariants(
                f"{name} ({rule}) fixes every show, so it cannot be combined with {what} "
                f"(offered by {', '.join(owners)})"
            )
