"""The play layer: how tricks are played, as a frozen configuration and pluggable engines.

A ruleset compiles, when it is built, one :class:`PlayConfig` from what the
plug-ins set through :func:`~gongzhu.hookspecs.gongzhu_play_config`: how
many decks, whether pairs may be led, the shown-card lock, the discard rule,
and any play rules of a plug-in's own (:class:`PlayRule`).  Every field has
one owner: two plug-ins setting the same field is an error naming both,
unless one declares that it overrides the other.

The configuration names the *features* it needs (:attr:`PlayConfig.features`).
Play engines, registered through
:func:`~gongzhu.hookspecs.gongzhu_play_engines` exactly as a third party's
would be, each declare the features they implement; the ruleset runs on the
fastest engine that implements all of them (:func:`select_engines`), and is
refused, naming the missing features, when none does.

An engine holds the play phase of one hand as integers: each seat's cards as
a *card mask* (bit :attr:`Card.index <gongzhu.cards.Card.index>` for a
card's first copy, bit ``52 + index`` for its second copy with two decks),
and each play as a *play key* (:attr:`Play.key <gongzhu.actions.Play.key>`:
a card index, or ``52 + 52·a + b`` for two cards ``a ≤ b``).  It reports,
for any refused play, which rule refused it (:class:`Refusal`), so the
explanation comes from the code that decides.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

import attrs

from .cards import Card, Suit
from .errors import IncompatibleVariants
from .plugin import DiscardRule, ShownCardLock

if TYPE_CHECKING:
    from .actions import Play
    from .scoring import ShowRecord

__all__ = [
    "FEATURES",
    "ILLEGAL",
    "OVER",
    "EngineRegistry",
    "EngineSpec",
    "PlayConfig",
    "PlayConfigurator",
    "PlayEngine",
    "PlayRule",
    "PlaySituation",
    "Refusal",
    "select_engines",
]

OVER: Final = -1
"""What :meth:`PlayEngine.play` returns once the last card is played."""
ILLEGAL: Final = -2
"""What :meth:`PlayEngine.play` returns for a refused play (nothing changes)."""

FEATURES: Final[dict[str, str]] = {
    "one-deck": "52 cards, 13 to each seat",
    "two-decks": "104 cards, 26 to each seat, identical copies interchangeable",
    "singles": "every play is one card",
    "pairs": "a lead may be an identical pair, followed by two cards (拱雙豬)",
    "shown-card-lock": "the restriction on shown cards (ShownCardLock, every field)",
    "discard-rule-strict": "a discard outside the preferred suits is illegal",
    "discard-rule-penalty": "a wrong discard is legal; its offender takes the trick's points",
    "play-rules": "plug-ins' own PlayRule objects, consulted for every play",
}
"""Every feature a :class:`PlayConfig` may need, with what it means."""

# -- the rule names a Refusal carries ---------------------------------------------------

HOLDING: Final = "holding"
SHAPE: Final = "play-shape"
OPENING_LEAD: Final = "opening-lead"
FOLLOW_SUIT: Final = "follow-suit"
PAIR_FOLLOW: Final = "pair-follow"
SHOWN_CARD_LOCK: Final = "shown-card-lock"
DISCARD_RULE: Final = "discard-rule"


@attrs.frozen
class Refusal:
    """Why an engine refuses a play: the rule, by name, and a sentence for people.

    :ivar rule: ``"holding"`` (the seat lacks the cards), ``"play-shape"``
        (not a play this ruleset has: two cards in single-deck play),
        ``"opening-lead"``, ``"follow-suit"``, ``"pair-follow"``,
        ``"shown-card-lock"``, ``"discard-rule"``, or the
        :attr:`PlayRule.name` of a plug-in's own rule.
    :ivar message: what :class:`~gongzhu.errors.IllegalAction` says.
    """

    rule: str
    message: str


@attrs.frozen
class PlaySituation:
    """What a :class:`PlayRule` sees when it is asked about the seat to move.

    :ivar seat: the seat to move.
    :ivar holding: its cards (card mask).
    :ivar trick: the cards played to the trick under way, in order (empty
        when the seat leads).
    :ivar played: every card played so far in the hand, this trick's
        included (card mask, first copies only: a card played at all; a rule
        that needs earlier tricks only takes :attr:`trick` away).
    :ivar unled_suits: the suits no trick has been led in yet.
    :ivar candidates: the cards still allowed by the rules before this one
        (card mask).
    """

    seat: int
    holding: int
    trick: tuple[Card, ...]
    played: int
    unled_suits: frozenset[Suit]
    candidates: int

    @property
    def hand(self) -> int:
        """Deprecated alias of :attr:`holding`."""
        warnings.warn(
            "PlaySituation.hand is deprecated; use PlaySituation.holding",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.holding

    @property
    def leading(self) -> bool:
        """Whether the seat leads the trick."""
        return not self.trick

    @property
    def led_suit(self) -> Suit | None:
        """The suit led in the trick under way, or ``None`` when the seat leads."""
        return self.trick[0].suit if self.trick else None

    def holds(self, card: Card) -> bool:
        """Whether the seat holds (a copy of) ``card``."""
        return bool(self.holding >> card.index & 1)


@attrs.frozen
class PlayRule:
    """A plug-in's own legality rule, consulted for every play after the core's rules.

    ``refuse`` gets a :class:`PlaySituation` and returns the card mask of
    the cards the seat may not play now (a play is refused when it uses any
    of them; with two decks a refused card is refused in both copies, and a
    second-copy bit counts as its first copy's).  A rule that depends on
    ruleset options is built in :func:`~gongzhu.hookspecs.gongzhu_play_config`,
    which receives them (a closure or a small class).  A rule that would
    leave the seat no legal play lifts for that play (the seat is stuck, so
    the rule gives way).  Rules run in the order
    the plug-ins add them, each seeing what the earlier ones allowed.

    A ruleset with play rules needs the ``play-rules`` feature: it runs on an
    engine that calls Python for every play (the pure-Python engines).

    :ivar name: the rule's name, reported as :attr:`Refusal.rule`.
    :ivar refuse: the rule itself.
    :ivar reason: the sentence a refusal gives; ``{card}`` is replaced by
        the refused card.
    """

    name: str
    refuse: Callable[[PlaySituation], int]
    reason: str


_FIELDS: Final = ("deck_copies", "pairs", "pair_beats_unmatched", "shown_card_lock", "discard_rule")


@attrs.frozen
class PlayConfig:
    """How tricks are played under a ruleset: compiled once, when it is built.

    :ivar deck_copies: 1, or 2 for 拱雙豬.
    :ivar pairs: a lead may be one card or an identical pair; a pair is
        followed by two cards (a pair of the led suit if held, else two of
        the suit, else the one card of the suit and any card, else any two).
    :ivar pair_beats_unmatched: with pairs: in a trick led by a pair, a
        pair of the led suit beats two unmatched cards of it (``False``:
        two unmatched cards beat any pair).
    :ivar shown_card_lock: the restriction on shown cards, or ``None``.
    :ivar discard_rule: the constraint on discards, or ``None``.
    :ivar rules: the plug-ins' own play rules, in order.
    :ivar owners: for each field set by a plug-in, that plug-in's name (and
        ``"rule:NAME"`` for each play rule).
    :ivar lock_flags: derived: the lock as engines read it, ``(first_trick,
        discard_before_led, lifts_for_hand)``, all ``False`` without a lock.
    :ivar discard_flags: derived: the discard rule as engines read it,
        ``(strict, penalty, last_offender)``, all ``False`` without a rule.
    :ivar preferred_discard_masks: derived: per led suit (by
        :class:`~gongzhu.cards.Suit` value), the card mask of the preferred
        discard suits, or ``None`` without a discard rule.
    """

    deck_copies: int = 1
    pairs: bool = False
    pair_beats_unmatched: bool = False
    shown_card_lock: ShownCardLock | None = None
    discard_rule: DiscardRule | None = None
    rules: tuple[PlayRule, ...] = ()
    owners: tuple[tuple[str, str], ...] = attrs.field(default=(), eq=False, repr=False)
    # -- derived once, for the engines (a hand's engine reads them when it is made) --
    lock_flags: tuple[bool, bool, bool] = attrs.field(init=False, eq=False, repr=False)
    discard_flags: tuple[bool, bool, bool] = attrs.field(init=False, eq=False, repr=False)
    preferred_discard_masks: tuple[int, ...] | None = attrs.field(init=False, eq=False, repr=False)

    @lock_flags.default
    def _lock_flags(self) -> tuple[bool, bool, bool]:
        lock = self.shown_card_lock
        if lock is None:
            return (False, False, False)
        return (lock.first_trick, lock.discard_before_led, lock.stuck == "hand")

    @discard_flags.default
    def _discard_flags(self) -> tuple[bool, bool, bool]:
        rule = self.discard_rule
        if rule is None:
            return (False, False, False)
        return (rule.strict, not rule.strict, rule.offender == "last")

    @preferred_discard_masks.default
    def _preferred_discard_masks(self) -> tuple[int, ...] | None:
        rule = self.discard_rule
        if rule is None:
            return None
        return tuple(sum(s.mask for s in rule.preferred.get(Suit(i), ())) for i in range(4))

    @property
    def features(self) -> frozenset[str]:
        """The :data:`FEATURES` an engine must implement to play this configuration."""
        out = {"one-deck" if self.deck_copies == 1 else "two-decks"}
        out.add("pairs" if self.pairs else "singles")
        if self.shown_card_lock is not None:
            out.add("shown-card-lock")
        if self.discard_rule is not None:
            out.add("discard-rule-strict" if self.discard_rule.strict else "discard-rule-penalty")
        if self.rules:
            out.add("play-rules")
        return frozenset(out)

    def owner(self, field: str) -> str | None:
        """The plug-in that set ``field``, or ``None`` when it has its default."""
        return dict(self.owners).get(field)


class PlayConfigurator:
    """What :func:`~gongzhu.hookspecs.gongzhu_play_config` implementations set fields on.

    >>> from gongzhu.plugin import ShownCardLock
    >>> config = PlayConfigurator()
    >>> config._plugin = "base"
    >>> config.set("shown_card_lock", ShownCardLock())
    >>> config._plugin = "strict-tables"
    >>> config.set("shown_card_lock", ShownCardLock(discard_before_led=True))
    Traceback (most recent call last):
    ...
    gongzhu.errors.IncompatibleVariants: play setting 'shown_card_lock' is set by both 'base' and \
'strict-tables'; one of them must declare that it overrides the other (overrides=...)
    """

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        self._owners: dict[str, str] = {}
        self._overrides: dict[str, frozenset[str]] = {}
        self._rules: list[PlayRule] = []
        self._rule_owners: dict[str, str] = {}
        self._plugin = ""

    def set(self, field: str, value: Any, *, overrides: str | Collection[str] = ()) -> None:
        """Set a field of the :class:`PlayConfig`.

        :param field: ``"deck_copies"``, ``"pairs"``, ``"pair_beats_unmatched"``,
            ``"shown_card_lock"`` or ``"discard_rule"``.
        :param value: its value (checked when the configuration is built).
        :param overrides: the plug-in name(s) whose setting of the same field
            this one replaces.  Without it, a second plug-in setting a field
            is an error naming both.
        :raises IncompatibleVariants: an unknown field, or a clash.
        """
        if field not in _FIELDS:
            raise IncompatibleVariants(
                f"{self._plugin or 'a plug-in'} sets unknown play setting {field!r} "
                f"(known: {', '.join(_FIELDS)})"
            )
        mine = frozenset([overrides] if isinstance(overrides, str) else overrides)
        previous = self._owners.get(field)
        if previous is not None and previous not in mine:
            if self._plugin in self._overrides.get(field, frozenset()):
                return  # the earlier setter declared that it overrides this one
            raise IncompatibleVariants(
                f"play setting {field!r} is set by both {previous!r} and {self._plugin!r}; "
                "one of them must declare that it overrides the other (overrides=...)"
            )
        self._values[field] = value
        self._owners[field] = self._plugin
        self._overrides[field] = mine

    def add_rule(self, rule: PlayRule) -> None:
        """Add a play rule of the plug-in's own (see :class:`PlayRule`)."""
        if not isinstance(rule, PlayRule):
            raise IncompatibleVariants(
                f"{self._plugin or 'a plug-in'} adds {rule!r}, which is not a PlayRule"
            )
        owner = self._rule_owners.get(rule.name)
        if owner is not None:
            raise IncompatibleVariants(
                f"play rule {rule.name!r} is added by both {owner!r} and {self._plugin!r}"
            )
        self._rule_owners[rule.name] = self._plugin
        self._rules.append(rule)

    def build(self) -> PlayConfig:
        """The frozen configuration, checked."""
        values = dict(self._values)
        copies = values.get("deck_copies", 1)
        if copies not in (1, 2) or isinstance(copies, bool):
            raise IncompatibleVariants(f"play setting deck_copies must be 1 or 2, not {copies!r}")
        for flag in ("pairs", "pair_beats_unmatched"):
            if not isinstance(values.get(flag, False), bool):
                raise IncompatibleVariants(f"play setting {flag} must be True or False")
        lock = values.get("shown_card_lock")
        if lock is not None and not isinstance(lock, ShownCardLock):
            raise IncompatibleVariants("play setting shown_card_lock must be a ShownCardLock")
        discard = values.get("discard_rule")
        if discard is not None and not isinstance(discard, DiscardRule):
            raise IncompatibleVariants("play setting discard_rule must be a DiscardRule")
        return PlayConfig(
            **values,
            rules=tuple(self._rules),
            owners=tuple(sorted(self._owners.items()))
            + tuple(sorted((f"rule:{name}", owner) for name, owner in self._rule_owners.items())),
        )


@runtime_checkable
class PlayEngine(Protocol):
    """The play phase of one hand: what :class:`~gongzhu.hand.HandState` drives.

    An engine is made by its :attr:`EngineSpec.factory` from the ruleset's
    :class:`PlayConfig`, each seat's dealt cards (card masks), and two lists
    it appends to: the hand's ``history`` (``(seat, Play)`` per play) and
    ``tricks`` (``(leader, keys, winner, taker)`` per finished trick).
    Engines must accept any input without crashing the interpreter: bad
    masks, keys or seats raise :class:`ValueError` (or a
    :class:`~gongzhu.errors.GongzhuError`).

    Two methods are optional, for search bots, and used when present:
    ``greedy_playout(values, random)`` plays to the end with the greedy
    playout policy (see :meth:`HandState.greedy_play_out
    <gongzhu.hand.HandState.greedy_play_out>`), and ``redeal(hands)`` gives
    each seat ``hands[seat]`` (masks) in place of its cards, the same cards
    between the seats and the same count per seat, else :class:`ValueError`
    (:class:`TypeError` for a mask that is not an int), leaving the engine
    unchanged; it must also find again whatever it derived from the seats'
    cards during the trick under way (the shipped one-deck engines: who broke
    the discard rule) and drop any cached legal plays (see
    :meth:`HandState.with_holdings <gongzhu.hand.HandState.with_holdings>`;
    without ``redeal`` the history is replayed).  The bulk path
    (:class:`gongzhu.bulk.RandomHands`) uses two more when present:
    ``quiet_playout(random)``, ``random_playout`` keeping no history, and
    ``random_hand``, a whole hand with its show phases (see :mod:`gongzhu.bulk`).
    """

    @property
    def hands(self) -> Sequence[int]:
        """Each seat's cards now (card masks)."""

    @property
    def taken(self) -> Sequence[int]:
        """Each seat's taken cards (card masks), penalties included."""

    @property
    def trick(self) -> Sequence[int]:
        """The play keys of the trick under way."""

    @property
    def trick_leader(self) -> int:
        """The seat that leads the trick under way."""

    @property
    def seat(self) -> int:
        """The seat to move, or :data:`OVER`."""

    def start(
        self, leader: int, forced: int, locked: Sequence[int], shows: Sequence[ShowRecord]
    ) -> None:
        """Begin the first trick.

        :param leader: the seat that leads.
        :param forced: the card mask of the card the leader must lead, or 0.
        :param locked: per seat, the shown cards the lock applies to (masks).
        :param shows: every shown card, in the order shown.
        """

    def legal(self) -> tuple[Play, ...]:
        """The legal plays of the seat to move, in key order."""

    def play(self, key: int) -> int:
        """Play ``key`` for the seat to move: the next seat, :data:`OVER` or :data:`ILLEGAL`."""

    def refusal(self, play: Play) -> Refusal | None:
        """Why ``play`` is refused now, or ``None`` when it is legal."""

    def copy(self, history: list[Any], tricks: list[Any]) -> PlayEngine:
        """An independent copy appending to ``history`` and ``tricks``."""

    def random_playout(self, random: Callable[[], float]) -> None:
        """Play to the end, each play the ``int(random() * n)``-th of the ``n`` legal ones."""

    def shown_taken(self) -> list[list[ShowRecord]] | None:
        """Per seat, the shown copies it took, where copies make that a question (two decks)."""


def _frozen_features(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen
class EngineSpec:
    """A play engine, as registered through :func:`~gongzhu.hookspecs.gongzhu_play_engines`.

    :ivar name: a unique name (``"single-c"``).
    :ivar factory: ``factory(config, hands, history, tricks)`` returns a
        :class:`PlayEngine`.
    :ivar features: the :data:`FEATURES` it implements.
    :ivar speed: a relative speed; among the engines that can play a
        configuration, the fastest is used.
    :ivar summary: one line for people.
    """

    name: str
    factory: Callable[[PlayConfig, Sequence[int], list[Any], list[Any]], PlayEngine]
    features: frozenset[str] = attrs.field(converter=_frozen_features)
    speed: int = 1
    summary: str = ""

    @features.validator
    def _check_features(self, _attribute: object, value: frozenset[str]) -> None:
        unknown = sorted(value - FEATURES.keys())
        if unknown:
            raise IncompatibleVariants(
                f"engine {self.name!r} declares unknown feature(s) {', '.join(unknown)}"
            )


class EngineRegistry:
    """Where :func:`~gongzhu.hookspecs.gongzhu_play_engines` implementations add engines."""

    def __init__(self) -> None:
        self._engines: dict[str, EngineSpec] = {}

    def add(self, spec: EngineSpec) -> None:
        """Register an engine.

        :raises IncompatibleVariants: another engine has the same name.
        """
        if not isinstance(spec, EngineSpec):
            raise IncompatibleVariants(f"{spec!r} is not an EngineSpec")
        if spec.name in self._engines:
            raise IncompatibleVariants(f"two play engines are named {spec.name!r}")
        self._engines[spec.name] = spec

    def __iter__(self) -> Iterator[EngineSpec]:
        return iter(self._engines.values())

    def __len__(self) -> int:
        return len(self._engines)


def select_engines(config: PlayConfig, engines: Iterable[EngineSpec]) -> tuple[EngineSpec, ...]:
    """The engines that implement every feature ``config`` needs, fastest first.

    :raises IncompatibleVariants: when none does, naming what each lacks.
    """
    engines = list(engines)
    need = config.features
    able = [e for e in engines if need <= e.features]
    if not able:
        closest = min(engines, key=lambda e: (len(need - e.features), -e.speed), default=None)
        missing = sorted(need - closest.features) if closest is not None else sorted(need)
        described = ", ".join(f"{feature}{_set_by(config, feature)}" for feature in missing)
        others = ", ".join(e.name for e in engines) or "none"
        raise IncompatibleVariants(
            f"no play engine can play this ruleset: the closest, "
            f"{closest.name if closest else 'none'}, lacks {described} (engines: {others})"
        )
    able.sort(key=lambda e: -e.speed)
    return tuple(able)


_FIELD_OF: Final = {
    "one-deck": "deck_copies",
    "two-decks": "deck_copies",
    "pairs": "pairs",
    "singles": "pairs",
    "shown-card-lock": "shown_card_lock",
    "discard-rule-strict": "discard_rule",
    "discard-rule-penalty": "discard_rule",
}


def _set_by(config: PlayConfig, feature: str) -> str:
    if feature == "play-rules":
        named = (f"{rule.name} of {config.owner('rule:' + rule.name)}" for rule in config.rules)
        return f" (rules {', '.join(named)})"
    owner = config.owner(_FIELD_OF.get(feature, ""))
    return f" (set by {owner})" if owner else ""
